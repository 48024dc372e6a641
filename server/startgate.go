package server

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/skillmux/skillmux/sources"
)

// startWait bounds how long a request for a skill not found waits for the
// start to complete.
const startWait = 5 * time.Second

// startGate is the catalog's start as requests see it: complete once done
// (Options.IndexAfter: resolver.Settled) is closed. Until then the catalog
// may lack skills the sources are still finding (the skills nested in
// others, in a large folder; a source plugin's first listing), and a
// request that would otherwise answer without them waits.
type startGate struct {
	done   <-chan struct{} // nil: no start to wait for
	gaveUp atomic.Bool     // a wait ran out: a start that never completes must not slow every request
}

// pending reports whether a request may have to wait: the start is not
// complete, nor was a wait for it given up. A caller asks before it takes
// the view it answers from, and waits when that view lacks what it needs.
func (g *startGate) pending() bool {
	if g.done == nil || g.gaveUp.Load() {
		return false
	}
	select {
	case <-g.done:
		return false
	default:
		return true
	}
}

// wait waits until the start is complete, for at most d or until ctx
// ends.
func (g *startGate) wait(ctx context.Context, d time.Duration) {
	if !g.pending() {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-g.done:
	case <-t.C:
		g.gaveUp.Store(true)
	case <-ctx.Done():
	}
}

// findDuringStart runs find and, when it finds no such skill
// (sources.ErrNotFound) and the start was not complete before it looked,
// runs it again once the start is complete (at most startWait): a skill
// the start is still finding is then served, not said not to exist. Every
// request that names a skill or one of its files finds it this way.
func findDuringStart[T any](ctx context.Context, g *startGate, find func() (T, error)) (T, error) {
	starting := g.pending() // before the look: the start may end after it
	t, err := find()
	if starting && errors.Is(err, sources.ErrNotFound) {
		g.wait(ctx, startWait)
		t, err = find()
	}
	return t, err
}
