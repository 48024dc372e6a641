package resolver

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillmux/skillmux/sources"
)

// Options configures a Resolver. A nil *Options means the defaults.
type Options struct {
	// Logger receives reload progress and new diagnostics; default discards.
	Logger *slog.Logger
}

// Resolver owns the current Snapshot of a set of sources.
type Resolver struct {
	logger *slog.Logger
	cur    atomic.Pointer[Snapshot]

	// mu serializes reloads and guards the fields below.
	mu       sync.Mutex
	sources  []sources.Source
	onSwap   []func(old, new *Snapshot)
	reported map[string]bool // diagnostics already logged, so a reload logs only new ones
}

// New returns a Resolver over srcs, in precedence order. Its Snapshot is
// empty until the first Reload.
func New(srcs []sources.Source, opts *Options) *Resolver {
	r := &Resolver{sources: srcs, reported: map[string]bool{}}
	if opts != nil {
		r.logger = opts.Logger
	}
	if r.logger == nil {
		r.logger = slog.New(slog.DiscardHandler)
	}
	r.cur.Store(Build(nil))
	return r
}

// Snapshot returns the current snapshot. It never returns nil.
func (r *Resolver) Snapshot() *Snapshot { return r.cur.Load() }

// SetSources replaces the sources; the next Reload lists the new ones.
func (r *Resolver) SetSources(srcs []sources.Source) {
	r.mu.Lock()
	r.sources = srcs
	r.mu.Unlock()
}

// OnSwap registers f to be called, on the reloading goroutine, after each
// Reload swaps in a new snapshot.
func (r *Resolver) OnSwap(f func(old, new *Snapshot)) {
	r.mu.Lock()
	r.onSwap = append(r.onSwap, f)
	r.mu.Unlock()
}

// Reload lists every source in parallel, builds a new snapshot and swaps it
// in. A source that fails is logged and recorded in the snapshot; the
// others are served. If ctx ends first, the old snapshot stays and Reload
// returns ctx's error.
func (r *Resolver) Reload(ctx context.Context) (*Snapshot, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := time.Now()
	inputs := make([]Input, len(r.sources))
	var wg sync.WaitGroup
	for i, src := range r.sources {
		wg.Go(func() {
			t0 := time.Now()
			l, err := listSafely(ctx, src)
			inputs[i] = Input{Source: src.Name(), Listing: l, Err: err}
			if l != nil {
				r.logger.Info("source scanned", "source", src.Name(), "skills", len(l.Skills), "problems", len(l.Problems), "took", time.Since(t0).Round(time.Microsecond))
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return r.cur.Load(), fmt.Errorf("reload: %w", err)
	}
	snap := Build(inputs)
	old := r.cur.Swap(snap)
	r.report(ctx, snap, time.Since(start))
	for _, f := range r.onSwap {
		f(old, snap)
	}
	return snap, nil
}

// listSafely calls src.List, turning a panic into an error so one broken
// source cannot take the server down.
func listSafely(ctx context.Context, src sources.Source) (l *sources.Listing, err error) {
	defer func() {
		if p := recover(); p != nil {
			l, err = nil, fmt.Errorf("source %s panicked: %v", src.Name(), p)
		}
	}()
	return src.List(ctx)
}

// report logs what a reload found, and each diagnostic the first time it
// is seen.
func (r *Resolver) report(ctx context.Context, s *Snapshot, took time.Duration) {
	for _, f := range s.failed {
		r.logger.Error("source failed; its skills are not served", "source", f.Source, "err", f.Err)
	}
	seen := map[string]bool{}
	for _, d := range s.Diagnostics() {
		k := d.String()
		seen[k] = true
		if r.reported[k] {
			continue
		}
		level := slog.LevelWarn
		if d.Severity == sources.Error {
			level = slog.LevelError
		}
		r.logger.Log(ctx, level, d.Message, "path", d.Path, "field", d.Field, "rule", d.Rule, "skipped", d.Severity == sources.Error)
	}
	for _, sh := range s.shadowed {
		k := "shadowed " + sh.Skill.Path + " by " + sh.By.Path
		seen[k] = true
		if !r.reported[k] {
			r.logger.Info("skill shadowed", "name", sh.Skill.Ref.String(), "path", sh.Skill.Path, "by", sh.By.Path, "alias", sh.Alias.String())
		}
	}
	r.reported = seen
	r.logger.Info("catalog built", "skills", len(s.skills), "shadowed", len(s.shadowed), "skipped", countErrors(s.problems), "sources", len(r.sources), "took", took.Round(time.Microsecond))
}

func countErrors(ds []sources.Diagnostic) int {
	n := 0
	for _, d := range ds {
		if d.Severity == sources.Error {
			n++
		}
	}
	return n
}
