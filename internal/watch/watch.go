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
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/skillmux/skillmux/internal/pseudofs"
)

// Defaults for the zero fields of Options.
const (
	DefaultDebounce = 200 * time.Millisecond
	DefaultMaxDelay = 2 * time.Second
	DefaultMaxDirs  = 100_000
)

// Errors returned by the Watcher's methods.
var (
	// ErrClosed is returned by Add, Remove and Run after Close.
	ErrClosed = errors.New("watch: watcher closed")
	// ErrRunning is returned by Run while another Run of the same Watcher
	// is under way: batches have one consumer.
	ErrRunning = errors.New("watch: Run already running")
)

// Options configure a Watcher. A nil *Options, and each zero field, means
// the default.
type Options struct {
	// Debounce is how long events must pause before a batch is delivered.
	// Default DefaultDebounce.
	Debounce time.Duration
	// MaxDelay bounds how long after its first event a batch is delivered
	// while events keep coming. Default DefaultMaxDelay.
	MaxDelay time.Duration
	// MaxDirs bounds how many folders the Watcher watches, over all its
	// roots; past it, it warns as when the system's limit is reached.
	// Default DefaultMaxDirs.
	MaxDirs int
	// Ignore reports whether a file or folder with this base name is
	// neither reported nor, for a folder, watched. It extends a built-in
	// list: editors' swap, backup and lock files (*.swp, *.swo, *.swx, *~,
	// .#*, #*#, vim's 4913), .DS_Store, and the folders .git, .hg, .svn and
	// node_modules. It runs under the Watcher's lock: it must be quick and
	// must not call the Watcher.
	Ignore func(name string) bool
	// Unit reports whether the folder holding these entries is a unit
	// (a skill folder) whose sub-folders can be watched after every
	// folder that is not inside a unit: a walk watches where units are
	// first, and what is inside them last, each part breadth first. When
	// a limit is reached, new and removed units are then still seen at
	// once, and only edits deep inside some units wait for the periodic
	// rescans. It runs under the Watcher's lock. Default: no folder is a
	// unit, and a walk is breadth first.
	Unit func(entries []fs.DirEntry) bool
	// Outside, when not nil, is called by an Add that walks a root,
	// without the Watcher's lock, as soon as every folder of the root
	// outside units (and each unit's own folder) is watched, before what
	// is inside units is: a caller that reads what changed before the
	// watches were set can read those folders then, rather than after the
	// whole walk. It is not called for a root Add finds watched already or
	// missing (one that appears later is a Rescan), nor when the root is
	// removed or the Watcher closed during the walk.
	Outside func(root string)
	// Within, when set, is the real path of a folder outside which no
	// symbolic link is followed, a root's own included: a folder a link
	// leads to elsewhere is not watched (a tree bound to a folder serves
	// nothing from there, and watching it would spend the watches a
	// system allows on folders nobody reads).
	Within string
	// Busy, when not nil, is told when the Watcher's next delivery is
	// due, each time that changes: DueNow while events the system
	// reported wait to be applied (any event, one about an ignored file
	// too, until it is seen to be one) or Run's callback handles a batch;
	// the pending batch's due time while it waits out Debounce; and the
	// zero time once nothing is pending. A caller that gathers the
	// batches of several Watchers can wait for those due soon. It runs
	// under a lock of the Watcher: it must be quick and must not call the
	// Watcher.
	Busy func(due time.Time)
	// Logger receives one warning when a limit is reached, and debug lines.
	// Default: nothing is logged.
	Logger *slog.Logger
}

// Batch is one delivery of changes.
type Batch struct {
	// Paths are the files and folders that changed (created, written,
	// removed, renamed from or to, attributes changed), each once, sorted,
	// absolute and under the path of a root as it was given to Add. A
	// folder moved out of a root, removed, or reached through a new link
	// is reported as the folder alone: a folder path means anything below
	// it may have changed. Paths is nil when Rescan is set.
	Paths []string
	// Rescan reports that events may have been lost (the kernel's queue
	// overflowed) or that a root appeared: the caller must read every
	// root again rather than trust Paths.
	Rescan bool
}

// Watcher reports changes below its roots. Make one with New, give it roots
// with Add, consume its batches with Run, and release it with Close.
//
// Its methods are safe for concurrent use. Two goroutines, started by New
// and stopped by Close, read the system's events and keep the watches up to
// date whether or not Run is being called; Run hands their batches to a
// callback on the goroutine that called Run.
type Watcher struct {
	log      *slog.Logger
	ignore   func(string) bool
	unit     func([]fs.DirEntry) bool
	outside  func(root string)
	maxDirs  int
	within   string
	debounce *debouncer

	hub *hub // nil when none could be made: every root is then left to rescans
	// addWatch and rmWatch are the hub's add and remove; tests replace
	// addWatch to reach limits that a test machine cannot.
	addWatch func(path string) error
	rmWatch  func(path string) error

	queue     *eventQueue    // from the hub's pump to apply
	done      chan struct{}  // closed by Close
	wg        sync.WaitGroup // apply
	closeOnce sync.Once
	closeErr  error
	running   atomic.Bool // a Run is under way

	// mu guards the watch set below. The apply goroutine holds it while it
	// applies events, Add and Remove while they walk (Add lets go of it
	// every pauseEvery folders); no callback runs under it except
	// Options.Ignore and Options.Unit.
	mu      sync.Mutex
	closed  bool
	roots   map[string]bool   // as given to Add: absolute and clean
	dirs    map[string]*dir   // watched folder's path → its node
	ids     map[fileID]string // watched folder's identity → its path in dirs
	aliases map[string]string // another path reaching a watched folder → its path in dirs
	targets map[string][]string
	// leadsTo maps a root reached through a symbolic link to the path
	// the link leads to, whether a folder is there or not (guardLink).
	leadsTo map[string]string
	// sentinels are the folders watched on their own, for what happens
	// to a root in them: the folder above each root, and the nearest
	// existing folder above each missing root (see rearm).
	sentinels map[string]bool
	// detached holds the watched folders whose parent folder was not
	// watched when they were (roots, links' targets, folders below one
	// skipped), and so is not counting them in its kids; it may hold
	// some whose parent is watched since.
	detached map[string]bool
	warned   bool // the limit warning was logged: it is logged once
	failed   bool // a failure other than a limit was logged at Warn: later ones go to Debug
}

// dir is a watched folder.
type dir struct {
	id fileID
	// kids counts the watched folders directly below it that were
	// watched after it: a folder watched while the one above it was not
	// is in Watcher.detached instead. With none of either below it, a
	// folder is dropped alone, without a scan of the watch set: rm -rf
	// of a large tree drops its folders one by one, deepest first.
	kids int32
}

// New returns a Watcher with no roots. Every Watcher of the process shares
// one fsnotify watcher (see hub). New fails only on invalid options: if
// the system cannot watch files at all, New logs one warning and returns a
// Watcher that watches nothing, and the caller's periodic rescans see the
// changes.
func New(opts *Options) (*Watcher, error) {
	return newWatcher(opts, nil)
}

// newWatcher is New with the making of the fsnotify watcher given, so that a
// test can fail it as a system out of inotify instances does: a non-nil
// newFS makes the Watcher a hub of its own.
func newWatcher(opts *Options, newFS func() (*fsnotify.Watcher, error)) (*Watcher, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Debounce < 0 || o.MaxDelay < 0 || o.MaxDirs < 0 {
		return nil, fmt.Errorf("watch: negative option (Debounce %v, MaxDelay %v, MaxDirs %d)", o.Debounce, o.MaxDelay, o.MaxDirs)
	}
	if o.Debounce == 0 {
		o.Debounce = DefaultDebounce
	}
	if o.MaxDelay == 0 {
		o.MaxDelay = DefaultMaxDelay
	}
	if o.MaxDirs == 0 {
		o.MaxDirs = DefaultMaxDirs
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	d := newDebouncer(o.Debounce, o.MaxDelay, o.Busy)
	w := &Watcher{
		log:      o.Logger,
		ignore:   o.Ignore,
		unit:     o.Unit,
		outside:  o.Outside,
		maxDirs:  o.MaxDirs,
		within:   o.Within,
		debounce: d,
		queue:    newEventQueue(d.arrived),
		done:     make(chan struct{}),
		roots:    map[string]bool{},
		dirs:     map[string]*dir{},
		ids:      map[fileID]string{},
		aliases:  map[string]string{},
		targets:  map[string][]string{},
		leadsTo:  map[string]string{},

		sentinels: map[string]bool{},
		detached:  map[string]bool{},
	}
	var h *hub
	var err error
	if newFS == nil {
		h, err = attachShared(w)
	} else if h, err = newHub(newFS); err == nil {
		h.attach(w)
	}
	if err != nil {
		// Out of inotify instances, or a system fsnotify does not support:
		// serve from periodic rescans rather than not at all.
		if hint, ok := limitHint(err); ok {
			w.warnLimit(hint, err)
		} else {
			w.warned = true
			w.log.Log(context.Background(), onceWarn(nil), "watch: file watching is unavailable; changes are seen only by periodic rescans", "err", err)
		}
		w.addWatch = func(string) error { return errAbort }
		w.rmWatch = func(string) error { return nil }
		return w, nil
	}
	w.hub = h
	w.addWatch = func(p string) error { return h.add(w, p) }
	w.rmWatch = func(p string) error { return h.remove(w, p) }
	w.wg.Add(1)
	go w.applyLoop()
	return w, nil
}

// Add watches root and every folder below it, recursively, now and as
// folders appear. root is made absolute; batches name paths under it. Adding
// a root already watched is cheap and does nothing. A root that does not
// exist (or stops existing) is waited for: the batch after it is made says
// Rescan. Add fails if root is not a folder or lies in a pseudo file
// system. Reaching a watch limit is not an error: it is one warning, and
// the folders left unwatched are for the caller's periodic rescans. The
// caller reads the root after Add (what changed before the watches were
// set, no event tells); a Rescan now would only repeat that read, which
// at 100,000 skills takes seconds. Add may be called before or during Run.
func (w *Watcher) Add(root string) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("watch %s: %w", root, err)
	}
	fi, err := os.Stat(root)
	missing := errors.Is(err, fs.ErrNotExist)
	switch {
	case missing:
	case err != nil:
		return fmt.Errorf("watch %s: %w", root, err)
	case !fi.IsDir():
		return fmt.Errorf("watch %s: not a folder", root)
	}
	if real, err := filepath.EvalSymlinks(root); err == nil && pseudofs.Reason(real) != "" {
		return fmt.Errorf("watch %s: %s is a pseudo file system, which holds no skills", root, real)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	w.roots[root] = true
	if w.dirs[root] != nil || w.aliases[root] != "" {
		return nil
	}
	if missing {
		// Made meanwhile, it is watched now and Rescan says so.
		if w.arm(root, map[string]bool{}) {
			w.debounce.add(true)
		}
		return nil
	}
	// A root is checked as a link is: it may be one. A big tree takes a
	// while (a second at 20,000 folders): the walk lets go of the lock now
	// and then, so that changes in what it watched already are applied
	// and delivered meanwhile. It stops if the root is removed or the
	// Watcher closed in a pause.
	pause := func() bool {
		w.mu.Unlock()
		runtime.Gosched() // the events' turn, which a Lock at once would take
		w.mu.Lock()
		return !w.closed && w.roots[root]
	}
	hooks := &walkHooks{pause: pause, outside: func() bool {
		if w.outside == nil {
			return true
		}
		w.mu.Unlock()
		w.outside(root)
		w.mu.Lock()
		return !w.closed && w.roots[root]
	}}
	w.watchTree(root, true, nil, hooks)
	if !hooks.outsideDone && !w.closed && w.roots[root] {
		hooks.outside() // the walk ended first (a limit, or nothing inside units)
	}
	if !w.closed && w.roots[root] {
		// The folder above the root is watched too; and the root may
		// have been replaced while the walk let go of the lock.
		if changed := w.rearm(); len(changed) > 0 {
			w.debounce.add(true)
		}
	}
	return nil
}

// Remove stops watching root and every folder below it, except those that
// another root still covers. Removing a root that was never added does
// nothing.
func (w *Watcher) Remove(root string) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("unwatch %s: %w", root, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	if !w.roots[root] {
		return nil
	}
	delete(w.roots, root)
	delete(w.leadsTo, root)
	if (w.dirs[root] != nil || w.aliases[root] != "") && !w.covered(root) {
		// Roots inside this one keep their watches; other paths into it
		// take over the folders they reach. (Inside another root, every
		// watch stays.)
		w.debounce.add(false, w.adopt(w.drop(root, true), nil)...)
	}
	// The sentinels the root had go.
	if changed := w.rearm(); len(changed) > 0 {
		w.debounce.add(true)
	}
	return nil
}

// Run calls fn with each batch, one call at a time, on the calling
// goroutine, until ctx is done (it returns ctx.Err()) or the Watcher is
// closed (ErrClosed). fn runs under no lock of the Watcher, so it may call
// Add and Remove. Changes made while fn runs are in the next batch; changes
// made while no Run is under way wait for the next Run.
func (w *Watcher) Run(ctx context.Context, fn func(Batch)) error {
	if !w.running.CompareAndSwap(false, true) {
		return ErrRunning
	}
	defer w.running.Store(false)
	for {
		b, ok := w.debounce.next(ctx, w.done)
		if !ok {
			select {
			case <-w.done:
				return ErrClosed
			default:
				return ctx.Err()
			}
		}
		fn(b)
		w.debounce.handled()
	}
}

// Close stops watching, waits for the Watcher's goroutines to end, and
// makes Run return. It may be called more than once, and from fn.
func (w *Watcher) Close() error {
	w.closeOnce.Do(func() {
		w.mu.Lock()
		w.closed = true
		// What the hub watches for w: its folders and its sentinels (the
		// other paths reaching its folders are its own business).
		paths := slices.Collect(maps.Keys(w.dirs))
		for p := range w.sentinels {
			if w.dirs[p] == nil {
				paths = append(paths, p)
			}
		}
		w.mu.Unlock()
		close(w.done)
		if w.hub != nil {
			w.closeErr = w.hub.detach(w, paths)
		}
		w.wg.Wait()
	})
	return w.closeErr
}

// applyLoop applies queued events to the watch set and hands the changed
// paths to the debouncer.
func (w *Watcher) applyLoop() {
	defer w.wg.Done()
	for {
		select {
		case <-w.done:
			return
		case <-w.queue.wake:
		}
		events, errs, lost, seq := w.queue.take()
		for _, err := range errs {
			// An overflow is expected in a big enough storm; anything else
			// fsnotify reports is as rare as it is unexplained. Both mean
			// events may be lost, which Rescan tells the caller.
			w.log.Debug("watch: events may have been lost", "err", err)
		}
		paths, rescan := w.apply(events)
		if lost || len(errs) > 0 {
			w.mu.Lock()
			if !w.closed {
				w.resync()
			}
			w.mu.Unlock()
			rescan = true
		}
		w.debounce.add(rescan, paths...)
		w.debounce.applied(seq)
	}
}

// apply brings the watch set up to date with events and returns the paths
// they changed (including every other path that reaches them) and whether
// events may have been lost.
func (w *Watcher) apply(events []fsnotify.Event) (paths []string, rescan bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return nil, false
	}
	wake := false // an event may have made or removed a missing root, or a folder above one
	for _, ev := range events {
		p := filepath.Clean(ev.Name)
		if w.aboveRoot(p) {
			wake = true
		}
		if w.roots[p] {
			// A root made or removed is read whole.
			wake, rescan = true, true
		}
		if w.skip(filepath.Base(p)) || !w.covered(p) {
			// Not covered: a late event from a root removed since.
			continue
		}
		paths = w.expand(p, paths)
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			// The folder's watches would live on under its old name (inotify
			// keeps a moved folder's watch; Windows keeps any): drop the
			// subtree now, before a Create of its new name re-adds it.
			paths = w.adopt(w.drop(p, false), paths)
		}
		if ev.Has(fsnotify.Create) && !w.roots[p] { // a root made is rearm's
			fi, err := os.Lstat(p)
			if err == nil && (fi.IsDir() || fi.Mode()&fs.ModeSymlink != 0) {
				// A new folder that cannot be watched whole (a limit, a
				// permission) needs no Rescan: p is reported, and the
				// caller reads what is in it; what changes in it later
				// is left to the periodic rescans, as the warning says.
				w.watchTree(p, fi.Mode()&fs.ModeSymlink != 0, func(q string) {
					paths = w.expand(q, paths)
				}, nil)
			}
		}
	}
	if wake {
		// A root that appears, or is replaced, is read whole: Rescan.
		// rearm runs whatever rescan says already: a root removed needs
		// its sentinel.
		if changed := w.rearm(); len(changed) > 0 {
			rescan = true
		}
	}
	return paths, rescan
}

// eventQueue holds events between pump and apply. It is bounded: past
// maxQueued events, the rest are dropped and the loss reported, as the
// kernel does with its own queue.
type eventQueue struct {
	wake    chan struct{}    // one slot: something was queued
	arrived func(seq uint64) // told of each push, by its number; may be nil

	// mu guards the fields below.
	mu     sync.Mutex
	events []fsnotify.Event
	errs   []error
	lost   bool
	seq    uint64 // the number of the last push
}

const maxQueued = 1 << 16

func newEventQueue(arrived func(uint64)) *eventQueue {
	return &eventQueue{wake: make(chan struct{}, 1), arrived: arrived}
}

func (q *eventQueue) push(ev fsnotify.Event) {
	q.mu.Lock()
	if len(q.events) < maxQueued {
		q.events = append(q.events, ev)
	} else {
		q.lost = true
	}
	q.seq++
	seq := q.seq
	q.mu.Unlock()
	q.tell(seq)
}

func (q *eventQueue) fail(err error) {
	q.mu.Lock()
	if len(q.errs) < 8 { // they say one thing: events were lost
		q.errs = append(q.errs, err)
	}
	q.seq++
	seq := q.seq
	q.mu.Unlock()
	q.tell(seq)
}

// tell tells arrived of push number seq, and wakes the taker.
func (q *eventQueue) tell(seq uint64) {
	if q.arrived != nil {
		q.arrived(seq)
	}
	q.signal()
}

func (q *eventQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take empties the queue, and returns with what it held the number of
// the last push it holds.
func (q *eventQueue) take() ([]fsnotify.Event, []error, bool, uint64) {
	q.mu.Lock()
	defer q.mu.Unlock()
	events, errs, lost := q.events, q.errs, q.lost
	q.events, q.errs, q.lost = nil, nil, false
	return events, errs, lost, q.seq
}
