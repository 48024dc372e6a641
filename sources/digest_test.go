package sources_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/sources"
)

// countingFS counts the files opened through it (stat and directory
// reads pass through uncounted).
type countingFS struct {
	fs.FS
	opens atomic.Int64
}

func (c *countingFS) Open(name string) (fs.File, error) {
	c.opens.Add(1)
	return c.FS.Open(name)
}

func (c *countingFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.FS, name) }

func (c *countingFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(c.FS, name) }

func paths(files []sources.WalkedFile) []string {
	var out []string
	for _, f := range files {
		out = append(out, f.Path)
	}
	return out
}

// A skill's files are every regular file in its folder, nested skills'
// included; symlinks count while they stay inside.
func TestWalkFiles(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "skill")
	for p, c := range map[string]string{
		"SKILL.md":             "---\nname: s\ndescription: d\n---\n",
		"forms.md":             "forms",
		"a.txt":                "a",
		"a/b.txt":              "ab",
		"nested/SKILL.md":      "---\nname: n\ndescription: d\n---\n",
		"nested/ref.md":        "n",
		".git/config":          "x",
		"node_modules/m/i.js":  "x",
		"scripts/run.sh":       "#!/bin/sh\n",
		"scripts/data/big.bin": "\x00\x01\x02",
		"latin1-\xe9.md":       "not UTF-8",
		"dir-\xff/x.md":        "not UTF-8",
	} {
		mkfile(t, filepath.Join(dir, p), c)
	}
	mkfile(t, filepath.Join(base, "outside.txt"), "secret")
	for name, target := range map[string]string{
		"link-in":       "forms.md",
		"link-out":      filepath.Join(base, "outside.txt"),
		"loop":          ".",
		"scripts/up":    "..",
		"link-dir":      "scripts/data",
		"link-dir-out":  base,
		"dangling-link": "nope",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := makeFIFO(filepath.Join(dir, "fifo")); err != nil {
		t.Fatal(err)
	}
	files, truncated, err := sources.WalkFiles(sources.DirFS(dir), nil)
	if err != nil || truncated {
		t.Fatal(err, truncated)
	}
	want := []string{"SKILL.md", "a.txt", "a/b.txt", "forms.md", "link-dir/big.bin", "link-in", "nested/SKILL.md", "nested/ref.md", "scripts/data/big.bin", "scripts/run.sh"}
	if diff := cmp.Diff(want, paths(files)); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if files[1].Size != 1 || files[1].Key.Ino == 0 {
		t.Errorf("a.txt: %+v", files[1])
	}
	// Bounded, and filtered.
	_, truncated, _ = sources.WalkFiles(sources.DirFS(dir), &sources.WalkOptions{MaxFiles: 3})
	if !truncated {
		t.Error("not truncated at 3 files")
	}
	files, _, _ = sources.WalkFiles(sources.DirFS(dir), &sources.WalkOptions{Allow: func(p string, isDir bool) bool {
		return p == "SKILL.md" || p == "scripts" || strings.HasPrefix(p, "scripts/")
	}})
	if diff := cmp.Diff([]string{"SKILL.md", "scripts/data/big.bin", "scripts/run.sh"}, paths(files)); diff != "" {
		t.Errorf("allowed files (-want +got):\n%s", diff)
	}
}

// Digests agree with sha256sum, are read once while a file is unchanged,
// and only the changed file is read again.
// closedFS is a MapFS with one folder that cannot be read.
type closedFS struct {
	fstest.MapFS
	closed string
}

func (c closedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == c.closed {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
	}
	return c.MapFS.ReadDir(name)
}

// A folder that cannot be read is left out of the walk, and told: a
// caller that serves the skill whole must not serve it without it.
func TestWalkFilesTellsUnreadableFolders(t *testing.T) {
	fsys := closedFS{MapFS: fstest.MapFS{
		"SKILL.md":       {Data: []byte("---\nname: x\n---\n")},
		"refs/a.md":      {Data: []byte("a")},
		"closed/b.md":    {Data: []byte("b")},
		"closed/in/c.md": {Data: []byte("c")},
	}, closed: "closed"}
	var told []string
	files, _, err := sources.WalkFiles(fsys, &sources.WalkOptions{Unreadable: func(dir string, err error) {
		if !errors.Is(err, fs.ErrPermission) {
			t.Errorf("%s: %v", dir, err)
		}
		told = append(told, dir)
	}})
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	if err != nil || !slices.Equal(paths, []string{"SKILL.md", "refs/a.md"}) || !slices.Equal(told, []string{"closed"}) {
		t.Errorf("files %v, told %v, err %v; want SKILL.md and refs/a.md, and closed told", paths, told, err)
	}
}

func TestDigests(t *testing.T) {
	sources.LaterClock(t) // the files are not changing as they are read
	dir := t.TempDir()
	mkfile(t, filepath.Join(dir, "SKILL.md"), "---\nname: s\ndescription: d\n---\nbody\r\n")
	mkfile(t, filepath.Join(dir, "bin.dat"), "\x00\xff\xfe binary")
	mkfile(t, filepath.Join(dir, "empty"), "")
	cfs := &countingFS{FS: sources.DirFS(dir)}
	var d sources.Digests
	sums := func() map[string]string {
		t.Helper()
		files, _, err := sources.WalkFiles(cfs, nil)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]string{}
		for _, f := range files {
			sum, size, err := d.Sum(cfs, dir, f)
			if err != nil {
				t.Fatal(err)
			}
			if size != f.Size {
				t.Errorf("%s: size %d, walked %d", f.Path, size, f.Size)
			}
			out[f.Path] = sum.String()
		}
		return out
	}
	first := sums()
	for name, got := range first {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		want := sha256.Sum256(data)
		if got != "sha256:"+hex.EncodeToString(want[:]) {
			t.Errorf("%s: %s", name, got)
		}
	}
	checkWithSha256sum(t, dir, first)
	if n := cfs.opens.Load(); n != 3 {
		t.Errorf("%d files opened for 3 digests", n)
	}
	cfs.opens.Store(0)
	if diff := cmp.Diff(first, sums()); diff != "" || cfs.opens.Load() != 0 {
		t.Errorf("second listing: %d files opened; %s", cfs.opens.Load(), diff)
	}
	mkfile(t, filepath.Join(dir, "bin.dat"), "changed")
	third := sums()
	if n := cfs.opens.Load(); n != 1 {
		t.Errorf("%d files opened after one changed", n)
	}
	if third["bin.dat"] == first["bin.dat"] || third["SKILL.md"] != first["SKILL.md"] {
		t.Errorf("after a change: %v", third)
	}
}

// checkWithSha256sum compares digests with the sha256sum command, where
// there is one.
func checkWithSha256sum(t *testing.T, dir string, sums map[string]string) {
	t.Helper()
	bin, err := exec.LookPath("sha256sum")
	if err != nil {
		t.Logf("no sha256sum here: checked against crypto/sha256 only")
		return
	}
	for name, got := range sums {
		out, err := exec.Command(bin, filepath.Join(dir, name)).Output()
		if err != nil {
			t.Fatal(err)
		}
		if want := "sha256:" + strings.Fields(string(out))[0]; got != want {
			t.Errorf("%s: %s, sha256sum says %s", name, got, want)
		}
	}
}

// The corpus's binary fonts and its largest text files digest as
// sha256sum says.
func TestDigestsCorpus(t *testing.T) {
	dir := filepath.Join(corpus.Dir(t), "anthropics-skills", "skills")
	var d sources.Digests
	for _, skill := range []string{"canvas-design", "claude-api", "theme-factory"} {
		fsys := sources.DirFS(filepath.Join(dir, skill))
		files, truncated, err := sources.WalkFiles(fsys, nil)
		if err != nil || truncated {
			t.Fatal(err, truncated)
		}
		sums := map[string]string{}
		for _, f := range files {
			sum, _, err := d.Sum(fsys, filepath.Join(dir, skill), f)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasSuffix(f.Path, ".ttf") || f.Size > 100<<10 {
				sums[f.Path] = sum.String()
			}
		}
		if len(sums) == 0 {
			t.Errorf("%s: no font or large file", skill)
		}
		checkWithSha256sum(t, filepath.Join(dir, skill), sums)
	}
}
