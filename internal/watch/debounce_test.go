package watch

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
)

// change is one call of debouncer.add, at a time after the start.
type change struct {
	at     time.Duration
	rescan bool
	paths  []string
}

// delivered is a batch as next returned it, at a time after the start.
type delivered struct {
	At     time.Duration
	Paths  []string
	Rescan bool
}

// storm is a change to one path every step from start to end (inclusive).
func storm(start, end, step time.Duration) []change {
	var cs []change
	for at := start; at <= end; at += step {
		cs = append(cs, change{at: at, paths: []string{fmt.Sprintf("/r/f%d", at/step%3)}})
	}
	return cs
}

func TestDebounce(t *testing.T) {
	const quiet, max = 200 * time.Millisecond, 2 * time.Second
	ms := time.Millisecond
	tests := []struct {
		name    string
		changes []change
		want    []delivered
	}{{
		name:    "one change waits for quiet",
		changes: []change{{at: 0, paths: []string{"/r/a"}}},
		want:    []delivered{{At: quiet, Paths: []string{"/r/a"}}},
	}, {
		name: "changes within quiet merge and dedupe; quiet counts from the last",
		changes: []change{
			{at: 0, paths: []string{"/r/b", "/r/a"}},
			{at: 150 * ms, paths: []string{"/r/a"}},
			{at: 300 * ms, paths: []string{"/r/c"}},
		},
		want: []delivered{{At: 500 * ms, Paths: []string{"/r/a", "/r/b", "/r/c"}}},
	}, {
		name: "a pause longer than quiet splits batches",
		changes: []change{
			{at: 0, paths: []string{"/r/a"}},
			{at: 500 * ms, paths: []string{"/r/a"}},
		},
		want: []delivered{
			{At: quiet, Paths: []string{"/r/a"}},
			{At: 700 * ms, Paths: []string{"/r/a"}},
		},
	}, {
		// A change every 150 ms for 5 s never pauses for 200 ms: without
		// MaxDelay nothing would be delivered until it ends. (150 ms, so
		// that no change falls on the instant a batch is due.)
		name:    "a storm is cut MaxDelay after each batch's first change",
		changes: storm(0, 5*time.Second, 150*ms),
		want: []delivered{
			{At: max, Paths: []string{"/r/f0", "/r/f1", "/r/f2"}},           // changes 0 to 1950 ms
			{At: 2100*ms + max, Paths: []string{"/r/f0", "/r/f1", "/r/f2"}}, // 2100 to 4050 ms
			{At: 4950*ms + quiet, Paths: []string{"/r/f0", "/r/f1", "/r/f2"}},
		},
	}, {
		name: "rescan drops paths, before and after it",
		changes: []change{
			{at: 0, paths: []string{"/r/a"}},
			{at: 10 * ms, rescan: true},
			{at: 20 * ms, paths: []string{"/r/b"}},
		},
		want: []delivered{{At: 220 * ms, Rescan: true}},
	}, {
		name:    "an add with nothing in it is no change",
		changes: []change{{at: 0}},
		want:    nil,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				d := newDebouncer(quiet, max, nil)
				got := consume(t, d, func() {
					var now time.Duration
					for _, c := range tt.changes {
						time.Sleep(c.at - now)
						now = c.at
						d.add(c.rescan, c.paths...)
					}
				})
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("batches (-want +got):\n%s", diff)
				}
			})
		})
	}
}

// consume runs next in a goroutine while produce runs, then until every
// batch is out, and returns what next delivered.
func consume(t *testing.T, d *debouncer, produce func()) []delivered {
	t.Helper()
	start := time.Now()
	ctx, cancel := context.WithCancel(t.Context())
	out := make(chan []delivered)
	go func() {
		var got []delivered
		for {
			b, ok := d.next(ctx, nil)
			if !ok {
				out <- got
				return
			}
			got = append(got, delivered{At: time.Since(start), Paths: b.Paths, Rescan: b.Rescan})
		}
	}()
	produce()
	time.Sleep(time.Minute) // fake time: every batch is due long before
	cancel()
	return <-out
}

// A consumer that comes back late (a slow callback) gets what is overdue at
// once, and next stops on ctx or stop.
func TestDebounceLateConsumerAndStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDebouncer(200*time.Millisecond, 2*time.Second, nil)
		d.add(false, "/r/a")
		time.Sleep(3 * time.Second)
		start := time.Now()
		b, ok := d.next(t.Context(), nil)
		if !ok || time.Since(start) != 0 || !cmp.Equal(b.Paths, []string{"/r/a"}) {
			t.Errorf("late next = %v, %v after %v; want [/r/a] at once", b, ok, time.Since(start))
		}

		stop := make(chan struct{})
		go func() {
			time.Sleep(time.Second)
			close(stop)
		}()
		d.add(false, "/r/b") // pending, but not due before stop
		if _, ok := d.next(t.Context(), stop); !ok || time.Since(start) != 200*time.Millisecond {
			// It is due at 200 ms, before stop: delivered.
			t.Errorf("next before stop: ok %v at %v", ok, time.Since(start))
		}
		if _, ok := d.next(t.Context(), stop); ok || time.Since(start) != time.Second {
			t.Errorf("next with nothing pending: ok %v at %v; want false when stop closes", ok, time.Since(start))
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, ok := d.next(ctx, nil); ok {
			t.Error("next with a done ctx returned a batch")
		}
	})
}

// Past maxPending paths a batch turns into a rescan rather than grow.
func TestDebounceBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		d := newDebouncer(time.Millisecond, time.Second, nil)
		for i := range maxPending + 1 {
			d.add(false, fmt.Sprintf("/r/%d", i))
		}
		b, _ := d.next(t.Context(), nil)
		if !b.Rescan || b.Paths != nil {
			t.Errorf("after %d paths: Rescan %v with %d paths; want a rescan without paths", maxPending+1, b.Rescan, len(b.Paths))
		}
		d.add(false, "/r/x")
		if b, _ := d.next(t.Context(), nil); b.Rescan || !cmp.Equal(b.Paths, []string{"/r/x"}) {
			t.Errorf("the batch after a rescan = %+v; want [/r/x]", b)
		}
	})
}

// Busy is told when the next delivery is due: DueNow from an event's
// arrival until it is applied, and while a batch is handled; the pending
// batch's due time, which each change puts off; the zero time when
// nothing is pending; and only when that changes.
func TestDebounceBusy(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		type told struct {
			At  time.Duration
			Due time.Duration // after the start; -1 for DueNow, 0 for none
		}
		var got []told
		d := newDebouncer(200*time.Millisecond, 2*time.Second, func(due time.Time) {
			at := told{At: time.Since(start)}
			switch {
			case due.Equal(DueNow):
				at.Due = -1
			case !due.IsZero():
				at.Due = due.Sub(start)
			}
			got = append(got, at)
		})
		d.add(false) // no change: not busy
		d.arrived(1) // an event that changes nothing, until it is applied
		d.arrived(2)
		time.Sleep(5 * time.Millisecond)
		d.applied(2)
		time.Sleep(5 * time.Millisecond)

		d.arrived(4) // told before the push it follows (3)
		d.arrived(3)
		d.applied(3) // 4 is still to be applied
		d.add(false, "/r/a")
		d.applied(4) // as the Watcher does: what it applied is added first
		time.Sleep(90 * time.Millisecond)
		d.add(false, "/r/b")     // puts the batch off
		d.next(t.Context(), nil) // due at 300 ms
		time.Sleep(50 * time.Millisecond)
		d.handled()

		ms := time.Millisecond
		want := []told{{0, -1}, {5 * ms, 0}, {10 * ms, -1}, {10 * ms, 210 * ms}, {100 * ms, 300 * ms}, {300 * ms, -1}, {350 * ms, 0}}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("busy told (-want +got):\n%s", diff)
		}
	})
}
