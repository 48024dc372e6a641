package dirtree_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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
	tr := dirtree.New(root, &dirtree.Options{Defer: true})
	l := byName(relist(t, tr))
	if len(l) != 1 || l["outer"].FileList != nil {
		t.Fatalf("deferred: %v, file list %v", names(relist(t, tr)), l["outer"].FileList)
	}
	ctx, cancel := context.WithCancel(context.Background())
	changed := make(chan struct{}, 1)
	done := make(chan error)
	go func() { done <- tr.Watch(ctx, func() { changed <- struct{}{} }) }()
	<-changed
	l = byName(relist(t, tr))
	if diff := cmp.Diff([]string{"refs/guide.md"}, l["outer"].FileList); diff != "" {
		t.Errorf("outer's files (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"scripts/x.sh"}, l["nested"].FileList); diff != "" {
		t.Errorf("nested's files (-want +got):\n%s", diff)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
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
