package sources_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

func mkfile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestListFiles(t *testing.T) {
	dir := t.TempDir()
	mkfile(t, filepath.Join(dir, "SKILL.md"), "x")
	mkfile(t, filepath.Join(dir, "scripts", "run.py"), "x")
	mkfile(t, filepath.Join(dir, "references", "a.md"), "x")
	mkfile(t, filepath.Join(dir, ".git", "HEAD"), "x")
	mkfile(t, filepath.Join(dir, "node_modules", "m", "index.js"), "x")
	mkfile(t, filepath.Join(dir, "nested", "SKILL.md"), "x") // another skill
	mkfile(t, filepath.Join(dir, "nested", "own.md"), "x")
	for _, leftover := range []string{"SKILL.md~", ".SKILL.md.swp", "references/.#a.md", "references/#a.md#", ".DS_Store"} {
		mkfile(t, filepath.Join(dir, leftover), "x") // an editor's, not the skill's
	}
	mkfile(t, filepath.Join(dir, "scripts.md"), "x")
	mkfile(t, filepath.Join(dir, "latin1-\xe9.md"), "x") // not UTF-8: no path reaches it
	mkfile(t, filepath.Join(dir, "dir-\xff", "x.md"), "x")
	mkfile(t, filepath.Join(dir, "back\\slash.md"), "x") // a '\' no path may hold
	mkfile(t, filepath.Join(dir, "dir\\x", "z.md"), "x")
	mkfile(t, filepath.Join(filepath.Dir(dir), "outside.md"), "x")
	// Only regular files, as the source's walk and WalkFiles see them: a
	// link is followed inside the folder, and nothing else is a file.
	for name, target := range map[string]string{
		"link-in":       "scripts.md",
		"link-dir":      "references",
		"link-out":      filepath.Join(filepath.Dir(dir), "outside.md"),
		"loop":          ".",
		"dangling-link": "nope",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := makeFIFO(filepath.Join(dir, "events.fifo")); err != nil {
		t.Fatal(err)
	}
	got, truncated, err := sources.ListFiles(sources.DirFS(dir), "SKILL.md")
	if err != nil || truncated {
		t.Fatal(err, truncated)
	}
	want := []string{"link-dir/a.md", "link-in", "references/a.md", "scripts.md", "scripts/run.py"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDirFSStaysInside(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "skill")
	mkfile(t, filepath.Join(dir, "SKILL.md"), "inside")
	mkfile(t, filepath.Join(base, "secret.txt"), "outside")
	if err := os.Symlink(filepath.Join(base, "secret.txt"), filepath.Join(dir, "leak.txt")); err != nil {
		t.Skip("symlinks not supported:", err)
	}
	fsys := sources.DirFS(dir)
	if b, err := fs.ReadFile(fsys, "SKILL.md"); err != nil || string(b) != "inside" {
		t.Fatalf("read inside: %q %v", b, err)
	}
	if b, err := fs.ReadFile(fsys, "leak.txt"); err == nil {
		t.Errorf("read through a symlink out of the skill folder: %q", b)
	}
	if _, err := fs.ReadFile(fsys, "../secret.txt"); err == nil {
		t.Error("read ../ out of the skill folder")
	}
}

// A symlink that os.Root alone would refuse, though it leads to a file or a
// folder inside the skill (an absolute link, or a relative one that goes
// up past the folder's top and back in), is followed, in every kind of
// read and in walks; one that leads out stays refused as leading out.
func TestDirFSLinksBackInside(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "skill")
	mkfile(t, filepath.Join(dir, "SKILL.md"), "inside")
	mkfile(t, filepath.Join(dir, "forms", "f.md"), "form")
	mkfile(t, filepath.Join(base, "secret.txt"), "outside")
	for link, target := range map[string]string{
		"abs-file.md":    filepath.Join(dir, "forms", "f.md"),
		"abs-dir":        filepath.Join(dir, "forms"),
		"up-and-back.md": filepath.Join("..", "skill", "forms", "f.md"),
		"abs-out.txt":    filepath.Join(base, "secret.txt"),
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skip("symlinks not supported:", err)
		}
	}
	for _, fsys := range []fs.FS{sources.DirFS(dir), pinned(t, sources.DirFS(dir))} {
		for _, name := range []string{"abs-file.md", "abs-dir/f.md", "up-and-back.md"} {
			if b, err := fs.ReadFile(fsys, name); err != nil || string(b) != "form" {
				t.Errorf("read %s: %q %v", name, b, err)
			}
			if b, err := sources.ReadFileLimit(fsys, name, 100); err != nil || string(b) != "form" {
				t.Errorf("ReadFileLimit %s: %q %v", name, b, err)
			}
		}
		if info, err := fs.Stat(fsys, "abs-dir"); err != nil || !info.IsDir() {
			t.Errorf("stat abs-dir: %v %v", info, err)
		}
		if entries, err := fs.ReadDir(fsys, "abs-dir"); err != nil || len(entries) != 1 || entries[0].Name() != "f.md" {
			t.Errorf("read abs-dir: %v %v", entries, err)
		}
		_, err := fs.ReadFile(fsys, "abs-out.txt")
		var pe *sources.PathError
		if err = sources.Confine("abs-out.txt", err); !errors.As(err, &pe) || pe.Rule != sources.RuleOutside {
			t.Errorf("read abs-out.txt: %v; want refused as leading out", err)
		}
	}
	files, _, err := sources.WalkFiles(sources.DirFS(dir), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range files {
		got = append(got, f.Path)
	}
	if diff := cmp.Diff([]string{"SKILL.md", "abs-dir/f.md", "abs-file.md", "forms/f.md", "up-and-back.md"}, got); diff != "" {
		t.Errorf("WalkFiles (-want +got):\n%s", diff)
	}
}

// pinned is fsys held open for the test (sources.Pin).
func pinned(t *testing.T, fsys fs.FS) fs.FS {
	p, done := sources.Pin(fsys)
	t.Cleanup(done)
	return p
}

// ReadBody gives what follows the front matter, read now; a file that no
// longer starts with one is all body, and one whose front matter no longer
// ends is an error.
func TestReadBody(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "s")
	path := filepath.Join(dir, sources.SkillFile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("---\nname: s\ndescription: D.\n---\n# Body\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sk, err := sources.Load(path, sources.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ file, body, err string }{
		{"---\nname: s\ndescription: D.\n---\n# Body\n", "# Body\n", ""},
		{"# Only a body\n", "# Only a body\n", ""},
		{"---\nname: s\n# no end\n", "", "not terminated"},
	} {
		if err := os.WriteFile(path, []byte(tt.file), 0o644); err != nil {
			t.Fatal(err)
		}
		body, err := sources.ReadBody(sk, 1<<20)
		if string(body) != tt.body || (err == nil) != (tt.err == "") || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("%q: got %q, %v; want %q, %q", tt.file, body, err, tt.body, tt.err)
		}
	}
}

// Every list of a skill's files goes 64 folders deep: a file 20 deep is
// listed by both, one 70 deep by neither (a chain of folders thousands
// deep made each skill call walk it whole, in time the square of its
// depth).
func TestListsOfFilesAreBoundedInDepth(t *testing.T) {
	dir := t.TempDir()
	shallow := strings.Repeat("a/", 20) + "ok.md"
	deep := strings.Repeat("b/", 70) + "deep.md"
	sourcetest.WriteFiles(t, dir, map[string]string{"SKILL.md": "---\nname: s\ndescription: d\n---\n", shallow: "ok", deep: "deep"})
	files, truncated, err := sources.ListFiles(sources.DirFS(dir), "SKILL.md")
	if err != nil || truncated || !slices.Equal(files, []string{shallow}) {
		t.Errorf("ListFiles = %v %v %v", files, truncated, err)
	}
	walked, truncated, err := sources.WalkFiles(sources.DirFS(dir), nil)
	var paths []string
	for _, f := range walked {
		paths = append(paths, f.Path)
	}
	if err != nil || truncated || !slices.Equal(paths, []string{"SKILL.md", shallow}) {
		t.Errorf("WalkFiles = %v %v %v", paths, truncated, err)
	}
}
