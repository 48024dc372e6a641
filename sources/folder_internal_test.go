package sources

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func entryNames(entries []DirEntry) string {
	var n []string
	for _, e := range entries {
		n = append(n, e.Name)
	}
	slices.Sort(n)
	return strings.Join(n, " ")
}

// read lists dir and records the listing in c as a scan does.
func read(t *testing.T, c *Cache, dir string, gen uint64) {
	t.Helper()
	entries, key, err := ReadFolder(dir)
	if err != nil {
		t.Fatal(err)
	}
	c.PutFolder(dir, key, entries, gen)
}

// A recorded listing is given back while the folder is unchanged, and no
// longer once an entry was added, removed or renamed in it, even when the
// folder's modification time is set back (its change time still moves).
func TestFolderListings(t *testing.T) {
	LaterClock(t)
	dir := t.TempDir()
	for _, d := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(dir, "README.md"), nil, 0o644)

	for name, change := range map[string]func() error{
		"added":   func() error { return os.Mkdir(filepath.Join(dir, "c"), 0o755) },
		"removed": func() error { return os.Remove(filepath.Join(dir, "README.md")) },
		"renamed": func() error { return os.Rename(filepath.Join(dir, "a"), filepath.Join(dir, "a2")) },
		"added, time set back": func() error {
			fi, err := os.Stat(dir)
			if err != nil {
				return err
			}
			if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
				return err
			}
			return os.Chtimes(dir, fi.ModTime(), fi.ModTime())
		},
	} {
		var c Cache
		read(t, &c, dir, 1)
		got, ok := c.Folder(dir, 1)
		if !ok {
			t.Fatalf("%s: an unchanged folder's listing was not given back", name)
		}
		before := entryNames(got)
		if err := change(); err != nil {
			t.Fatal(err)
		}
		if got, ok := c.Folder(dir, 1); ok {
			t.Errorf("%s: the listing from before the change was given back: %s (it was %s)", name, entryNames(got), before)
		}
	}
}

// A folder changed within the racy window of now is not recorded: a
// second change within the same tick of the clock would keep its key.
func TestFolderListingRacy(t *testing.T) {
	dir := t.TempDir()
	var c Cache
	read(t, &c, dir, 1)
	if _, ok := c.Folder(dir, 1); ok {
		t.Error("a folder changed a moment ago was recorded")
	}
	if c.Changed() {
		t.Error("the cache says it changed, with nothing recorded")
	}
}

// Listings are saved with the cache and loaded back, and Prune forgets
// those not used since.
func TestFolderListingsSavedAndPruned(t *testing.T) {
	LaterClock(t)
	root := t.TempDir()
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, d := range []string{a, b} {
		os.MkdirAll(filepath.Join(d, "sub"), 0o755)
		os.WriteFile(filepath.Join(d, "notes.md"), nil, 0o644)
	}
	var c Cache
	read(t, &c, a, 1)
	read(t, &c, b, 1)
	file := filepath.Join(root, "cache")
	if err := c.SaveFile(file); err != nil {
		t.Fatal(err)
	}
	var loaded Cache
	if err := loaded.LoadFile(file); err != nil {
		t.Fatal(err)
	}
	got, ok := loaded.Folder(a, 2)
	if !ok || entryNames(got) != "notes.md sub" {
		t.Fatalf("loaded back: %q, %v; want \"notes.md sub\"", entryNames(got), ok)
	}
	for _, e := range got {
		if e.Name == "sub" && !e.Type.IsDir() {
			t.Errorf("the type of %q was lost: %v", e.Name, e.Type)
		}
	}
	loaded.Prune(2) // b was not used in generation 2
	if _, ok := loaded.Folder(b, 3); ok {
		t.Error("a listing not used since the last full scan was kept")
	}
	if _, ok := loaded.Folder(a, 3); !ok {
		t.Error("a listing used in the last full scan was pruned")
	}
}
