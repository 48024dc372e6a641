package sources

import (
	"context"
	"errors"
	"io"
	"sync"
)

// Watcher is a Source that notices when its listing may have changed, so
// that the catalog follows edits without waiting for a periodic rescan.
//
// Watch runs until ctx is done and then returns nil. Each time the
// listing may differ from the last List, it calls changed, which never
// blocks; the caller then calls List, typically after gathering several
// calls. Watch returns ErrNotWatched at once when the source cannot watch
// at all (no part of it is watchable, or the system refuses), and the
// caller falls back to periodic rescans.
type Watcher interface {
	Source
	Watch(ctx context.Context, changed func()) error
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
	var parts []Watcher
	for _, p := range c.parts {
		if w, ok := p.(Watcher); ok {
			parts = append(parts, w)
		}
	}
	return watchAll(ctx, parts, changed)
}

// watchAll runs Watch on every part and waits for them. It returns
// ErrNotWatched when no part watches (each refused at once), and nil once
// ctx is done otherwise.
func watchAll(ctx context.Context, parts []Watcher, changed func()) error {
	var wg sync.WaitGroup
	var mu sync.Mutex
	refused := 0
	for _, p := range parts {
		wg.Go(func() {
			if err := p.Watch(ctx, changed); err != nil && ctx.Err() == nil {
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
