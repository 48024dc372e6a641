package plugins

import (
	"cmp"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pluginpb "github.com/skillmux/skillmux/plugins/proto"
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
	key := contentKey(map[string]fileMeta{"SKILL.md": files[0]}, nil)
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

// TestEvictedCopyIsMadeAgain serves, through a plugin process, three
// skills of which two fit in the cache: the third copy evicts the first,
// whose next read makes its copy again, so that its base directory holds
// its files again.
func TestEvictedCopyIsMadeAgain(t *testing.T) {
	dir, cache := t.TempDir(), t.TempDir()
	t.Cleanup(func() { removeAll(cache) })
	ballast := strings.Repeat("x", 40<<10)
	for _, name := range []string{"a", "b", "c"} {
		sourcetest.WriteFiles(t, filepath.Join(dir, name), map[string]string{
			"SKILL.md":      "---\ndescription: Skill " + name + ".\n---\nBody of " + name + ".\n",
			"ref/large.txt": name + ballast,
		})
	}
	src, logs := newTestSource(t, "p", "dir", &Options{Env: map[string]string{envDir: dir}, CacheDir: cache, CacheBytes: 100 << 10})
	l, err := src.List(t.Context())
	if err != nil || len(l.Skills) != 3 {
		t.Fatalf("listing: %v, %+v", err, l)
	}
	skills := map[string]*sources.Skill{}
	for _, sk := range l.Skills {
		skills[sk.Ref.Name] = sk
	}
	read := func(name string) {
		t.Helper()
		sk := skills[name]
		got, err := sources.ReadEntry(sk, 1<<20)
		if err != nil || !strings.Contains(string(got), "Body of "+name) {
			t.Fatalf("%s: %q, %v", name, got, err)
		}
		if large, err := os.ReadFile(filepath.Join(sk.Dir, "ref", "large.txt")); err != nil || string(large) != name+ballast {
			t.Errorf("%s: the base directory does not hold its files after a read: %.20q, %v", name, large, err)
		}
	}
	for _, name := range []string{"a", "b", "c"} {
		read(name)
	}
	if _, err := os.Stat(skills["a"].Dir); err == nil {
		t.Fatalf("the copy of a was not evicted: the test would show nothing")
	}
	read("a")
	if strings.Contains(logs.String(), "no local copy") {
		t.Errorf("a copy failed:\n%s", logs)
	}
}

// TestEvictionLooksAtTheFolderOnce fills a cache of room for four copies
// with forty: it stays under its cap, keeps the last copies made, and
// walks its folder once, not once per copy (which made filling a cache
// quadratic in the copies it holds).
func TestEvictionLooksAtTheFolderOnce(t *testing.T) {
	root := t.TempDir()
	t.Cleanup(func() { removeAll(root) })
	const size = 1000
	c := newCopyCache(root, 4*size)
	var keys []string
	for i := range 40 {
		content := fmt.Sprintf("%0*d", size, i)
		files := []fileMeta{{path: "SKILL.md", size: size, sha256: digestOf(content)}}
		key := contentKey(map[string]fileMeta{"SKILL.md": files[0]}, nil)
		keys = append(keys, key)
		if err := c.ensure(key, "s", files, func(fileMeta) ([]byte, error) { return []byte(content), nil }); err != nil {
			t.Fatal(err)
		}
	}
	if c.scans != 1 {
		t.Errorf("the cache folder was walked %d times for 40 copies, want once", c.scans)
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 4 {
		t.Errorf("%d copies kept, want the 4 that fit", len(entries))
	}
	for _, key := range keys[len(keys)-4:] {
		if !isDir(filepath.Join(root, key, "s")) {
			t.Errorf("a copy among the last four made is gone: %s", key)
		}
	}
}

// slowReads is byID whose reads take a while (delay, else 100 ms) once
// slow is set.
type slowReads struct {
	byID
	slow  atomic.Bool
	delay time.Duration
}

func (s *slowReads) ReadFile(req *pluginpb.ReadFileRequest, stream pluginpb.SkillSource_ReadFileServer) error {
	if s.slow.Load() {
		time.Sleep(cmp.Or(s.delay, 100*time.Millisecond))
	}
	return s.byID.ReadFile(req, stream)
}

// Many readers of a skill whose copy was removed (by another process
// sharing the cache folder) all read it: one makes the copy again, and
// those that missed the old one meanwhile find the new one.
func TestConcurrentReadsAfterEviction(t *testing.T) {
	const front = "name: s\ndescription: D.\n"
	const file = "---\n" + front + "---\nbody\n"
	plugin := &slowReads{byID: byID{skills: []*pluginpb.Skill{
		{Id: "s", FrontMatter: []byte(front), Files: []*pluginpb.FileInfo{{Path: "SKILL.md", Size: int64(len(file)), Sha256: digestOf(file)}}},
	}, files: map[string]string{"s/SKILL.md": file}}}
	src := connect(t, "p", plugin, t.TempDir())
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	sk := l.Skills[0]
	for round := range 5 {
		if _, err := fs.ReadFile(sk.Files, "SKILL.md"); err != nil {
			t.Fatal(err)
		}
		removeAll(filepath.Dir(sk.Dir))
		plugin.slow.Store(true)
		var wg sync.WaitGroup
		errs := make(chan error, 64)
		start := make(chan struct{})
		for range cap(errs) {
			wg.Go(func() {
				<-start
				if _, err := fs.ReadFile(sk.Files, "SKILL.md"); err != nil {
					errs <- err
				}
			})
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("round %d: a read after the copy was removed: %v", round, err)
			break
		}
		plugin.slow.Store(false)
	}
}

// A copy removed by another process and made again is counted once.
func TestRemovedCopyCountedOnce(t *testing.T) {
	const content = "---\ndescription: D.\n---\nBody.\n"
	files := []fileMeta{{path: "SKILL.md", size: int64(len(content)), sha256: digestOf(content)}}
	key := contentKey(map[string]fileMeta{"SKILL.md": files[0]}, nil)
	root := t.TempDir()
	t.Cleanup(func() { removeAll(root) })
	c := newCopyCache(root, DefaultCacheBytes)
	for i := range 5 {
		if err := c.ensure(key, "one", files, func(fileMeta) ([]byte, error) { return []byte(content), nil }); err != nil {
			t.Fatal(err)
		}
		if i < 4 {
			removeAll(filepath.Join(root, key))
		}
	}
	c.usage.Lock()
	got := c.keys[filepath.Join(root, key)].size()
	c.usage.Unlock()
	if got != int64(len(content)) {
		t.Errorf("the copy is counted as %d bytes; it holds %d", got, len(content))
	}
}

// The cache counts what its key folders hold, whatever order copies of one
// key in two folders (two skills of the same files) are made, lost and
// made again in, and when both are made at once.
func TestCopyAccountingMatchesDisk(t *testing.T) {
	const content = "---\ndescription: D.\n---\nBody.\n"
	files := []fileMeta{{path: "SKILL.md", size: int64(len(content)), sha256: digestOf(content)}}
	key := contentKey(map[string]fileMeta{"SKILL.md": files[0]}, nil)
	fetch := func(fileMeta) ([]byte, error) { return []byte(content), nil }
	check := func(t *testing.T, c *copyCache, keyDir string) bool {
		t.Helper()
		c.usage.Lock()
		var counted int64 = -1
		if k := c.keys[keyDir]; k != nil {
			counted = k.size()
		}
		c.usage.Unlock()
		var disk int64
		filepath.WalkDir(keyDir, func(_ string, d fs.DirEntry, err error) error {
			if info, ierr := d.Info(); err == nil && ierr == nil && !d.IsDir() && d.Name() != stampName { // the skills' files
				disk += info.Size()
			}
			return nil
		})
		if counted != disk {
			t.Errorf("the key is counted as %d bytes; it holds %d", counted, disk)
		}
		return counted == disk
	}

	t.Run("lost in turn", func(t *testing.T) {
		root := t.TempDir()
		t.Cleanup(func() { removeAll(root) })
		c := newCopyCache(root, DefaultCacheBytes)
		keyDir := filepath.Join(root, key)
		r := &remote{cache: c, fileCtx: func() (context.Context, context.CancelFunc) { return context.WithCancel(t.Context()) }}
		copies := map[string]*remoteFS{}
		for _, folder := range []string{"a", "b"} {
			f := &remoteFS{r: r, id: folder, key: key, dir: filepath.Join(keyDir, folder), files: map[string]fileMeta{"SKILL.md": files[0]}}
			f.tried, f.copied = true, true
			if err := c.ensure(key, folder, files, fetch); err != nil {
				t.Fatal(err)
			}
			copies[folder] = f
		}
		removeAll(keyDir) // by another process
		for _, folder := range []string{"b", "a"} {
			copies[folder].lost()
			if err := c.ensure(key, folder, files, fetch); err != nil {
				t.Fatal(err)
			}
		}
		check(t, c, keyDir)
	})
	t.Run("at once", func(t *testing.T) {
		for range 100 {
			root := t.TempDir()
			c := newCopyCache(root, DefaultCacheBytes)
			var gate sync.WaitGroup
			gate.Add(2)
			var wg sync.WaitGroup
			for _, folder := range []string{"a", "b"} {
				wg.Go(func() {
					err := c.ensure(key, folder, files, func(m fileMeta) ([]byte, error) { gate.Done(); gate.Wait(); return fetch(m) })
					if err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			ok := check(t, c, filepath.Join(root, key))
			removeAll(root)
			if !ok {
				break
			}
		}
	})
}

// Copies made at once into a full cache each make room for their own:
// the cache holds no more than its cap once they are made.
func TestCopiesAtOnceStayUnderTheCap(t *testing.T) {
	const size, room, atOnce = 1000, 4, 4
	root := t.TempDir()
	t.Cleanup(func() { removeAll(root) })
	c := newCopyCache(root, room*size)
	copyOf := func(i int, fetchGate func()) error {
		content := fmt.Sprintf("%0*d", size, i)
		files := []fileMeta{{path: "SKILL.md", size: size, sha256: digestOf(content)}}
		return c.ensure(contentKey(map[string]fileMeta{"SKILL.md": files[0]}, nil), "s", files, func(fileMeta) ([]byte, error) {
			fetchGate()
			return []byte(content), nil
		})
	}
	for i := range room { // full
		if err := copyOf(i, func() {}); err != nil {
			t.Fatal(err)
		}
	}
	var gate, wg sync.WaitGroup
	gate.Add(atOnce)
	for i := range atOnce {
		wg.Go(func() {
			// Every fill has made its room before any is in place.
			if err := copyOf(room+i, func() { gate.Done(); gate.Wait() }); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) > room {
		t.Errorf("%d copies in a cache with room for %d", len(entries), room)
	}
}

// A local copy is made within the plugin's timeout as a whole, not within
// it for each file: a skill of many files that the plugin reads slowly is
// not copied past it (a skill of 31 files read in 2 s each took a minute
// to load), and its SKILL.md is then read through the plugin alone.
func TestSlowCopyIsGivenUp(t *testing.T) {
	const front = "name: wide\ndescription: Many files.\n"
	const entry = "---\n" + front + "---\nbody\n"
	plugin := &slowReads{byID: byID{files: map[string]string{"wide/SKILL.md": entry}}}
	b := &plugin.byID
	sk := &pluginpb.Skill{Id: "wide", FrontMatter: []byte(front), Files: []*pluginpb.FileInfo{{Path: "SKILL.md", Size: int64(len(entry)), Sha256: digestOf(entry)}}}
	for i := range 20 {
		p := fmt.Sprintf("ref/%02d.md", i)
		b.files["wide/"+p] = p
		sk.Files = append(sk.Files, &pluginpb.FileInfo{Path: p, Size: int64(len(p)), Sha256: digestOf(p)})
	}
	b.skills = []*pluginpb.Skill{sk}
	plugin.slow.Store(true) // 100 ms a read
	src := connect(t, "p", plugin, t.TempDir())
	src.r.copyWithin = 250 * time.Millisecond
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	body, err := sources.ReadEntry(l.Skills[0], 1<<20)
	if err != nil || !strings.Contains(string(body), "body") {
		t.Fatalf("the SKILL.md: %q, %v", body, err)
	}
	if n := plugin.reads.Load(); n >= 21 {
		t.Errorf("%d reads: the copy went on past its time, reading every file", n)
	}
}

// A copy the plugin could not serve for a while (it was busy) is made at a
// later read, once it answers: the skill is not read through the plugin
// for the rest of the process's life.
func TestBusyCopyIsMadeLater(t *testing.T) {
	const front = "name: s\ndescription: D.\n"
	const file = "---\n" + front + "---\nbody\n"
	p := &heldReads{byID: byID{skills: []*pluginpb.Skill{{Id: "s", FrontMatter: []byte(front), Files: []*pluginpb.FileInfo{{Path: "SKILL.md", Size: int64(len(file)), Sha256: digestOf(file)}}}},
		files: map[string]string{"s/SKILL.md": file}}, release: make(chan struct{})}
	src := connect(t, "p", p, t.TempDir())
	src.r.reading = make(chan struct{}, 1)
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	sk := l.Skills[0]
	peeked := make(chan error, 2)
	for range 2 { // the one read under way, and the one waiting its turn
		go func() { _, err := sources.PeekEntryInto(sk, 1<<20, nil); peeked <- err }()
	}
	for p.reads.Load() < 1 || src.r.admitted.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	if _, err := fs.ReadFile(sk.Files, "SKILL.md"); !errors.Is(err, errBusy) || !strings.HasSuffix(err.Error(), "; try again in a moment") {
		t.Fatalf("a read while the plugin is busy: %v; want busy, and to try again", err)
	}
	close(p.release)
	for range 2 {
		if err := <-peeked; err != nil {
			t.Fatal(err)
		}
	}
	if _, err := fs.ReadFile(sk.Files, "SKILL.md"); err != nil {
		t.Fatal(err)
	}
	if !isDir(sk.Dir) {
		t.Errorf("no local copy at %s once the plugin answered", sk.Dir)
	}
}

// A read that waits its turn behind others has the plugin's whole timeout
// for its own call once its turn comes: a plugin slow enough that its
// reads one after another take more than its timeout answers those
// waiting too, and is not taken for hung.
func TestWaitingReadHasItsWholeTimeout(t *testing.T) {
	const front = "name: s\ndescription: D.\n"
	const file = "---\n" + front + "---\nbody\n"
	plugin := &slowReads{byID: byID{skills: []*pluginpb.Skill{{Id: "s", FrontMatter: []byte(front), Files: []*pluginpb.FileInfo{{Path: "SKILL.md", Size: int64(len(file)), Sha256: digestOf(file)}}}},
		files: map[string]string{"s/SKILL.md": file}}}
	plugin.delay = 200 * time.Millisecond
	plugin.slow.Store(true)
	src := connect(t, "p", plugin, "")
	src.r.reading = make(chan struct{}, 1)
	src.r.fileCtx = func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(t.Context(), 350*time.Millisecond)
	}
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// The second waits 200 ms for its turn: from the start, its 350 would
	// leave it 150 for a read of 200.
	errs := make(chan error, 2)
	for range 2 {
		go func() { _, err := fs.ReadFile(l.Skills[0].Files, "SKILL.md"); errs <- err }()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("a read of a plugin that takes 200 ms of its 350: %v", err)
		}
	}
}

// The time a copy's reads wait for their turns behind other reads is not
// counted against the copy's bound: a plugin busy a while with other
// reads still gets its skill copied.
func TestCopyWaitingItsTurnIsNotSlow(t *testing.T) {
	const front = "name: s\ndescription: D.\n"
	const file = "---\n" + front + "---\nbody\n"
	p := &heldReads{byID: byID{skills: []*pluginpb.Skill{{Id: "s", FrontMatter: []byte(front), Files: []*pluginpb.FileInfo{
		{Path: "SKILL.md", Size: int64(len(file)), Sha256: digestOf(file)}, {Path: "a.md", Size: 1, Sha256: digestOf("a")}, {Path: "b.md", Size: 1, Sha256: digestOf("b")},
	}}}, files: map[string]string{"s/SKILL.md": file, "s/a.md": "a", "s/b.md": "b"}}, release: make(chan struct{})}
	src := connect(t, "p", p, t.TempDir())
	src.r.reading = make(chan struct{}, 1)
	src.r.copyWithin = 50 * time.Millisecond
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	sk := l.Skills[0]
	peeked := make(chan error, 1)
	go func() { _, err := sources.PeekEntryInto(sk, 1<<20, nil); peeked <- err }() // takes the one turn
	for p.reads.Load() < 1 {
		time.Sleep(time.Millisecond)
	}
	time.AfterFunc(300*time.Millisecond, func() { close(p.release) }) // longer than copyWithin
	if _, err := fs.ReadFile(sk.Files, "SKILL.md"); err != nil {
		t.Fatal(err)
	}
	if err := <-peeked; err != nil {
		t.Fatal(err)
	}
	if !isDir(sk.Dir) {
		t.Errorf("no local copy at %s: the wait for a turn was taken for slowness", sk.Dir)
	}
}

// A skill whose own files include one named as the stamp is copied, its
// file kept, and its copy used by the next process, not made again.
func TestCopyOfAFileNamedAsTheStamp(t *testing.T) {
	root := t.TempDir()
	t.Cleanup(func() { removeAll(root) })
	data := []byte("the plugin's own file")
	sum := sha256.Sum256(data)
	files := []fileMeta{{path: stampName, size: int64(len(data)), sha256: sum[:]}}
	fetches := 0
	fetch := func(fileMeta) ([]byte, error) { fetches++; return data, nil }
	for range 2 { // a process each
		if err := newCopyCache(root, DefaultCacheBytes).ensure("k", "s", files, fetch); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := os.ReadFile(filepath.Join(root, "k", "s", stampName)); err != nil || string(got) != string(data) || fetches != 1 {
		t.Errorf("the copy holds %q (%v), after %d fetches; want the plugin's file, fetched once", got, err, fetches)
	}
}

// hangsOn is a plugin that hangs in every read of one file; or, when it
// crashes, that is down from its first read of that file on, as a plugin
// that crashed is until it is restarted.
type hangsOn struct {
	byID
	path    string
	crashes bool
	hung    atomic.Int32 // reads of path
}

func (h *hangsOn) ReadFile(req *pluginpb.ReadFileRequest, stream pluginpb.SkillSource_ReadFileServer) error {
	switch {
	case h.crashes && h.hung.Load() > 0:
		return status.Error(codes.Unavailable, "down")
	case req.Path != h.path:
		return h.byID.ReadFile(req, stream)
	}
	h.hung.Add(1)
	if h.crashes {
		return status.Error(codes.Unavailable, "down")
	}
	<-stream.Context().Done()
	return stream.Context().Err()
}

// A plugin that crashes in the read of one of a skill's files still has
// the SKILL.md it sent before read: the copy's making asked for it first.
func TestFileThePluginCrashesOnLeavesTheEntry(t *testing.T) {
	const front = "name: s\ndescription: D.\n"
	const entry = "---\n" + front + "---\nbody\n"
	plugin := &hangsOn{byID: byID{files: map[string]string{"s/SKILL.md": entry, "s/ref.md": "ref\n"}}, path: "ref.md", crashes: true}
	sk := &pluginpb.Skill{Id: "s", FrontMatter: []byte(front)}
	for _, p := range []string{"ref.md", "SKILL.md"} {
		data := plugin.files["s/"+p]
		sk.Files = append(sk.Files, &pluginpb.FileInfo{Path: p, Size: int64(len(data)), Sha256: digestOf(data)})
	}
	plugin.skills = []*pluginpb.Skill{sk}
	src := connect(t, "p", plugin, t.TempDir())
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	body, err := sources.ReadEntry(l.Skills[0], 1<<20)
	if err != nil || string(body) != entry {
		t.Errorf("the SKILL.md: %q, %v; want the one read before the plugin went down", body, err)
	}
	if _, err := sources.ReadEntry(l.Skills[0], 1<<20); !errors.Is(err, errNotRunning) {
		t.Errorf("the SKILL.md once the plugin is down: %v; want it not running", err)
	}
}

// A plugin that hangs in the read of one of a skill's files does not take
// the skill with it: the copy fails, and the SKILL.md and the other files
// are read through the plugin, without a copy tried again (and waited for
// as long) at every read.
func TestFileThePluginHangsOnLeavesTheSkill(t *testing.T) {
	const front = "name: s\ndescription: D.\n"
	const entry = "---\n" + front + "---\nbody\n"
	files := map[string]string{"SKILL.md": entry, "ref.md": "the reference\n", "other.md": "other\n"}
	sk := &pluginpb.Skill{Id: "s", FrontMatter: []byte(front)}
	plugin := &hangsOn{byID: byID{files: map[string]string{}}, path: "ref.md"}
	for p, data := range files {
		plugin.files["s/"+p] = data
		sk.Files = append(sk.Files, &pluginpb.FileInfo{Path: p, Size: int64(len(data)), Sha256: digestOf(data)})
	}
	plugin.skills = []*pluginpb.Skill{sk}
	src := connect(t, "p", plugin, t.TempDir())
	src.r.fileCtx = func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(t.Context(), 200*time.Millisecond)
	}
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	skill := l.Skills[0]
	for _, name := range []string{"SKILL.md", "other.md", "SKILL.md"} {
		data, err := fs.ReadFile(skill.Files, name)
		if err != nil || string(data) != files[name] {
			t.Errorf("%s: %q, %v; want it read", name, data, err)
		}
	}
	if _, err := fs.ReadFile(skill.Files, "ref.md"); !errors.Is(err, errNoAnswer) {
		t.Errorf("ref.md: %v; want the plugin's not answering", err)
	}
	if n := plugin.hung.Load(); n != 2 {
		t.Errorf("the plugin was asked for ref.md %d times; want twice: by the copy, then by its own read", n)
	}
	if isDir(skill.Dir) {
		t.Errorf("a local copy at %s, without the file the plugin did not send", skill.Dir)
	}
}
