package plugins

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pluginpb "github.com/skillmux/skillmux/plugins/proto"
	"github.com/skillmux/skillmux/sources"
)

// Defaults of Options.
const (
	// DefaultTimeout bounds a plugin's start, up to its handshake, and
	// every call to it.
	DefaultTimeout = 10 * time.Second
	// DefaultGrace is how long the skills of a plugin that is down stay
	// in the catalog: long enough for a restart, so that one crash does
	// not make the catalog change twice.
	DefaultGrace = 10 * time.Second
)

// Backoff says how a crashed plugin is restarted: after Min, then twice
// as long each time up to Max; a plugin that stays up for Window starts
// over from Min. After MaxCrashes crashes (or failed starts) within
// Window it is given up: not restarted until skillmux restarts or its
// configuration changes.
type Backoff struct {
	Min, Max   time.Duration
	MaxCrashes int
	Window     time.Duration
}

// DefaultBackoff is the Backoff of a nil Options: 250 ms doubling up to
// 30 s, given up after 5 crashes within a minute.
var DefaultBackoff = Backoff{Min: 250 * time.Millisecond, Max: 30 * time.Second, MaxCrashes: 5, Window: time.Minute}

// Options configures a Source. A nil *Options means the defaults.
type Options struct {
	// Env is the plugin's environment, whole: skillmux's own is not
	// passed on (go-plugin's handshake variables are added).
	Env map[string]string
	// Namespace qualifies the plugin's skills; default the source's name.
	// PlainNames serves them under their plain names instead.
	Namespace  string
	PlainNames bool
	// Timeout bounds every call to the plugin; default DefaultTimeout.
	Timeout time.Duration
	// StartTimeout bounds a start, until the plugin's handshake line;
	// default Timeout. A user who sets a source's timeout expects
	// skillmux to wait for the plugin no longer than that, at any step,
	// and a program that has printed nothing within it is more likely
	// stuck than slow.
	StartTimeout time.Duration
	// FirstWait, when set, bounds how long the first List waits for the
	// plugin to start and answer: past it, the plugin is served as
	// unavailable (no skills, a warning) and its skills come with the
	// change Watch reports once it answers, so that a plugin slow to
	// start holds up no client waiting for a server's first answer. 0
	// waits the start and call timeouts, as a command that lists once
	// must.
	FirstWait time.Duration
	// Grace is how long the last listing of a plugin that is down or not
	// answering is still served; default DefaultGrace. A negative Grace
	// serves none: the skills leave the catalog at once.
	Grace time.Duration
	// Backoff governs restarts; its zero fields take DefaultBackoff's.
	Backoff Backoff
	// CacheDir holds the local copies of the plugin's skills (see
	// Skill.Dir); default <user cache folder>/skillmux/plugin-skills.
	// NoCache makes none: files are read through the plugin, and a
	// skill's Dir is its address.
	CacheDir   string
	NoCache    bool
	CacheBytes int64 // default DefaultCacheBytes
	// HostVersion is skillmux's version, told to the plugin.
	HostVersion string
	// Logger receives the plugin's life and its stderr; default discards.
	Logger *slog.Logger
}

// Source is a source plugin as a sources.Source: it starts the plugin's
// process at the first List or Watch, supervises it, and stops it on
// Close. It is safe for concurrent use.
type Source struct {
	name    string
	command []string
	o       Options
	logger  *slog.Logger
	remote  *remote

	// life ends at Close. It is kept, against the habit of passing
	// contexts, because the process outlives every call, and reads
	// through a skill's fs.FS have no context of their own.
	life    context.Context
	end     context.CancelFunc
	start   sync.Once
	wg      sync.WaitGroup // the supervisor
	restart chan *instance // asks the supervisor to restart a plugin that stopped answering

	// mu guards the fields below; it is never held during a call to the
	// plugin or a callback.
	mu           sync.Mutex
	phase        phase
	inst         *instance     // the plugin, when up
	launching    *procRunner   // the process being started
	err          error         // why it is not up
	changed      chan struct{} // closed and replaced at each change of phase
	troubleSince time.Time     // since when it is down or failing; zero while well
	last         *sources.Listing
	listing      *listCall // the List call under way, or ended and not taken
	waited       bool      // a List waited for a call to the end, or FirstWait ran out: later ones wait only slowList
	missed       bool      // FirstWait ran out: the first Watch says a change at once
	listeners    map[int]func()
	nextID       int
	graceTimer   *time.Timer
	timeouts     int // List calls timed out in a row
	readTimeouts int // reads of files timed out in a row (see readDone)
	restarts     int
	pid          int
	flooded      time.Time // the last time the plugin flooded events

	events atomic.Int64 // watch events read, flood or not: what a flood costs
}

type phase int

const (
	phaseIdle phase = iota
	phaseStarting
	phaseUp
	phaseDown
	phaseFailed
	phaseClosed
)

func (p phase) String() string {
	return [...]string{"idle", "starting", "up", "down", "failed", "closed"}[p]
}

var (
	_ sources.Watcher            = (*Source)(nil)
	_ interface{ Close() error } = (*Source)(nil)
)

// New returns the source plugin named name (the source's name, and by
// default its skills' namespace) that runs command. Nothing starts before
// the first List or Watch.
func New(name string, command []string, opts *Options) (*Source, error) {
	if len(command) == 0 || command[0] == "" {
		return nil, errors.New("a source plugin needs a command")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.StartTimeout <= 0 {
		o.StartTimeout = o.Timeout
	}
	switch {
	case o.Grace == 0:
		o.Grace = DefaultGrace
	case o.Grace < 0:
		o.Grace = 0
	}
	b, d := &o.Backoff, DefaultBackoff
	if b.Min <= 0 {
		b.Min = d.Min
	}
	if b.Max <= 0 {
		b.Max = max(d.Max, b.Min)
	}
	if b.MaxCrashes <= 0 {
		b.MaxCrashes = d.MaxCrashes
	}
	if b.Window <= 0 {
		b.Window = d.Window
	}
	if o.CacheBytes <= 0 {
		o.CacheBytes = DefaultCacheBytes
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if !o.PlainNames && o.Namespace == "" {
		o.Namespace = name
	}
	if o.PlainNames {
		o.Namespace = ""
	}
	s := &Source{
		name:      name,
		command:   slices.Clone(command),
		o:         o,
		logger:    o.Logger.With("plugin", name),
		restart:   make(chan *instance, 1),
		changed:   make(chan struct{}),
		listeners: map[int]func(){},
	}
	s.life, s.end = context.WithCancel(context.Background())
	s.remote = &remote{
		name:       name,
		namespace:  o.Namespace,
		client:     s.client,
		fileCtx:    func() (context.Context, context.CancelFunc) { return context.WithTimeout(s.life, s.o.Timeout) },
		copyWithin: s.o.Timeout,
		reading:    make(chan struct{}, maxReading),
		copyFailed: func(id string, err error) {
			s.logger.Warn("no local copy of a plugin skill; its files are read through the plugin", "skill", id, "err", err)
		},
		readDone: s.readDone,
	}
	if !o.NoCache {
		dir := o.CacheDir
		if dir == "" {
			// Only an absolute one: a relative one (HOME=rel) would be
			// the working folder's, a repository's, to write copies in
			// and read them back from.
			if base, err := os.UserCacheDir(); err == nil && filepath.IsAbs(base) {
				dir = filepath.Join(base, "skillmux", "plugin-skills")
			}
		}
		if dir != "" {
			s.remote.cache = newCopyCache(dir, o.CacheBytes)
		}
	}
	return s, nil
}

// Name implements sources.Source.
func (s *Source) Name() string { return s.name }

// List implements sources.Source. At the plugin's first start it waits
// for it (at most the start timeout, and the call timeout of Describe),
// then asks it, within the call timeout. A restart under way is not waited
// for: until the plugin is up again it is down, and Watch says when it is
// up, so that a plugin that cannot start holds up no refresh of the
// catalog. When the plugin is down or does not answer, the last listing is
// served for the grace period, with a warning; after it, List fails with
// an error that wraps sources.ErrUnavailable, and the catalog drops the
// skills.
func (s *Source) List(ctx context.Context) (*sources.Listing, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list source plugin %s: %w", s.name, err)
	}
	s.ensureStarted()
	s.mu.Lock()
	patient := !s.waited // the first List waits for the first start
	var firstWait <-chan time.Time
	if patient && s.last == nil && s.o.FirstWait > 0 {
		t := time.NewTimer(s.o.FirstWait)
		defer t.Stop()
		firstWait = t.C
	}
	s.mu.Unlock()
	inst, err := s.await(ctx, patient, firstWait)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("list source plugin %s: %w", s.name, ctx.Err())
	}
	if errors.Is(err, errFirstWait) {
		s.mu.Lock()
		s.waited, s.missed = true, true
		s.mu.Unlock()
		return s.unavailable(errors.New("the plugin has not started yet; its skills are served once it answers"))
	}
	if inst != nil {
		call := s.listCall(inst)
		// A plugin that has listed once is waited for only a moment: its
		// last listing stands in while the call goes on, so that a slow
		// or hung plugin holds up no refresh of the other sources, and
		// the call's end makes the catalog list it again.
		// So is one whose first listing was waited for already, in vain:
		// it is served as unavailable meanwhile.
		var slow <-chan time.Time
		s.mu.Lock()
		if s.last != nil || s.waited {
			t := time.NewTimer(slowList)
			defer t.Stop()
			slow = t.C
		}
		s.mu.Unlock()
		if firstWait != nil {
			slow = firstWait
		}
		select {
		case <-call.done:
		case <-slow:
			s.mu.Lock()
			if firstWait != nil {
				s.waited, s.missed = true, true
			}
			if !call.finished {
				call.notify = true
				last, trouble := s.last, !s.troubleSince.IsZero()
				s.mu.Unlock()
				if last == nil || trouble {
					// Not well: its last listing only for the grace
					// period, with a warning, as when it is down.
					return s.unavailable(errors.New("the plugin has not answered List yet"))
				}
				s.logger.Debug("source plugin slow to list; its last listing is served meanwhile", "waited", slowList)
				return last, nil
			}
			s.mu.Unlock()
		case <-ctx.Done():
			return nil, fmt.Errorf("list source plugin %s: %w", s.name, ctx.Err())
		}
		s.mu.Lock()
		s.waited = true
		if s.listing == call {
			s.listing = nil
		}
		first := !call.taken
		call.taken = true
		s.mu.Unlock()
		switch {
		case call.err == nil:
			return s.listed(call.l), nil
		case s.life.Err() != nil:
			return nil, fmt.Errorf("list source plugin %s: the source is closed", s.name)
		}
		err = call.err
		if first {
			err = s.callFailed(call.inst, "List", call.err, call.timedOut)
		}
	} else if patient {
		// The first start failed (a command that cannot run, a handshake
		// refused): it was waited for, and what waits for the catalog's
		// start need not wait for a restart. A watch that began before
		// is told, as of a change: its first round is over.
		s.mu.Lock()
		s.waited = true
		s.mu.Unlock()
		s.notify()
	}
	return s.unavailable(err)
}

// slowList is how long List waits for a plugin that has listed before;
// after it, the last listing is served while the call goes on.
const slowList = 250 * time.Millisecond

// listCall is a List call to the plugin. One runs at a time; a List that
// stopped waiting for it leaves it to finish on its own, for the next
// List to take its result.
type listCall struct {
	inst     *instance
	done     chan struct{} // closed when the call ended
	l        *sources.Listing
	err      error
	timedOut bool
	// Guarded by Source.mu:
	finished bool // done is closed
	notify   bool // a List stopped waiting: the end is to be told
	taken    bool // a List took the result
}

// listCall returns the List call under way, or one whose result no List
// took yet, or starts one to inst.
func (s *Source) listCall(inst *instance) *listCall {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.listing; c != nil && c.inst == inst {
		return c
	}
	// None, or one to a plugin since restarted, whose result is of no
	// use: it ends on its own.
	c := &listCall{inst: inst, done: make(chan struct{})}
	s.listing = c
	go func() {
		cctx, cancel := context.WithTimeout(s.life, s.o.Timeout)
		l, err := s.remote.list(cctx, inst.rpc)
		// gRPC's own timer may end the call a moment before the
		// context's fires, so its status code counts as well.
		timedOut := s.life.Err() == nil && (errors.Is(cctx.Err(), context.DeadlineExceeded) || isDeadline(err))
		cancel()
		s.mu.Lock()
		c.l, c.err, c.timedOut, c.finished = l, err, timedOut, true
		close(c.done)
		notify := c.notify && s.phase != phaseClosed
		s.mu.Unlock()
		if notify {
			s.notify()
		}
	}()
	return c
}

// errFirstWait is await's error when Options.FirstWait ran out.
var errFirstWait = errors.New("the plugin is still starting")

// await waits until the plugin is up, or known not to be. Only a patient
// await (the first List's) waits for a start under way, and at most until
// giveUp (FirstWait) if set: later ones find it down meanwhile, and Watch
// says when it is up.
func (s *Source) await(ctx context.Context, patient bool, giveUp <-chan time.Time) (*instance, error) {
	limit := time.NewTimer(s.o.StartTimeout + s.o.Timeout)
	defer limit.Stop()
	for {
		s.mu.Lock()
		ph, inst, err, ch, restarts := s.phase, s.inst, s.err, s.changed, s.restarts
		s.mu.Unlock()
		switch {
		case ph == phaseUp:
			return inst, nil
		case ph == phaseDown, ph == phaseFailed, ph == phaseClosed:
			return nil, err
		case ph == phaseStarting && restarts > 0 && err != nil:
			return nil, fmt.Errorf("the plugin is being restarted after: %w", err)
		case !patient:
			return nil, errors.New("the plugin is still starting")
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-limit.C:
			return nil, errors.New("the plugin is still starting")
		case <-giveUp:
			return nil, errFirstWait
		}
	}
}

// listed records a good listing and returns what List serves.
func (s *Source) listed(l *sources.Listing) *sources.Listing {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last, s.troubleSince, s.timeouts = l, time.Time{}, 0
	if s.graceTimer != nil {
		s.graceTimer.Stop()
		s.graceTimer = nil
	}
	if time.Since(s.flooded) < time.Minute {
		out := *l
		out.Problems = append(slices.Clip(l.Problems), sources.Diagnostic{Severity: sources.Warning, Path: s.remote.address(""), Rule: "plugin-event-flood",
			Message: fmt.Sprintf("the plugin sends more than %d change events a second; skillmux closes its watch for the rest of each such second, and refreshes once a second", floodPerSecond)})
		return &out
	}
	return l
}

// callFailed records a failed call and says why it failed.
func (s *Source) callFailed(inst *instance, call string, err error, timedOut bool) error {
	if timedOut {
		err = fmt.Errorf("the plugin did not answer %s within %s", call, s.o.Timeout)
	} else if why := exitedDuring(s.life, inst, call, err); why != nil {
		err = why
	} else if st, ok := status.FromError(err); ok && st.Message() != "" {
		// The plugin's own error (plugins.Serve sends a source's as
		// Unavailable), in its words, without gRPC's; another code, a
		// call the plugin does not serve say, is named.
		switch st.Code() {
		case codes.Unavailable, codes.Unknown:
			err = fmt.Errorf("the plugin's %s failed: %s", call, clean(st.Message(), false))
		default:
			err = fmt.Errorf("the plugin's %s failed (%s): %s", call, st.Code(), clean(st.Message(), false))
		}
	}
	s.mu.Lock()
	if s.troubleSince.IsZero() {
		s.troubleSince = time.Now()
	}
	restart := false
	if timedOut {
		s.timeouts++
		restart = s.timeouts == maxTimeouts
	}
	s.mu.Unlock()
	s.logger.Warn("source plugin call failed", "call", call, "err", err)
	if restart {
		s.logger.Warn("source plugin stopped answering; restarting it", "timeouts_in_a_row", maxTimeouts)
		select {
		case s.restart <- inst:
		default:
		}
	}
	return err
}

// exitedDuring tells a call that failed because the plugin ended under it,
// with its exit status and its last line on stderr: the connection's own
// error ("error reading from server: EOF") says nothing a user can act
// on. It returns nil for any other failure. The call fails as
// Unavailable, or as Canceled ("the client connection is closing") when
// the plugin's end closed the connection first: a call the caller did
// not cancel.
func exitedDuring(ctx context.Context, inst *instance, call string, err error) error {
	if inst == nil || inst.runner == nil || inst.runner.pid == 0 {
		return nil
	}
	if code := status.Code(err); code != codes.Unavailable && (code != codes.Canceled || ctx.Err() != nil) {
		return nil
	}
	r := inst.runner
	t := time.NewTimer(exitWait)
	defer t.Stop()
	select {
	case <-r.exited:
	case <-t.C:
		return nil
	case <-ctx.Done():
		return nil
	}
	if last := r.stderr.lastLine(); last != "" {
		return fmt.Errorf("the plugin exited during %s (%s); the last line it wrote on stderr: %s", call, exitReason(r.err), last)
	}
	return fmt.Errorf("the plugin exited during %s (%s)", call, exitReason(r.err))
}

// readDone counts the reads of files through the client c that time out
// in a row, apart from List's: a plugin that lists but hangs in every
// read is restarted after maxTimeouts of them, as one that hangs in List
// is, and a read answered ends the run. Reads say nothing of List: they
// neither end a run of List's timeouts nor start the plugin's trouble
// (which List's grace period counts from). A read through an instance
// already replaced counts for nothing.
func (s *Source) readDone(c pluginpb.SkillSourceClient, err error) {
	timedOut := errors.Is(err, errNoAnswer)
	s.mu.Lock()
	inst := s.inst
	if inst == nil || inst.rpc != c {
		s.mu.Unlock()
		return
	}
	restart := false
	switch {
	case timedOut:
		s.readTimeouts++
		restart = s.readTimeouts == maxTimeouts
	case err == nil:
		s.readTimeouts = 0
	}
	s.mu.Unlock()
	if !timedOut {
		return
	}
	s.logger.Warn("source plugin call failed", "call", "ReadFile", "err", fmt.Errorf("the plugin did not answer ReadFile within %s", s.o.Timeout))
	if restart {
		s.logger.Warn("source plugin stopped answering; restarting it", "timeouts_in_a_row", maxTimeouts)
		select {
		case s.restart <- inst:
		default:
		}
	}
}

// maxTimeouts is how many calls in a row may time out before the plugin
// is taken for hung and restarted.
const maxTimeouts = 3

// unavailable is List's answer when the plugin cannot answer: the last
// listing during the grace period, an error wrapping
// sources.ErrUnavailable after it.
func (s *Source) unavailable(why error) (*sources.Listing, error) {
	if why == nil {
		why = errors.New("the plugin is not running")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.troubleSince.IsZero() {
		s.troubleSince = now
	}
	until := s.troubleSince.Add(s.o.Grace)
	if s.last != nil && now.Before(until) {
		s.scheduleGraceEnd(until)
		l := *s.last
		l.Problems = append(slices.Clip(s.last.Problems), sources.Diagnostic{Severity: sources.Warning, Path: s.remote.address(""), Rule: "plugin-down",
			Message: fmt.Sprintf("the plugin cannot answer (%v); its last listing is served for %s more", why, until.Sub(now).Round(time.Second))})
		return &l, nil
	}
	return nil, fmt.Errorf("source plugin %s: %w: %w", s.name, sources.ErrUnavailable, why)
}

// scheduleGraceEnd makes the catalog list the plugin again when its grace
// period ends, so that its skills leave then. s.mu is held.
func (s *Source) scheduleGraceEnd(until time.Time) {
	if s.graceTimer != nil || s.phase == phaseClosed {
		return
	}
	s.graceTimer = time.AfterFunc(time.Until(until)+10*time.Millisecond, func() {
		s.mu.Lock()
		s.graceTimer = nil
		s.mu.Unlock()
		s.notify()
	})
}

// Watch implements sources.Watcher. It runs until ctx is done, and
// calls changed when the plugin says its listing changed (at most every
// minRefreshGap, however many events it sends) and when the plugin goes
// down, comes back, or its grace period ends. A plugin without the watch
// capability is followed through its life only.
func (s *Source) Watch(ctx context.Context, changed func()) error {
	if ctx.Err() != nil {
		return nil
	}
	s.ensureStarted()
	s.mu.Lock()
	id := s.nextID
	s.nextID++
	s.listeners[id] = changed
	missed, listed := s.missed, s.waited
	s.missed = false
	s.mu.Unlock()
	if missed {
		// The first List gave up on the plugin before anyone watched:
		// whatever it did since (it came up, it answered) is told now.
		changed()
	} else if listed {
		// Its first listing is in the catalog (or it failed, and a
		// restart is not waited for): the first round is over, whether a
		// change ever comes or not.
		sources.DeferSettle(ctx)()
	}
	defer func() {
		s.mu.Lock()
		delete(s.listeners, id)
		s.mu.Unlock()
	}()
	var watched *instance
	for {
		s.mu.Lock()
		ph, inst, ch := s.phase, s.inst, s.changed
		s.mu.Unlock()
		if ph == phaseClosed {
			return nil
		}
		if ph == phaseUp && inst != watched {
			watched = inst
			if inst.desc.GetCapabilities().GetWatch() {
				s.watchStream(ctx, inst, changed)
				continue
			}
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return nil
		}
	}
}

// Limits on watch events.
const (
	// minRefreshGap is the least time between two refreshes a plugin's
	// events cause.
	minRefreshGap = 100 * time.Millisecond
	// floodPerSecond is how many events a second make a flood, which is
	// logged and reported, and which ends the stream until the second is
	// over (see watchStream).
	floodPerSecond = 50
)

// watchStream follows the plugin's watch stream until it ends or ctx is
// done.
//
// A plugin that sends more than floodPerSecond events in a second has its
// stream closed until the second is over, then opened again, with one
// refresh for whatever changed meanwhile. Reading a flood would keep a
// core busy in each process, and merely pausing the reads would not do:
// the stream's flow control lets the plugin queue thousands of events,
// which would be read, and refresh the catalog, for many seconds after
// the plugin has gone quiet. Closing the stream drops them.
func (s *Source) watchStream(ctx context.Context, inst *instance, changed func()) {
	ctx, cancel := context.WithCancel(ctx)
	kick := make(chan struct{}, 1)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	wg.Go(func() {
		var last time.Time
		for {
			select {
			case <-ctx.Done():
				return
			case <-kick:
			}
			gap := minRefreshGap
			s.mu.Lock()
			if time.Since(s.flooded) < 2*time.Second {
				gap = time.Second // one refresh a second while it floods
			}
			s.mu.Unlock()
			if wait := gap - time.Since(last); wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-t.C:
				case <-ctx.Done():
					t.Stop()
					return
				}
			}
			last = time.Now()
			changed()
		}
	})
	for {
		resume, flooded := s.followStream(ctx, inst, kick)
		if !flooded {
			return
		}
		t := time.NewTimer(time.Until(resume))
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return
		}
		select {
		case kick <- struct{}{}:
		default:
		}
	}
}

// followStream opens the plugin's watch stream and reads it, asking for a
// refresh at each event through kick, until the stream ends, ctx is done,
// or the plugin floods it: it then closes the stream and says when to open
// it again.
func (s *Source) followStream(ctx context.Context, inst *instance, kick chan<- struct{}) (resume time.Time, flooded bool) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := inst.rpc.Watch(ctx, &pluginpb.WatchRequest{}, grpc.MaxCallRecvMsgSize(64<<10))
	if err != nil {
		s.logger.Warn("source plugin watch failed; periodic rescans keep it current", "err", err)
		return time.Time{}, false
	}
	window, count := time.Now(), 0
	for {
		ev, err := stream.Recv()
		if err != nil {
			if ctx.Err() == nil && !isGone(err) {
				s.logger.Warn("source plugin watch ended; periodic rescans keep it current", "err", err)
			}
			return time.Time{}, false
		}
		if time.Since(window) >= time.Second {
			window, count = time.Now(), 0
		}
		count++
		s.events.Add(1)
		if len(ev.SkillIds) > 0 && s.logger.Enabled(ctx, slog.LevelDebug) {
			ids := ev.SkillIds[:min(len(ev.SkillIds), 5)]
			for i, id := range ids {
				ids[i] = clean(id, false)
			}
			s.logger.Debug("source plugin says skills changed", "skills", ids, "count", len(ev.SkillIds))
		}
		select {
		case kick <- struct{}{}:
		default:
		}
		if count > floodPerSecond {
			s.mu.Lock()
			first := time.Since(s.flooded) >= time.Minute
			s.flooded = time.Now()
			s.mu.Unlock()
			if first {
				s.logger.Warn("source plugin floods change events; its watch is closed for the rest of each second it floods", "events_per_second_over", floodPerSecond)
			}
			return window.Add(time.Second), true
		}
	}
}

// Close implements io.Closer: it stops the plugin (asking it to exit,
// then killing its process group) and waits until it is gone.
func (s *Source) Close() error {
	s.mu.Lock()
	if s.phase == phaseClosed {
		s.mu.Unlock()
		return nil
	}
	s.setPhaseLocked(phaseClosed, nil, errors.New("the source is closed"))
	launching := s.launching
	if s.graceTimer != nil {
		s.graceTimer.Stop()
		s.graceTimer = nil
	}
	s.mu.Unlock()
	s.end()
	if launching != nil {
		launching.Kill(context.Background())
	}
	s.start.Do(func() {}) // never starts after Close
	s.wg.Wait()
	return nil
}

// Status is what a Source knows of its plugin now.
type Status struct {
	// State is "idle" (not started yet), "starting", "up", "down"
	// (crashed, to be restarted), "failed" (given up) or "closed".
	State string
	// PID is the process id of the plugin, when it runs.
	PID int
	// Restarts counts the restarts so far.
	Restarts int
	// Err says why the plugin is not up.
	Err error
}

// Status reports the plugin's state.
func (s *Source) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{State: s.phase.String(), Restarts: s.restarts, Err: s.err}
	if s.phase == phaseUp {
		st.PID = s.pid
	}
	return st
}

func (s *Source) ensureStarted() {
	s.start.Do(func() { s.wg.Go(s.supervise) })
}

// client returns the plugin's client, or why there is none.
func (s *Source) client() (pluginpb.SkillSourceClient, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.phase != phaseUp {
		if s.err != nil {
			return nil, s.err
		}
		return nil, fmt.Errorf("source plugin %s is %s", s.name, s.phase)
	}
	return s.inst.rpc, nil
}

// setPhaseLocked moves to a phase and wakes whoever waits for one.
// s.mu is held.
func (s *Source) setPhaseLocked(ph phase, inst *instance, err error) {
	s.phase, s.inst, s.err = ph, inst, err
	close(s.changed)
	s.changed = make(chan struct{})
}

// setPhase moves to a phase, unless the source is closed, and tells the
// watchers.
func (s *Source) setPhase(ph phase, inst *instance, err error) bool {
	s.mu.Lock()
	if s.phase == phaseClosed {
		s.mu.Unlock()
		return false
	}
	s.setPhaseLocked(ph, inst, err)
	switch ph {
	case phaseUp:
		s.pid = inst.runner.pid
		s.timeouts, s.readTimeouts = 0, 0 // a new process: its own calls count
	case phaseDown, phaseFailed:
		if s.troubleSince.IsZero() {
			s.troubleSince = time.Now()
		}
		if s.last != nil && s.o.Grace > 0 {
			s.scheduleGraceEnd(s.troubleSince.Add(s.o.Grace))
		}
	}
	s.mu.Unlock()
	if ph != phaseStarting {
		s.notify()
	}
	return true
}

// notify calls the watchers' callbacks, outside the lock.
func (s *Source) notify() {
	s.mu.Lock()
	fns := make([]func(), 0, len(s.listeners))
	for _, f := range s.listeners {
		fns = append(fns, f)
	}
	s.mu.Unlock()
	for _, f := range fns {
		f()
	}
}

// errStoppedAnswering is why a plugin taken for hung was restarted.
var errStoppedAnswering = errors.New("the plugin stopped answering")

// hangWindow is the span within which Backoff.MaxCrashes restarts of a
// plugin that stopped answering give it up: each takes three call
// timeouts, so the crashes' window would never see that many.
const hangWindow = 10 * time.Minute

// supervise starts the plugin and restarts it when it crashes, with
// backoff, until Close or until it is given up.
func (s *Source) supervise() {
	b := s.o.Backoff
	delay := b.Min
	var crashes, hangs []time.Time
	// The failure last logged at warning level: a restart that fails the
	// same way again (a command that does not exist) is logged at debug.
	var warned string
	var err error // why the last start, or the last run, ended; nil at the first start
	for s.life.Err() == nil {
		if !s.setPhase(phaseStarting, nil, err) {
			return
		}
		var inst *instance
		inst, err = s.launch()
		if err == nil {
			if !s.setPhase(phaseUp, inst, nil) {
				inst.stop()
				return
			}
			s.logger.Info("source plugin started", "pid", inst.runner.pid, "protocol", inst.desc.ProtocolVersion,
				"watch", inst.desc.GetCapabilities().GetWatch(), "version", clean(inst.desc.Version, false))
			warned = ""
			upAt := time.Now()
			err = s.runUntilExit(inst)
			if err == nil {
				return // closed
			}
			if time.Since(upAt) >= b.Window {
				delay, crashes = b.Min, nil
			}
		}
		if s.life.Err() != nil {
			return
		}
		var perm *permanentError
		if errors.As(err, &perm) {
			s.logger.Error("source plugin cannot be used; it is not restarted", "err", err)
			s.setPhase(phaseFailed, nil, err)
			return
		}
		now := time.Now()
		if errors.Is(err, errStoppedAnswering) {
			hangs = slices.DeleteFunc(hangs, func(t time.Time) bool { return now.Sub(t) > hangWindow })
			if hangs = append(hangs, now); len(hangs) >= b.MaxCrashes {
				err = fmt.Errorf("%w (it stopped answering %d times within %s, and is not restarted until skillmux restarts or its configuration changes)", err, len(hangs), hangWindow)
				s.logger.Error("source plugin given up: it keeps hanging", "hangs", len(hangs), "window", hangWindow, "err", err)
				s.setPhase(phaseFailed, nil, err)
				return
			}
		}
		crashes = slices.DeleteFunc(crashes, func(t time.Time) bool { return now.Sub(t) > b.Window })
		crashes = append(crashes, now)
		if len(crashes) >= b.MaxCrashes {
			err = fmt.Errorf("%w (it failed %d times within %s, and is not restarted until skillmux restarts or its configuration changes)", err, len(crashes), b.Window)
			s.logger.Error("source plugin given up after repeated crashes", "crashes", len(crashes), "window", b.Window, "err", err)
			s.setPhase(phaseFailed, nil, err)
			return
		}
		level := slog.LevelWarn
		if err.Error() == warned {
			level = slog.LevelDebug
		}
		warned = err.Error()
		s.logger.Log(s.life, level, "source plugin is down; restarting it", "in", delay, "err", err)
		s.setPhase(phaseDown, nil, err)
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-s.life.Done():
			t.Stop()
			return
		}
		delay = min(delay*2, b.Max)
		s.mu.Lock()
		s.restarts++
		s.mu.Unlock()
	}
}

// runUntilExit waits for the plugin to exit, to be taken for hung, or
// for Close (then it stops it and returns nil).
func (s *Source) runUntilExit(inst *instance) error {
	for {
		select {
		case <-inst.runner.exited:
			inst.stop()
			if last := inst.runner.stderr.lastLine(); last != "" {
				return fmt.Errorf("the plugin exited (%s); the last line it wrote on stderr: %s", exitReason(inst.runner.err), last)
			}
			return fmt.Errorf("the plugin exited: %v", exitReason(inst.runner.err))
		case hung := <-s.restart:
			if hung != inst {
				continue
			}
			inst.stop()
			return fmt.Errorf("%w (%d calls in a row timed out)", errStoppedAnswering, maxTimeouts)
		case <-s.life.Done():
			inst.stop()
			return nil
		}
	}
}

func exitReason(err error) string {
	if err == nil {
		return "exit status 0"
	}
	return err.Error()
}

// permanentError is a failure that a restart cannot mend: a plugin that
// speaks another version of the protocol.
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// instance is one running plugin process and its connection.
type instance struct {
	client *plugin.Client
	runner *procRunner
	rpc    pluginpb.SkillSourceClient
	desc   *pluginpb.DescribeResponse
}

// stop asks the plugin to exit (a signal, and go-plugin's shutdown call)
// and, when it does not within a few seconds (go-plugin's own wait has no
// deadline for a plugin that does not answer), kills its process group;
// it returns once it is gone.
func (i *instance) stop() {
	// A plugin that serves no go-plugin shutdown call (one not built on
	// go-plugin's Serve) would be waited for 2 s before go-plugin kills
	// it: the signal ends it at once.
	i.runner.terminate()
	done := make(chan struct{})
	go func() { // owned here: stop waits for it
		i.client.Kill()
		close(done)
	}()
	t := time.NewTimer(3 * time.Second)
	defer t.Stop()
	select {
	case <-done:
	case <-t.C:
		i.runner.Kill(context.Background())
		<-done
	}
	<-i.runner.exited
}

// launch starts the plugin, checks its handshake and asks it to describe
// itself.
func (s *Source) launch() (*instance, error) {
	if err := lookPath(s.command[0]); err != nil {
		// Not a crash: starting again would find the same. The source's
		// command is checked again when the configuration changes.
		return nil, &permanentError{fmt.Errorf("start %s: %w", s.command[0], err)}
	}
	stdout := newLineLog(s.logger, "stdout", slog.LevelInfo)
	stderr := newLineLog(s.logger, "stderr", slog.LevelInfo)
	var r *procRunner
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  handshake(),
		VersionedPlugins: pluginSets(nil),
		RunnerFunc: func(_ hclog.Logger, cmd *exec.Cmd, _ string) (runner.Runner, error) {
			r = newRunner(s.command, s.o.Env, cmd, stdout, stderr)
			s.mu.Lock()
			s.launching = r
			closed := s.phase == phaseClosed
			s.mu.Unlock()
			if closed {
				return nil, errors.New("the source is closed")
			}
			return r, nil
		},
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		StartTimeout:     s.o.StartTimeout,
		SkipHostEnv:      true,
		SyncStdout:       stdout,
		SyncStderr:       stderr,
		Logger:           goPluginLogger(s.logger),
	})
	defer func() {
		s.mu.Lock()
		s.launching = nil
		s.mu.Unlock()
	}()
	fail := func(err error) (*instance, error) {
		client.Kill()
		if r != nil && r.pid != 0 {
			<-r.exited
		}
		return nil, err
	}
	started := time.Now()
	rpcClient, err := client.Client()
	if err != nil {
		return fail(s.startError(err, r, time.Since(started)))
	}
	if s.life.Err() != nil {
		return fail(errors.New("the source is closed"))
	}
	raw, err := rpcClient.Dispense(pluginName)
	if err != nil {
		return fail(err)
	}
	inst := &instance{client: client, runner: r, rpc: raw.(pluginpb.SkillSourceClient)}
	ctx, cancel := context.WithTimeout(s.life, s.o.Timeout)
	versions := make([]uint32, len(protocolVersions))
	for i, v := range protocolVersions {
		versions[i] = uint32(v)
	}
	inst.desc, err = inst.rpc.Describe(ctx, &pluginpb.DescribeRequest{ProtocolVersions: versions, HostVersion: s.o.HostVersion})
	cancel()
	if err != nil {
		if status.Code(err) == codes.DeadlineExceeded {
			return fail(fmt.Errorf("the plugin did not answer Describe within %s", s.o.Timeout))
		}
		return fail(fmt.Errorf("the plugin did not describe itself: %w", err))
	}
	if v := inst.desc.ProtocolVersion; v != ProtocolVersion {
		return fail(&permanentError{fmt.Errorf("the plugin says it speaks skillmux plugin protocol version %d on a connection of version %d; skillmux speaks %s", v, ProtocolVersion, versionList(protocolVersions))})
	}
	return inst, nil
}

// startError explains a start that failed after took, and marks those a
// restart cannot mend: a plugin of another protocol version, or of another
// go-plugin core version, or one that does not speak gRPC.
func (s *Source) startError(err error, r *procRunner, took time.Duration) error {
	line := ""
	if r != nil {
		if r.pid != 0 {
			// go-plugin may give up on a plugin that exited a moment
			// before its exit, and its last words, are read: they tell
			// more than go-plugin does.
			t := time.NewTimer(exitWait)
			select {
			case <-r.exited:
			case <-t.C:
			}
			t.Stop()
		}
		line = r.stdout.line()
	}
	parts := strings.Split(line, "|")
	switch {
	case len(parts) >= 4 && parts[0] != "1":
		return &permanentError{fmt.Errorf("the plugin speaks go-plugin core protocol %s; skillmux speaks 1 (handshake %q)", clean(parts[0], false), clean(line, false))}
	case len(parts) >= 4 && !slices.Contains(protocolVersions, wireVersion(parts[1])):
		return &permanentError{fmt.Errorf("the plugin speaks skillmux plugin protocol version %s; this skillmux speaks version %s: update the plugin or skillmux so that both speak one version", clean(parts[1], false), versionList(protocolVersions))}
	case len(parts) >= 5 && parts[4] != string(plugin.ProtocolGRPC):
		return &permanentError{fmt.Errorf("the plugin speaks %q; skillmux speaks only grpc", clean(parts[4], false))}
	case line == "" && took >= s.o.StartTimeout:
		// go-plugin gave up waiting, and stopped the process.
		return fmt.Errorf("the plugin printed no handshake line within %s", s.o.StartTimeout)
	case took >= s.o.StartTimeout && len(parts) >= 4:
		// A handshake without its line end: go-plugin waited for the
		// rest, then stopped the process, whose exit says nothing.
		return fmt.Errorf("the plugin printed no whole handshake line within %s: %q, with no line end after it", s.o.StartTimeout, clean(line, false))
	case line != "" && len(parts) < 4:
		// Not a handshake at all: go-plugin stopped the plugin.
		return fmt.Errorf("the plugin printed %q on stdout instead of its handshake line; a source plugin prints 1|1|tcp|127.0.0.1:PORT|grpc (or unix) first, and nothing before it", clean(line, false))
	case r != nil && r.pid != 0 && isClosed(r.exited) && line == "":
		// go-plugin's own words (and its hint about the handshake) say
		// less than the plugin's last line on stderr.
		if last := r.stderr.lastLine(); last != "" {
			return fmt.Errorf("the plugin exited before its handshake (%s); the last line it wrote on stderr: %s", exitReason(r.err), last)
		}
		return fmt.Errorf("the plugin exited before its handshake (%s), and wrote nothing on stdout or stderr", exitReason(r.err))
	case r != nil && r.pid != 0 && isClosed(r.exited):
		return fmt.Errorf("the plugin exited before its handshake (%s): %w", exitReason(r.err), err)
	}
	return fmt.Errorf("start %s: %w", s.command[0], err)
}

// exitWait is how long a failed start, or a call that lost its
// connection, waits for the plugin's exit to be read, when it is on its
// way: the connection breaks as the process ends, and the exit is reaped a
// moment later.
const exitWait = 500 * time.Millisecond

// wireVersion is the protocol version in a handshake line, or -1.
func wireVersion(s string) int {
	if n, err := strconv.Atoi(s); err == nil {
		return n
	}
	return -1
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
