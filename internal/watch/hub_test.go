package watch

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Every Watcher of a process shares one inotify instance, which a user
// has few of (fs.inotify.max_user_instances, often 128, for every
// program), and it goes with the last Watcher.
func TestWatchersShareOneInstance(t *testing.T) {
	before := inotifyInstances(t)
	if before < 0 {
		t.Skip("needs inotify")
	}
	// The roots are made before the first Watcher starts: that one
	// watches the folder above its root, and a root made there after it
	// would reach the next Watcher as its own creation, a Rescan rather
	// than the path the test waits for.
	roots := make([]string, 12)
	for i := range roots {
		roots[i] = t.TempDir()
	}
	var hs []*harness
	for _, root := range roots {
		hs = append(hs, start(t, nil, root, filepath.Join(root, "missing", "skills")))
	}
	if n := inotifyInstances(t); n != before+1 {
		t.Errorf("%d inotify instances for 12 Watchers; want 1", n-before)
	}
	for _, h := range hs {
		f := filepath.Join(h.roots()[0], "SKILL.md")
		write(t, f)
		h.waitFor(f)
	}
	for _, h := range hs {
		h.stop()
	}
	if n := inotifyInstances(t); n != before {
		t.Errorf("%d inotify instances left after every Watcher closed; want none", n-before)
	}
}

// Two Watchers that watch one folder, by one path or by two (a link), each
// get its events under their own paths; one that stops watching it leaves
// the other's watch alone, and so does removing the link.
func TestWatchersShareFolders(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	mkdirs(t, filepath.Join(real, "skill"))
	link := filepath.Join(base, "link")
	symlink(t, real, link)
	a := start(t, nil, real)
	b := start(t, nil, real)
	c := start(t, nil, link)

	f := filepath.Join(real, "skill", "SKILL.md")
	write(t, f)
	a.waitFor(f)
	b.waitFor(f)
	c.waitFor(filepath.Join(link, "skill", "SKILL.md"))

	a.stop()
	if left := b.w.hub.watched(a.w); len(left) != 0 {
		t.Errorf("the hub still watches %q for a closed Watcher", left)
	}
	g := filepath.Join(real, "skill", "g.md")
	write(t, g)
	b.waitFor(g)
	c.waitFor(filepath.Join(link, "skill", "g.md"))

	c.stop()
	must(t, os.Remove(link))
	h := filepath.Join(real, "skill", "h.md")
	write(t, h)
	b.waitFor(h)
}

// Many Watchers of one folder (one per client root, each with the folders
// above its root), some by a link: each gets every event, once, under its
// own path; those that stop leave the others theirs, and the last one
// leaves nothing watched.
func TestManyWatchersShareFolders(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	mkdirs(t, filepath.Join(real, "skill"))
	link := filepath.Join(base, "link")
	symlink(t, real, link)
	var hs []*harness
	for i := range 3 * manySubs {
		root := real
		if i%3 == 0 {
			root = link
		}
		hs = append(hs, start(t, nil, root))
	}
	for round, f := range []string{"SKILL.md", "g.md"} {
		write(t, filepath.Join(real, "skill", f))
		for _, h := range hs {
			h.waitFor(filepath.Join(h.roots()[0], "skill", f))
			h.reset()
		}
		if round == 0 {
			for _, h := range hs[:len(hs)/2] {
				h.stop()
				if left := h.w.hub.watched(h.w); len(left) != 0 {
					t.Fatalf("the hub still watches %q for a closed Watcher", left)
				}
			}
			hs = hs[len(hs)/2:]
		}
	}
	// A new folder is reported to each.
	mkdirs(t, filepath.Join(real, "skill", "new"))
	for _, h := range hs {
		want := filepath.Join(h.roots()[0], "skill", "new")
		h.waitFor(want)
	}
	hub := hs[0].w.hub
	for _, h := range hs {
		h.stop()
	}
	hub.mu.Lock()
	defer hub.mu.Unlock()
	if len(hub.paths) != 0 || len(hub.nodes) != 0 {
		t.Errorf("after every Watcher closed, the hub holds %d paths and %d folders", len(hub.paths), len(hub.nodes))
	}
}

// A folder removed and made again (the kernel may give it the same inode
// number) is watched again for every Watcher that watches it.
func TestWatchersFolderRemade(t *testing.T) {
	root := t.TempDir()
	skill := filepath.Join(root, "skill")
	mkdirs(t, skill)
	a := start(t, nil, root)
	b := start(t, nil, root)
	for range 5 {
		must(t, os.RemoveAll(skill))
		mkdirs(t, skill)
		a.waitFor(skill)
		b.waitFor(skill)
		f := filepath.Join(skill, "SKILL.md")
		a.reset()
		b.reset()
		write(t, f)
		a.waitFor(f)
		b.waitFor(f)
		a.reset()
		b.reset()
	}
}

// roots returns the harness's roots, sorted.
func (h *harness) roots() []string {
	h.w.mu.Lock()
	defer h.w.mu.Unlock()
	return slices.Sorted(maps.Keys(h.w.roots))
}

// A link to a folder removed, or switched to another folder (ln -sfn),
// leaves the folder watched for the Watchers that reach it by another
// path, whichever path reached it first.
func TestWatchersLinkGoes(t *testing.T) {
	for _, switched := range []bool{false, true} {
		t.Run(map[bool]string{false: "removed", true: "switched"}[switched], func(t *testing.T) {
			base := t.TempDir()
			real := filepath.Join(base, "real")
			mkdirs(t, filepath.Join(real, "foo"), filepath.Join(real, "baz"))
			a, u := filepath.Join(base, "a"), filepath.Join(base, "u")
			mkdirs(t, a, u)
			symlink(t, filepath.Join(real, "foo"), filepath.Join(a, "foo"))
			symlink(t, filepath.Join(real, "foo"), filepath.Join(u, "foo"))
			ha := start(t, nil, a) // the first to reach the folder
			hu := start(t, nil, u)

			if switched {
				tmp := filepath.Join(a, "foo.tmp")
				symlink(t, filepath.Join(real, "baz"), tmp)
				must(t, os.Rename(tmp, filepath.Join(a, "foo")))
			} else {
				must(t, os.Remove(filepath.Join(a, "foo")))
			}
			ha.waitFor(filepath.Join(a, "foo"))
			for i := range 3 {
				f := filepath.Join(real, "foo", fmt.Sprintf("SKILL%d.md", i))
				write(t, f)
				hu.waitFor(filepath.Join(u, "foo", filepath.Base(f)))
			}
			if switched {
				g := filepath.Join(real, "baz", "SKILL.md")
				write(t, g)
				ha.waitFor(filepath.Join(a, "foo", "SKILL.md"))
			}
		})
	}
}

// Two Watchers of one root, a folder renamed in it: both hear of what is
// made in it under its new name, however the Watchers' drop and re-add of
// the folder interleave with fsnotify's reading of the move (which drops
// the folder's watch). Some interleavings are rare: the test repeats.
func TestWatchersFolderMoved(t *testing.T) {
	for i := range 30 {
		root := t.TempDir()
		skill := filepath.Join(root, "skill")
		mkdirs(t, skill)
		a := start(t, nil, root)
		b := start(t, nil, root)
		moved := filepath.Join(root, fmt.Sprint("moved", i))
		must(t, os.Rename(skill, moved))
		a.waitFor(moved)
		b.waitFor(moved)
		f := filepath.Join(moved, "SKILL.md")
		write(t, f)
		a.waitFor(f)
		b.waitFor(f)
		a.stop()
		b.stop()
	}
}

// A folder moved while events are lost (an overflow) is watched again by
// every Watcher at its new name, and a folder made at its old name is
// watched too: the hub checks its folders after an overflow.
func TestWatchersOverflowMove(t *testing.T) {
	root := t.TempDir()
	x, y := filepath.Join(root, "x"), filepath.Join(root, "y")
	mkdirs(t, x)
	f1, f2 := filepath.Join(root, "f1"), filepath.Join(root, "f2")
	write(t, f1)
	write(t, f2)
	a := start(t, nil, root)
	b := start(t, nil, root)
	overflow(t, a, f1, f2, func() { must(t, os.Rename(x, y)) })
	a.waitRescan()
	b.waitRescan()
	mkdirs(t, x)
	a.waitFor(x)
	b.waitFor(x)
	for _, p := range []string{filepath.Join(y, "a"), filepath.Join(x, "b")} {
		write(t, p)
		a.waitFor(p)
		b.waitFor(p)
	}
}
