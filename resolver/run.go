package resolver

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/skillmux/skillmux/sources"
)

// SettleTimeout bounds how long after Run starts Settled waits for the
// sources' watches to be set up.
const SettleTimeout = 5 * time.Second

// DefaultInterval is the period of full rescans under Run: the fallback for
// file systems that deliver no change events (network and some container
// mounts) and for changes a watcher missed.
const DefaultInterval = 30 * time.Second

// RunOptions configures Run. A nil *RunOptions means the defaults.
type RunOptions struct {
	// Interval is the period of full rescans; default DefaultInterval.
	// A negative Interval turns them off.
	Interval time.Duration
	// NoWatch leaves the sources' watchers off: only the periodic rescans
	// (and MarkChanged) refresh the catalog.
	NoWatch bool
}

// Run keeps the catalog current until ctx is done: it runs the watcher of
// every source that has one (sources.Watcher), refreshes the sources that
// report a change or are marked with MarkChanged, rescans every source each
// Interval, and follows SetSources (watching the new sources, stopping the
// watchers of the old). Each refresh swaps in a new snapshot as Reload does.
// Run returns nil when ctx is done, after every watcher has stopped.
func (r *Resolver) Run(ctx context.Context, opts *RunOptions) error {
	o := RunOptions{Interval: DefaultInterval}
	if opts != nil {
		o = *opts
		if o.Interval == 0 {
			o.Interval = DefaultInterval
		}
	}
	var tick <-chan time.Time
	if o.Interval > 0 {
		t := time.NewTicker(o.Interval)
		defer t.Stop()
		tick = t.C
	}
	settleBy := time.AfterFunc(SettleTimeout, r.settle)
	defer settleBy.Stop()
	w := &watchers{r: r, running: map[sources.Source]context.CancelFunc{}}
	defer w.stopAll()
	for {
		if !o.NoWatch {
			w.reconcile(ctx)
		}
		if _, err := r.Refresh(ctx); err != nil && ctx.Err() == nil {
			r.logger.Warn("refresh failed; keeping the catalog", "err", err)
		}
		if !w.unsettled() {
			r.settle()
		}
		select {
		case <-ctx.Done():
			return nil
		case <-r.changed:
			// Changes that come together make one snapshot: a folder
			// moved from one root to another is reported by each root's
			// watcher after its own debounce, a millisecond or so apart,
			// and two refreshes would tell clients of a catalog without
			// the skill in between. So the refresh waits for the sources
			// whose reports are due within GatherChanges, if any (not
			// for one whose report a storm of changes keeps putting off).
			if !w.busy.gather(ctx, GatherChanges) {
				return nil
			}
		case <-tick:
			r.MarkChanged(r.Sources()...)
		}
	}
}

// GatherChanges bounds how long Run waits, once a source reports a
// change, for the sources whose reports are due by then (sources.WithBusy)
// to make theirs before it refreshes. When none is due, it refreshes at
// once.
const GatherChanges = 100 * time.Millisecond

// busyParts knows, for each part of a watched source that told (see
// sources.Busy), when its next report is due.
type busyParts struct {
	mu      sync.Mutex
	due     map[int]time.Time // the parts with a report pending
	next    int
	changed chan struct{} // closed at the next change of due
}

// part makes a part, for sources.WithBusy.
func (b *busyParts) part() (tell func(time.Time), stop func()) {
	b.mu.Lock()
	id := b.next
	b.next++
	b.mu.Unlock()
	stopped := false // guarded by b.mu, with due: nothing told after stop counts
	set := func(due time.Time) {
		if due.IsZero() {
			delete(b.due, id)
		} else {
			if b.due == nil {
				b.due = map[int]time.Time{}
			}
			b.due[id] = due
		}
		if b.changed != nil {
			close(b.changed)
			b.changed = nil
		}
	}
	tell = func(due time.Time) {
		b.mu.Lock()
		defer b.mu.Unlock()
		if !stopped {
			set(due)
		}
	}
	stop = func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		stopped = true
		set(time.Time{})
	}
	return tell, stop
}

// gather waits, at most within, until no part's report is due by the end
// of within: those due by then have reported. It returns false if ctx
// ended meanwhile.
func (b *busyParts) gather(ctx context.Context, within time.Duration) bool {
	horizon := time.Now().Add(within)
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		b.mu.Lock()
		soon := false
		for _, due := range b.due {
			if !due.After(horizon) {
				soon = true
				break
			}
		}
		if !soon {
			b.mu.Unlock()
			return true
		}
		if b.changed == nil {
			b.changed = make(chan struct{})
		}
		changed := b.changed
		b.mu.Unlock()
		if timer == nil {
			timer = time.NewTimer(within)
		}
		select {
		case <-ctx.Done():
			return false
		case <-timer.C:
			return true
		case <-changed:
		}
	}
}

// Settled returns a channel that is closed once the watching Run started
// is set up: every source watched from the start has reported its first
// change, or finished the first round it deferred (sources.DeferSettle: a
// folder tree's, once its deferred scan is complete and its folders are
// watched), or stopped watching, and the catalog was refreshed
// after it; or SettleTimeout after Run started. Work that can wait, such
// as building the search index, waits for it, so as not to take the
// machine from what a client waits for meanwhile. It is never closed if
// Run is not called.
func (r *Resolver) Settled() <-chan struct{} { return r.settled }

func (r *Resolver) settle() { r.settleOnce.Do(func() { close(r.settled) }) }

// watchers runs the Watch of each watchable source, under Run.
type watchers struct {
	r       *Resolver
	wg      sync.WaitGroup
	running map[sources.Source]context.CancelFunc // only Run's goroutine touches it
	busy    busyParts

	started bool // the first reconcile is done: sources added later do not hold Settled back

	// mu guards settling: how many sources watched from the first
	// reconcile have not yet reported a change nor stopped. Run reads it
	// after each refresh, so that Settled follows the refresh that
	// brought the last first report in.
	mu       sync.Mutex
	settling int
}

// reconcile starts watching the resolver's sources that are not watched
// yet and stops watching those it no longer has.
func (w *watchers) reconcile(ctx context.Context) {
	current := map[sources.Source]bool{}
	for _, src := range w.r.Sources() {
		current[src] = true
		if _, ok := w.running[src]; ok {
			continue
		}
		wt, ok := src.(sources.Watcher)
		if !ok {
			w.running[src] = func() {}
			continue
		}
		wctx, cancel := context.WithCancel(ctx)
		w.running[src] = cancel
		settled := func() {}
		if !w.started {
			w.mu.Lock()
			w.settling++
			w.mu.Unlock()
			settled = sync.OnceFunc(func() {
				w.mu.Lock()
				w.settling--
				w.mu.Unlock()
				w.r.MarkChanged() // wakes Run, whose next refresh settles
			})
		}
		w.wg.Go(func() {
			defer settled()
			sctx, onChange := sources.WithSettle(sources.WithBusy(wctx, w.busy.part), settled)
			err := wt.Watch(sctx, func() { w.r.MarkChanged(src); onChange() })
			switch {
			case errors.Is(err, sources.ErrNotWatched):
				w.r.logger.Debug("source not watched; periodic rescans keep it current", "source", src.Name())
			case err != nil && wctx.Err() == nil:
				w.r.logger.Warn("watching a source failed; periodic rescans keep it current", "source", src.Name(), "err", err)
			}
		})
	}
	for src, cancel := range w.running {
		if !current[src] {
			cancel()
			delete(w.running, src)
		}
	}
	w.started = true
}

// unsettled reports whether a source watched from the start has not yet
// reported its first change.
func (w *watchers) unsettled() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.settling > 0
}

// stopAll stops every watcher and waits for them.
func (w *watchers) stopAll() {
	for _, cancel := range w.running {
		cancel()
	}
	w.wg.Wait()
}
