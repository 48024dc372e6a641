package sources

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"
)

// Watcher is a Source that notices when its listing may have changed, so
// that the catalog follows edits without waiting for a periodic rescan.
//
// Watch runs until ctx is done and then returns nil. Each time the
// listing may differ from the last List, it calls changed, which never
// blocks; the caller then calls List, typically after gathering several
// calls. Watch returns ErrNotWatched at once when the source cannot watch
// at all (no part of it is watchable, or the system refuses), and the
// caller falls back to periodic rescans. A Watcher whose first List left
// work for Watch to finish (a deferred scan) says so with DeferSettle.
type Watcher interface {
	Source
	Watch(ctx context.Context, changed func()) error
}

// WithSettle returns a context for Watch, and the function its changed
// callback must also call, that tell settled (once) when the Watcher's
// first round is over: at its first change, or, for a Watcher that called
// DeferSettle, when every function DeferSettle gave it has been called. A
// caller that waits for its sources to settle (to start work of its own
// that would compete with theirs) uses it.
func WithSettle(ctx context.Context, settled func()) (context.Context, func()) {
	st := &settling{settled: sync.OnceFunc(settled)}
	return context.WithValue(ctx, settlingKey{}, st), st.changed
}

// DeferSettle tells the caller of Watch, through ctx, that the Watcher's
// first round is over only when the function it returns is called, not
// at its first change: a Watcher whose first List left work for Watch
// (a deferred scan) calls it once that work is done, and reports what it
// changed meanwhile as it comes. Without WithSettle, it returns a function
// that does nothing.
func DeferSettle(ctx context.Context) func() {
	st, ok := ctx.Value(settlingKey{}).(*settling)
	if !ok {
		return func() {}
	}
	st.mu.Lock()
	st.pending++
	st.mu.Unlock()
	return sync.OnceFunc(func() {
		st.mu.Lock()
		st.pending--
		last := st.pending == 0
		st.mu.Unlock()
		if last {
			st.settled()
		}
	})
}

type settlingKey struct{}

// settling is what WithSettle and DeferSettle share.
type settling struct {
	settled func()

	mu      sync.Mutex
	pending int // DeferSettle's functions not yet called
}

// changed settles at a change when nothing is deferred: either DeferSettle
// was never called, or every function it gave was, and settled (once)
// already.
func (st *settling) changed() {
	st.mu.Lock()
	pending := st.pending
	st.mu.Unlock()
	if pending == 0 {
		st.settled()
	}
}

// WithBusy returns a context for Watch through which each part of a
// Watcher tells when its next report of changes is due (see Busy): part
// makes a part, and returns the functions Busy returns. A caller that
// gathers the reports of several sources into one refresh waits for
// those due soon. The functions must be quick; they are called from the
// Watcher's goroutines.
func WithBusy(ctx context.Context, part func() (tell func(due time.Time), stop func())) context.Context {
	return context.WithValue(ctx, busyKey{}, part)
}

type busyKey struct{}

// Busy returns the functions with which a Watcher, or one part of it,
// tells the caller of Watch (WithBusy) when its next report of changes is
// due: tell is told the time (a past one while the report is as good as
// made, the zero time when none is pending), and stop says, when the
// part's watch ends, that it reports nothing more; tell does nothing
// after it. Each call makes a part of its own, so that one part's report
// does not hide another's. Without WithBusy, both do nothing.
func Busy(ctx context.Context) (tell func(due time.Time), stop func()) {
	part, ok := ctx.Value(busyKey{}).(func() (func(time.Time), func()))
	if !ok {
		return func(time.Time) {}, func() {}
	}
	return part()
}

// ErrNotWatched means a source does not watch for changes.
var ErrNotWatched = errors.New("source does not watch for changes")

// A Source may also be an io.Closer: a source that holds resources (a
// process, open files, watches) releases them in Close. Whoever drops a
// source from the catalog closes it, after the last List.

// Close closes src if it is an io.Closer.
func Close(src Source) error {
	if c, ok := src.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

var (
	_ Watcher   = (*concat)(nil)
	_ io.Closer = (*concat)(nil)
	_ Watcher   = (*filter)(nil)
	_ io.Closer = (*filter)(nil)
)

// Watch implements Watcher: it watches every part that can be watched,
// until ctx is done, and returns ErrNotWatched when none can.
func (c *concat) Watch(ctx context.Context, changed func()) error {
	var parts []func(context.Context, func()) error
	for _, p := range c.parts {
		if w, ok := p.(Watcher); ok {
			parts = append(parts, w.Watch)
		}
	}
	return WatchAll(ctx, changed, parts...)
}

// WatchAll runs the watches of the parts of a Watcher, each as a Watch
// (see Watcher), and waits for them. It returns ErrNotWatched when no part
// watches (each refused at once), and nil once ctx is done otherwise.
//
// The whole settles (WithSettle) once every part has: each part gets a
// settling of its own, so that a part that defers its settling and is
// done quickly does not settle the whole before a slower part has said it
// defers its own.
func WatchAll(ctx context.Context, changed func(), parts ...func(ctx context.Context, changed func()) error) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	refused := 0
	// Every part's settling is deferred before any part starts.
	settled := make([]func(), len(parts))
	for i := range parts {
		settled[i] = DeferSettle(ctx)
	}
	for i, p := range parts {
		partSettled := settled[i]
		pctx, onChange := WithSettle(ctx, partSettled)
		wg.Go(func() {
			defer partSettled()
			if err := p(pctx, func() { changed(); onChange() }); err != nil && ctx.Err() == nil {
				mu.Lock()
				refused++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if refused == len(parts) && ctx.Err() == nil {
		return ErrNotWatched
	}
	return nil
}

// Close implements io.Closer: it closes every part that is one.
func (c *concat) Close() error {
	var errs []error
	for _, p := range c.parts {
		errs = append(errs, Close(p))
	}
	return errors.Join(errs...)
}

// Watch implements Watcher for the filtered source.
func (f *filter) Watch(ctx context.Context, changed func()) error {
	if w, ok := f.src.(Watcher); ok {
		return w.Watch(ctx, changed)
	}
	return ErrNotWatched
}

// Close implements io.Closer for the filtered source.
func (f *filter) Close() error { return Close(f.src) }
