package server

import (
	"context"
	"sync/atomic"
	"time"
)

// startWait bounds how long a skill call of a name not found waits for
// the start to complete.
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
// ends, and reports whether there was a start to wait for.
func (g *startGate) wait(ctx context.Context, d time.Duration) bool {
	if !g.pending() {
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-g.done:
	case <-t.C:
		g.gaveUp.Store(true)
	case <-ctx.Done():
	}
	return true
}
