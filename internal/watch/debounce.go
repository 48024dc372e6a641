package watch

import (
	"context"
	"slices"
	"sync"
	"time"
)

// maxPending bounds the paths one batch collects. A storm beyond it (a
// checkout of a huge tree) is cheaper to handle as one rescan than as a
// list, and the bound keeps memory flat however long the storm lasts.
const maxPending = 50_000

// debouncer merges changes into batches: a batch is due once no change has
// arrived for quiet, or max after its first change, whichever comes first.
// Producers call add, which never blocks; one consumer calls next. It knows
// nothing of files, so a test drives it on a fake clock (testing/synctest).
type debouncer struct {
	quiet, max time.Duration
	wake       chan struct{}   // one-slot: something was added since next last looked
	busy       func(time.Time) // Options.Busy, or nil

	// mu guards the pending batch below, and the state told to busy.
	mu       sync.Mutex
	paths    map[string]struct{}
	rescan   bool
	first    time.Time // when the pending batch's first change arrived
	last     time.Time // when its latest change arrived
	handling bool      // the consumer has a batch it has not handled yet
	// arrivedSeq and appliedSeq number the events the system reported
	// for this Watcher, the last that arrived and the last applied (which
	// then called add if it changed anything): events not yet applied
	// make the debouncer busy already, so that a Watcher whose events
	// came with another's is busy before the other's batch is due.
	arrivedSeq, appliedSeq uint64
	told                   time.Time // what busy was last told
}

// DueNow is what Options.Busy is told while a delivery is as good as due:
// events wait to be applied, or a batch is being handled.
var DueNow = time.Unix(0, 1)

func newDebouncer(quiet, max time.Duration, busy func(time.Time)) *debouncer {
	return &debouncer{quiet: quiet, max: max, wake: make(chan struct{}, 1), paths: map[string]struct{}{}, busy: busy}
}

// arrived says event number seq arrived, to be applied.
func (d *debouncer) arrived(seq uint64) {
	d.mu.Lock()
	d.arrivedSeq = max(d.arrivedSeq, seq)
	d.tell()
	d.mu.Unlock()
}

// applied says every event up to number seq was applied (and added).
func (d *debouncer) applied(seq uint64) {
	d.mu.Lock()
	d.appliedSeq = max(d.appliedSeq, seq)
	d.tell()
	d.mu.Unlock()
}

// tell tells busy when the next delivery is due, when that differs from
// what it was told last: DueNow while events wait to be applied or a batch
// is handled, the pending batch's due time, or the zero time when nothing
// is pending. d.mu is held.
func (d *debouncer) tell() {
	var due time.Time
	switch {
	case d.handling || d.arrivedSeq > d.appliedSeq:
		due = DueNow
	case d.rescan || len(d.paths) > 0:
		due = d.due()
	}
	if !due.Equal(d.told) {
		d.told = due
		if d.busy != nil {
			d.busy(due)
		}
	}
}

// due is when the pending batch is due: once no change has come for
// quiet, or max after its first. d.mu is held.
func (d *debouncer) due() time.Time {
	due := d.last.Add(d.quiet)
	if limit := d.first.Add(d.max); limit.Before(due) {
		due = limit
	}
	return due
}

// handled says the consumer is done with the batch next gave it.
func (d *debouncer) handled() {
	d.mu.Lock()
	d.handling = false
	d.tell()
	d.mu.Unlock()
}

// add records changed paths, and a possible loss of events (rescan).
func (d *debouncer) add(rescan bool, paths ...string) {
	if !rescan && len(paths) == 0 {
		return
	}
	now := time.Now()
	d.mu.Lock()
	if len(d.paths) == 0 && !d.rescan {
		d.first = now
	}
	d.last = now
	if rescan {
		d.setRescan()
	}
	for _, p := range paths {
		if d.rescan {
			break // a rescan covers every path; collecting more is waste
		}
		if len(d.paths) >= maxPending {
			d.setRescan()
			break
		}
		d.paths[p] = struct{}{}
	}
	d.tell()
	d.mu.Unlock()
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// setRescan marks the pending batch as a rescan, whose paths are dropped:
// they would be read again anyway. d.mu is held.
func (d *debouncer) setRescan() {
	d.rescan = true
	if len(d.paths) > 0 {
		d.paths = map[string]struct{}{} // a fresh map: a cleared one keeps its storm-sized memory
	}
}

// next waits until a batch is due and returns it, or returns false once ctx
// is done or stop is closed.
func (d *debouncer) next(ctx context.Context, stop <-chan struct{}) (Batch, bool) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		d.mu.Lock()
		pending := len(d.paths) > 0 || d.rescan
		var wait time.Duration
		if pending {
			if wait = time.Until(d.due()); wait <= 0 {
				b := d.take()
				d.handling = true
				d.tell()
				d.mu.Unlock()
				return b, true
			}
		}
		d.mu.Unlock()
		var fire <-chan time.Time
		if pending {
			timer.Reset(wait)
			fire = timer.C
		}
		select {
		case <-ctx.Done():
			return Batch{}, false
		case <-stop:
			return Batch{}, false
		case <-d.wake:
		case <-fire:
		}
	}
}

// take empties the pending batch into a Batch. d.mu is held.
func (d *debouncer) take() Batch {
	b := Batch{Rescan: d.rescan}
	if !d.rescan {
		b.Paths = make([]string, 0, len(d.paths))
		for p := range d.paths {
			b.Paths = append(b.Paths, p)
		}
		slices.Sort(b.Paths)
	}
	if len(d.paths) > 0 {
		d.paths = map[string]struct{}{}
	}
	d.rescan = false
	return b
}
