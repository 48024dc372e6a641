package dirtree_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

func skillMD(name string) string {
	return "---\nname: " + name + "\ndescription: The " + name + " skill.\n---\n# " + name + "\n"
}

// tree writes files (path -> content) under a new temp dir.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	sourcetest.WriteFiles(t, root, files)
	return root
}

func list(t *testing.T, root string, opts *dirtree.Options) *sources.Listing {
	t.Helper()
	l, err := dirtree.New(root, opts).List(context.Background())
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return l
}

func names(l *sources.Listing) []string {
	var out []string
	for _, sk := range l.Skills {
		out = append(out, sk.Ref.String())
	}
	return out
}

func problemRules(l *sources.Listing) []string {
	var out []string
	for _, d := range l.Problems {
		out = append(out, d.Severity.String()+":"+d.Rule)
	}
	return out
}

func TestDiscovery(t *testing.T) {
	root := tree(t, map[string]string{
		"pdf/SKILL.md":                       skillMD("pdf"),
		"pdf/scripts/fill.py":                "print()",
		"pdf/forms/SKILL.md":                 skillMD("forms"), // a skill inside a skill is its own
		"group/deep/er/docx/SKILL.md":        skillMD("docx"),
		".system/skill-creator/SKILL.md":     skillMD("skill-creator"), // dot-folders are searched
		".git/hooks/SKILL.md":                skillMD("git-hidden"),
		"node_modules/pkg/SKILL.md":          skillMD("npm-hidden"),
		"broken/SKILL.md":                    "---\nname: broken\ndescription: [oops\n---\n",
		"nodesc/SKILL.md":                    "---\nname: nodesc\n---\n",
		"notes.md":                           "---\ndescription: not a skill without Learned\n---\n",
		"README.md":                          "# readme",
		"folder-without-skill/references.md": "x",
		"group/deep/er/docx/references/a.md": "x",
		"mismatch-folder/SKILL.md":           skillMD("other-name"),
	})
	l := list(t, root, &dirtree.Options{Name: "test"})
	want := []string{"skill-creator", "docx", "other-name", "pdf", "forms"} // by path
	if diff := cmp.Diff(want, names(l)); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"error:yaml", "error:description-required"}, problemRules(l)); diff != "" {
		t.Errorf("problems (-want +got):\n%s\n%v", diff, l.Problems)
	}
	for _, d := range l.Problems {
		if !strings.HasPrefix(d.Path, root) || !strings.HasSuffix(d.Path, "SKILL.md") {
			t.Errorf("problem %v does not name the skipped file", d)
		}
	}
	for _, sk := range l.Skills {
		if sk.Source != "test" || sk.Scope != sources.ScopeRoot || !filepath.IsAbs(sk.Dir) {
			t.Errorf("skill %s: %+v", sk.Ref, sk)
		}
		if sk.Ref.Name == "other-name" && len(sk.Diagnostics) != 1 {
			t.Errorf("name/folder mismatch not warned: %v", sk.Diagnostics)
		}
	}
}

func TestLearnedNotes(t *testing.T) {
	root := tree(t, map[string]string{
		"deploy.md":         "---\ndescription: How we deploy.\n---\nsteps\n",
		"named.md":          "---\nname: db-tips\ndescription: Database tips.\n---\n",
		"README.md":         "# Not a note: no front matter\n",
		"folder/SKILL.md":   skillMD("folder"),
		"folder/inner.md":   "---\ndescription: inside a skill folder, not a note\n---\n",
		"sub/not-a-note.md": "---\ndescription: too deep\n---\n",
	})
	l := list(t, root, &dirtree.Options{Learned: true})
	got := map[string]sources.Kind{}
	for _, sk := range l.Skills {
		got[sk.Ref.Name] = sk.Kind
	}
	want := map[string]sources.Kind{"deploy": sources.KindLearned, "db-tips": sources.KindLearned, "folder": sources.KindSkill}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(l.Problems) != 0 {
		t.Errorf("problems: %v", l.Problems)
	}
}

// A note that is a link out of the notes' folder is not read, whatever
// it leads to (a look at its head would tell whether a file outside starts
// with front matter, and a read of some files has effects): it is
// refused, saying it is a link.
func TestLearnedNotesLinkedOut(t *testing.T) {
	outside := tree(t, map[string]string{
		"note.md":  "---\ndescription: Outside, with front matter.\n---\n",
		"plain.md": "no front matter\n",
	})
	root := tree(t, map[string]string{"own.md": "---\ndescription: Mine.\n---\n"})
	must(t, os.Symlink(filepath.Join(outside, "note.md"), filepath.Join(root, "l1.md")))
	must(t, os.Symlink(filepath.Join(outside, "plain.md"), filepath.Join(root, "l2.md")))
	l := list(t, root, &dirtree.Options{Learned: true})
	if diff := cmp.Diff([]string{"own"}, names(l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, link := range []string{"l1.md", "l2.md"} {
		p := filepath.Join(root, link)
		if !slices.ContainsFunc(l.Problems, func(d sources.Diagnostic) bool {
			return d.Path == p && strings.Contains(d.Message, "which skillmux does not read")
		}) {
			t.Errorf("no problem says %s is a link out: %v", link, l.Problems)
		}
	}
}

func TestSymlinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	outside := tree(t, map[string]string{"linked-skill/SKILL.md": skillMD("linked-skill")})
	root := tree(t, map[string]string{"own/SKILL.md": skillMD("own")})
	must(t, os.Symlink(filepath.Join(outside, "linked-skill"), filepath.Join(root, "linked-skill")))
	must(t, os.Symlink(root, filepath.Join(root, "own", "loop"))) // points back up: a loop
	must(t, os.Symlink(filepath.Join(root, "nowhere"), filepath.Join(root, "dangling")))
	must(t, os.Symlink(filepath.Join(outside, "linked-skill"), filepath.Join(root, "again"))) // same target twice
	l := list(t, root, nil)
	if diff := cmp.Diff([]string{"linked-skill", "own"}, names(l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestBounds(t *testing.T) {
	root := tree(t, map[string]string{
		"a/SKILL.md":            skillMD("a"),
		"1/2/3/4/deep/SKILL.md": skillMD("deep"),
	})
	l := list(t, root, &dirtree.Options{MaxDepth: 3})
	if diff := cmp.Diff([]string{"a"}, names(l)); diff != "" {
		t.Errorf("depth: (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"warning:max-depth"}, problemRules(l)); diff != "" {
		t.Errorf("depth problems: %s", diff)
	} else if want := filepath.Join(root, "1", "2", "3", "4"); l.Problems[0].Path != want {
		t.Errorf("depth problem names %s, want the first folder not searched, %s", l.Problems[0].Path, want)
	}
	// Deep folders inside a skill hide only nested skills: no warning,
	// in a full walk or in a deferred one.
	inSkill := tree(t, map[string]string{
		"a/SKILL.md":                skillMD("a"),
		"a/assets/1/2/3/4/leaf.txt": "leaf",
	})
	for _, deferred := range []bool{false, true} {
		if l := list(t, inSkill, &dirtree.Options{MaxDepth: 3, Defer: deferred}); len(l.Problems) != 0 {
			t.Errorf("deferred %v: a deep folder inside a skill: %v", deferred, l.Problems)
		}
	}
	// Its file list is left to readers, who list the whole folder: a
	// list the walk cut would leave the deep files out of the skill
	// tool's answer, and every other read of the skill has them.
	if l := list(t, inSkill, &dirtree.Options{MaxDepth: 3}); len(l.Skills) != 1 || l.Skills[0].FileList != nil {
		t.Errorf("a skill with folders deeper than the walk: %+v", l.Skills)
	}
	l = list(t, root, &dirtree.Options{MaxDirs: 2})
	if diff := cmp.Diff([]string{"warning:max-dirs"}, problemRules(l)); diff != "" {
		t.Errorf("dir budget problems: %s", diff)
	}
	// A deferred first walk out of time at once: nothing is walked, and
	// the warning says why. Only that walk is bounded in time: the whole
	// walk that follows serves every skill, and a tree that does not
	// defer is walked whole at once.
	undo := dirtree.DeferAll() // a small tree's first walk is else completed at once
	tr := dirtree.New(root, &dirtree.Options{MaxTime: time.Nanosecond, Defer: true})
	l = relist(t, tr)
	undo()
	if diff := cmp.Diff([]string{"warning:max-time"}, problemRules(l)); diff != "" || len(l.Skills) != 0 {
		t.Errorf("time bound: problems %s, skills %v", diff, names(l))
	} else if !strings.Contains(l.Problems[0].Message, "the first walk stopped after 1ns") {
		t.Errorf("time bound: %s", l.Problems[0].Message)
	}
	whole := list(t, root, nil)
	if l := relist(t, tr); !cmp.Equal(names(whole), names(l)) || len(names(l)) == 0 || len(l.Problems) != len(whole.Problems) {
		t.Errorf("the walk after: %v %v; whole: %v %v", names(l), problemRules(l), names(whole), problemRules(whole))
	}
	if l := list(t, root, &dirtree.Options{MaxTime: time.Nanosecond}); !cmp.Equal(names(whole), names(l)) {
		t.Errorf("a tree that does not defer was cut: %v", names(l))
	}
}

// A root of / meets /proc, /sys and /dev as plain folders: they are not
// walked (one level deep here, so that the test walks little else).
func TestRootOfSlashSkipsKernelFolders(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's folders are Linux's here")
	}
	l := list(t, "/", &dirtree.Options{MaxDepth: 1, MaxTime: time.Minute})
	refused := map[string]bool{}
	for _, p := range l.Problems {
		if p.Rule == "pseudo-fs" {
			refused[p.Path] = true
		}
	}
	for _, dir := range []string{"/proc", "/sys"} {
		if _, err := os.Stat(dir); err == nil && !refused[dir] {
			t.Errorf("%s was walked; problems %v", dir, problemRules(l))
		}
	}
}

func TestMissingRoot(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	l := list(t, missing, nil)
	if len(l.Skills) != 0 || len(l.Problems) != 1 || l.Problems[0].Rule != "root-missing" || l.Problems[0].Path != missing {
		t.Errorf("got %+v", l)
	}
	if l := list(t, missing, &dirtree.Options{Optional: true}); len(l.Problems) != 0 {
		t.Errorf("optional root warned: %v", l.Problems)
	}
	file := filepath.Join(t.TempDir(), "f")
	must(t, os.WriteFile(file, nil, 0o644))
	if l := list(t, file, nil); len(l.Problems) != 1 || l.Problems[0].Rule != "root-not-folder" || l.Problems[0].Path != file {
		t.Errorf("a file as root: %+v", l.Problems)
	}
	// A path that cannot lead to a folder (through a file, too long) is
	// a mistake said as such, not a failure of the source.
	for _, bad := range []string{filepath.Join(file, "x"), filepath.Join(t.TempDir(), strings.Repeat("b", 300))} {
		if l := list(t, bad, nil); len(l.Problems) != 1 || l.Problems[0].Rule != "root-unreachable" || l.Problems[0].Path != bad ||
			!strings.Contains(l.Problems[0].Message, "cannot be reached (") {
			t.Errorf("%.60s: %+v", bad, l.Problems)
		}
	}
	// Such roots keep the Source contract too, cancellation included.
	sourcetest.Run(t, dirtree.New(missing, nil))
	sourcetest.Run(t, dirtree.New(missing, &dirtree.Options{Optional: true}))
	sourcetest.Run(t, dirtree.New(file, nil))
}

func TestConformance(t *testing.T) {
	root := tree(t, map[string]string{
		"a/SKILL.md": skillMD("a"), "b/SKILL.md": skillMD("b"), "b/ref.md": "x",
		"notes.md": "---\ndescription: a note\n---\n",
	})
	sourcetest.Run(t, dirtree.New(root, &dirtree.Options{Name: "conf", Learned: true}))
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestSpecialFilesAreSkipped(t *testing.T) {
	root := tree(t, map[string]string{"ok/SKILL.md": skillMD("ok")})
	os.MkdirAll(filepath.Join(root, "fifo"), 0o755)
	if err := mkfifo(filepath.Join(root, "fifo", "SKILL.md")); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	l := list(t, root, nil) // must not block on the FIFO
	if diff := cmp.Diff([]string{"ok"}, names(l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := sources.Load(filepath.Join(root, "fifo", "SKILL.md"), sources.LoadOptions{}); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("Load of a FIFO: %v", err)
	}
}

// A skill's file list offers what a read of the skill's files can give:
// no FIFO, no link that leads out of the skill folder, and no name that
// is not UTF-8 or holds a '\'.
func TestFileListHasWhatCanBeRead(t *testing.T) {
	root := tree(t, map[string]string{
		"s/SKILL.md":           skillMD("s"),
		"s/refs/guide.md":      "g",
		"s/SKILL.md~":          "an editor's backup",
		"s/refs/.guide.md.swp": "vim's swap file",
		"s/latin1-\xe9.md":     "a name no path can reach",
		"s/dir-\xff/x.md":      "nor one in such a folder",
		"s/dir-\xff/y.md":      "which is one warning",
		"s/back\\slash.md":     "a name no path may hold",
		"s/dir\\x/z.md":        "nor a folder on its way",
		"outside/secret.txt":   "s",
		"outside/more/x.md":    "x",
	})
	must(t, os.Symlink(filepath.Join(root, "outside", "secret.txt"), filepath.Join(root, "s", "secret")))
	must(t, os.Symlink(filepath.Join(root, "outside", "more"), filepath.Join(root, "s", "more")))
	must(t, os.Symlink("refs/guide.md", filepath.Join(root, "s", "guide")))
	hasFIFO := mkfifo(filepath.Join(root, "s", "pipe")) == nil
	l := list(t, root, nil)
	var s *sources.Skill
	for _, sk := range l.Skills {
		if sk.Ref.Name == "s" {
			s = sk
		}
	}
	if s == nil {
		t.Fatalf("skill s not listed: %v", names(l))
	}
	if diff := cmp.Diff([]string{"guide", "refs/guide.md"}, s.FileList); diff != "" {
		t.Errorf("file list (-want +got):\n%s", diff)
	}
	// The files left out for their names are not left out in silence.
	var named []string
	for _, d := range l.Problems {
		if d.Rule == "file-name" {
			named = append(named, strings.TrimPrefix(d.Path, root+"/"))
		}
	}
	slices.Sort(named)
	if diff := cmp.Diff([]string{"s/back\\slash.md", "s/dir-\xff", "s/dir\\x", "s/latin1-\xe9.md"}, named); diff != "" {
		t.Errorf("the warnings of names no path can hold (-want +got):\n%s", diff)
	}
	for _, f := range s.FileList {
		if _, err := fs.ReadFile(s.Files, f); err != nil {
			t.Errorf("listed %s, and its read fails: %v", f, err)
		}
	}
	if !hasFIFO {
		t.Log("no FIFOs here: the FIFO case was not tried")
	}
}

// One real folder is one skill, however many links reach it.
func TestSymlinkInsideTheTreeIsOneSkill(t *testing.T) {
	root := tree(t, map[string]string{"group/real/SKILL.md": skillMD("real")})
	must(t, os.Symlink(filepath.Join(root, "group", "real"), filepath.Join(root, "alias")))
	must(t, os.Symlink(filepath.Join(root, "group"), filepath.Join(root, "a-group-link")))
	l := list(t, root, nil)
	if diff := cmp.Diff([]string{"real"}, names(l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if got := l.Skills[0].Path; got != filepath.Join(root, "group", "real", "SKILL.md") {
		t.Errorf("served from %s, want the path without links", got)
	}
	// No skill shadows itself.
	if len(l.Problems) != 0 {
		t.Errorf("problems: %v", l.Problems)
	}
}

// A link to the root of the file system (or to any ancestor) is a loop,
// and pseudo file systems are never walked.
func TestSymlinkToTheFileSystemRoot(t *testing.T) {
	root := tree(t, map[string]string{"own/SKILL.md": skillMD("own")})
	must(t, os.Symlink("/", filepath.Join(root, "everything")))
	if _, err := os.Stat("/proc/self"); err == nil {
		must(t, os.Symlink("/proc", filepath.Join(root, "proc")))
	}
	l := list(t, root, nil)
	if diff := cmp.Diff([]string{"own"}, names(l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if _, err := os.Stat("/proc/self"); err == nil {
		if l := list(t, "/proc", nil); len(l.Problems) != 1 || l.Problems[0].Rule != "pseudo-fs" {
			t.Errorf("a root in /proc: %v", l.Problems)
		}
		// The link to / holds the root: it is refused as a loop, and says so.
		if diff := cmp.Diff([]string{"warning:link-loop", "warning:pseudo-fs"}, problemRules(l)); diff != "" {
			t.Errorf("a link into /proc: (-want +got):\n%s", diff)
		} else if l.Problems[0].Path != filepath.Join(root, "everything") {
			t.Errorf("the loop is told of at %s", l.Problems[0].Path)
		}
	}
}

func TestSkipAndConvention(t *testing.T) {
	root := tree(t, map[string]string{
		"mine/SKILL.md":            skillMD("mine"),
		".system/builtin/SKILL.md": skillMD("builtin"),
	})
	l := list(t, root, &dirtree.Options{Skip: []string{".system"}, Convention: "~/.codex/skills"})
	if diff := cmp.Diff([]string{"mine"}, names(l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if c := l.Skills[0].Convention; c != "~/.codex/skills" {
		t.Errorf("convention = %q", c)
	}
}

// TestMissedSkillFilesAreReported checks that a skill the walk cannot
// serve is never silent: a skill.md in other letter cases is a warning
// naming the file, and a SKILL.md that links nowhere is skipped with the
// link's target, in a shallow walk and in a deep one.
func TestMissedSkillFilesAreReported(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("needs symlinks and file names that tell cases apart")
	}
	root := tree(t, map[string]string{
		"good/SKILL.md":  skillMD("good"),
		"lower/skill.md": skillMD("lower"),
		"mixed/Skill.md": skillMD("mixed"),
	})
	must(t, os.MkdirAll(filepath.Join(root, "dangling"), 0o755))
	must(t, os.Symlink("moved-away.md", filepath.Join(root, "dangling", "SKILL.md")))
	for _, deep := range []bool{false, true} {
		l := list(t, root, &dirtree.Options{Defer: !deep})
		if diff := cmp.Diff([]string{"good"}, names(l)); diff != "" {
			t.Errorf("deep %v: skills (-want +got):\n%s", deep, diff)
		}
		var got []string
		for _, d := range l.Problems {
			rel, _ := filepath.Rel(root, d.Path)
			got = append(got, d.Severity.String()+":"+d.Rule+":"+filepath.ToSlash(rel)+": "+d.Message)
		}
		want := []string{
			"error:link:dangling/SKILL.md: SKILL.md is a link to moved-away.md, which does not exist; point the link at the file, or put the file in its place",
			"warning:skill-file-name:lower/skill.md: found skill.md; the file must be named SKILL.md, in capitals, for its folder to be a skill",
			"warning:skill-file-name:mixed/Skill.md: found Skill.md; the file must be named SKILL.md, in capitals, for its folder to be a skill",
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("deep %v: problems (-want +got):\n%s", deep, diff)
		}
	}
}

// TestUnreadableFolderIsTheFoldersProblem checks that a folder that cannot
// be read is reported as the folder, whichever walk meets it first, and
// never as a SKILL.md inside it that may not exist.
func TestUnreadableFolderIsTheFoldersProblem(t *testing.T) {
	root := tree(t, map[string]string{
		"good/SKILL.md":         skillMD("good"),
		"locked/child/SKILL.md": skillMD("child"),
	})
	locked := filepath.Join(root, "locked")
	sourcetest.Chmod(t, locked, 0)
	for _, deep := range []bool{false, true} {
		l := list(t, root, &dirtree.Options{Defer: !deep})
		if len(l.Problems) != 1 || l.Problems[0].Path != locked || l.Problems[0].Severity != sources.Warning ||
			!strings.HasPrefix(l.Problems[0].Message, "cannot read folder: ") {
			t.Errorf("deep %v: problems = %v; want one warning that %s cannot be read", deep, l.Problems, locked)
		}
	}
}

// A skill folder that can be listed but not entered (read permission
// without x) is reported as its SKILL.md that cannot be read, not passed
// over as a folder without one.
func TestUnenterableSkillFolderIsReported(t *testing.T) {
	root := tree(t, map[string]string{
		"good/SKILL.md":          skillMD("good"),
		"noxdir/SKILL.md":        skillMD("noxdir"),
		"noxdir/references/a.md": "a",
		"noxdir/scripts/run.sh":  "run",
	})
	noxdir := filepath.Join(root, "noxdir")
	sourcetest.Chmod(t, noxdir, 0o644)
	for _, deep := range []bool{false, true} {
		l := list(t, root, &dirtree.Options{Defer: !deep})
		if len(l.Problems) != 1 || l.Problems[0].Path != filepath.Join(noxdir, "SKILL.md") || !strings.Contains(l.Problems[0].Message, "permission denied") {
			t.Errorf("deep %v: problems = %v; want one that %s/SKILL.md cannot be read", deep, l.Problems, noxdir)
		}
	}
}

// TestUnenterableFolderInSkillIsReported checks that a folder inside a
// skill that can be listed but not entered is reported, and that its
// files, which no read could reach, are not in the skill's file list.
func TestUnenterableFolderInSkillIsReported(t *testing.T) {
	root := tree(t, map[string]string{
		"pdf/SKILL.md":        skillMD("pdf"),
		"pdf/notes.md":        "notes",
		"pdf/refs/a.md":       "a",
		"pdf/refs/deep/b.md":  "b",
		"pdf/nested/SKILL.md": skillMD("nested"),
		"pdf/nested/x.md":     "x",
	})
	refs, nested := filepath.Join(root, "pdf", "refs"), filepath.Join(root, "pdf", "nested")
	sourcetest.Chmod(t, refs, 0o644)
	sourcetest.Chmod(t, nested, 0o644)
	l := list(t, root, nil)
	if len(l.Skills) != 1 {
		t.Fatalf("skills = %v; want pdf", l.Skills)
	}
	if files, want := l.Skills[0].FileList, []string{"notes.md"}; !slices.Equal(files, want) {
		t.Errorf("files = %q; want %q", files, want)
	}
	// A nested skill that cannot be entered is an error, as any skill's.
	var got []string
	for _, d := range l.Problems {
		got = append(got, fmt.Sprintf("%s %s: %s", d.Severity, d.Path, d.Message))
	}
	slices.Sort(got)
	want := []string{
		"error " + filepath.Join(nested, "SKILL.md") + ": cannot read: permission denied: its folder can be listed but not entered; give the folder the x permission (chmod +x)",
		"warning " + refs + ": its files are not served: the folder can be listed but not entered; give it the x permission (chmod +x)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

// A file whose path is longer than any path of a skill may be, each of
// its names short enough, is left out with a warning that says so, on the
// file itself.
func TestFileListLeavesOutAPathTooLong(t *testing.T) {
	long := strings.Repeat("d", 250)
	deep := filepath.Join("s", long, long, long, long, long, "x.md")
	root := tree(t, map[string]string{"s/SKILL.md": skillMD("s"), deep: "x", "s/ok.md": "ok"})
	l := list(t, root, nil)
	if len(l.Skills) != 1 || !slices.Equal(l.Skills[0].FileList, []string{"ok.md"}) {
		t.Fatalf("skills %v, files %v", names(l), l.Skills[0].FileList)
	}
	if !slices.ContainsFunc(l.Problems, func(d sources.Diagnostic) bool {
		return d.Path == filepath.Join(root, deep) && strings.Contains(d.Message, "too-long")
	}) {
		t.Errorf("problems: %v", l.Problems)
	}
}

// A skill with more files than are listed lists the first ones by name,
// the same at every scan, however the parallel walk met them: a list that
// changed at each rescan told clients of a change every time.
func TestTruncatedFileListIsTheFirstFiles(t *testing.T) {
	files := map[string]string{"many/SKILL.md": skillMD("many")}
	var all []string
	for d := range 12 {
		for f := range 100 {
			p := fmt.Sprintf("d%02d/f%03d.md", d, f)
			files["many/"+p] = "x"
			all = append(all, p)
		}
	}
	root := tree(t, files)
	slices.Sort(all)
	want := all[:sources.MaxListedFiles]
	for range 3 {
		l := list(t, root, nil)
		if len(l.Skills) != 1 {
			t.Fatalf("skills: %v", names(l))
		}
		sk := l.Skills[0]
		if !sk.FileListTruncated || !slices.Equal(sk.FileList, want) {
			t.Fatalf("truncated %v, %d files, first %v, last %v; want the first %d by name", sk.FileListTruncated, len(sk.FileList), sk.FileList[:1], sk.FileList[len(sk.FileList)-1:], sources.MaxListedFiles)
		}
	}
}

// A skill.md inside a skill (a nested skill misnamed) is warned about, and
// is one of the skill's files, as every list of a skill's files has it.
func TestMisnamedSkillFileInsideASkill(t *testing.T) {
	root := tree(t, map[string]string{
		"p/SKILL.md":       skillMD("p"),
		"p/notes/skill.md": skillMD("n"),
	})
	l := list(t, root, nil)
	if len(l.Skills) != 1 {
		t.Fatalf("skills %v; want p alone", l.Skills)
	}
	p := l.Skills[0]
	want, _, err := sources.ListFiles(p.Files, sources.SkillFile)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(p.FileList, want) || !slices.Contains(want, "notes/skill.md") {
		t.Errorf("p's files %v; want %v, with notes/skill.md", p.FileList, want)
	}
	if !slices.ContainsFunc(l.Problems, func(d sources.Diagnostic) bool { return strings.HasSuffix(d.Path, "notes/skill.md") }) {
		t.Errorf("no warning about notes/skill.md: %v", l.Problems)
	}
}

// A SKILL.md refused inside a skill makes no skill: its folder's files are
// the skill's around it, as every read of that skill finds them, and a
// file added there changes that skill's file list (what tells clients
// their lists are out of date).
func TestRefusedNestedSkillFilesAreTheParents(t *testing.T) {
	root := tree(t, map[string]string{
		"p/SKILL.md":            skillMD("p"),
		"p/sub/broken/SKILL.md": "---\nname: broken\n---\nno description\n",
	})
	tr := dirtree.New(root, nil)
	l := relist(t, tr)
	if len(l.Skills) != 1 || !slices.Equal(l.Skills[0].FileList, []string{"sub/broken/SKILL.md"}) {
		t.Fatalf("skills %v, p's files %v; want p alone, with sub/broken/SKILL.md", l.Skills, l.Skills[0].FileList)
	}
	writeSkill(t, filepath.Join(root, "p/sub/broken/y.md"), "y")
	tr.Changed(filepath.Join(root, "p/sub/broken/y.md"))
	if got := relist(t, tr).Skills[0].FileList; !slices.Equal(got, []string{"sub/broken/SKILL.md", "sub/broken/y.md"}) {
		t.Errorf("p's files after y.md was added beside the refused SKILL.md: %v", got)
	}
}

// A link inside a skill folder to a folder that holds it ("self -> .")
// is not followed, and is no warning: only nested skills are at stake, as
// for a folder too deep. Outside skills it is one.
func TestLinkToAFolderAboveInsideASkill(t *testing.T) {
	root := tree(t, map[string]string{"s/SKILL.md": skillMD("s"), "s/notes.md": "n"})
	must(t, os.Symlink(".", filepath.Join(root, "s", "self")))
	if l := list(t, root, nil); len(l.Problems) != 0 || len(l.Skills) != 1 {
		t.Errorf("a link to its own folder inside a skill: %v, %v", problemRules(l), names(l))
	}
	must(t, os.Symlink(".", filepath.Join(root, "up")))
	if diff := cmp.Diff([]string{"warning:link-loop"}, problemRules(list(t, root, nil))); diff != "" {
		t.Errorf("a link to the root in the root (-want +got):\n%s", diff)
	}
}
