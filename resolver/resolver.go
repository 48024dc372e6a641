package resolver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
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
//
// Reloads are serialized; requests never wait for one: Snapshot returns
// the snapshot in force, and a reload swaps in the next one atomically
// when it is fully built. Callbacks registered with OnSwap run after the
// swap, outside every lock of the Resolver.
type Resolver struct {
	logger *slog.Logger
	cur    atomic.Pointer[Snapshot]

	// reloading serializes reloads and changes of sources; mu guards the
	// fields below it and is never held while sources are listed or
	// callbacks run.
	reloading sync.Mutex
	mu        sync.Mutex
	sources   []sources.Source
	last      map[sources.Source]*sources.Listing // each source's last good listing
	errs      map[sources.Source]error            // the error of each source whose last List failed
	dirty     map[sources.Source]bool             // sources to list again at the next refresh
	replaced  bool                                // SetSources ran since the last build: the next one builds even with nothing to list
	retired   []sources.Source                    // dropped by SetSources, closed once a snapshot without them is served
	onSwap    []func(old, new *Snapshot)
	reported  map[string]bool   // diagnostics already logged, so a reload logs only new ones
	failing   map[string]string // by source name, the failure last logged of each failing source
	summary   string            // the counts last logged at info level
	notifying bool              // a goroutine is running the callbacks
	notified  *Snapshot         // the snapshot the callbacks last saw
	changed   chan struct{}     // signals Run that sources were marked dirty or replaced

	settled    chan struct{} // closed once Run's first watches are set up (see Settled)
	settleOnce sync.Once
}

// New returns a Resolver over srcs, in precedence order. Its Snapshot is
// empty until the first Reload.
func New(srcs []sources.Source, opts *Options) *Resolver {
	r := &Resolver{sources: srcs, reported: map[string]bool{}, failing: map[string]string{}, last: map[sources.Source]*sources.Listing{}, errs: map[sources.Source]error{}, dirty: map[sources.Source]bool{}, changed: make(chan struct{}, 1),
		settled: make(chan struct{})}
	if opts != nil {
		r.logger = opts.Logger
	}
	if r.logger == nil {
		r.logger = slog.New(slog.DiscardHandler)
	}
	empty := Build(nil)
	r.cur.Store(empty)
	r.notified = empty
	return r
}

// Snapshot returns the current snapshot. It never returns nil.
func (r *Resolver) Snapshot() *Snapshot { return r.cur.Load() }

// SetSources replaces the sources; the next Reload (or refresh, under
// Run) lists the new ones. Sources that are not in srcs any more keep
// their skills in the current snapshot until that reload swaps in one
// without them, and are closed (see sources.Close) just after: until then
// a request answered from the current snapshot may read through them.
func (r *Resolver) SetSources(srcs []sources.Source) {
	r.reloading.Lock()
	defer r.reloading.Unlock()
	r.mu.Lock()
	keep := map[sources.Source]bool{}
	for _, s := range srcs {
		keep[s] = true
	}
	var dropped []sources.Source
	for _, s := range r.sources {
		if !keep[s] {
			dropped = append(dropped, s)
			delete(r.last, s)
			delete(r.errs, s)
			delete(r.dirty, s)
		}
	}
	r.sources = srcs
	r.replaced = true
	// One dropped before and taken back is in use again.
	r.retired = append(slices.DeleteFunc(r.retired, func(s sources.Source) bool { return keep[s] }), dropped...)
	r.mu.Unlock()
	r.signal()
}

// Close closes every source, those in use and those dropped and not
// closed yet, and leaves the resolver with none; the current snapshot
// stays. It is for the end of the resolver's use: a server's, a command's.
func (r *Resolver) Close() {
	r.reloading.Lock()
	r.mu.Lock()
	all := append(r.retired, r.sources...)
	r.retired, r.sources, r.replaced = nil, nil, true
	clear(r.last)
	clear(r.errs)
	clear(r.dirty)
	r.mu.Unlock()
	r.reloading.Unlock()
	r.closeAll(all)
}

// closeAll closes srcs, which no snapshot being served lists any more.
func (r *Resolver) closeAll(srcs []sources.Source) {
	for _, s := range srcs {
		if err := sources.Close(s); err != nil {
			r.logger.Warn("closing a source that is no longer used failed", "source", s.Name(), "err", err)
		}
	}
}

// Sources returns the sources in precedence order.
func (r *Resolver) Sources() []sources.Source {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.sources
}

// MarkChanged says that the listings of srcs may have changed: the next
// refresh lists them again (Run does that soon after). Sources not in the
// resolver are ignored.
func (r *Resolver) MarkChanged(srcs ...sources.Source) {
	r.mu.Lock()
	for _, s := range srcs {
		if slices.Contains(r.sources, s) { // a dropped one would be kept for ever
			r.dirty[s] = true
		}
	}
	r.mu.Unlock()
	r.signal()
}

// signal wakes Run without blocking.
func (r *Resolver) signal() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// OnSwap registers f to be called after a Reload swaps in a new snapshot,
// with the snapshot the callbacks saw last and the current one.
//
// Callbacks run one at a time, in registration order, on the goroutine of
// a Reload, but outside the Resolver's locks: a callback may call Reload
// or Snapshot. When snapshots are swapped faster than the callbacks run,
// the intermediate ones are skipped: new is always the latest.
func (r *Resolver) OnSwap(f func(old, new *Snapshot)) {
	r.mu.Lock()
	r.onSwap = append(r.onSwap, f)
	r.mu.Unlock()
}

// Reload lists every source in parallel, builds a new snapshot and swaps it
// in. A source that fails keeps its last good listing, if it had one
// (unless its error wraps sources.ErrUnavailable), and the failure is
// logged and recorded in the snapshot; the others are served. If ctx ends first, the old snapshot stays and Reload returns
// ctx's error.
func (r *Resolver) Reload(ctx context.Context) (*Snapshot, error) {
	return r.reload(ctx, true)
}

// Refresh lists again only the sources marked changed (and those never
// listed), reuses the last listings of the others, and swaps in the new
// snapshot. It is what Run does after a change; with nothing to list it
// returns the current snapshot.
func (r *Resolver) Refresh(ctx context.Context) (*Snapshot, error) {
	return r.reload(ctx, false)
}

func (r *Resolver) reload(ctx context.Context, all bool) (*Snapshot, error) {
	snap, retired, err := r.build(ctx, all)
	if err != nil || snap == nil {
		return r.cur.Load(), err
	}
	r.closeAll(retired)
	r.notify()
	return snap, nil
}

// build lists the sources that need it and swaps the new snapshot in,
// under the reload lock. It returns nil when nothing needed listing and
// the sources are those of the current snapshot. retired are the sources
// dropped before it, which the snapshot swapped in no longer lists: the
// caller closes them, outside the lock.
func (r *Resolver) build(ctx context.Context, all bool) (snap *Snapshot, retired []sources.Source, err error) {
	r.reloading.Lock()
	defer r.reloading.Unlock()
	r.mu.Lock()
	srcs, replaced := r.sources, r.replaced
	r.replaced = false
	var todo []int
	for i, s := range srcs {
		if _, listed := r.last[s]; all || !listed || r.dirty[s] {
			todo = append(todo, i)
			delete(r.dirty, s)
		}
	}
	r.mu.Unlock()
	if len(todo) == 0 && !replaced {
		return nil, nil, nil
	}
	start := time.Now()
	fresh := make([]Input, len(srcs))
	var wg sync.WaitGroup
	for _, i := range todo {
		src := srcs[i]
		wg.Go(func() {
			t0 := time.Now()
			l, err := listSafely(ctx, src)
			fresh[i] = Input{Source: src.Name(), Listing: l, Err: err}
			if l != nil {
				r.logger.Debug("source scanned", "source", src.Name(), "skills", len(l.Skills), "problems", len(l.Problems), "took", time.Since(t0).Round(time.Microsecond))
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		if replaced {
			r.mu.Lock()
			r.replaced = true
			r.mu.Unlock()
		}
		r.MarkChanged(pick(srcs, todo)...) // not listed after all
		return nil, nil, fmt.Errorf("reload: %w", err)
	}
	inputs := make([]Input, len(srcs))
	r.mu.Lock()
	listed := map[int]bool{}
	for _, i := range todo {
		listed[i] = true
	}
	for i, s := range srcs {
		in := fresh[i]
		switch {
		case !listed[i]:
			// As the last listing left it, failure included.
			in = Input{Source: s.Name(), Listing: r.last[s], Err: r.errs[s]}
			if errors.Is(in.Err, sources.ErrUnavailable) {
				in.Listing = nil
			}
		case in.Err == nil:
			r.last[s] = in.Listing
			delete(r.errs, s)
		case errors.Is(in.Err, sources.ErrUnavailable):
			// Not served until it answers again (a source plugin down
			// past its grace period); its last listing is kept for
			// Refresh to know it was listed.
			r.errs[s] = in.Err
		default:
			in.Listing = r.last[s] // the last good listing, served with the failure
			r.errs[s] = in.Err
		}
		inputs[i] = in
	}
	r.mu.Unlock()
	snap = build(r.cur.Load(), inputs)
	r.cur.Store(snap)
	r.mu.Lock()
	retired, r.retired = r.retired, nil
	r.mu.Unlock()
	r.report(ctx, snap, len(srcs), time.Since(start))
	return snap, retired, nil
}

func pick(srcs []sources.Source, idx []int) []sources.Source {
	out := make([]sources.Source, len(idx))
	for j, i := range idx {
		out[j] = srcs[i]
	}
	return out
}

// notify runs the callbacks until they have seen the current snapshot.
// Only one goroutine runs them at a time; a Reload that swaps while they
// run leaves the next round to that goroutine and returns.
func (r *Resolver) notify() {
	r.mu.Lock()
	if r.notifying {
		r.mu.Unlock()
		return
	}
	r.notifying = true
	for {
		cur := r.cur.Load()
		if cur == r.notified {
			r.notifying = false
			r.mu.Unlock()
			return
		}
		old, fns := r.notified, r.onSwap
		r.notified = cur
		r.mu.Unlock()
		for _, f := range fns {
			f(old, cur)
		}
		r.mu.Lock()
	}
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
// is seen: problems of sources (a missing folder, a file that cannot be
// read) as warnings, problems of single skills at debug level, since
// `skillmux list --all` shows them all.
func (r *Resolver) report(ctx context.Context, s *Snapshot, nsrc int, took time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reportFailures(ctx, s)
	// Each problem is logged once, the first time a reload finds it. The
	// warnings of single skills are for `skillmux list --all`; at debug
	// level they are logged too, and only then are they worth the work.
	seen := map[string]bool{}
	log := func(level slog.Level, d sources.Diagnostic) {
		if !r.logger.Enabled(ctx, level) {
			return
		}
		k := d.String()
		seen[k] = true
		if r.reported[k] {
			return
		}
		attrs := []any{"path", d.Path}
		if d.Line > 0 {
			attrs = append(attrs, "line", d.Line)
		}
		if d.Field != "" {
			attrs = append(attrs, "field", d.Field)
		}
		attrs = append(attrs, "rule", d.Rule)
		if d.Severity == sources.Error {
			attrs = append(attrs, "skipped", true)
		}
		r.logger.Log(ctx, level, d.Message, attrs...)
	}
	for _, d := range s.problems {
		log(slog.LevelWarn, d)
	}
	if r.logger.Enabled(ctx, slog.LevelDebug) {
		for _, sk := range s.skills {
			for _, d := range sk.Diagnostics {
				log(slog.LevelDebug, d)
			}
		}
		for _, sh := range s.shadowed {
			k := "shadowed " + sh.Skill.Path + " by " + sh.By.Path
			seen[k] = true
			if !r.reported[k] {
				r.logger.Debug("skill shadowed", "name", sh.Skill.Ref.String(), "path", sh.Skill.Path, "by", sh.By.Path, "alias", sh.Alias.String())
			}
		}
	}
	r.reported = seen
	// A refresh that changes nothing worth a line (a watcher starting, a
	// periodic rescan) is logged at debug level.
	level := slog.LevelDebug
	if sum := fmt.Sprint(len(s.skills), len(s.shadowed), countErrors(s.problems), nsrc); sum != r.summary {
		level, r.summary = slog.LevelInfo, sum
	}
	r.logger.Log(ctx, level, "catalog built", "skills", len(s.skills), "shadowed", len(s.shadowed), "skipped", countErrors(s.problems), "sources", nsrc, "took", took.Round(time.Microsecond))
}

// reportFailures logs a source's failure when it starts and when it
// changes, and its recovery once; the same failure found again by a
// later reload (every periodic rescan lists a failing source again) is
// logged at debug level only. r.mu is held.
//
// A failure that wraps sources.ErrUnavailable is a warning: such a source
// reports its own trouble (a source plugin logs that it is down, and logs
// at error level when it gives up), and the line here only says what the
// catalog does about it.
func (r *Resolver) reportFailures(ctx context.Context, s *Snapshot) {
	failing := make(map[string]string, len(s.failed))
	for _, f := range s.failed {
		msg := "source failed; its skills are not served"
		if f.Stale {
			msg = "source failed; serving its last good listing"
		}
		failing[f.Source] = msg + ": " + f.Err.Error()
		level := slog.LevelError
		_, was := r.failing[f.Source]
		switch {
		case r.failing[f.Source] == failing[f.Source]:
			level = slog.LevelDebug
		case errors.Is(f.Err, sources.ErrUnavailable) && was:
			// Still unavailable, in other words (a plugin that hangs
			// is timed out, then restarted, then still starting): the
			// source says so itself.
			level = slog.LevelDebug
		case errors.Is(f.Err, sources.ErrUnavailable):
			level = slog.LevelWarn
		}
		r.logger.Log(ctx, level, msg, "source", f.Source, "err", f.Err)
	}
	for _, in := range s.inputs {
		if _, was := r.failing[in.Source]; was && in.Err == nil {
			r.logger.Info("source recovered; its skills are served", "source", in.Source)
		}
	}
	r.failing = failing
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
