package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/internal/logtest"
	"github.com/skillmux/skillmux/internal/pseudofs"
)

// These tests use real files and the system's watcher. Their time-outs only
// detect a hang; that something was NOT reported is shown by a later change
// that was, since events arrive in order.

const hang = 10 * time.Second

// fast keeps tests quick; debouncing itself is tested on a fake clock.
var fast = Options{Debounce: 10 * time.Millisecond, MaxDelay: 100 * time.Millisecond}

type harness struct {
	stop    func() // ends Run and closes the Watcher; the test's cleanup calls it too
	t       *testing.T
	w       *Watcher
	batches chan Batch
	seen    map[string]bool // every path reported so far
	rescans int             // batches that said Rescan
}

// start makes a Watcher with opts (fast if nil), adds roots, and runs it
// until the test ends.
func start(t *testing.T, opts *Options, roots ...string) *harness {
	t.Helper()
	if opts == nil {
		o := fast
		opts = &o
	}
	w, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return run(t, w, roots...)
}

func run(t *testing.T, w *Watcher, roots ...string) *harness {
	t.Helper()
	for _, r := range roots {
		if err := w.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	h := &harness{t: t, w: w, batches: make(chan Batch, 1000), seen: map[string]bool{}}
	ctx, cancel := context.WithCancel(t.Context())
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx, func(b Batch) { h.batches <- b }) }()
	var once sync.Once
	h.stop = func() {
		once.Do(func() {
			cancel()
			if err := <-ran; !errors.Is(err, context.Canceled) {
				t.Errorf("Run returned %v; want context.Canceled", err)
			}
			if err := w.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
	t.Cleanup(h.stop)
	return h
}

// reset forgets what was reported, so that the next waitFor waits for new
// reports of paths reported before.
func (h *harness) reset() {
	h.seen = map[string]bool{}
	h.rescans = 0
}

// waitFor reads batches until every path in want has been reported.
func (h *harness) waitFor(want ...string) {
	h.t.Helper()
	deadline := time.After(hang)
	for {
		missing := slices.DeleteFunc(slices.Clone(want), func(p string) bool { return h.seen[p] })
		if len(missing) == 0 {
			return
		}
		select {
		case b := <-h.batches:
			for _, p := range b.Paths {
				h.seen[p] = true
			}
			if b.Rescan {
				h.rescans++
			}
		case <-deadline:
			h.t.Fatalf("no report of %q after %v; reported: %q", missing, hang, sortedKeys(h.seen))
		}
	}
}

// waitRescan reads batches until one says Rescan.
func (h *harness) waitRescan() {
	h.t.Helper()
	deadline := time.After(hang)
	for h.rescans == 0 {
		select {
		case b := <-h.batches:
			for _, p := range b.Paths {
				h.seen[p] = true
			}
			if b.Rescan {
				h.rescans++
			}
		case <-deadline:
			h.t.Fatalf("no Rescan after %v", hang)
		}
	}
}

// waitSentinel waits until the sentinels are dir and every folder above
// it, and no other: those watched for the harness's one root, when dir is
// the folder above the root, or the nearest folder above a missing root.
func (h *harness) waitSentinel(dir string) {
	h.t.Helper()
	var want []string
	for d := dir; ; d = filepath.Dir(d) {
		want = append(want, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	slices.Sort(want)
	deadline := time.Now().Add(hang)
	for {
		h.w.mu.Lock()
		got := slices.Sorted(maps.Keys(h.w.sentinels))
		h.w.mu.Unlock()
		if slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("sentinels %q, want %q", got, want)
		}
		time.Sleep(time.Millisecond)
	}
}

// notSeen fails for each path in paths reported so far.
func (h *harness) notSeen(paths ...string) {
	h.t.Helper()
	for _, p := range paths {
		if h.seen[p] {
			h.t.Errorf("%s was reported", p)
		}
	}
}

// watched returns the watched folders, relative to base, sorted, after
// checking that the Watcher's own record agrees with fsnotify's.
func (h *harness) watched(base string) []string {
	h.t.Helper()
	h.w.mu.Lock()
	defer h.w.mu.Unlock()
	checkKids(h.t, h.w)
	var ours, all []string // the folders of trees; and the sentinels too
	for p := range h.w.dirs {
		ours = append(ours, p)
	}
	slices.Sort(ours)
	all = slices.Clone(ours)
	for p := range h.w.sentinels {
		if h.w.dirs[p] == nil {
			all = append(all, p)
		}
	}
	slices.Sort(all)
	if n := kernelWatches(h.t); n >= 0 && n != len(all) {
		h.t.Errorf("the kernel holds %d watches; %d folders are recorded", n, len(all))
	}
	if h.w.hub != nil {
		theirs := h.w.hub.watched(h.w)
		slices.Sort(theirs)
		if diff := cmp.Diff(all, theirs); diff != "" {
			h.t.Errorf("the hub watches other folders than recorded (-ours +hub):\n%s", diff)
		}
	}
	return rel(base, ours)
}

func rel(base string, paths []string) []string {
	out := []string{}
	for _, p := range paths {
		r, err := filepath.Rel(base, p)
		if err != nil || strings.HasPrefix(r, "..") {
			r = p
		}
		out = append(out, filepath.ToSlash(r))
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// write writes a file, making its folders.
func write(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdirs(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestRecursive(t *testing.T) {
	root := t.TempDir()
	mkdirs(t, filepath.Join(root, "a", "b", "c"), filepath.Join(root, "d"))
	h := start(t, nil, root)
	if diff := cmp.Diff([]string{".", "a", "a/b", "a/b/c", "d"}, h.watched(root)); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
	f := filepath.Join(root, "a", "b", "c", "SKILL.md")
	write(t, f)
	h.waitFor(f)
}

// Folders made after the watcher started are watched, and what was made in
// them before their watch existed is reported too: mkdir -p and a file at
// once leave no time to add the watches first.
func TestNewFolders(t *testing.T) {
	root := t.TempDir()
	h := start(t, nil, root)
	var want []string
	for i := range 20 {
		top := filepath.Join(root, fmt.Sprintf("s%d", i))
		f := filepath.Join(top, "x", "y", "SKILL.md")
		write(t, f)
		want = append(want, top, filepath.Join(top, "x"), filepath.Join(top, "x", "y"), f)
	}
	h.waitFor(want...)
	// And they are watched now.
	later := filepath.Join(root, "s19", "x", "y", "later.md")
	write(t, later)
	h.waitFor(later)
	if got := len(h.watched(root)); got != 1+20*3 {
		t.Errorf("%d folders watched; want %d", got, 1+20*3)
	}
}

// A renamed folder's watches are dropped with its whole subtree, and its new
// place is watched under the new names; moved out, it is no longer watched;
// moved in, it is watched and its contents are reported.
func TestRenameFolder(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	mkdirs(t, filepath.Join(root, "a", "sub", "deep"), filepath.Join(root, "keep"))
	h := start(t, nil, root)

	must(t, os.Rename(filepath.Join(root, "a"), filepath.Join(root, "b")))
	h.waitFor(filepath.Join(root, "a"), filepath.Join(root, "b"))
	f := filepath.Join(root, "b", "sub", "deep", "f")
	write(t, f)
	h.waitFor(f)
	h.notSeen(filepath.Join(root, "a", "sub", "deep", "f"))
	if diff := cmp.Diff([]string{".", "b", "b/sub", "b/sub/deep", "keep"}, h.watched(root)); diff != "" {
		t.Errorf("watched after rename (-want +got):\n%s", diff)
	}

	// Out of the root: its events stop (shown by a later one that comes).
	h.reset()
	must(t, os.Rename(filepath.Join(root, "b"), filepath.Join(outside, "b")))
	h.waitFor(filepath.Join(root, "b"))
	write(t, filepath.Join(outside, "b", "sub", "deep", "g"))
	marker := filepath.Join(root, "keep", "marker")
	write(t, marker)
	h.waitFor(marker)
	h.notSeen(filepath.Join(root, "b", "sub", "deep", "g"), filepath.Join(outside, "b", "sub", "deep", "g"))
	if diff := cmp.Diff([]string{".", "keep"}, h.watched(root)); diff != "" {
		t.Errorf("watched after moving out (-want +got):\n%s", diff)
	}

	// Back in, under another name: contents reported, and watched.
	h.reset()
	c := filepath.Join(root, "c")
	must(t, os.Rename(filepath.Join(outside, "b"), c))
	h.waitFor(c, filepath.Join(c, "sub"), filepath.Join(c, "sub", "deep"), filepath.Join(c, "sub", "deep", "f"), filepath.Join(c, "sub", "deep", "g"))
	f3 := filepath.Join(c, "sub", "deep", "f3")
	write(t, f3)
	h.waitFor(f3)
	if diff := cmp.Diff([]string{".", "c", "c/sub", "c/sub/deep", "keep"}, h.watched(root)); diff != "" {
		t.Errorf("watched after moving in (-want +got):\n%s", diff)
	}
}

func TestRemoveFolder(t *testing.T) {
	root := t.TempDir()
	a := filepath.Join(root, "a")
	write(t, filepath.Join(a, "sub", "SKILL.md"))
	h := start(t, nil, root)
	must(t, os.RemoveAll(a))
	h.waitFor(a, filepath.Join(a, "sub", "SKILL.md"))
	if diff := cmp.Diff([]string{"."}, h.watched(root)); diff != "" {
		t.Errorf("watched after removal (-want +got):\n%s", diff)
	}
	// The same names again are new folders, watched afresh.
	f := filepath.Join(a, "sub", "SKILL.md")
	write(t, f)
	h.waitFor(f)
	g := filepath.Join(a, "sub", "g")
	write(t, g)
	h.waitFor(g)
}

// An editor's atomic save (write a temporary file, rename it over the
// original) is a change of the original.
func TestAtomicSave(t *testing.T) {
	root := t.TempDir()
	skill := filepath.Join(root, "s", "SKILL.md")
	write(t, skill)
	h := start(t, nil, root)
	tmp := filepath.Join(root, "s", ".SKILL.md.tmp123")
	must(t, os.WriteFile(tmp, []byte("new"), 0o644))
	must(t, os.Rename(tmp, skill))
	h.waitFor(skill)
}

func TestIgnored(t *testing.T) {
	root := t.TempDir()
	mkdirs(t, filepath.Join(root, ".git", "objects"), filepath.Join(root, "node_modules", "pkg"))
	opts := fast
	opts.Ignore = func(name string) bool { return name == "build" }
	h := start(t, &opts, root)
	if diff := cmp.Diff([]string{"."}, h.watched(root)); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
	s := filepath.Join(root, "s")
	var ignored []string
	for _, name := range []string{".SKILL.md.swp", ".SKILL.md.swx", ".SKILL.md.swo", "SKILL.md~", "4913", ".#SKILL.md", "#SKILL.md#", ".DS_Store", "build"} {
		ignored = append(ignored, filepath.Join(s, name))
	}
	ignored = append(ignored,
		filepath.Join(root, ".git", "objects", "ab"), filepath.Join(root, ".git", "index"),
		filepath.Join(root, "node_modules", "pkg", "index.js"), filepath.Join(root, "hg", ".hg"))
	mkdirs(t, s)
	for _, p := range ignored {
		write(t, p)
	}
	mkdirs(t, filepath.Join(root, "new", ".svn", "x"))
	marker := filepath.Join(s, "SKILL.md")
	write(t, marker)
	h.waitFor(marker, filepath.Join(root, "new"))
	h.notSeen(ignored...)
	h.notSeen(filepath.Join(root, "new", ".svn"), filepath.Join(root, "new", ".svn", "x"))
	if diff := cmp.Diff([]string{".", "hg", "new", "s"}, h.watched(root)); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
}

// A linked folder is watched at its target and reported under the link.
func TestSymlinkedFolder(t *testing.T) {
	root, target := t.TempDir(), t.TempDir()
	mkdirs(t, filepath.Join(target, "sub"))
	symlink(t, target, filepath.Join(root, "link"))
	h := start(t, nil, root)
	if diff := cmp.Diff([]string{".", "link", "link/sub"}, h.watched(root)); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
	write(t, filepath.Join(target, "sub", "SKILL.md"))
	h.waitFor(filepath.Join(root, "link", "sub", "SKILL.md"))

	// A link made later is followed too.
	other := t.TempDir()
	symlink(t, other, filepath.Join(root, "later"))
	h.waitFor(filepath.Join(root, "later"))
	write(t, filepath.Join(other, "f"))
	h.waitFor(filepath.Join(root, "later", "f"))

	// Removing the link drops the watch on its target.
	must(t, os.Remove(filepath.Join(root, "link")))
	h.waitFor(filepath.Join(root, "link"))
	if diff := cmp.Diff([]string{".", "later"}, h.watched(root)); diff != "" {
		t.Errorf("watched after removing the link (-want +got):\n%s", diff)
	}
}

// With Within, a link is followed only to a folder inside it, the root's
// links and links made later alike: a tree that serves nothing from
// elsewhere spends no watches there.
func TestWithinBoundsTheLinksFollowed(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	root := filepath.Join(base, "root")
	mkdirs(t, root, filepath.Join(base, "near", "sub"), filepath.Join(outside, "far"))
	symlink(t, filepath.Join(base, "near"), filepath.Join(root, "near"))
	symlink(t, outside, filepath.Join(root, "out"))
	o := fast
	o.Within = base
	h := start(t, &o, root)
	if diff := cmp.Diff([]string{".", "near", "near/sub"}, h.watched(root)); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
	symlink(t, outside, filepath.Join(root, "later"))
	h.waitFor(filepath.Join(root, "later"))
	if diff := cmp.Diff([]string{".", "near", "near/sub"}, h.watched(root)); diff != "" {
		t.Errorf("watched after a link out was made (-want +got):\n%s", diff)
	}
}

// Links to an ancestor are not followed, and nothing in /proc, /sys or /dev
// is ever watched.
func TestSymlinkLoopsAndPseudo(t *testing.T) {
	root := t.TempDir()
	mkdirs(t, filepath.Join(root, "a", "b"))
	symlink(t, root, filepath.Join(root, "a", "b", "up"))
	symlink(t, filepath.Join(root, "a"), filepath.Join(root, "a", "self"))
	above := filepath.Dir(root) // a sentinel: the folder above the root
	mkdirs(t, filepath.Join(above, "elsewhere"))
	symlink(t, above, filepath.Join(root, "a", "above"))
	pseudo := runtime.GOOS == "linux"
	if pseudo {
		symlink(t, "/proc", filepath.Join(root, "proc"))
		symlink(t, "/sys/kernel", filepath.Join(root, "sys"))
	}
	h := start(t, nil, root)
	if diff := cmp.Diff([]string{".", "a", "a/b"}, h.watched(root)); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
	f := filepath.Join(root, "a", "f")
	write(t, f)
	h.waitFor(f)
	h.notSeen(filepath.Join(root, "a", "b", "up", "a", "f"), filepath.Join(root, "a", "self", "f"))
	h.reset()
	g := filepath.Join(above, "elsewhere", "g")
	write(t, g)
	write(t, filepath.Join(root, "h"))
	h.waitFor(filepath.Join(root, "h"))
	h.notSeen(g, filepath.Join(root, "a", "above", "elsewhere", "g"))
	if pseudo {
		if err := h.w.Add("/proc"); err == nil {
			t.Error("Add(/proc) succeeded")
		}
		if err := h.w.Add("/proc/self/"); err == nil {
			t.Error("Add(/proc/self/) succeeded")
		}
	}
}

// One folder reached through two roots (a skill linked from one client's
// folder into another's) is watched once and reported under both, whichever
// root came first, and stays watched when the path it was watched by goes.
func TestSharedFolder(t *testing.T) {
	for _, linkFirst := range []bool{false, true} {
		t.Run(fmt.Sprintf("link root added first %v", linkFirst), func(t *testing.T) {
			realRoot, linkRoot := t.TempDir(), t.TempDir()
			mkdirs(t, filepath.Join(realRoot, "skill", "refs"))
			symlink(t, filepath.Join(realRoot, "skill"), filepath.Join(linkRoot, "skill"))
			roots := []string{realRoot, linkRoot}
			if linkFirst {
				roots = []string{linkRoot, realRoot}
			}
			h := start(t, nil, roots...)
			if got := len(h.watched("/")); got != 4 {
				t.Errorf("%d folders watched; want 4: two roots, skill, skill/refs", got)
			}
			f := filepath.Join(realRoot, "skill", "refs", "guide.md")
			write(t, f)
			h.waitFor(f, filepath.Join(linkRoot, "skill", "refs", "guide.md"))

			// Whichever path the folder was watched by, the other one takes
			// over when that one goes.
			if linkFirst {
				must(t, os.Remove(filepath.Join(linkRoot, "skill")))
				g := filepath.Join(realRoot, "skill", "refs", "g")
				write(t, g)
				h.waitFor(g)
			} else {
				must(t, h.w.Remove(realRoot))
				g := filepath.Join(realRoot, "skill", "refs", "g")
				write(t, g)
				h.waitFor(filepath.Join(linkRoot, "skill", "refs", "g"))
				h.notSeen(g)
			}
		})
	}
}

func TestRemoveRoot(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	nested := filepath.Join(a, "x", "n")
	mkdirs(t, filepath.Join(nested, "y"))
	h := start(t, nil, a, nested, b)
	must(t, h.w.Remove(a))
	must(t, h.w.Remove(a)) // again: nothing to do
	want := []string{b, nested, filepath.Join(nested, "y")}
	slices.Sort(want)
	if diff := cmp.Diff(rel("/", want), h.watched("/")); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
	write(t, filepath.Join(a, "x", "f"))
	marker, inNested := filepath.Join(b, "marker"), filepath.Join(nested, "y", "f")
	write(t, inNested)
	write(t, marker)
	h.waitFor(marker, inNested)
	h.notSeen(filepath.Join(a, "x", "f"))

	// Adding it back watches it again; adding twice is harmless.
	must(t, h.w.Add(a))
	must(t, h.w.Add(a))
	g := filepath.Join(a, "x", "g")
	write(t, g)
	h.waitFor(g)

	// The nested root, kept all along, is part of the tree again: moving a
	// folder above it drops its watches too.
	must(t, os.Rename(filepath.Join(a, "x"), filepath.Join(a, "z")))
	h.waitFor(filepath.Join(a, "z", "n", "y"))
	if diff := cmp.Diff([]string{".", "z", "z/n", "z/n/y"}, h.watched(a)[:4]); diff != "" {
		t.Errorf("watched after moving the nested root (-want +got):\n%s", diff)
	}
	if got := len(h.watched(a)); got != 5 { // and b
		t.Errorf("%d folders watched; want 5: %q", got, h.watched(a))
	}
}

// A root that does not exist is waited for, through the folders above it
// that are made one by one; a root removed or moved away is waited for
// again. Each time it appears, the batch says Rescan, and what is made in
// it after is reported.
func TestMissingRoot(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "a", "b", "skills")
	h := start(t, nil, root)
	h.waitSentinel(base)
	mkdirs(t, filepath.Join(base, "a"))
	h.waitSentinel(filepath.Join(base, "a"))
	mkdirs(t, filepath.Join(base, "a", "b"))
	h.waitSentinel(filepath.Join(base, "a", "b"))
	mkdirs(t, root)
	h.waitRescan()
	f := filepath.Join(root, "x", "SKILL.md")
	write(t, f)
	h.waitFor(f)

	must(t, os.RemoveAll(filepath.Join(base, "a")))
	h.reset()
	h.waitRescan() // the root's removal
	h.waitSentinel(base)
	h.reset()
	mkdirs(t, root)
	h.waitRescan()
	g := filepath.Join(root, "y.md")
	write(t, g)
	h.waitFor(g)

	away := filepath.Join(base, "away")
	must(t, os.Rename(root, away))
	h.reset()
	h.waitRescan()
	h.waitSentinel(filepath.Join(base, "a", "b"))
	write(t, filepath.Join(away, "unseen.md")) // outside the root now
	must(t, os.Rename(away, root))
	h.reset()
	h.waitRescan()
	z := filepath.Join(root, "z.md")
	write(t, z)
	h.waitFor(z)
	h.notSeen(filepath.Join(away, "unseen.md"))

	// Nothing is left watching for a root removed while it was missing.
	must(t, os.RemoveAll(root))
	h.reset()
	h.waitRescan()
	h.removedLeavesNothing(root)
}

// Many missing roots added one after another (a client's roots, before
// the folders are made) are each waited for: made, each is watched.
func TestManyMissingRoots(t *testing.T) {
	base := t.TempDir()
	var roots []string
	for i := range 40 {
		roots = append(roots, filepath.Join(base, "p", fmt.Sprint(i), "skills"))
	}
	h := start(t, nil, roots...)
	h.waitSentinel(base)
	var files []string
	for _, r := range roots {
		mkdirs(t, r)
		files = append(files, filepath.Join(r, "SKILL.md"))
	}
	deadline := time.Now().Add(hang)
	for {
		h.w.mu.Lock()
		n := 0
		for _, r := range roots {
			if h.w.dirs[r] != nil {
				n++
			}
		}
		h.w.mu.Unlock()
		if n == len(roots) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d roots of %d watched once made", n, len(roots))
		}
		time.Sleep(time.Millisecond)
	}
	// The roots' appearance is reported as rescans, which carry no paths:
	// let them pass before writing.
	h.waitRescan()
	for quiet := false; !quiet; {
		select {
		case <-h.batches:
		case <-time.After(10 * fast.Debounce):
			quiet = true
		}
	}
	h.reset()
	for _, f := range files {
		write(t, f)
	}
	h.waitFor(files...)
}

func TestAddErrors(t *testing.T) {
	w, err := New(nil)
	must(t, err)
	defer w.Close()
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	write(t, file)
	if err := w.Add(file); err == nil {
		t.Errorf("Add(%s), a file, succeeded", file)
	}
	if err := w.Add(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("Add of a missing root, which is waited for: %v", err)
	}
	if _, err := New(&Options{Debounce: -1}); err == nil {
		t.Error("New with a negative Debounce succeeded")
	}
}

// logBuffer collects log lines from several goroutines.
type logBuffer struct{ logtest.Buffer }

func (l *logBuffer) lines(level string) []string {
	var out []string
	for line := range strings.Lines(l.String()) {
		if strings.Contains(line, "level="+level) {
			out = append(out, line)
		}
	}
	return out
}

// Past the system's limit on watches, one warning says which limit and how
// to raise it; the watcher keeps what it has, and goes on reporting
// changes where it watches, and new folders by their path.
func TestWatchLimit(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a", "b", "c", "d", "e"} {
		mkdirs(t, filepath.Join(root, d))
	}
	var log logBuffer
	opts := fast
	opts.Logger = slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	w, err := New(&opts)
	must(t, err)
	w.mu.Lock()
	added, limit := 0, 3
	w.addWatch = func(p string) error {
		if added >= limit {
			return syscall.ENOSPC // as inotify_add_watch says it
		}
		added++
		return w.hub.add(w, p)
	}
	w.mu.Unlock()
	h := run(t, w, root)
	if got := len(h.watched(root)); got != limit {
		t.Errorf("%d folders watched; want the %d that fit", got, limit)
	}
	// More folders, more failures: still one warning, and their paths.
	mkdirs(t, filepath.Join(root, "f"), filepath.Join(root, "g"))
	h.waitFor(filepath.Join(root, "f"), filepath.Join(root, "g"))
	watched := h.watched(root)
	f := filepath.Join(root, watched[len(watched)-1], "SKILL.md")
	write(t, f)
	h.waitFor(f)

	warnings := log.lines("WARN")
	if len(warnings) != 1 {
		t.Fatalf("%d warnings; want 1:\n%s", len(warnings), strings.Join(warnings, ""))
	}
	if runtime.GOOS == "linux" {
		for _, want := range []string{"/proc/sys/fs/inotify/max_user_watches", "sudo sysctl fs.inotify.max_user_watches=524288"} {
			if !strings.Contains(warnings[0], want) {
				t.Errorf("the warning does not say %q:\n%s", want, warnings[0])
			}
		}
	}
}

func TestMaxDirs(t *testing.T) {
	root := t.TempDir()
	mkdirs(t, filepath.Join(root, "a"), filepath.Join(root, "b"), filepath.Join(root, "c"))
	var log logBuffer
	opts := fast
	opts.MaxDirs = 2
	opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
	h := start(t, &opts, root)
	if got := len(h.watched(root)); got != 2 {
		t.Errorf("%d folders watched; want 2", got)
	}
	mkdirs(t, filepath.Join(root, "d"))
	h.waitFor(filepath.Join(root, "d"))
	// The caller reads what it adds; the limit is no reason to read all
	// of it again, which takes seconds at 100,000 skills.
	if h.rescans != 0 {
		t.Errorf("%d batches said Rescan", h.rescans)
	}
	if w := log.lines("WARN"); len(w) != 1 || !strings.Contains(w[0], "MaxDirs") {
		t.Errorf("warnings: %q; want one naming MaxDirs", w)
	}
}

// When the limit is reached, the folders left unwatched are those deepest
// inside units: where units live stays watched, so a new unit is seen at
// once.
func TestLimitSparesWhereUnitsAre(t *testing.T) {
	root := t.TempDir()
	var outer []string // the folders outside units, and the units
	for _, g := range []string{"g1", "g2"} {
		for _, u := range []string{"u1", "u2"} {
			unit := filepath.Join(root, g, "sub", u)
			write(t, filepath.Join(unit, "UNIT"))
			// Inside the unit, folders first in any order.
			mkdirs(t, filepath.Join(unit, "a", "deep"), filepath.Join(unit, "b"))
			outer = append(outer, unit)
		}
		outer = append(outer, filepath.Join(root, g), filepath.Join(root, g, "sub"))
	}
	for i, p := range outer {
		outer[i], _ = filepath.Rel(root, p)
	}
	outer = append(outer, ".")
	slices.Sort(outer)
	opts := fast
	opts.MaxDirs = len(outer) + 1
	opts.Unit = func(es []fs.DirEntry) bool {
		return slices.ContainsFunc(es, func(e fs.DirEntry) bool { return e.Name() == "UNIT" })
	}
	h := start(t, &opts, root)
	got := h.watched(root)
	if missing := slices.DeleteFunc(slices.Clone(outer), func(p string) bool { return slices.Contains(got, p) }); len(missing) > 0 || len(got) != opts.MaxDirs {
		t.Errorf("watched %q; want every one of %q and one folder inside a unit", got, outer)
	}
	// A new unit in a watched folder is told of at once, by its path (it
	// cannot be watched itself), with no Rescan.
	h.reset()
	u3 := filepath.Join(root, "g2", "sub", "u3")
	write(t, filepath.Join(u3, "UNIT"))
	h.waitFor(u3)
	if h.rescans != 0 {
		t.Errorf("%d batches said Rescan", h.rescans)
	}
}

// Options.Outside is called once per Add, when the folders outside units
// are watched and those inside them are not yet.
func TestOutsideIsCalledBeforeUnitsInsides(t *testing.T) {
	root := t.TempDir()
	write(t, filepath.Join(root, "g", "u", "UNIT"))
	mkdirs(t, filepath.Join(root, "g", "u", "refs", "deep"), filepath.Join(root, "h"))
	var w *Watcher
	var at [][]string // the watched folders at each call
	opts := fast
	opts.Unit = func(es []fs.DirEntry) bool {
		return slices.ContainsFunc(es, func(e fs.DirEntry) bool { return e.Name() == "UNIT" })
	}
	opts.Outside = func(r string) {
		if r != root {
			t.Errorf("Outside(%s), want the root %s", r, root)
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		var dirs []string
		for p := range w.dirs {
			rel, _ := filepath.Rel(root, p)
			dirs = append(dirs, rel)
		}
		slices.Sort(dirs)
		at = append(at, dirs)
	}
	w, err := New(&opts)
	must(t, err)
	h := run(t, w, root)
	if diff := cmp.Diff([][]string{{".", "g", "g/u", "h"}}, at); diff != "" {
		t.Errorf("watched when Outside was called (-want +got):\n%s", diff)
	}
	if got := h.watched(root); len(got) != 6 {
		t.Errorf("watched after Add: %q", got)
	}
}

// With no watcher to be had (inotify instances used up), New still returns
// a Watcher: one warning, and the periodic rescans see every change.
func TestNoWatcher(t *testing.T) {
	unavailableWarned.Store(false)
	root := t.TempDir()
	var log logBuffer
	opts := fast
	opts.Logger = slog.New(slog.NewTextHandler(&log, nil))
	w, err := newWatcher(&opts, func() (*fsnotify.Watcher, error) { return nil, syscall.EMFILE })
	must(t, err)
	run(t, w, root)
	warnings := log.lines("WARN")
	if len(warnings) != 1 {
		t.Fatalf("%d warnings; want 1: %q", len(warnings), warnings)
	}
	if runtime.GOOS == "linux" && !strings.Contains(warnings[0], "max_user_instances") {
		t.Errorf("the warning does not name max_user_instances: %s", warnings[0])
	}
	// The process's other Watchers, short of a watcher too, say no more.
	for range 3 {
		w, err := newWatcher(&opts, func() (*fsnotify.Watcher, error) { return nil, syscall.EMFILE })
		must(t, err)
		run(t, w, t.TempDir())
	}
	if warnings := log.lines("WARN"); len(warnings) != 1 {
		t.Errorf("%d warnings from four Watchers; want 1: %q", len(warnings), warnings)
	}
}

// An overflow of the kernel's queue is a Rescan, and the watch set is made
// right again: folders made while events were lost are watched, folders
// renamed then are watched under their new names only.
func TestOverflow(t *testing.T) {
	root := t.TempDir()
	mkdirs(t, filepath.Join(root, "a", "sub"), filepath.Join(root, "c"))
	x, y := filepath.Join(root, "c", "x"), filepath.Join(root, "c", "y")
	write(t, x)
	write(t, y)
	h := start(t, nil, root)
	overflow(t, h, x, y, func() {
		mkdirs(t, filepath.Join(root, "new", "sub"))
		must(t, os.Rename(filepath.Join(root, "a"), filepath.Join(root, "b")))
	})

	h.waitRescan()
	if diff := cmp.Diff([]string{".", "b", "b/sub", "c", "new", "new/sub"}, h.watched(root)); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
	f, g := filepath.Join(root, "new", "sub", "f"), filepath.Join(root, "b", "sub", "g")
	write(t, f)
	write(t, g)
	h.waitFor(f, g)
	h.notSeen(filepath.Join(root, "a", "sub", "g"))
}

// A root whose parent went while events were lost is waited for from the
// nearest folder that is left, as a root found missing any other way is:
// its return is seen at once.
func TestOverflowRootParentGone(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "p", "skills")
	mkdirs(t, root)
	x, y := filepath.Join(root, "x"), filepath.Join(root, "y")
	write(t, x)
	write(t, y)
	h := start(t, nil, root)
	h.waitSentinel(filepath.Join(base, "p"))
	overflow(t, h, x, y, func() {
		must(t, os.RemoveAll(filepath.Join(base, "p")))
	})
	h.waitRescan()
	h.waitSentinel(base)

	h.reset()
	mkdirs(t, root)
	h.waitRescan()
	f := filepath.Join(root, "f")
	write(t, f)
	h.waitFor(f)
}

// overflow fills the kernel's inotify queue past its end, by changing the
// modes of the watched files x and y by turns, while the Watcher's queue
// is held: its pump stops, and so does fsnotify's reader, which holds at
// most 4096 events. during runs before the queue is let go, so that its
// events are lost. The kernel merges only repeats of the last event, so
// each change is an event.
func overflow(t *testing.T, h *harness, x, y string, during func()) {
	t.Helper()
	limit, err := os.ReadFile("/proc/sys/fs/inotify/max_queued_events")
	var max int
	if err == nil {
		_, err = fmt.Sscan(string(limit), &max)
	}
	if err != nil || max > 1<<16 {
		t.Skipf("needs inotify with a small queue (max_queued_events %d, %v)", max, err)
	}
	q := h.w.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	for i := range max + 4096 + 1000 {
		mode := os.FileMode(0o644)
		if i%4 >= 2 {
			mode = 0o600
		}
		if err := os.Chmod([]string{x, y}[i%2], mode); err != nil {
			t.Fatal(err)
		}
	}
	during()
}

// The Watcher's own queue is bounded too, and says when it dropped events.
func TestQueueBound(t *testing.T) {
	q := newEventQueue(nil)
	q.events = make([]fsnotify.Event, maxQueued-1) // as if pushed, without the cost
	q.push(fsnotify.Event{Name: "/r/f", Op: fsnotify.Write})
	q.push(fsnotify.Event{Name: "/r/g", Op: fsnotify.Write})
	events, _, lost, _ := q.take()
	if len(events) != maxQueued || !lost {
		t.Errorf("took %d events, lost %v; want %d, true", len(events), lost, maxQueued)
	}
	if events, _, lost, _ := q.take(); len(events) != 0 || lost {
		t.Errorf("then took %d events, lost %v; want none", len(events), lost)
	}
}

// goroutinesOf returns the stacks of goroutines running code of this package
// or of fsnotify, other than the test's own.
func goroutinesOf() []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var out []string
	for g := range strings.SplitSeq(string(buf), "\n\n") {
		if strings.Contains(g, "internal/watch.Test") || strings.Contains(g, "testing.tRunner") {
			continue
		}
		if strings.Contains(g, "internal/watch.") || strings.Contains(g, "fsnotify") {
			out = append(out, g)
		}
	}
	return out
}

// Every goroutine stops: Run on ctx or Close, the Watcher's own on Close,
// which waits for them; Close is idempotent and callable from the callback.
func TestLifecycle(t *testing.T) {
	root := t.TempDir()
	w, err := New(&fast)
	must(t, err)
	must(t, w.Add(root))
	ctx, cancel := context.WithCancel(t.Context())
	got := make(chan Batch, 10)
	ran := make(chan error, 1)
	go func() { ran <- w.Run(ctx, func(b Batch) { got <- b }) }()
	write(t, filepath.Join(root, "f"))
	select {
	case <-got:
	case <-time.After(hang):
		t.Fatal("no batch")
	}
	if err := w.Run(ctx, func(Batch) {}); !errors.Is(err, ErrRunning) {
		t.Errorf("a second Run: %v; want ErrRunning", err)
	}
	cancel()
	if err := <-ran; !errors.Is(err, context.Canceled) {
		t.Errorf("Run after cancel: %v", err)
	}

	// Run again; Close from the callback ends it.
	write(t, filepath.Join(root, "g"))
	if err := w.Run(t.Context(), func(Batch) { w.Close() }); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close: %v; want ErrClosed", err)
	}
	must(t, w.Close())
	if err := w.Add(root); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close: %v", err)
	}
	if err := w.Run(t.Context(), func(Batch) {}); !errors.Is(err, ErrClosed) {
		t.Errorf("Run after Close: %v", err)
	}
	// Close has waited for the Watcher's goroutines, but fsnotify's reader
	// may take a moment to see its file closed.
	deadline := time.Now().Add(hang)
	for {
		left := goroutinesOf()
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("goroutines left after Close:\n%s", strings.Join(left, "\n\n"))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A checkout-like storm: every file arrives, in few batches.
func TestStorm(t *testing.T) {
	root := t.TempDir()
	opts := Options{Debounce: 50 * time.Millisecond, MaxDelay: 500 * time.Millisecond}
	h := start(t, &opts, root)
	var want []string
	for i := range 50 {
		for j := range 20 {
			f := filepath.Join(root, fmt.Sprintf("d%d", i), fmt.Sprintf("f%d", j))
			write(t, f)
			want = append(want, f)
		}
	}
	h.waitFor(want...)
}

// A folder above a root moved away, and back, is a Rescan each way, and
// the root is watched again where it is: its own watch cannot tell. So is
// a folder further up the root's path: every folder above a root is a
// sentinel.
func TestRootAncestorMoved(t *testing.T) {
	for name, below := range map[string]string{
		"the root's parent": "skills",
		"further up":        filepath.Join("project", ".claude", "skills"),
	} {
		t.Run(name, func(t *testing.T) {
			base := t.TempDir()
			root := filepath.Join(base, "x", below)
			mkdirs(t, root)
			h := start(t, nil, root)
			h.waitSentinel(filepath.Dir(root))
			must(t, os.Rename(filepath.Join(base, "x"), filepath.Join(base, "y")))
			h.waitRescan()
			h.waitSentinel(base)
			moved := filepath.Join(base, "y", below, "unseen.md")
			write(t, moved) // not in the root any more
			must(t, os.Rename(filepath.Join(base, "y"), filepath.Join(base, "x")))
			h.reset()
			h.waitRescan()
			f := filepath.Join(root, "a.md")
			write(t, f)
			h.waitFor(f)
			h.notSeen(moved, filepath.Join(root, "unseen.md"))
		})
	}
}

// A root that is a link switched to another folder (ln -sfn) is a
// Rescan, and the new folder is watched in place of the old.
func TestRootLinkSwitched(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	mkdirs(t, a, b)
	root := filepath.Join(base, "skills")
	must(t, os.Symlink(a, root))
	h := start(t, nil, root)
	h.waitSentinel(base)
	tmp := filepath.Join(base, "skills.tmp")
	must(t, os.Symlink(b, tmp))
	must(t, os.Rename(tmp, root))
	h.waitRescan()
	h.reset()
	write(t, filepath.Join(a, "old.md"))
	f := filepath.Join(b, "new.md")
	write(t, f)
	h.waitFor(filepath.Join(root, "new.md"))
	h.notSeen(filepath.Join(root, "old.md"))
	h.removedLeavesNothing(root)
}

// A root that is a link (~/.claude/skills -> ~/dotfiles/skills) whose
// target folder is moved away and back, or removed and made again, is a
// Rescan each way, and is watched again: the link itself never changes,
// so the folders above its target are sentinels too. Before, it waited
// for the periodic rescan.
func TestRootLinkTargetMovedAndBack(t *testing.T) {
	for _, how := range []string{"moved", "removed"} {
		t.Run(how, func(t *testing.T) {
			base := t.TempDir()
			target := filepath.Join(base, "dotfiles", "skills")
			mkdirs(t, target)
			root := filepath.Join(base, "home", "skills")
			mkdirs(t, filepath.Dir(root))
			must(t, os.Symlink(target, root))
			h := start(t, nil, root)
			first := filepath.Join(target, "first.md")
			write(t, first)
			h.waitFor(filepath.Join(root, "first.md"))
			if how == "moved" {
				must(t, os.Rename(target, target+".bak"))
			} else {
				must(t, os.RemoveAll(target))
			}
			h.waitRescan()
			h.reset()
			if how == "moved" {
				must(t, os.Rename(target+".bak", target))
			} else {
				mkdirs(t, target)
			}
			h.waitRescan()
			f := filepath.Join(target, "a.md")
			write(t, f)
			h.waitFor(filepath.Join(root, "a.md"))
			h.removedLeavesNothing(root)
		})
	}
}

// removedLeavesNothing removes root, the harness's only root, and checks
// that nothing stays watched for it.
func (h *harness) removedLeavesNothing(root string) {
	h.t.Helper()
	must(h.t, h.w.Remove(root))
	h.w.mu.Lock()
	defer h.w.mu.Unlock()
	if len(h.w.sentinels)+len(h.w.dirs) != 0 {
		h.t.Errorf("after Remove: sentinels %v, folders %v", h.w.sentinels, h.w.dirs)
	}
}

// checkKids checks what drop's shortcut rests on: each folder's kids is
// the number of folders watched directly below it and not detached, and
// every detached folder is watched. w.mu is held.
func checkKids(t *testing.T, w *Watcher) {
	t.Helper()
	count := map[string]int32{}
	for p := range w.dirs {
		if !w.detached[p] {
			parent := filepath.Dir(p)
			if w.dirs[parent] == nil {
				t.Errorf("%s is not detached, and the folder above it is not watched", p)
			}
			count[parent]++
		}
	}
	for p, d := range w.dirs {
		if d.kids != count[p] {
			t.Errorf("%s counts %d folders below it; %d are", p, d.kids, count[p])
		}
	}
	for p := range w.detached {
		if w.dirs[p] == nil {
			t.Errorf("%s is detached, and not watched", p)
		}
	}
}

// A tree removed deepest folder first, as rm -rf does, has each folder
// dropped alone when its turn comes, with no scan of the watch set (which
// made the removal of 40,000 folders take 30 s of CPU); what is left
// is watched as it was, and a new folder is seen.
func TestRemovedTreeIsDroppedFolderByFolder(t *testing.T) {
	root := t.TempDir()
	for i := range 50 {
		mkdirs(t, filepath.Join(root, "tree", fmt.Sprintf("s%02d", i), "references"))
	}
	mkdirs(t, filepath.Join(root, "other"))
	h := start(t, nil, root)
	h.w.mu.Lock()
	leaf := filepath.Join(root, "tree", "s07", "references")
	if d := h.w.dirs[leaf]; d == nil || !h.w.alone(leaf, d) {
		t.Errorf("a folder with none below it is not dropped alone")
	}
	if d := h.w.dirs[filepath.Join(root, "tree")]; d == nil || h.w.alone(filepath.Join(root, "tree"), d) {
		t.Errorf("a folder with folders below it would be dropped alone")
	}
	h.w.mu.Unlock()
	must(t, os.RemoveAll(filepath.Join(root, "tree")))
	made := filepath.Join(root, "other", "new")
	mkdirs(t, made)
	h.waitFor(made)
	if diff := cmp.Diff([]string{".", "other", "other/new"}, h.watched(root)); diff != "" {
		t.Errorf("watched after the removal (-want +got):\n%s", diff)
	}
}

// A root of / meets /proc, /sys and /dev as plain folders: they are not
// watched (the folder limit keeps the test to /'s first levels).
func TestRootOfSlashSkipsKernelFolders(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's folders are Linux's here")
	}
	w, err := New(&Options{MaxDirs: 200, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.Add("/"); err != nil {
		t.Fatal(err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dirs["/"] == nil {
		t.Fatal("/ is not watched")
	}
	for p := range w.dirs {
		if pseudofs.Under(p) != "" {
			t.Errorf("%s is watched", p)
		}
	}
}
