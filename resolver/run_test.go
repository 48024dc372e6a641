package resolver_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// watched is a Fake that counts its listings, can be told to change, and
// records whether it was closed and whether its watch is running.
type watched struct {
	mu sync.Mutex
	*sourcetest.Fake
	lists    atomic.Int32
	closed   atomic.Bool
	watching atomic.Bool
	kick     chan struct{}      // reports a change, and that the watch holds none
	hold     chan time.Duration // says the watch will report a change this much later (sources.Busy)
	// ready, when not nil, makes the watch defer its settling until it is
	// closed (sources.DeferSettle), as a tree with a deferred scan does.
	ready chan struct{}
}

func newWatched(name string, skills ...string) *watched {
	w := &watched{Fake: fake(name, "", skills...), kick: make(chan struct{}, 1), hold: make(chan time.Duration, 1)}
	return w
}

func (w *watched) List(ctx context.Context) (*sources.Listing, error) {
	w.lists.Add(1)
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.Fake.List(ctx)
}

func (w *watched) set(f func(*sourcetest.Fake)) {
	w.mu.Lock()
	f(w.Fake)
	w.mu.Unlock()
}

func (w *watched) Watch(ctx context.Context, changed func()) error {
	w.watching.Store(true)
	defer w.watching.Store(false)
	ready := w.ready
	var settled func()
	if ready != nil {
		settled = sources.DeferSettle(ctx)
	}
	busy, notBusy := sources.Busy(ctx)
	defer notBusy()
	for {
		select {
		case <-ctx.Done():
			return nil
		case d := <-w.hold:
			busy(time.Now().Add(d))
		case <-w.kick:
			changed()
			busy(time.Time{})
		case <-ready:
			ready = nil
			changed()
			settled()
		}
	}
}

func (w *watched) Close() error {
	w.closed.Store(true)
	return nil
}

// until waits, in a synctest bubble, for cond.
func until(t *testing.T, cond func() bool) {
	t.Helper()
	for range 1000 {
		if cond() {
			return
		}
		time.Sleep(time.Millisecond) // fake time: instant
		synctest.Wait()
	}
	t.Fatal("condition never held")
}

func TestRunRefreshesOnlyWhatChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b := newWatched("a", "one"), newWatched("b", "two")
		r := resolver.New([]sources.Source{a, b}, nil)
		if _, err := r.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() { done <- r.Run(ctx, nil) }()
		synctest.Wait()
		if !a.watching.Load() || !b.watching.Load() {
			t.Fatal("the watchers do not run")
		}
		a.set(func(f *sourcetest.Fake) {
			f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: "three", Description: "Three."})
		})
		a.kick <- struct{}{}
		until(t, func() bool { return r.Snapshot().Len() == 3 })
		if a.lists.Load() != 2 || b.lists.Load() != 1 {
			t.Errorf("listings: a %d, b %d; want only the changed source listed again", a.lists.Load(), b.lists.Load())
		}
		// Every Interval, every source is rescanned.
		time.Sleep(resolver.DefaultInterval)
		synctest.Wait()
		if a.lists.Load() != 3 || b.lists.Load() != 2 {
			t.Errorf("after the interval: a %d, b %d listings", a.lists.Load(), b.lists.Load())
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if a.watching.Load() || b.watching.Load() {
			t.Error("a watcher outlived Run")
		}
	})
}

// A source that fails keeps its last good listing, and the failure is
// reported.
func TestFailingSourceKeepsItsLastListing(t *testing.T) {
	a := newWatched("a", "one")
	r := resolver.New([]sources.Source{a}, nil)
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	a.set(func(f *sourcetest.Fake) { f.Err = errors.New("the disk went away") })
	snap, err := r.Reload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if snap.Len() != 1 || len(snap.Failed()) != 1 || !snap.Failed()[0].Stale {
		t.Errorf("skills %d, failed %+v", snap.Len(), snap.Failed())
	}
	// A source that never listed well serves nothing.
	bad := newWatched("bad")
	bad.set(func(f *sourcetest.Fake) { f.Err = errors.New("unreadable") })
	snap, _ = resolver.New([]sources.Source{bad}, nil).Reload(context.Background())
	if snap.Len() != 0 || len(snap.Failed()) != 1 || snap.Failed()[0].Stale {
		t.Errorf("skills %d, failed %+v", snap.Len(), snap.Failed())
	}
}

// Sources dropped by SetSources are closed, and under Run their watchers
// stop while the new sources' start.
func TestSetSourcesClosesAndRewatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		old, next := newWatched("old", "x"), newWatched("next", "y")
		r := resolver.New([]sources.Source{old}, nil)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go r.Run(ctx, &resolver.RunOptions{Interval: -1})
		until(t, func() bool { return old.watching.Load() && r.Snapshot().Len() == 1 })
		r.SetSources([]sources.Source{next})
		until(t, func() bool { return next.watching.Load() && !old.watching.Load() })
		if !old.closed.Load() || next.closed.Load() {
			t.Errorf("closed: old %v, next %v", old.closed.Load(), next.closed.Load())
		}
		until(t, func() bool {
			s := r.Snapshot()
			return s.Len() == 1 && s.Skills()[0].Ref.Name == "y"
		})
	})
}

// A source SetSources drops is closed only once a snapshot without its
// skills is served: until then a request answered from the current
// snapshot may still read through it (a source plugin's skill, whose
// process would be gone). Close closes them all at once.
func TestDroppedSourcesCloseAfterTheSwap(t *testing.T) {
	old, next := newWatched("old", "x"), newWatched("next", "y")
	r := resolver.New([]sources.Source{old}, nil)
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.SetSources([]sources.Source{next})
	if old.closed.Load() {
		t.Error("the dropped source was closed while its skills were served")
	}
	s, err := r.Reload(context.Background())
	if err != nil || s.Len() != 1 || s.Skills()[0].Ref.Name != "y" {
		t.Fatalf("reload: %v", err)
	}
	if !old.closed.Load() || next.closed.Load() {
		t.Errorf("after the swap, closed: old %v, next %v", old.closed.Load(), next.closed.Load())
	}
	third := newWatched("third", "z")
	r.SetSources([]sources.Source{third})
	r.Close()
	if !next.closed.Load() || !third.closed.Load() || len(r.Sources()) != 0 {
		t.Errorf("after Close, closed: next %v, third %v; %d sources left", next.closed.Load(), third.closed.Load(), len(r.Sources()))
	}
}

// A source dropped and taken back before the next reload is in use again:
// neither that reload nor Close closes it more than once.
func TestDroppedSourceTakenBack(t *testing.T) {
	a, b := &closeCounting{watched: newWatched("a", "x")}, newWatched("b", "y")
	r := resolver.New([]sources.Source{a}, nil)
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	r.SetSources([]sources.Source{b})
	r.SetSources([]sources.Source{a, b})
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := a.closes.Load(); n != 0 {
		t.Errorf("source a, served by the current snapshot, was closed %d times", n)
	}
	r.Close()
	if n := a.closes.Load(); n != 1 {
		t.Errorf("Close closed a %d times", n)
	}
}

// closeCounting counts the Close calls of a watched source.
type closeCounting struct {
	*watched
	closes atomic.Int32
}

func (c *closeCounting) Close() error { c.closes.Add(1); return nil }

// The sources SetSources drops leave the catalog at the next reload, or
// refresh, even when no source is left to list, or none of the others
// changed.
func TestSetSourcesDropsTheirSkills(t *testing.T) {
	for _, tt := range []struct {
		name   string
		keep   []string // the names of the sources kept
		reload func(*resolver.Resolver, context.Context) (*resolver.Snapshot, error)
		want   int
	}{
		{"none left, Reload", nil, (*resolver.Resolver).Reload, 0},
		{"none left, Refresh", nil, (*resolver.Resolver).Refresh, 0},
		{"one left, Refresh", []string{"a"}, (*resolver.Resolver).Refresh, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srcs := map[string]sources.Source{"a": newWatched("a", "one"), "b": newWatched("b", "two")}
			r := resolver.New([]sources.Source{srcs["a"], srcs["b"]}, nil)
			var swaps atomic.Int32
			r.OnSwap(func(_, _ *resolver.Snapshot) { swaps.Add(1) })
			if s, err := r.Reload(context.Background()); err != nil || s.Len() != 2 {
				t.Fatalf("first reload: %v, %d skills", err, s.Len())
			}
			var keep []sources.Source
			for _, name := range tt.keep {
				keep = append(keep, srcs[name])
			}
			r.SetSources(keep)
			s, err := tt.reload(r, context.Background())
			if err != nil || s.Len() != tt.want || r.Snapshot().Len() != tt.want {
				t.Errorf("after SetSources: %v, %d skills served, want %d", err, r.Snapshot().Len(), tt.want)
			}
			if swaps.Load() != 2 {
				t.Errorf("%d swaps, want 2: the change is told", swaps.Load())
			}
			// Once built, a refresh with nothing to list builds nothing.
			if again, _ := r.Refresh(context.Background()); again != s {
				t.Error("a refresh with nothing changed built a new snapshot")
			}
		})
	}
}

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// Settled waits for every source watched from the start to report its
// first change, and for the refresh that follows; a source added later
// does not hold it back, and one that never reports holds it back only
// until SettleTimeout.
func TestSettled(t *testing.T) {
	t.Run("first reports", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			a, b := newWatched("a", "one"), newWatched("b", "two")
			r := resolver.New([]sources.Source{a, b}, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go r.Run(ctx, &resolver.RunOptions{Interval: -1})
			until(t, func() bool { return a.watching.Load() && b.watching.Load() && r.Snapshot().Len() == 2 })
			if closed(r.Settled()) {
				t.Fatal("settled before any watched source reported")
			}
			a.set(func(f *sourcetest.Fake) { f.Skills = append(f.Skills, fake("a", "", "three").Skills...) })
			a.kick <- struct{}{}
			time.Sleep(time.Second)
			synctest.Wait()
			if closed(r.Settled()) {
				t.Fatal("settled with one of two watched sources yet to report")
			}
			b.kick <- struct{}{}
			until(t, func() bool { return closed(r.Settled()) })
			if n := r.Snapshot().Len(); n != 3 {
				t.Errorf("settled before the refresh that followed the reports: %d skills, want 3", n)
			}
			// A source given later is watched, and changes nothing.
			r.SetSources([]sources.Source{a, b, newWatched("c", "four")})
			r.MarkChanged()
			until(t, func() bool { return r.Snapshot().Len() == 4 })
		})
	})
	t.Run("deferred", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			a := newWatched("a", "one")
			a.ready = make(chan struct{})
			r := resolver.New([]sources.Source{a}, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go r.Run(ctx, &resolver.RunOptions{Interval: -1})
			until(t, func() bool { return a.watching.Load() && r.Snapshot().Len() == 1 })
			a.set(func(f *sourcetest.Fake) { f.Skills = append(f.Skills, fake("a", "", "two").Skills...) })
			a.kick <- struct{}{}
			until(t, func() bool { return r.Snapshot().Len() == 2 })
			time.Sleep(time.Second)
			synctest.Wait()
			if closed(r.Settled()) {
				t.Fatal("settled at a change the source reported before its first round was over")
			}
			close(a.ready)
			until(t, func() bool { return closed(r.Settled()) })
		})
	})
	t.Run("timeout", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			a := newWatched("a", "one")
			r := resolver.New([]sources.Source{a}, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			start := time.Now()
			go r.Run(ctx, &resolver.RunOptions{Interval: -1})
			<-r.Settled()
			if waited := time.Since(start); waited != resolver.SettleTimeout {
				t.Errorf("settled after %v without a report, want %v", waited, resolver.SettleTimeout)
			}
		})
	})
	t.Run("not watching", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			r := resolver.New([]sources.Source{newWatched("a", "one")}, nil)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go r.Run(ctx, &resolver.RunOptions{Interval: -1, NoWatch: true})
			until(t, func() bool { return closed(r.Settled()) })
			if r.Snapshot().Len() != 1 {
				t.Error("settled before the first refresh")
			}
		})
	})
}

// A skill moved from one source to another, each reporting its change
// some milliseconds after the other (each root's watcher debounces on its
// own), is in every snapshot: clients are not told of a catalog without
// it in between. The refresh waits for the source that holds a change it
// has not reported yet; when none does, it does not wait at all; and a
// source busy for longer than GatherChanges holds it back no longer.
func TestChangesThatComeTogetherMakeOneSnapshot(t *testing.T) {
	tests := []struct {
		name string
		// holdB makes b say, when a reports, that it will report after
		// dueB; it reports after reportB (never when negative).
		holdB         bool
		dueB, reportB time.Duration
		// swapAt is when the first new snapshot is swapped in, after a
		// reports; together says it is the one with the moved skill.
		swapAt   time.Duration
		together bool
	}{
		{"b reports 2 ms later", true, 2 * time.Millisecond, 2 * time.Millisecond, 2 * time.Millisecond, true},
		{"b reports 60 ms later", true, 60 * time.Millisecond, 60 * time.Millisecond, 60 * time.Millisecond, true},
		{"nothing else is busy", false, 0, -1, 0, false},
		{"b is due soon but never reports", true, 10 * time.Millisecond, -1, resolver.GatherChanges, false},
		// A storm in b puts its report off again and again: it is not
		// waited for.
		{"b is due later than GatherChanges", true, 200 * time.Millisecond, -1, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				a, b := newWatched("a", "one", "moved"), newWatched("b", "two")
				r := resolver.New([]sources.Source{a, b}, nil)
				if _, err := r.Reload(context.Background()); err != nil {
					t.Fatal(err)
				}
				var kicked time.Time
				var swaps, lacking atomic.Int32
				var firstAt atomic.Int64
				r.OnSwap(func(_, s *resolver.Snapshot) {
					if swaps.Add(1) == 1 {
						firstAt.Store(int64(time.Since(kicked)))
					}
					if _, ok := s.Find("moved"); !ok {
						lacking.Add(1)
					}
				})
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				go r.Run(ctx, nil)
				synctest.Wait()
				a.set(func(f *sourcetest.Fake) { f.Skills = f.Skills[:1] })
				if tt.holdB {
					b.hold <- tt.dueB
					synctest.Wait()
				}
				kicked = time.Now()
				a.kick <- struct{}{}
				if tt.reportB >= 0 {
					time.Sleep(tt.reportB)
					b.set(func(f *sourcetest.Fake) {
						f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: "moved", Description: "Moved."})
					})
					b.kick <- struct{}{}
				}
				until(t, func() bool { return swaps.Load() > 0 })
				synctest.Wait()
				if got := time.Duration(firstAt.Load()); got != tt.swapAt {
					t.Errorf("first snapshot swapped in %v after a's report; want %v", got, tt.swapAt)
				}
				if tt.together && (lacking.Load() != 0 || swaps.Load() != 1) {
					t.Errorf("%d snapshots swapped in, %d without the moved skill; want one, with it", swaps.Load(), lacking.Load())
				}
			})
		})
	}
}

// On real folders: a skill moved from one root to another, back and
// forth, is in every snapshot the moves make; each root's watcher reports
// its side of a move on its own.
func TestSkillMovedBetweenRootsIsNeverMissing(t *testing.T) {
	rootA, rootB := t.TempDir(), t.TempDir()
	sourcetest.WriteFiles(t, rootA, map[string]string{
		"moved/SKILL.md": "---\nname: moved\ndescription: Moves between roots.\n---\nBody.\n",
		"stays/SKILL.md": "---\nname: stays\ndescription: Stays.\n---\nBody.\n",
	})
	// The default debounce: with a much shorter one, a machine busy enough
	// to hold the process's goroutines back for as long could make the
	// first root's report due before the second has seen its event.
	r := resolver.New([]sources.Source{dirtree.New(rootA, nil), dirtree.New(rootB, nil)}, nil)
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lacking []string
	var swaps atomic.Int32
	r.OnSwap(func(_, s *resolver.Snapshot) {
		swaps.Add(1)
		if _, ok := s.Find("moved"); !ok {
			mu.Lock()
			lacking = append(lacking, s.Keys()...)
			mu.Unlock()
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx, nil) }()
	defer func() { cancel(); <-done }()
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(20 * time.Second) // a hang, not a timing
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: never", what)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	select {
	case <-r.Settled():
	case <-time.After(20 * time.Second):
		t.Fatal("the roots' watches were never set up")
	}
	// A refresh under way when a skill is moved (one that follows the
	// start, or the last move) may list one root before the move and the
	// other after it: that race is not this test's. Each move waits for
	// 100 ms without a new snapshot.
	quiet := func() {
		for {
			n := swaps.Load()
			time.Sleep(100 * time.Millisecond)
			if swaps.Load() == n {
				return
			}
		}
	}
	from, to := rootA, rootB
	for i := range 4 {
		quiet()
		if err := os.Rename(filepath.Join(from, "moved"), filepath.Join(to, "moved")); err != nil {
			t.Fatal(err)
		}
		want := filepath.Join(to, "moved")
		waitFor(fmt.Sprintf("move %d", i+1), func() bool {
			m, ok := r.Snapshot().Find("moved")
			return ok && m.Skill.Dir == want
		})
		from, to = to, from
	}
	mu.Lock()
	defer mu.Unlock()
	if len(lacking) > 0 {
		t.Errorf("snapshots without the moved skill were swapped in (holding %v)", lacking)
	}
}
