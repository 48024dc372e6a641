package sources

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// writeOld writes a SKILL.md and gives it the modification time of an
// hour ago, as cp -p, rsync -a and tar x do: its change time is now.
func writeOld(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
}

// staleEntry makes c's entry of path say what the file said before a
// rewrite that kept its key, as one within a second does on a file system
// whose clock ticks by the second.
func staleEntry(c *Cache, path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[path]
	stale := *e.skill
	stale.Description = "Stale."
	stale.FrontMatter = []byte("name: s\ndescription: Stale.\n")
	e.skill = &stale
	c.m[path] = e
}

// A file the cache parsed within racyWindow of its change is parsed again
// at its next probe, whatever its key says; once a parse comes later than
// that, the entry is trusted.
func TestCacheParsesRacyEntriesAgain(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s", "SKILL.md")
	writeOld(t, p, "---\nname: s\ndescription: Current.\n---\n")
	var c Cache
	first, err := c.Load(p, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := c.Load(p, LoadOptions{}); again != first {
		t.Error("a racy file parsed again to the same front matter gave another *Skill")
	}
	staleEntry(&c, p)
	if sk, _ := c.Load(p, LoadOptions{}); sk.Description != "Current." {
		t.Errorf("a file parsed just after its change was trusted at the next probe: %q", sk.Description)
	}
	LaterClock(t)
	c.Load(p, LoadOptions{})
	staleEntry(&c, p)
	if sk, _ := c.Load(p, LoadOptions{}); sk.Description != "Stale." {
		t.Errorf("a file parsed long after its change was parsed again: %q", sk.Description)
	}
}

// A saved entry of a file changed just before the save is not loaded back,
// though its modification time is old: the change time counts.
func TestCacheFileDropsEntriesChangedBeforeTheSave(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s", "SKILL.md")
	writeOld(t, p, "---\nname: s\ndescription: Copied with its times.\n---\n")
	var c Cache
	c.Load(p, LoadOptions{})
	if _, ok := saveAndLoad(t, &c, filepath.Join(dir, "c")).m[p]; ok {
		t.Error("the entry of a file changed just before the save was loaded back")
	}
}

// saveAndLoad saves c to file and loads it back into another Cache, as
// the next process does.
func saveAndLoad(t *testing.T, c *Cache, file string) *Cache {
	t.Helper()
	if err := c.SaveFile(file); err != nil {
		t.Fatal(err)
	}
	var loaded Cache
	if err := loaded.LoadFile(file); err != nil {
		t.Fatal(err)
	}
	return &loaded
}

// A digest of a file changed within racyWindow of now is not kept.
func TestDigestsOfRacyFilesAreNotKept(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.md")
	writeOld(t, p, "a")
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	f := WalkedFile{Path: "a.md", Size: info.Size(), Key: KeyOf(info)}
	var d Digests
	if _, _, err := d.Sum(os.DirFS(dir), dir, f); err != nil || len(d.m) != 0 {
		t.Errorf("the digest of a file changed just now was kept (%v)", err)
	}
	LaterClock(t)
	if _, _, err := d.Sum(os.DirFS(dir), dir, f); err != nil || len(d.m) != 1 {
		t.Errorf("the digest of a file changed long ago was not kept (%v)", err)
	}
}

// An entry still racy when the cache is saved is not saved: a later save
// time would vouch for a parse the file may have changed after.
func TestCacheFileLeavesRacyEntriesOut(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s", "SKILL.md")
	writeOld(t, p, "---\nname: s\ndescription: Current.\n---\n")
	var c Cache
	c.Load(p, LoadOptions{})
	LaterClock(t) // the save comes long after the change
	if _, ok := saveAndLoad(t, &c, filepath.Join(dir, "c")).m[p]; ok {
		t.Error("an entry parsed just after its file's change was saved, and loaded back")
	}
}

// A file whose modification time is in the future (an archive from
// another time zone, touch -d) is trusted once its change is past: it is
// not parsed again at every look.
func TestCacheTrustsFilesOfFutureTimes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s", "SKILL.md")
	writeOld(t, p, "---\nname: s\ndescription: Current.\n---\n")
	future := time.Now().Add(24 * time.Hour)
	if err := os.Chtimes(p, future, future); err != nil {
		t.Fatal(err)
	}
	LaterClock(t) // an hour on: the change is past, the modification time still ahead
	var c Cache
	c.Load(p, LoadOptions{})
	staleEntry(&c, p)
	if sk, _ := c.Load(p, LoadOptions{}); sk.Description != "Stale." {
		t.Errorf("a file of a future modification time was parsed again: %q", sk.Description)
	}
}
