package dirtree_test

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

func byName(l *sources.Listing) map[string]*sources.Skill {
	m := map[string]*sources.Skill{}
	for _, sk := range l.Skills {
		m[sk.Ref.String()] = sk
	}
	return m
}

func relist(t *testing.T, tr *dirtree.Tree) *sources.Listing {
	t.Helper()
	l, err := tr.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// A tree told what changed rescans only that, and follows edits,
// creations, removals and renames.
func TestRescanOfChangedPaths(t *testing.T) {
	root := tree(t, map[string]string{
		"a/SKILL.md": skillMD("a"), "a/references/r.md": "r",
		"g/b/SKILL.md": skillMD("b"),
		"g/c/SKILL.md": skillMD("c"),
	})
	tr := dirtree.New(root, nil)
	first := byName(relist(t, tr))
	if diff := cmp.Diff([]string{"references/r.md"}, first["a"].FileList); diff != "" {
		t.Errorf("file list (-want +got):\n%s", diff)
	}

	// An edit.
	writeSkill(t, filepath.Join(root, "g/b/SKILL.md"), "---\nname: b\ndescription: Edited.\n---\n")
	tr.Changed(filepath.Join(root, "g/b/SKILL.md"))
	l := byName(relist(t, tr))
	if l["b"].Description != "Edited." {
		t.Errorf("edit not seen: %q", l["b"].Description)
	}
	if l["c"] != first["c"] {
		t.Error("an unchanged skill was loaded again")
	}

	// A new skill, a removed one, a renamed one, a new reference file.
	writeSkill(t, filepath.Join(root, "g/new/SKILL.md"), skillMD("new"))
	must(t, os.RemoveAll(filepath.Join(root, "g/c")))
	must(t, os.Rename(filepath.Join(root, "a"), filepath.Join(root, "renamed")))
	writeSkill(t, filepath.Join(root, "renamed/references/more.md"), "m")
	tr.Changed(filepath.Join(root, "g/new"), filepath.Join(root, "g/c"), filepath.Join(root, "a"), filepath.Join(root, "renamed"), filepath.Join(root, "renamed/references/more.md"))
	l = byName(relist(t, tr))
	var got []string
	for n, sk := range l {
		got = append(got, n+"@"+filepath.Base(sk.Dir))
	}
	slices.Sort(got)
	if diff := cmp.Diff([]string{"a@renamed", "b@b", "new@new"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"references/more.md", "references/r.md"}, l["a"].FileList); diff != "" {
		t.Errorf("file list after the rename (-want +got):\n%s", diff)
	}

	// A SKILL.md removed from a folder that holds a nested skill: the
	// nested one stays.
	writeSkill(t, filepath.Join(root, "g/b/inner/SKILL.md"), skillMD("inner"))
	tr.Changed(filepath.Join(root, "g/b/inner"))
	must(t, os.Remove(filepath.Join(root, "g/b/SKILL.md")))
	tr.Changed(filepath.Join(root, "g/b/SKILL.md"))
	l = byName(relist(t, tr))
	if _, ok := l["b"]; ok {
		t.Error("b is still served")
	}
	if _, ok := l["inner"]; !ok {
		t.Error("the skill nested in b's folder is gone")
	}
}

// A deferred tree answers without looking inside skill folders; the rest
// comes when Watch completes it.
func TestDeferredScanIsCompletedLater(t *testing.T) {
	root := tree(t, map[string]string{
		"outer/SKILL.md":            skillMD("outer"),
		"outer/refs/guide.md":       "g",
		"outer/nested/SKILL.md":     skillMD("nested"),
		"outer/nested/scripts/x.sh": "x",
	})
	t.Cleanup(dirtree.DeferAll())
	tr := dirtree.New(root, &dirtree.Options{Defer: true})
	l := byName(relist(t, tr))
	if len(l) != 1 || l["outer"].FileList != nil {
		t.Fatalf("deferred: %v, file list %v", names(relist(t, tr)), l["outer"].FileList)
	}
	// Made after the deferred scan and before the watch: no event will
	// tell of it, and completing the scan must find it.
	writeSkill(t, filepath.Join(root, "late/SKILL.md"), skillMD("late"))
	// The late skill may be announced first, on its own, as soon as the
	// folders outside the skills are watched; the completion follows.
	l = byName(watchListing(t, tr)("the deferred scan was not completed", func(l *sources.Listing) bool {
		outer := byName(l)["outer"]
		return outer != nil && outer.FileList != nil
	}))
	if diff := cmp.Diff([]string{"refs/guide.md"}, l["outer"].FileList); diff != "" {
		t.Errorf("outer's files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"scripts/x.sh"}, l["nested"].FileList); diff != "" {
		t.Errorf("nested's files (-want +got):\n%s", diff)
	}
	if l["late"] == nil {
		t.Error("a skill made between the deferred scan and the watch is missing")
	}
}

func writeSkill(t *testing.T, path, content string) {
	t.Helper()
	must(t, os.MkdirAll(filepath.Dir(path), 0o755))
	must(t, os.WriteFile(path, []byte(content), 0o644))
}

// A full rescan (the periodic one, or a tree without a watcher) returns
// the same *sources.Skill for a skill that did not change, file list
// included, and a new one for the skill that did.
func TestFullRescanKeepsUnchangedSkills(t *testing.T) {
	root := tree(t, map[string]string{
		"a/SKILL.md": skillMD("a"), "a/references/r.md": "r",
		"b/SKILL.md": skillMD("b"),
	})
	tr := dirtree.New(root, nil)
	first := byName(relist(t, tr))
	writeSkill(t, filepath.Join(root, "b/SKILL.md"), "---\nname: b\ndescription: Edited.\n---\n")
	second := byName(relist(t, tr))
	if second["a"] != first["a"] {
		t.Error("an unchanged skill came back as a new *sources.Skill")
	}
	if second["b"] == first["b"] || second["b"].Description != "Edited." {
		t.Error("the edited skill was not loaded again")
	}
	must(t, os.WriteFile(filepath.Join(root, "a/references/more.md"), []byte("m"), 0o644))
	third := byName(relist(t, tr))
	if third["a"] == second["a"] || !slices.Contains(third["a"].FileList, "references/more.md") {
		t.Errorf("a new file of a skill did not make a new *sources.Skill: %v", third["a"].FileList)
	}
}

// A tree with a cache folder starts from what the last process parsed.
func TestCacheDir(t *testing.T) {
	root := tree(t, map[string]string{"a/SKILL.md": skillMD("a"), "b/SKILL.md": skillMD("b")})
	old := time.Now().Add(-time.Hour)
	for _, p := range []string{"a/SKILL.md", "b/SKILL.md"} {
		must(t, os.Chtimes(filepath.Join(root, p), old, old))
	}
	cacheDir := t.TempDir()
	relist(t, dirtree.New(root, &dirtree.Options{CacheDir: cacheDir}))
	files, _ := filepath.Glob(filepath.Join(cacheDir, "trees", "*.cache"))
	if len(files) != 1 {
		t.Fatalf("cache files: %v", files)
	}
	// A second process: edit one skill first; the other comes from the
	// cache, the edited one from the disk.
	writeSkill(t, filepath.Join(root, "b/SKILL.md"), "---\nname: b\ndescription: Edited between two runs.\n---\n")
	l := byName(relist(t, dirtree.New(root, &dirtree.Options{CacheDir: cacheDir})))
	if l["a"] == nil || l["b"].Description != "Edited between two runs." {
		t.Errorf("second run: %v", l)
	}
	// A corrupt cache costs nothing but time.
	must(t, os.WriteFile(files[0], []byte("garbage"), 0o644))
	if l := byName(relist(t, dirtree.New(root, &dirtree.Options{CacheDir: cacheDir}))); len(l) != 2 {
		t.Errorf("with a corrupt cache: %v", l)
	}
}

// A tree kept up to date by many small rescans lists what a new scan of
// the same folder lists, whatever the order of creations, edits, removals
// and renames, among paths that share prefixes ("x", "x-1", "x/y").
func TestIncrementalListingMatchesAFullScan(t *testing.T) {
	t.Run("skills", func(t *testing.T) { testIncremental(t, nil) })
	t.Run("learned notes", func(t *testing.T) { testIncremental(t, &dirtree.Options{Learned: true}) })
}

func testIncremental(t *testing.T, opts *dirtree.Options) {
	root, store := t.TempDir(), t.TempDir()
	tr := dirtree.New(root, opts)
	relist(t, tr)
	// Folder names chosen so that siblings sort around a folder's own
	// children: '-' and '.' sort before '/', 'y' after it.
	parts := []string{"x", "x-1", "x.2", "y"}
	rng := rand.New(rand.NewPCG(7, 11))
	randPath := func() string {
		depth := 1 + rng.IntN(3)
		p := ""
		for range depth {
			p = filepath.Join(p, parts[rng.IntN(len(parts))])
		}
		return p
	}
	for step := range 400 {
		rel := randPath()
		full := filepath.Join(root, rel)
		var changed []string
		switch op := rng.IntN(8); op {
		case 0, 1: // create or edit a skill
			changed = append(changed, firstMissing(root, filepath.Join(full, "SKILL.md")))
			writeSkill(t, filepath.Join(full, "SKILL.md"), fmt.Sprintf(
				"---\nname: s%d\ndescription: Step %d.\n---\nbody\n", rng.IntN(50), step))
		case 2: // remove a folder and what it holds
			must(t, os.RemoveAll(full))
			changed = append(changed, full)
		case 3: // rename a folder
			to := filepath.Join(root, randPath())
			if within(to, full) || within(full, to) {
				continue
			}
			if _, err := os.Stat(full); err != nil {
				continue
			}
			must(t, os.MkdirAll(filepath.Dir(to), 0o755))
			must(t, os.RemoveAll(to))
			must(t, os.Rename(full, to))
			changed = append(changed, full, to)
		case 4: // a plain file beside the skills
			must(t, os.MkdirAll(full, 0o755))
			must(t, os.WriteFile(filepath.Join(full, "notes.txt"), []byte("n"), 0o644))
			changed = append(changed, filepath.Join(full, "notes.txt"))
		case 5: // a note in the root, named like a folder ("x.md" beside "x")
			note := filepath.Join(root, parts[rng.IntN(len(parts))]+".md")
			if rng.IntN(3) == 0 {
				must(t, os.RemoveAll(note))
			} else {
				must(t, os.WriteFile(note, fmt.Appendf(nil, "---\ndescription: Note %d.\n---\n", step), 0o644))
			}
			changed = append(changed, note)
		case 7: // a SKILL.md refused (no description): inside a skill, its folder's files are that skill's
			changed = append(changed, firstMissing(root, filepath.Join(full, "SKILL.md")))
			writeSkill(t, filepath.Join(full, "SKILL.md"), fmt.Sprintf("---\nname: bad%d\n---\nbody\n", step))
		case 6: // a folder moved out of the root, and a link to it left in its place
			if fi, err := os.Lstat(full); err != nil || !fi.IsDir() {
				continue
			}
			away := filepath.Join(store, fmt.Sprint(step))
			must(t, os.Rename(full, away))
			must(t, os.Symlink(away, full))
			changed = append(changed, full)
		}
		tr.Changed(changed...)
		got, want := relist(t, tr), list(t, root, opts)
		if d := cmp.Diff(summary(want), summary(got)); d != "" {
			t.Fatalf("step %d (%v): incremental listing differs from a full scan (-full +incremental):\n%s", step, changed, d)
		}
	}
}

// firstMissing is what a watcher reports when path is written: the
// outermost folder on the way that does not exist yet, or path itself.
func firstMissing(root, path string) string {
	first := path
	for p := filepath.Dir(path); p != root; p = filepath.Dir(p) {
		if _, err := os.Stat(p); err == nil {
			break
		}
		first = p
	}
	return first
}

func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// summary is what a client would see of a listing: each skill's name,
// file and description, and the problems, in order.
func summary(l *sources.Listing) []string {
	var out []string
	for _, sk := range l.Skills {
		out = append(out, sk.Ref.String()+" "+sk.Path+" real="+sk.RealPath+" "+sk.Description+" files="+strings.Join(sk.FileList, ","))
	}
	for _, d := range l.Problems {
		out = append(out, "problem "+d.Path+" "+d.Rule)
	}
	return out
}

// A start from the cache folder, deferred as a server's is, trusts the
// listing of a folder outside every skill only while the folder is
// unchanged: skills added to it or removed from it since the last process
// are seen.
func TestCacheDirFolderListings(t *testing.T) {
	t.Parallel()
	root := tree(t, map[string]string{
		"group/a/SKILL.md": skillMD("a"), "group/b/SKILL.md": skillMD("b"),
		"group/inner/c/SKILL.md": skillMD("c"), "README.md": "not a skill",
	})
	// Folders changed within the racy window of a scan are not recorded.
	time.Sleep(2100 * time.Millisecond)
	cacheDir := t.TempDir()
	t.Cleanup(dirtree.DeferAll())
	opts := &dirtree.Options{Defer: true, CacheDir: cacheDir}
	// The first process is a server's: a deferred scan, completed by its
	// watch, which records the folders' listings.
	first := dirtree.New(root, opts)
	relist(t, first)
	ctx, cancel := context.WithCancel(context.Background())
	completed := make(chan struct{}, 1)
	watched := make(chan error, 1)
	go func() {
		watched <- first.Watch(ctx, func() {
			select {
			case completed <- struct{}{}:
			default:
			}
		})
	}()
	<-completed
	cancel()
	must(t, <-watched)
	must(t, first.Close())
	want := func(tr *dirtree.Tree, names ...string) {
		t.Helper()
		var got []string
		for n := range byName(relist(t, tr)) {
			got = append(got, n)
		}
		slices.Sort(got)
		if diff := cmp.Diff(names, got); diff != "" {
			t.Errorf("skills (-want +got):\n%s", diff)
		}
	}
	want(dirtree.New(root, opts), "a", "b", "c")

	writeSkill(t, filepath.Join(root, "group/d/SKILL.md"), skillMD("d"))
	must(t, os.RemoveAll(filepath.Join(root, "group/b")))
	must(t, os.Rename(filepath.Join(root, "group/inner/c"), filepath.Join(root, "group/inner/e")))
	next := dirtree.New(root, opts)
	want(next, "a", "c", "d")
	must(t, next.Close())
	want(dirtree.New(root, opts), "a", "c", "d")
}

// A skill folder replaced by a file of its name (a git checkout of a
// branch where it is a file) is gone, as a full scan has it; with learned
// notes on, a file that is a note takes its place. Before, the rescan
// loaded any such file as a note, serving a plain file as the skill and
// the root as its folder.
func TestSkillFolderReplacedByAFile(t *testing.T) {
	for _, tc := range []struct {
		name, rel string
		replaced  string // the folder replaced by a file; rel when empty
		opts      *dirtree.Options
	}{
		{"in the root", "alpha", "", nil},
		{"below the root", "g/alpha", "", nil},
		{"named like a note, notes off", "alpha.md", "", nil},
		{"named like a note, notes on", "alpha.md", "", &dirtree.Options{Learned: true}},
		{"not like a note, notes on", "alpha", "", &dirtree.Options{Learned: true}},
		// The folder of skills holding it, which is no skill itself.
		{"its group in the root", "g/alpha", "g", nil},
		{"its group in the root, notes on", "g/alpha", "g", &dirtree.Options{Learned: true}},
		{"its group below the root", "h/g/alpha", "h/g", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tree(t, map[string]string{tc.rel + "/SKILL.md": skillMD("alpha"), "beta/SKILL.md": skillMD("beta")})
			tr := dirtree.New(root, tc.opts)
			relist(t, tr)
			replaced := tc.replaced
			if replaced == "" {
				replaced = tc.rel
			}
			full := filepath.Join(root, replaced)
			must(t, os.RemoveAll(full))
			must(t, os.WriteFile(full, []byte("---\nname: alpha\ndescription: A plain file.\n---\nbody\n"), 0o644))
			tr.Changed(full)
			got, want := relist(t, tr), list(t, root, tc.opts)
			if d := cmp.Diff(summary(want), summary(got)); d != "" {
				t.Errorf("incremental listing differs from a full scan (-full +incremental):\n%s", d)
			}
		})
	}
}

// A file outside every skill keeps its own problem when it is edited: a
// misnamed skill.md is still said, as a full scan says it.
func TestEditedFileOutsideSkillsKeepsItsProblem(t *testing.T) {
	root := tree(t, map[string]string{"g/skill.md": skillMD("g"), "ok/SKILL.md": skillMD("ok")})
	tr := dirtree.New(root, nil)
	before := relist(t, tr)
	must(t, os.WriteFile(filepath.Join(root, "g", "skill.md"), []byte(skillMD("g")+"more\n"), 0o644))
	tr.Changed(filepath.Join(root, "g", "skill.md"))
	after, full := relist(t, tr), list(t, root, nil)
	if len(full.Problems) != 1 || len(before.Problems) != 1 || len(after.Problems) != 1 {
		t.Errorf("problems: before %v, after the edit %v, a full scan %v; want the misnamed file said in each", before.Problems, after.Problems, full.Problems)
	}
}

// A tree bound to a folder (Options.Within) serves nothing from a root
// that leads out of it, a link made after the tree was made included, and
// says so; a root inside is served as any other.
func TestWithinBoundsTheRoot(t *testing.T) {
	repo, outside := t.TempDir(), tree(t, map[string]string{"secret/SKILL.md": skillMD("secret")})
	inside := filepath.Join(repo, "skills")
	writeSkill(t, filepath.Join(inside, "ok", "SKILL.md"), skillMD("ok"))
	link := filepath.Join(repo, "later")
	tr := dirtree.New(link, &dirtree.Options{Within: repo})
	relist(t, tr) // missing for now
	must(t, os.Symlink(outside, link))
	tr.Changed(link)
	l := relist(t, tr)
	if len(l.Skills) != 0 || len(l.Problems) != 1 || l.Problems[0].Rule != "outside" {
		t.Errorf("a root leading out: skills %v, problems %v; want none, and one problem of rule outside", names(l), l.Problems)
	}
	if l := relist(t, dirtree.New(inside, &dirtree.Options{Within: repo})); len(l.Skills) != 1 {
		t.Errorf("a root inside: skills %v, problems %v", names(l), l.Problems)
	}
	// A link inside the root that leads out is not searched either; one
	// that stays inside is.
	must(t, os.Symlink(outside, filepath.Join(inside, "home")))
	must(t, os.Symlink(filepath.Join(inside, "ok"), filepath.Join(inside, "again")))
	l = relist(t, dirtree.New(inside, &dirtree.Options{Within: repo}))
	if got := names(l); !slices.Equal(got, []string{"ok"}) || len(l.Problems) != 1 || l.Problems[0].Rule != "outside" {
		t.Errorf("links inside: skills %v, problems %v; want ok alone, and the link out said", got, l.Problems)
	}
}

// A link made inside the root after the first scan (a git pull), and
// rescanned alone as the watcher reports it, is held to what a full scan
// holds a link to: one leading out of Within is not searched, nor is a
// skill folder replaced by one; one leading to a folder above is not
// walked.
func TestWithinBoundsALinkMadeLater(t *testing.T) {
	for _, tt := range []struct {
		name string
		make func(t *testing.T, inside, outside string) string // returns the changed path
	}{
		{"a new link to a folder of skills", func(t *testing.T, inside, outside string) string {
			link := filepath.Join(inside, "home")
			must(t, os.Symlink(outside, link))
			return link
		}},
		{"a skill folder replaced by a link", func(t *testing.T, inside, outside string) string {
			x := filepath.Join(inside, "x")
			must(t, os.RemoveAll(x))
			must(t, os.Symlink(filepath.Join(outside, "secret"), x))
			return x
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			repo, outside := t.TempDir(), tree(t, map[string]string{"secret/SKILL.md": skillMD("secret")})
			inside := filepath.Join(repo, "skills")
			writeSkill(t, filepath.Join(inside, "ok", "SKILL.md"), skillMD("ok"))
			writeSkill(t, filepath.Join(inside, "x", "SKILL.md"), skillMD("x"))
			tr := dirtree.New(inside, &dirtree.Options{Within: repo})
			relist(t, tr)
			tr.Changed(tt.make(t, inside, outside))
			l := relist(t, tr)
			full := relist(t, dirtree.New(inside, &dirtree.Options{Within: repo}))
			if got := names(l); slices.Contains(got, "secret") || !slices.Equal(got, names(full)) {
				t.Errorf("rescanned: %v; a full scan: %v", got, names(full))
			}
			if len(l.Problems) != 1 || l.Problems[0].Rule != "outside" {
				t.Errorf("problems %v; want the link out said", l.Problems)
			}
		})
	}
	t.Run("a new link to a folder above", func(t *testing.T) {
		repo := t.TempDir()
		inside := filepath.Join(repo, "skills")
		writeSkill(t, filepath.Join(inside, "ok", "SKILL.md"), skillMD("ok"))
		writeSkill(t, filepath.Join(repo, "other", "dup", "SKILL.md"), skillMD("dup"))
		tr := dirtree.New(inside, nil)
		relist(t, tr)
		link := filepath.Join(inside, "up")
		must(t, os.Symlink(repo, link))
		tr.Changed(link)
		if got, full := names(relist(t, tr)), names(relist(t, dirtree.New(inside, nil))); !slices.Equal(got, full) {
			t.Errorf("rescanned: %v; a full scan: %v", got, full)
		}
	})
}

// A skill nested in another's folder comes after the tree's other skills
// in its listing, whatever its path: of two skills of one name, the one
// not nested is served, before the deferred scan finds the nested one,
// after it, and after the nested one is edited (rescanned on its own).
// Otherwise a name would load one skill at the start of a session and
// another a moment later.
func TestNestedSkillNeverTakesANameFromATopLevelOne(t *testing.T) {
	dup := func(desc string) string { return "---\nname: dup\ndescription: " + desc + "\n---\n" }
	root := tree(t, map[string]string{
		"a/SKILL.md":   skillMD("outer"),
		"a/b/SKILL.md": dup("nested"),
		"z/SKILL.md":   dup("top level"),
	})
	first := func(l *sources.Listing) string {
		for _, sk := range l.Skills {
			if sk.Ref.Name == "dup" {
				return sk.Description
			}
		}
		return ""
	}
	if got := first(list(t, root, nil)); got != "top level" {
		t.Errorf("full scan: dup is %q; want the top-level one", got)
	}

	t.Cleanup(dirtree.DeferAll()) // as a tree too large to be scanned whole at once is
	tr := dirtree.New(root, &dirtree.Options{Defer: true, Debounce: 10 * time.Millisecond})
	if got := first(relist(t, tr)); got != "top level" {
		t.Errorf("deferred scan: dup is %q; want the top-level one", got)
	}
	await := watchListing(t, tr)
	l := await("the nested skill never came", func(l *sources.Listing) bool { return len(l.Skills) == 3 })
	if got := first(l); got != "top level" {
		t.Errorf("completed: dup is %q; want the top-level one", got)
	}
	writeSkill(t, filepath.Join(root, "a/b/SKILL.md"), dup("nested, edited"))
	l = await("the edit never came", func(l *sources.Listing) bool {
		return slices.ContainsFunc(l.Skills, func(sk *sources.Skill) bool { return sk.Description == "nested, edited" })
	})
	if got := first(l); got != "top level" {
		t.Errorf("nested one edited: dup is %q; want the top-level one", got)
	}
}

// A deferred first scan of a small tree is done whole at once: a bundle
// installed as one skill folder holding forty is listed with all of them,
// file lists included, so that a server's instructions name them. A large
// tree is still left shallow, for Watch to complete.
func TestDeferredScanOfASmallTreeIsWhole(t *testing.T) {
	t.Cleanup(dirtree.Untimed()) // 50 ms, which a loaded machine may take
	files := map[string]string{
		"bundle/SKILL.md":             skillMD("bundle"),
		"bundle/careful/SKILL.md":     skillMD("careful"),
		"bundle/careful/refs/r.md":    "r",
		"bundle/ship/SKILL.md":        skillMD("ship"),
		"bundle/ship/scripts/ship.sh": "s",
	}
	l := byName(relist(t, dirtree.New(tree(t, files), &dirtree.Options{Defer: true})))
	if len(l) != 3 || l["careful"] == nil || l["ship"] == nil {
		t.Fatalf("a small tree's first listing: %v; want bundle, careful and ship", slices.Sorted(maps.Keys(l)))
	}
	if diff := cmp.Diff([]string{"refs/r.md"}, l["careful"].FileList); diff != "" {
		t.Errorf("careful's files (-want +got):\n%s", diff)
	}

	for i := range 300 {
		name := fmt.Sprintf("s%03d", i)
		files[name+"/SKILL.md"] = skillMD(name)
	}
	l = byName(relist(t, dirtree.New(tree(t, files), &dirtree.Options{Defer: true})))
	if len(l) != 301 || l["careful"] != nil {
		t.Errorf("a large tree's first listing: %d skills, careful %v; want 301, nested ones left for later", len(l), l["careful"] != nil)
	}
}

// A nested skill that a link at the top of the tree reaches too is listed
// as the link's, before and after the deferred scan finds it where it
// is: the link is not nested, and the first listing served the name from
// it.
func TestNestedSkillReachedByALinkKeepsItsName(t *testing.T) {
	t.Cleanup(dirtree.DeferAll())
	dup := func(desc string) string { return "---\nname: dup\ndescription: " + desc + "\n---\n" }
	root := tree(t, map[string]string{
		"a/SKILL.md":     skillMD("outer"),
		"a/refs/r.md":    "r",
		"a/b/SKILL.md":   dup("nested, linked at the top"),
		"z-top/SKILL.md": dup("top level"),
	})
	must(t, os.Symlink(filepath.Join(root, "a", "b"), filepath.Join(root, "link")))
	served := func(l *sources.Listing) string {
		for _, sk := range l.Skills {
			if sk.Ref.Name == "dup" {
				return sk.Path
			}
		}
		return ""
	}
	want := filepath.Join(root, "link", "SKILL.md")
	if got := served(list(t, root, nil)); got != want {
		t.Errorf("full scan: dup is %s; want %s", got, want)
	}
	tr := dirtree.New(root, &dirtree.Options{Defer: true, Debounce: 10 * time.Millisecond})
	if got := served(relist(t, tr)); got != want {
		t.Errorf("deferred scan: dup is %s; want %s", got, want)
	}
	l := watchListing(t, tr)("the deferred scan was not completed", func(l *sources.Listing) bool {
		return byName(l)["outer"].FileList != nil
	})
	if got := served(l); got != want {
		t.Errorf("completed: dup is %s; want %s", got, want)
	}
	if n := len(l.Skills); n != 3 {
		t.Errorf("%d skills; want outer, dup and the other dup once each: %v", n, names(l))
	}
}

// watchListing watches tr until the test ends and returns a function that
// lists tr after each change it reports until ok holds, and returns that
// listing; the test fails, saying what, when none comes within 10 s.
func watchListing(t *testing.T, tr *dirtree.Tree) func(what string, ok func(*sources.Listing) bool) *sources.Listing {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	changed := make(chan struct{}, 1)
	done := make(chan error)
	go func() {
		done <- tr.Watch(ctx, func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return func(what string, ok func(*sources.Listing) bool) *sources.Listing {
		t.Helper()
		for l := relist(t, tr); ; l = relist(t, tr) {
			if ok(l) {
				return l
			}
			select {
			case <-changed:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: %v", what, names(l))
			}
		}
	}
}

// A folder two links reach is served by the first of them in path order,
// by a fresh scan, whatever order its parallel walk meets them in, and by
// a rescan after either link's folder is renamed and back: a skill whose
// front matter gives no name is named by that link.
func TestFolderReachedByTwoLinks(t *testing.T) {
	root, store := t.TempDir(), t.TempDir()
	writeSkill(t, filepath.Join(store, "s", "SKILL.md"), "---\ndescription: Shared, without a name.\n---\n")
	must(t, os.MkdirAll(filepath.Join(root, "g"), 0o755))
	for i := range 8 { // folders beside, so that the walk's goroutines race
		must(t, os.MkdirAll(filepath.Join(root, fmt.Sprintf("f%d", i), "x"), 0o755))
	}
	must(t, os.Symlink(filepath.Join(store, "s"), filepath.Join(root, "group-0")))
	must(t, os.Symlink(filepath.Join(store, "s"), filepath.Join(root, "g", "alias")))
	names := func(l *sources.Listing) string {
		var out []string
		for _, sk := range l.Skills {
			out = append(out, sk.Ref.String()+"@"+sk.Path)
		}
		return strings.Join(out, ",")
	}
	want := "alias@" + filepath.Join(root, "g", "alias", "SKILL.md")
	for range 20 {
		if got := names(list(t, root, nil)); got != want {
			t.Fatalf("a fresh scan: %s; want %s", got, want)
		}
	}
	tr := dirtree.New(root, nil)
	relist(t, tr)
	for _, step := range [][2]string{{"g", "g2"}, {"g2", "g"}, {"group-0", "group-1"}, {"group-1", "group-0"}} {
		must(t, os.Rename(filepath.Join(root, step[0]), filepath.Join(root, step[1])))
		tr.Changed(filepath.Join(root, step[0]), filepath.Join(root, step[1]))
		if got, fresh := names(relist(t, tr)), names(list(t, root, nil)); got != fresh {
			t.Errorf("after mv %s %s: %s; a fresh scan gives %s", step[0], step[1], got, fresh)
		}
	}
}

// A nested skill made, or removed, in a folder reached by two links is
// seen through the link that serves the folder, whichever link the change
// is told through: it was served through the other until a full rescan.
func TestNestedSkillInAFolderReachedByTwoLinks(t *testing.T) {
	root, store := t.TempDir(), t.TempDir()
	writeSkill(t, filepath.Join(store, "s", "SKILL.md"), skillMD("shared"))
	writeSkill(t, filepath.Join(store, "s", "sub", "old", "SKILL.md"), skillMD("old"))
	must(t, os.Symlink(filepath.Join(store, "s"), filepath.Join(root, "alias")))
	must(t, os.Symlink(filepath.Join(store, "s"), filepath.Join(root, "pdf")))
	paths := func(l *sources.Listing) string {
		var out []string
		for _, sk := range l.Skills {
			rel, _ := filepath.Rel(root, sk.Path)
			out = append(out, sk.Ref.String()+"@"+rel)
		}
		slices.Sort(out)
		return strings.Join(out, ",")
	}
	tr := dirtree.New(root, nil)
	relist(t, tr)
	for _, through := range []string{"pdf", "alias"} {
		writeSkill(t, filepath.Join(store, "s", "sub", "info", "SKILL.md"), skillMD("info"))
		tr.Changed(filepath.Join(root, through, "sub", "info"))
		if got, fresh := paths(relist(t, tr)), paths(list(t, root, nil)); got != fresh {
			t.Errorf("a nested skill made, told through %s: %s; a fresh scan gives %s", through, got, fresh)
		}
		must(t, os.RemoveAll(filepath.Join(store, "s", "sub", "info")))
		tr.Changed(filepath.Join(root, through, "sub", "info"))
		if got, fresh := paths(relist(t, tr)), paths(list(t, root, nil)); got != fresh {
			t.Errorf("a nested skill removed, told through %s: %s; a fresh scan gives %s", through, got, fresh)
		}
	}
}

// A root closed to the user (chmod 000) fails the listing, so that the
// source keeps its last one, rather than listing no skills, which would
// tell clients every skill went. (Root, whom modes do not stop, cannot
// see it.)
func TestRootClosedFailsTheListing(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("modes do not stop root")
	}
	root := tree(t, map[string]string{"a/SKILL.md": skillMD("a")})
	tr := dirtree.New(root, nil)
	relist(t, tr)
	must(t, os.Chmod(root, 0))
	defer os.Chmod(root, 0o755)
	tr.Changed(root)
	if l, err := tr.List(context.Background()); err == nil {
		t.Errorf("a closed root listed %d skills and no failure", len(l.Skills))
	}
	if _, err := dirtree.New(root, nil).List(context.Background()); err == nil {
		t.Error("a closed root's first listing did not fail")
	}
	// Listed but not entered (chmod a-x): the same.
	must(t, os.Chmod(root, 0o644))
	tr.Changed(root)
	if l, err := tr.List(context.Background()); err == nil {
		t.Errorf("a root that cannot be entered listed %d skills and no failure", len(l.Skills))
	}
	must(t, os.Chmod(root, 0o755))
	tr.Changed(root)
	if l := relist(t, tr); len(l.Skills) != 1 {
		t.Errorf("opened again: %d skills", len(l.Skills))
	}
}

// A deferred first walk cut short by its time bound answers with what it
// reached and says so; the watch's completion serves every skill, and the
// warning goes.
func TestFirstWalkCutShortIsCompletedByTheWatch(t *testing.T) {
	root := tree(t, map[string]string{
		"a/SKILL.md":   skillMD("a"),
		"g/b/SKILL.md": skillMD("b"),
		"g/c/SKILL.md": skillMD("c"),
	})
	t.Cleanup(dirtree.DeferAll())
	tr := dirtree.New(root, &dirtree.Options{Defer: true, MaxTime: time.Nanosecond})
	first := relist(t, tr)
	if len(first.Skills) != 0 || len(first.Problems) != 1 || first.Problems[0].Rule != "max-time" {
		t.Fatalf("cut short: %v, %v", names(first), first.Problems)
	}
	l := watchListing(t, tr)("the cut walk was not completed", func(l *sources.Listing) bool { return len(l.Skills) == 3 })
	if len(l.Problems) != 0 {
		t.Errorf("the warning stays after the completion: %v", l.Problems)
	}
}
