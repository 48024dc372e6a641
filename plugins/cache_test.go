package plugins

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// TestEqualSkillsInTwoFolders serves, through a plugin process, two skills
// whose files are byte for byte the same (named by their folders): each
// has a base directory that exists and holds its files, also for a second
// source over the same cache, as another skillmux would be.
func TestEqualSkillsInTwoFolders(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	t.Cleanup(func() { removeAll(cache) }) // its folders are read-only
	const content = "---\ndescription: The same file in two folders.\n---\nSame body.\n"
	for _, name := range []string{"one", "two"} {
		sourcetest.WriteFile(t, filepath.Join(dir, name, "SKILL.md"), content)
	}
	for _, name := range []string{"p", "q"} {
		src, logs := newTestSource(t, name, "dir", &Options{Env: map[string]string{envDir: dir}, CacheDir: cache})
		l, err := src.List(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if len(l.Skills) != 2 {
			t.Fatalf("%s: %d skills, want 2: %+v", name, len(l.Skills), l.Problems)
		}
		for _, sk := range l.Skills {
			if filepath.Base(sk.Dir) != sk.Ref.Name {
				t.Errorf("%s: Dir %q is not named after the skill's folder", sk.Ref, sk.Dir)
			}
			if _, err := sources.ReadEntry(sk, 1<<20); err != nil {
				t.Fatal(err)
			}
			if got, err := os.ReadFile(filepath.Join(sk.Dir, "SKILL.md")); err != nil || string(got) != content {
				t.Errorf("%s: the base directory holds %q, %v", sk.Ref, got, err)
			}
		}
		if strings.Contains(logs.String(), "no local copy") {
			t.Errorf("%s: a copy failed:\n%s", name, logs)
		}
	}
}

// TestCopiesShareAKey makes copies of one content under one key: in one
// process for two folders, and in two processes at once (two caches over
// one folder, whose fills each wait for the other's before going on) for
// one folder and for two. Every copy is made, none fails on a folder that
// exists.
func TestCopiesShareAKey(t *testing.T) {
	const content = "---\ndescription: D.\n---\nBody.\n"
	files := []fileMeta{{path: "SKILL.md", size: int64(len(content)), sha256: digestOf(content)}}
	key := contentKey(map[string]fileMeta{"SKILL.md": files[0]})
	fetch := func(fileMeta) ([]byte, error) { return []byte(content), nil }
	check := func(t *testing.T, root string, folders ...string) {
		t.Helper()
		for _, f := range folders {
			if got, err := os.ReadFile(filepath.Join(root, key, f, "SKILL.md")); err != nil || string(got) != content {
				t.Errorf("the copy in %s holds %q, %v", f, got, err)
			}
		}
	}

	t.Run("one process, two folders", func(t *testing.T) {
		root := t.TempDir()
		t.Cleanup(func() { removeAll(root) })
		c := newCopyCache(root, DefaultCacheBytes)
		for _, f := range []string{"one", "two", "one"} {
			if err := c.ensure(key, f, files, fetch); err != nil {
				t.Errorf("copy of %s: %v", f, err)
			}
		}
		check(t, root, "one", "two")
	})

	for _, folders := range [][2]string{{"one", "one"}, {"one", "two"}} {
		t.Run("two processes, folders "+folders[0]+" and "+folders[1], func(t *testing.T) {
			root := t.TempDir()
			t.Cleanup(func() { removeAll(root) })
			var arrived sync.WaitGroup
			arrived.Add(2)
			together := func(m fileMeta) ([]byte, error) {
				arrived.Done()
				arrived.Wait() // both fills have begun: both will rename
				return fetch(m)
			}
			errs := make([]error, 2)
			var wg sync.WaitGroup
			for i, f := range folders {
				c := newCopyCache(root, DefaultCacheBytes)
				wg.Go(func() { errs[i] = c.ensure(key, f, files, together) })
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("copy of %s: %v", folders[i], err)
				}
			}
			check(t, root, folders[:]...)
		})
	}
}
