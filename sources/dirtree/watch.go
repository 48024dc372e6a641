package dirtree

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillmux/skillmux/internal/watch"
	"github.com/skillmux/skillmux/sources"
)

// watch follows the tree's changes until ctx is done, and meanwhile
// completes a deferred scan: the watcher's batches of changed paths become
// the next List's rescans, and a batch that says events were lost, a full
// scan. A root that does not exist yet is waited for by the watcher, and
// its appearance is such a batch.
func (t *Tree) watch(ctx context.Context, changed func()) error {
	logger := t.opts.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	// Once the folders outside the skills are watched, what changed in
	// them before is looked for (lookOutside), beside the walk that goes
	// on watching the skills' insides.
	outside := make(chan struct{}, 1)
	busy, notBusy := sources.Busy(ctx)
	w, err := watch.New(&watch.Options{
		Within:   t.bound(),
		Debounce: t.opts.Debounce,
		Busy:     busy,
		Unit:     sources.HoldsSkill,
		Outside: func(string) {
			select {
			case outside <- struct{}{}:
			default:
			}
		},
		Logger: logger.With("root", t.root),
	})
	if err != nil {
		return err
	}
	defer w.Close()
	t.mu.Lock()
	t.watcher = w
	t.mu.Unlock()
	defer func() {
		t.mu.Lock()
		t.watcher = nil
		t.mu.Unlock()
	}()
	// The watches are added, and then whatever changed between the last
	// scan and the watch being added is seen by a scan that starts now:
	// the deferred deep scan, or a full rescan (parsing only what
	// changed). Both run beside the delivery of the watcher's batches, the
	// scan in parts, so that a change made meanwhile is listed within the
	// debounce rather than after the walks (a second or more at 10,000
	// skills).
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	completing := make(chan error, 1)
	// The first round is over when the scan is: the changes reported
	// before it do not settle the tree (sources.DeferSettle).
	settled := sources.DeferSettle(ctx)
	var checking sync.WaitGroup
	defer func() {
		cancel()
		checking.Wait() // no change is reported after Watch returns
	}()
	checking.Go(func() {
		select {
		case <-outside:
			t.checkOutside(wctx, changed)
		case <-wctx.Done():
		}
	})
	go func() {
		defer settled()
		t.addWatch()
		completed, err := t.complete(wctx, changed)
		if err != nil {
			cancel()
			completing <- err
			return
		}
		if !completed {
			t.mu.Lock()
			t.pending.full = true
			t.mu.Unlock()
			changed()
		} else {
			// complete marked its state current before it saved the
			// cache, which takes a while: a List for a change the watcher
			// reported meanwhile may have shown that state already.
			t.announceCurrent(changed)
		}
		settled()
		completing <- nil
	}()
	err = w.Run(wctx, func(b watch.Batch) {
		t.mu.Lock()
		if b.Rescan {
			t.pending.full = true
		}
		for _, p := range b.Paths {
			t.mark(p)
		}
		t.mu.Unlock()
		changed()
	})
	cancel()
	// The watches' walk takes no context: closing the watcher stops it
	// at its next pause, rather than at its end (seconds, for a large
	// tree on a busy machine), which the end of the watch waits for.
	w.Close()
	notBusy() // nothing more is reported, whatever the watcher held
	if cerr := <-completing; cerr != nil {
		err = cerr
	}
	return ignoreDone(ctx, err)
}

// addWatch starts watching the root, if a watch runs; a root that does
// not exist is waited for. Adding a root already watched costs next to
// nothing, so each full scan calls it as well.
func (t *Tree) addWatch() {
	t.mu.Lock()
	w := t.watcher
	t.mu.Unlock()
	if w == nil {
		return
	}
	if err := w.Add(t.root); err != nil && !errors.Is(err, watch.ErrClosed) {
		t.logDebug("not watched for now", "root", t.root, "err", err)
	}
}

func (t *Tree) logDebug(msg string, args ...any) {
	if t.opts.Logger != nil {
		t.opts.Logger.Debug(msg, args...)
	}
}

// ignoreDone turns the error of a watch that ended with its context into
// nil, as sources.Watcher asks.
func ignoreDone(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// complete looks inside the skill folders that Defer left alone: the
// skills nested in other skills, and each skill's file list. Only those
// folders are walked (the rest of the tree was, by the deferred scan), and
// each skill's entry is replaced as its folder is done, so the tree never
// holds two copies of itself. The next List returns the result without
// scanning. complete calls notify when it found a change before it is
// done, and reports whether it walked anything.
func (t *Tree) complete(ctx context.Context, notify func()) (bool, error) {
	t.scanning.Lock()
	st := t.st
	switch {
	case st != nil && st.deep:
		t.scanning.Unlock()
		return false, nil
	case st == nil || st.rootReal == "":
		err := t.scanAll(ctx, true)
		t.scanning.Unlock()
		if err != nil {
			return false, err
		}
		t.markCurrent()
		return true, nil
	}
	began := time.Now()
	var folders []*entry
	for _, e := range st.skills {
		if !e.inside && e.skill != nil && e.skill.Kind == sources.KindSkill {
			folders = append(folders, e)
		}
	}
	skills := len(folders)
	// In path order, the folders reached without links first, as a full
	// scan walks them: a skill's files reached through a link inside it
	// are the first path's, whatever order the map gave.
	slices.SortFunc(folders, func(a, b *entry) int {
		if a.linked != b.linked {
			if a.linked {
				return 1
			}
			return -1
		}
		return strings.Compare(a.path, b.path)
	})
	// Looked for first, unless checkOutside did it already as soon as
	// those folders were watched: it may be a skill someone has just made.
	changed, err := t.lookOutside(ctx, st)
	t.scanning.Unlock()
	if err != nil {
		return false, err
	}
	if len(changed) > 0 {
		t.markCurrent()
		t.announceCurrent(notify)
	}

	// The skill folders are walked in parts, each under the scanning
	// lock: a List that rescans what the watcher reported comes between
	// two parts. A part skips what such a rescan did, and the walk stops
	// if a full scan replaced the state (it walked every folder). The
	// parts are one walk: its bounds count over all of them.
	w := newWalk(ctx, t, st, true, st.gen)
	w.record = false // skill folders only; changedSince records the plain ones
	for len(folders) > 0 {
		part := folders[:min(len(folders), completePart)]
		folders = folders[len(part):]
		t.scanning.Lock()
		if t.st != st {
			return t.completeReplaced(ctx, notify)
		}
		// Chosen before the walk starts: it changes st.skills.
		todo := slices.DeleteFunc(part, func(e *entry) bool { return st.skills[e.key] != e || e.inside })
		for _, e := range todo {
			dir := filepath.Dir(e.path)
			w.spawn(dir, e.real, depthOf(t.root, dir), e.linked)
		}
		err := w.wait()
		t.scanning.Unlock()
		if err != nil {
			return false, err
		}
		if t.betweenParts != nil {
			t.betweenParts()
		}
		runtime.Gosched() // a List waiting for the lock goes first
	}

	walked := time.Since(began)
	t.scanning.Lock()
	if t.st != st {
		return t.completeReplaced(ctx, notify)
	}
	st.deep = true
	if w.bounds.depth != "" {
		st.bounds.tooDeep(w.bounds.depth)
	}
	st.bounds.skills = st.bounds.skills || w.bounds.skills
	st.bounds.dirs = st.bounds.dirs || w.bounds.dirs
	t.scanning.Unlock()
	t.markCurrent()
	if t.completed != nil {
		t.completed()
	}
	t.logDebug("deferred scan completed", "root", t.root, "skills", skills, "walk", walked.Round(time.Millisecond), "changed", len(changed), "took", time.Since(began).Round(time.Millisecond))
	t.saveCache() // beside the Lists that follow: it copies what it writes
	return true, nil
}

// completeReplaced is complete once a scan has replaced the state it was
// completing; t.scanning is held, and let go. A full scan (the root
// replaced, a periodic rescan) walked every folder, and the state is
// current as of it: the watcher marks what changed since. One as shallow
// as the first (the root replaced before the completion was done) is
// completed in turn.
func (t *Tree) completeReplaced(ctx context.Context, notify func()) (bool, error) {
	deep := t.st.deep
	t.scanning.Unlock()
	if !deep {
		return t.complete(ctx, notify)
	}
	t.markCurrent()
	return true, nil
}

// lookOutside rescans what appeared or went outside the skills between the
// deferred scan and the watch being set, which the watcher never saw, and
// returns it; once per state, since the watch is set once. t.scanning
// must be held.
func (t *Tree) lookOutside(ctx context.Context, st *state) ([]string, error) {
	if st.looked {
		return nil, nil
	}
	st.looked = true
	learned := ""
	if t.opts.Learned {
		learned = t.root
	}
	changed := st.changedSince(learned, &t.cache)
	if len(changed) == 0 {
		return nil, nil
	}
	paths := map[string]bool{}
	for _, p := range changed {
		paths[p] = true
	}
	return changed, t.rescan(ctx, paths)
}

// checkOutside is lookOutside for a deferred scan not yet completed, once
// the folders outside the skills are watched: a skill written just after
// the start, before its folder was watched, is announced then rather than
// after the walk that watches every skill's insides.
func (t *Tree) checkOutside(ctx context.Context, notify func()) {
	t.scanning.Lock()
	st := t.st
	if st == nil || st.deep || st.rootReal == "" {
		t.scanning.Unlock()
		return
	}
	changed, err := t.lookOutside(ctx, st)
	t.scanning.Unlock()
	if err == nil && len(changed) > 0 && ctx.Err() == nil {
		t.markCurrent()
		t.announceCurrent(notify)
	}
}

// completePart is how many skill folders complete walks under one hold of
// the scanning lock: a few milliseconds of work for real-shaped skills.
const completePart = 128

// markCurrent tells the next List that the state is up to date.
func (t *Tree) markCurrent() {
	t.mu.Lock()
	t.pending.current = true
	t.mu.Unlock()
}

// announceCurrent asks for a List of the state that markCurrent marked
// current, with notify, unless a List has taken the mark since and shown
// that state already: asked for again, a List with nothing reported is the
// periodic full rescan, which at 10,000 skills holds the tree for 400 ms.
func (t *Tree) announceCurrent(notify func()) {
	t.mu.Lock()
	due := t.pending.current
	t.mu.Unlock()
	if due {
		notify()
	}
}

// depthOf is how many folders deep below root dir is.
func depthOf(root, dir string) int {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." {
		return 0
	}
	return strings.Count(rel, string(filepath.Separator)) + 1
}

var _ sources.Watcher = (*Tree)(nil)
