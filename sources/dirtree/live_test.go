package dirtree_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// watched runs a tree's Watch for the test, and waits for the listing to
// satisfy a condition after a change.
type watched struct {
	t       *testing.T
	tree    *dirtree.Tree
	changed chan struct{}
}

func watchTree(t *testing.T, root string, opts *dirtree.Options) *watched {
	t.Helper()
	if opts == nil {
		opts = &dirtree.Options{}
	}
	opts.Debounce = 20 * time.Millisecond
	w := &watched{t: t, tree: dirtree.New(root, opts), changed: make(chan struct{}, 1)}
	relist(t, w.tree)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		done <- w.tree.Watch(ctx, func() {
			select {
			case w.changed <- struct{}{}:
			default:
			}
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	})
	return w
}

// until waits for the watcher to report a change, lists the tree, and
// does so again until ok holds. Listing only after a report proves the
// watcher saw the change: a tree that is not watched reports nothing.
func (w *watched) until(what string, ok func(map[string]*sources.Skill) bool) {
	w.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-w.changed:
		case <-deadline:
			w.t.Fatalf("%s: the watcher reported no change that shows it; listing %v", what, names(relist(w.t, w.tree)))
		}
		if ok(byName(relist(w.t, w.tree))) {
			return
		}
	}
}

func TestLiveRefresh(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("renames over open files differ on Windows")
	}
	root := tree(t, map[string]string{"group/a/SKILL.md": skillMD("a"), "group/a/refs/r.md": "r"})
	w := watchTree(t, root, nil)
	has := func(name string) func(map[string]*sources.Skill) bool {
		return func(m map[string]*sources.Skill) bool { _, ok := m[name]; return ok }
	}
	hasNot := func(name string) func(map[string]*sources.Skill) bool {
		return func(m map[string]*sources.Skill) bool { _, ok := m[name]; return !ok }
	}

	writeSkill(t, filepath.Join(root, "group/b/SKILL.md"), skillMD("b"))
	w.until("a new skill", has("b"))

	writeSkill(t, filepath.Join(root, "group/b/SKILL.md"), "---\nname: b\ndescription: Edited in place.\n---\n")
	w.until("an edit", func(m map[string]*sources.Skill) bool {
		return m["b"] != nil && m["b"].Description == "Edited in place."
	})

	// An editor's atomic save: a temporary file renamed over SKILL.md.
	tmp := filepath.Join(root, "group/b/.SKILL.md.swp")
	writeSkill(t, tmp, "---\nname: b\ndescription: Saved atomically.\n---\n")
	must(t, os.Rename(tmp, filepath.Join(root, "group/b/SKILL.md")))
	w.until("an atomic save", func(m map[string]*sources.Skill) bool {
		return m["b"] != nil && m["b"].Description == "Saved atomically."
	})

	must(t, os.Rename(filepath.Join(root, "group/a"), filepath.Join(root, "group/a-renamed")))
	w.until("a renamed folder", func(m map[string]*sources.Skill) bool {
		return m["a"] != nil && filepath.Base(m["a"].Dir) == "a-renamed"
	})

	writeSkill(t, filepath.Join(root, "group/a-renamed/refs/new.md"), "n")
	w.until("a new file in a skill", func(m map[string]*sources.Skill) bool { return m["a"] != nil && len(m["a"].FileList) == 2 })

	writeSkill(t, filepath.Join(root, "group/a-renamed/deeper/nested/SKILL.md"), skillMD("nested"))
	w.until("a skill in a new nested folder", has("nested"))

	must(t, os.RemoveAll(filepath.Join(root, "group/b")))
	w.until("a deleted skill", hasNot("b"))

	outside := tree(t, map[string]string{"linked/SKILL.md": skillMD("linked")})
	must(t, os.Symlink(filepath.Join(outside, "linked"), filepath.Join(root, "group/linked")))
	w.until("a symlinked skill folder", has("linked"))
	writeSkill(t, filepath.Join(outside, "linked/SKILL.md"), "---\nname: linked\ndescription: Edited at the target.\n---\n")
	w.until("an edit at a link's target", func(m map[string]*sources.Skill) bool {
		return m["linked"] != nil && m["linked"].Description == "Edited at the target."
	})
}

// A burst of a thousand files (a git checkout, say) ends in the right
// listing.
func TestLiveRefreshBurst(t *testing.T) {
	root := t.TempDir()
	w := watchTree(t, root, nil)
	for i := range 1000 {
		name := fmt.Sprintf("s-%04d", i)
		writeSkill(t, filepath.Join(root, fmt.Sprintf("g%d", i%10), name, "SKILL.md"), skillMD(name))
	}
	w.until("a thousand new skills", func(m map[string]*sources.Skill) bool { return len(m) == 1000 })
}

// A root that appears after the start is watched from the first full
// scan that finds it.
func TestLiveRefreshOfALateRoot(t *testing.T) {
	root := filepath.Join(t.TempDir(), "later")
	w := watchTree(t, root, &dirtree.Options{Optional: true})
	writeSkill(t, filepath.Join(root, "x/SKILL.md"), skillMD("x"))
	if l := byName(relist(t, w.tree)); l["x"] == nil { // the periodic full scan
		t.Fatalf("the new root's skill is not found: %v", l)
	}
	writeSkill(t, filepath.Join(root, "y/SKILL.md"), skillMD("y"))
	w.until("the next skill, from the watcher", func(m map[string]*sources.Skill) bool { return m["y"] != nil })
}

// A skill.md (not SKILL.md) written in a folder outside every skill is
// warned about as soon as it is written, as at a full scan, and the
// warning goes when it is renamed to SKILL.md.
func TestLiveMisnamedSkillFile(t *testing.T) {
	root := tree(t, map[string]string{"a/SKILL.md": skillMD("a"), "notes/readme.txt": "x"})
	w := watchTree(t, root, nil)
	<-w.changed // the look after the watches are set
	relist(t, w.tree)
	misnamed := filepath.Join(root, "notes", "skill.md")
	writeSkill(t, misnamed, skillMD("notes"))
	await := func(what string, ok func(*sources.Listing) bool) {
		t.Helper()
		deadline := time.After(10 * time.Second)
		for {
			select {
			case <-w.changed:
			case <-deadline:
				t.Fatalf("%s: %v", what, relist(t, w.tree).Problems)
			}
			if ok(relist(t, w.tree)) {
				return
			}
		}
	}
	warned := func(l *sources.Listing) bool {
		return slices.ContainsFunc(l.Problems, func(d sources.Diagnostic) bool { return d.Rule == "skill-file-name" && d.Path == misnamed })
	}
	await("no warning for a skill.md written", warned)
	must(t, os.Rename(misnamed, filepath.Join(root, "notes", "SKILL.md")))
	await("renamed to SKILL.md", func(l *sources.Listing) bool { return !warned(l) && byName(l)["notes"] != nil })
}
