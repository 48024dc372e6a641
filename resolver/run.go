package resolver

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/skillmux/skillmux/sources"
)

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
	w := &watchers{r: r, running: map[sources.Source]context.CancelFunc{}}
	defer w.stopAll()
	for {
		if !o.NoWatch {
			w.reconcile(ctx)
		}
		if _, err := r.Refresh(ctx); err != nil && ctx.Err() == nil {
			r.logger.Warn("refresh failed; keeping the catalog", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-r.changed:
		case <-tick:
			r.MarkChanged(r.Sources()...)
		}
	}
}

// watchers runs the Watch of each watchable source, under Run.
type watchers struct {
	r       *Resolver
	wg      sync.WaitGroup
	running map[sources.Source]context.CancelFunc // only Run's goroutine touches it
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
		w.wg.Go(func() {
			err := wt.Watch(wctx, func() { w.r.MarkChanged(src) })
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
}

// stopAll stops every watcher and waits for them.
func (w *watchers) stopAll() {
	for _, cancel := range w.running {
		cancel()
	}
	w.wg.Wait()
}
