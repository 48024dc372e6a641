package search

import (
	"context"
	"log/slog"
	"slices"
	"sync"

	"github.com/skillmux/skillmux/sources"
)

// Live keeps an Index in step with a catalog, in the background: Submit
// hands it the skills of a new snapshot and returns at once, and one
// goroutine, started by the first Submit and stopped by Close, brings the
// index up to the latest skills submitted (the intermediate ones are
// skipped). Wait lets a search wait, as long as its context allows, for
// the index to hold a given submission.
type Live struct {
	ix     *Index
	logger *slog.Logger
	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// mu guards the fields below.
	mu        sync.Mutex
	pending   []*sources.Skill // the latest submission not yet applied
	submitted uint64           // submissions so far
	applied   uint64           // the submission the index holds
	changed   chan struct{}    // closed, and replaced, when applied moves
	running   bool
	done      int // skills read by the update under way
	todo      int // skills to read in it
	// partial is the submission the index holds but for the skills of
	// source plugins it did not hold before, which the update under way
	// reads (over the network, maybe slowly, or until a hung plugin's
	// timeout): a search need not wait for them.
	partial uint64
}

// NewLive returns a Live over an empty Index. A nil logger discards.
func NewLive(logger *slog.Logger) *Live {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Live{ix: NewIndex(), logger: logger, ctx: ctx, cancel: cancel, changed: make(chan struct{})}
}

// Index returns the index, for searching. It may lag behind the latest
// submission: use Wait first.
func (l *Live) Index() *Index { return l.ix }

// Submit asks for the index to hold exactly skills, and returns the
// number of this submission, for Wait. The caller must not change skills
// afterwards.
func (l *Live) Submit(skills []*sources.Skill) uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.submitted++
	l.pending = skills
	if !l.running && l.ctx.Err() == nil {
		l.running = true
		l.wg.Go(l.run)
	}
	return l.submitted
}

// Submitted is the number of the latest submission, 0 before the first.
func (l *Live) Submitted() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.submitted
}

func (l *Live) run() {
	for {
		l.mu.Lock()
		if l.applied == l.submitted || l.ctx.Err() != nil {
			l.running = false
			l.mu.Unlock()
			return
		}
		// Only the first build is worth a line at info level: the
		// goroutine stops when caught up, so a flag of its own would
		// make every update after a pause (each periodic rescan) first.
		first := l.applied == 0
		skills, gen := l.pending, l.submitted
		l.pending = nil
		l.mu.Unlock()
		if quick := l.quickPart(skills); quick != nil {
			if _, err := l.ix.Update(l.ctx, quick, l.progress); err != nil {
				l.mu.Lock()
				l.running = false
				l.mu.Unlock()
				return // Close
			}
			l.mu.Lock()
			l.partial = gen
			// What the update below reads, counted now: a search the
			// wait lets through at once says what it lacks.
			l.done, l.todo = 0, len(skills)-len(quick)
			close(l.changed)
			l.changed = make(chan struct{})
			l.mu.Unlock()
		}
		st, err := l.ix.Update(l.ctx, skills, l.progress)
		if err != nil {
			l.mu.Lock()
			l.running = false
			l.mu.Unlock()
			return // Close
		}
		level := slog.LevelDebug
		if first {
			level = slog.LevelInfo
		}
		l.logger.Log(l.ctx, level, "search index updated", "skills", l.ix.Len(), "indexed", st.Indexed, "removed", st.Removed, "rebound", st.Rebound, "took", st.Took.Round(1000))
		l.mu.Lock()
		l.applied = gen
		close(l.changed)
		l.changed = make(chan struct{})
		l.mu.Unlock()
	}
}

// quickPart returns skills without the source plugins' skills the index
// does not hold yet, or nil when there are none such: those are read
// after the rest is searchable.
func (l *Live) quickPart(skills []*sources.Skill) []*sources.Skill {
	slow := func(sk *sources.Skill) bool { return sk.Scope == sources.ScopeSourcePlugin && !l.ix.Has(sk) }
	if !slices.ContainsFunc(skills, slow) {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(skills), slow)
}

func (l *Live) progress(done, todo int) {
	l.mu.Lock()
	l.done, l.todo = done, todo
	l.mu.Unlock()
}

// Wait waits until the index holds submission gen or a later one, but
// maybe for the skills of source plugins still being read (Unread says
// how many), or until ctx ends. It returns nil, or ctx's error. ready
// reports whether the index holds any submission at all, so that a
// caller whose wait ran out can search a slightly older index rather than
// none.
func (l *Live) Wait(ctx context.Context, gen uint64) (ready bool, err error) {
	for {
		l.mu.Lock()
		applied, partial, ch := l.applied, l.partial, l.changed
		l.mu.Unlock()
		if max(applied, partial) >= gen {
			return true, nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return max(applied, partial) > 0, ctx.Err()
		}
	}
}

// Unread is the number of source plugins' skills the index does not hold
// yet because the update under way is reading them (see Wait).
func (l *Live) Unread() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.partial <= l.applied {
		return 0
	}
	return l.todo - l.done
}

// Progress says how far the update under way is: skills read, of how
// many.
func (l *Live) Progress() (done, todo int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.done, l.todo
}

// Done returns a channel closed by Close.
func (l *Live) Done() <-chan struct{} { return l.ctx.Done() }

// Close stops the updates and waits for the goroutine. The index keeps
// what it holds.
func (l *Live) Close() error {
	l.mu.Lock() // so that no Submit starts the goroutine past this point
	l.cancel()
	l.mu.Unlock()
	l.wg.Wait()
	return nil
}
