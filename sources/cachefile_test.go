package sources_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/skillmux/skillmux/sources"
)

func TestCacheFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good", "SKILL.md")
	mkfile(t, good, "---\nname: good\ndescription: Saved and loaded back.\nmetadata:\n  k: v\nextra: 1\n---\nbody\n")
	bad := filepath.Join(dir, "bad", "SKILL.md")
	mkfile(t, bad, "---\nname: bad\n---\n")
	old := time.Now().Add(-time.Hour) // out of the racy window
	for _, p := range []string{good, bad} {
		os.Chtimes(p, old, old)
	}
	o := sources.LoadOptions{Source: "s", Scope: sources.ScopeUser, Convention: sources.ConventionClaudeUser}
	var c sources.Cache
	want, _ := c.Load(good, o)
	_, wantErr := c.Load(bad, o)
	file := filepath.Join(dir, "cache", "tree.cache")
	if err := c.SaveFile(file); err != nil {
		t.Fatal(err)
	}
	var loaded sources.Cache
	if err := loaded.LoadFile(file); err != nil {
		t.Fatal(err)
	}
	got, err := loaded.Load(good, o)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(sources.Skill{}, "Files")); diff != "" {
		t.Errorf("a skill loaded back (-want +got):\n%s", diff)
	}
	again, _ := loaded.Load(good, o)
	if again != got {
		t.Error("a loaded entry was not used: the file was parsed again")
	}
	if _, err := loaded.Load(bad, o); err == nil || err.Error() != wantErr.Error() {
		t.Errorf("a refused file loaded back: %v, want %v", err, wantErr)
	}
	// An edit after the save is seen: the key differs.
	mkfile(t, good, "---\nname: good\ndescription: Edited since.\n---\n")
	if sk, _ := loaded.Load(good, o); sk.Description != "Edited since." {
		t.Errorf("an edited file was served from the saved cache: %q", sk.Description)
	}
}

// A file modified just before the save might change again within the same
// tick of the clock: its entry is not trusted.
func TestCacheFileRacyEntries(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fresh", "SKILL.md")
	mkfile(t, p, "---\nname: fresh\ndescription: Just written.\n---\n")
	var c sources.Cache
	first, _ := c.Load(p, sources.LoadOptions{})
	file := filepath.Join(dir, "c")
	if err := c.SaveFile(file); err != nil {
		t.Fatal(err)
	}
	var loaded sources.Cache
	if err := loaded.LoadFile(file); err != nil {
		t.Fatal(err)
	}
	if got, _ := loaded.Load(p, sources.LoadOptions{}); got == first || got.Description != first.Description {
		t.Errorf("a racy entry was trusted, or the file misread: %v", got)
	}
}

func TestCacheFileCorrupt(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s", "SKILL.md")
	mkfile(t, p, "---\nname: s\ndescription: d\n---\n")
	var c sources.Cache
	c.Load(p, sources.LoadOptions{})
	file := filepath.Join(dir, "c")
	c.SaveFile(file)
	data, _ := os.ReadFile(file)
	for name, broken := range map[string][]byte{
		"a flipped byte": append(append([]byte{}, data[:len(data)-3]...), data[len(data)-3]^0xff, data[len(data)-2], data[len(data)-1]),
		"cut short":      data[:len(data)/2],
		"another format": []byte("{}"),
		"empty":          nil,
	} {
		os.WriteFile(file, broken, 0o644)
		var loaded sources.Cache
		if err := loaded.LoadFile(file); err == nil {
			t.Errorf("%s: loaded", name)
		}
		if sk, err := loaded.Load(p, sources.LoadOptions{}); err != nil || sk.Description != "d" {
			t.Errorf("%s: the cache is not usable afterwards: %v %v", name, sk, err)
		}
	}
}

// A save removes what a process killed while saving left (a temporary
// file of an hour ago; a newer one may be another process's save under
// way), the saved caches of roots unused for a month, and the least
// recently used of more than 256; anything else in the folder stays. A
// load renews the file it loaded.
func TestCacheFileSaveRemovesLeftovers(t *testing.T) {
	dir := t.TempDir()
	leftover, under, recent, unused, other := filepath.Join(dir, ".cache-111"), filepath.Join(dir, ".cache-222"), filepath.Join(dir, "recent.cache"), filepath.Join(dir, "unused.cache"), filepath.Join(dir, "notes.txt")
	for _, p := range []string{leftover, under, recent, unused, other} {
		mkfile(t, p, "x")
	}
	setAge := func(p string, age time.Duration) {
		t.Helper()
		at := time.Now().Add(-age)
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
	}
	setAge(leftover, 2*time.Hour)
	setAge(recent, 29*24*time.Hour)
	setAge(unused, 31*24*time.Hour)
	setAge(other, 365*24*time.Hour)
	var c sources.Cache
	if err := c.SaveFile(filepath.Join(dir, "tree.cache")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{leftover, unused} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("a save left %s: %v", p, err)
		}
	}
	for _, p := range []string{under, recent, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a save removed %s: %v", p, err)
		}
	}

	// The 300 saved caches of another folder: a save keeps the 255 used
	// last, and its own.
	many := filepath.Join(t.TempDir(), "trees")
	for i := range 300 {
		p := filepath.Join(many, fmt.Sprintf("%03d.cache", i))
		mkfile(t, p, "x")
		setAge(p, time.Duration(i)*time.Hour)
	}
	if err := c.SaveFile(filepath.Join(many, "new.cache")); err != nil {
		t.Fatal(err)
	}
	left, _ := os.ReadDir(many)
	if len(left) != 256 || left[254].Name() != "254.cache" || left[255].Name() != "new.cache" {
		t.Errorf("%d saved caches left, the last two %s; want 000 to 254 and new", len(left), left[len(left)-2:])
	}

	// A cache loaded at every start but never saved again is in use.
	loaded := filepath.Join(dir, "tree.cache")
	setAge(loaded, 29*24*time.Hour)
	if err := (&sources.Cache{}).LoadFile(loaded); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(loaded); err != nil || time.Since(fi.ModTime()) > time.Hour {
		t.Errorf("a load did not renew the file it loaded: %v", err)
	}
}
