package watch

import (
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
	var hs []*harness
	for range 12 {
		root := t.TempDir()
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
