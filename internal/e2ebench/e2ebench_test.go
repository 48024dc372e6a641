//go:build e2ebench

// Package e2ebench measures the built skillmux binary from a separate
// client process over real pipes, on two corpora at several sizes: the
// synthetic skills of skillgen.Generate, and real-shaped ones, copies of
// the shared corpus made by skillgen.Replicate. For each catalog it
// reports process start to the initialize answer (cold, and warm: a second
// process on the same home and cache), the round trip of a skill call next
// to that of a ping, peak resident memory, and the time from writing a new
// skill under the served root to notifications/tools/list_changed.
// Targets are reported, never asserted: these machines are shared and
// noisy. The test fails only on a wrong answer.
//
//	go test -tags e2ebench -run TestE2EBench -v -count=1 ./internal/e2ebench/
//
// Environment:
//
//   - SKILLMUX_BENCH_RUNS: cold and warm server processes per catalog
//     (default 15). At 3 or fewer the harness runs in CI mode: the
//     notification latency is measured on the 1,000-skill catalogs only,
//     with 5 new skills instead of 20, so that the run stays within about
//     two minutes.
//   - SKILLMUX_BENCH_LARGE=1: add the 100,000-skill catalogs (about two
//     minutes to write on ext4, some GB of disk, and 10 to 20 minutes in
//     all: give go test -timeout 60m).
//   - SKILLMUX_BENCH_OUT: a file to write the markdown report to.
//   - SKILLMUX_REQUIRE_CORPUS=1: fail, instead of skipping the real-shaped
//     catalogs, when the shared corpus is absent.
//   - GOGC, GOMEMLIMIT: passed on to the servers, which get no other
//     variable of the test's environment.
package e2ebench

import (
	"os"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Workload of one cold run, after initialize.
const (
	calls          = 200              // pings, and as many skill calls, interleaved
	processTimeout = 60 * time.Second // a server that hangs fails the test instead of the whole go test
)

// settings are what the environment asks for.
type settings struct {
	runs         int   // cold and warm processes per catalog
	sizes        []int // skills per catalog
	ci           bool
	watchSamples int // new skills written per catalog whose notification is awaited
}

func readSettings() settings {
	s := settings{runs: 15, sizes: []int{1_000, 10_000}, watchSamples: 20}
	if v, err := strconv.Atoi(os.Getenv("SKILLMUX_BENCH_RUNS")); err == nil && v > 0 {
		s.runs = v
	}
	if s.runs <= 3 {
		s.ci = true
		s.watchSamples = 5
	}
	if os.Getenv("SKILLMUX_BENCH_LARGE") == "1" {
		s.sizes = append(s.sizes, 100_000)
	}
	return s
}

// watched reports whether the notification latency is measured on a
// catalog of n skills: on all of them, or in CI mode on the smallest.
func (s settings) watched(n int) bool {
	return n > 0 && (!s.ci || n == slices.Min(s.sizes))
}

// result is what the runs over one catalog measured.
type result struct {
	cat        *catalog
	served     int             // skills the server reported serving
	cold, warm []time.Duration // process start to initialize answered
	ping, call []time.Duration // every round trip of every cold run, just after initialize
	// settledPing and settledCall are as many round trips again, once the
	// server has done the work of its start (the deferred scan, the
	// watches, the search index): what a session that runs a while sees.
	settledPing, settledCall []time.Duration
	coldRSSKB                int64           // the largest of the cold runs
	warmRSSKB                int64           // the largest of the warm runs
	warmCPU                  []time.Duration // user and system CPU time of each warm process, which only starts
	watch                    *watchResult    // nil when not measured
}

func TestE2EBench(t *testing.T) {
	set := readSettings()
	load := loadAverage()
	bin := build(t)
	cats := catalogs(t, set)
	var results []result
	for _, c := range cats {
		begin := time.Now()
		r := measure(t, bin, c, set.runs)
		if set.watched(c.skills) && c.watchDir != "" {
			r.watch = measureWatch(t, bin, c, set.watchSamples)
		}
		results = append(results, r)
		t.Logf("measured %s in %v", c.label, time.Since(begin).Round(time.Millisecond))
	}
	report(t, set, load, results)
}

// measure starts the server over c runs times, each a cold start (an
// empty cache folder) with the whole workload, then a warm start on the
// same home and cache, which only initializes.
func measure(t *testing.T, bin string, c *catalog, runs int) result {
	t.Helper()
	r := result{cat: c}
	for range runs {
		if err := os.RemoveAll(c.cache); err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(c.cache, 0o755); err != nil {
			t.Fatal(err)
		}
		s := run(t, bin, c, true, &r)
		r.cold = append(r.cold, s.started)
		r.coldRSSKB = max(r.coldRSSKB, s.peakRSSKB)
		r.served = s.served
		s = run(t, bin, c, false, &r)
		r.warm = append(r.warm, s.started)
		r.warmRSSKB = max(r.warmRSSKB, s.peakRSSKB)
		r.warmCPU = append(r.warmCPU, s.cpu)
	}
	return r
}

// pingsAndCalls makes as many pings as skill calls, interleaved, with
// names spread over the catalog, and adds their round trips to ping and
// call.
func (s *session) pingsAndCalls(names []string, ping, call *[]time.Duration) {
	for i := range calls {
		res, d := s.roundTrip("ping", map[string]any{})
		if res == nil {
			s.fail("ping answered without a result object")
		}
		*ping = append(*ping, d)
		name := names[i*len(names)/calls]
		res, d = s.roundTrip("tools/call", map[string]any{"name": "skill", "arguments": map[string]any{"name": name}})
		s.checkSkill(name, res)
		*call = append(*call, d)
	}
}

// run starts one server process over c and times it: start to initialize
// answered, then, with workload, as many pings as skill calls,
// interleaved, with names spread over the catalog, whose round trips are
// added to r. The peak resident memory is read just before stdin is
// closed: the server's work is done, and ending allocates nothing worth
// counting.
func run(t *testing.T, bin string, c *catalog, workload bool, r *result) *session {
	t.Helper()
	s := start(t, bin, c)
	begin := time.Now()
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	watchdog := time.AfterFunc(processTimeout, func() { s.cmd.Process.Kill() })
	defer watchdog.Stop()
	s.started = s.initialize(begin)
	// serve logs the count before it reads stdin (servedCount waits for
	// the line to reach the file).
	s.served = s.servedCount()
	if c.skills > 0 && s.served != c.skills {
		s.fail("%s: the server says it serves %d skills, want %d", c.label, s.served, c.skills)
	}
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if workload {
		names := append(slices.Clone(c.names), s.qualifiedNames()...)
		s.pingsAndCalls(names, &r.ping, &r.call)
		// A server in use lives on past its start: it completes the
		// deferred scan, watches the folders, records what it found in
		// its cache and builds the search index. The cold process does
		// all of it before it ends, so that its peak memory counts it and
		// the warm start after it starts from what a real session leaves.
		if s.awaitLog(indexedLine, processTimeout) == nil {
			s.fail("%s: the search index was not built within %v", c.label, processTimeout)
		}
		s.pingsAndCalls(names, &r.settledPing, &r.settledCall)
	}
	hwm, hwmOK := s.peakRSS()
	s.in.Close()
	if err := s.cmd.Wait(); err != nil {
		s.fail("exit: %v", err)
	}
	s.peakRSSKB = hwm
	if ru, ok := s.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && !hwmOK {
		s.peakRSSKB = ru.Maxrss // KiB on Linux; may be the test's own size, see peakRSS
	}
	s.cpu = s.cmd.ProcessState.UserTime() + s.cmd.ProcessState.SystemTime()
	return s
}
