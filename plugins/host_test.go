package plugins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

func TestSubprocessConformance(t *testing.T) {
	dir := t.TempDir()
	skillDir(t, dir, "alpha", "Alpha skill.")
	skillDir(t, dir, "beta", "Beta skill.")
	src, _ := newTestSource(t, "p", "dir", &Options{Env: map[string]string{envDir: dir}})
	sourcetest.Run(t, src)

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var changes atomic.Int32
	done := make(chan error, 1)
	go func() { done <- src.Watch(ctx, func() { changes.Add(1) }) }()
	time.Sleep(300 * time.Millisecond) // the plugin's watcher starts
	skillDir(t, dir, "gamma", "Gamma skill.")
	eventually(t, 5*time.Second, "no change event after a new skill", func() bool { return changes.Load() > 0 })
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Skills) != 3 {
		t.Errorf("after the change: %d skills, want 3", len(l.Skills))
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Watch returned %v", err)
	}
	sk := l.Skills[0]
	body, err := sources.ReadEntry(sk, 1<<20)
	if err != nil || !strings.Contains(string(body), "Body of") {
		t.Errorf("ReadEntry through the process: %q, %v", body, err)
	}
}

// has reports whether the resolver serves name now.
func has(r *resolver.Resolver, name string) bool {
	_, err := r.Snapshot().Lookup(name)
	return err == nil
}

func TestCrashLeavesAndReturns(t *testing.T) {
	dir := t.TempDir()
	skillDir(t, dir, "alpha", "Alpha skill.")
	src, logs := newTestSource(t, "p", "dir", &Options{Env: map[string]string{envDir: dir}, Grace: -1,
		Backoff: Backoff{Min: 300 * time.Millisecond}})
	other := &sourcetest.Fake{SourceName: "other", Skills: []sourcetest.FakeSkill{{Name: "local", Description: "Local."}}}
	res := resolver.New([]sources.Source{src, other}, nil)
	ctx, cancel := context.WithCancel(t.Context())
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		res.Run(ctx, &resolver.RunOptions{Interval: -1})
	}()
	defer func() { cancel(); <-runDone }()
	eventually(t, 10*time.Second, "the plugin's skill never came", func() bool { return has(res, "p:alpha") })
	pid := src.Status().PID
	if err := kill(pid); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the crashed plugin's skill stayed", func() bool { return !has(res, "p:alpha") })
	if !has(res, "local") {
		t.Error("the other source's skill left with the plugin")
	}
	if f := res.Snapshot().Failed(); len(f) != 1 || !errors.Is(f[0].Err, sources.ErrUnavailable) {
		t.Errorf("Failed() = %v", f)
	}
	eventually(t, 10*time.Second, "the restarted plugin's skill never came back", func() bool { return has(res, "p:alpha") })
	if st := src.Status(); st.Restarts < 1 || st.PID == pid {
		t.Errorf("status %+v after a crash of pid %d", st, pid)
	}
	if !strings.Contains(logs.String(), "restarting it") {
		t.Errorf("no log line about the restart:\n%s", logs)
	}
}

func TestGraceKeepsLastListing(t *testing.T) {
	dir := t.TempDir()
	skillDir(t, dir, "alpha", "Alpha skill.")
	src, _ := newTestSource(t, "p", "dir", &Options{Env: map[string]string{envDir: dir}, Grace: 500 * time.Millisecond,
		Backoff: Backoff{Min: 3 * time.Second}})
	if _, err := src.List(t.Context()); err != nil {
		t.Fatal(err)
	}
	kill(src.Status().PID)
	eventually(t, 5*time.Second, "the plugin is not seen down", func() bool { return src.Status().State == "down" })
	l, err := src.List(t.Context())
	if err != nil || len(l.Skills) != 1 {
		t.Fatalf("within the grace period: %v, %v; want the last listing", l, err)
	}
	if last := l.Problems[len(l.Problems)-1]; last.Rule != "plugin-down" {
		t.Errorf("no plugin-down warning: %+v", l.Problems)
	}
	time.Sleep(600 * time.Millisecond)
	if _, err := src.List(t.Context()); !errors.Is(err, sources.ErrUnavailable) {
		t.Errorf("after the grace period: %v, want ErrUnavailable", err)
	}
}

func TestHangTimesOut(t *testing.T) {
	hung, logs := newTestSource(t, "hung", "hang", &Options{Timeout: 300 * time.Millisecond, Grace: -1, Backoff: Backoff{Min: 50 * time.Millisecond}})
	other := &sourcetest.Fake{SourceName: "other", Skills: []sourcetest.FakeSkill{{Name: "local", Description: "Local."}}}
	res := resolver.New([]sources.Source{hung, other}, nil)
	start := time.Now()
	if _, err := res.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("a reload with a hung plugin took %v", took)
	}
	if !has(res, "local") {
		t.Error("the other source is not served")
	}
	f := res.Snapshot().Failed()
	if len(f) != 1 || !strings.Contains(f[0].Err.Error(), "did not answer List within 300ms") {
		t.Errorf("Failed() = %v", f)
	}
	// The calls that follow are not waited for: each List finds the
	// last call's end, or serves the plugin as unavailable meanwhile,
	// as the catalog's refreshes do, until three in a row timed out.
	pid := hung.Status().PID
	eventually(t, 10*time.Second, "the hung plugin was not restarted", func() bool {
		hung.List(t.Context())
		st := hung.Status()
		return st.Restarts >= 1 && st.PID != pid && st.PID != 0
	})
	if !strings.Contains(logs.String(), "stopped answering") {
		t.Errorf("no log line about the hang:\n%s", logs)
	}
}

// A plugin that has listed once and then hangs in List holds up no one:
// its last listing is served at once while its call goes on, so the
// refresh of every other source goes through.
func TestHungListServesLastListing(t *testing.T) {
	dir := t.TempDir()
	skillDir(t, dir, "alpha", "Alpha skill.")
	src, _ := newTestSource(t, "p", "thenhang", &Options{Env: map[string]string{envDir: dir}, Timeout: time.Hour})
	other := &sourcetest.Fake{SourceName: "other", Skills: []sourcetest.FakeSkill{{Name: "local", Description: "Local."}}}
	res := resolver.New([]sources.Source{src, other}, nil)
	if _, err := res.Reload(t.Context()); err != nil || !has(res, "alpha") {
		t.Fatalf("the first listing: %v", err)
	}
	// Both sources listed again: the plugin's call hangs, and would for
	// an hour; the reload is bounded here only so that a failure ends.
	other.Skills = append(other.Skills, sourcetest.FakeSkill{Name: "new", Description: "New."})
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := res.Reload(ctx); err != nil {
		t.Fatalf("a reload with the plugin hung: %v", err)
	}
	if !has(res, "new") || !has(res, "alpha") {
		t.Errorf("after the reload: the other source's new skill served %v, the plugin's last listing %v", has(res, "new"), has(res, "alpha"))
	}
}

// A plugin that hangs in List after listing once keeps its skills for
// the grace period only: then they leave, and do not come back while it
// hangs (a List that stops waiting for it serves the last listing only
// while it is well).
func TestHungPluginLeavesAfterGrace(t *testing.T) {
	dir := t.TempDir()
	skillDir(t, dir, "alpha", "Alpha skill.")
	src, _ := newTestSource(t, "p", "thenhang", &Options{Env: map[string]string{envDir: dir}, Timeout: time.Second, Grace: 300 * time.Millisecond,
		Backoff: Backoff{Min: time.Hour}})
	if _, err := src.List(t.Context()); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the hung plugin's skills did not leave after the grace period", func() bool {
		_, err := src.List(t.Context())
		return errors.Is(err, sources.ErrUnavailable)
	})
	for range 5 {
		if l, err := src.List(t.Context()); err == nil {
			t.Fatalf("the hung plugin's skills came back after the grace period: %d skills", len(l.Skills))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A plugin that lists but hangs in every read of a file is restarted
// after three reads in a row time out, as one hung in List is.
func TestHungReadsRestartThePlugin(t *testing.T) {
	dir := t.TempDir()
	skillDir(t, dir, "alpha", "Alpha skill.")
	src, logs := newTestSource(t, "p", "hangread", &Options{Env: map[string]string{envDir: dir}, Timeout: 300 * time.Millisecond, Grace: -1, Backoff: Backoff{Min: 50 * time.Millisecond}})
	l, err := src.List(t.Context())
	if err != nil || len(l.Skills) != 1 {
		t.Fatalf("listing: %v, %+v", err, l)
	}
	pid := src.Status().PID
	for range maxTimeouts {
		_, err := sources.ReadEntry(l.Skills[0], 1<<20)
		if !errors.Is(err, errNoAnswer) {
			t.Fatalf("a hung read: %v, want errNoAnswer", err)
		}
		if !strings.Contains(err.Error(), "the source plugin p did not answer in time") {
			t.Errorf("a hung read: %v; want it to name the plugin", err)
		}
	}
	eventually(t, 10*time.Second, "the plugin hung in its reads was not restarted", func() bool {
		st := src.Status()
		return st.Restarts >= 1 && st.PID != pid && st.PID != 0
	})
	if !strings.Contains(logs.String(), "did not answer ReadFile within 300ms") {
		t.Errorf("no log line about the hung reads:\n%s", logs)
	}
	// Through the local copy's making, the error names the file once.
	cache := t.TempDir()
	t.Cleanup(func() { removeAll(cache) }) // a copy's folders are read-only
	cached, _ := newTestSource(t, "c", "hangread", &Options{Env: map[string]string{envDir: dir}, Timeout: 300 * time.Millisecond, CacheDir: cache})
	if l, err = cached.List(t.Context()); err != nil || len(l.Skills) != 1 {
		t.Fatalf("listing: %v, %+v", err, l)
	}
	if _, err := sources.ReadEntry(l.Skills[0], 1<<20); !errors.Is(err, errNoAnswer) || strings.Contains(err.Error(), "open SKILL.md: read SKILL.md") {
		t.Errorf("a hung read through the copy: %v", err)
	}
}

// Reads say nothing of List: a read that timed out long ago does not
// take the grace period from a List that is merely slow (the last
// listing is served meanwhile), and reads answered do not hide Lists
// that time out (the plugin is restarted after three in a row).
func TestReadsLeaveListAlone(t *testing.T) {
	t.Run("grace", func(t *testing.T) {
		dir := t.TempDir()
		skillDir(t, dir, "alpha", "Alpha skill.")
		src, _ := newTestSource(t, "p", "hangread-slowlist", &Options{Env: map[string]string{envDir: dir}, Timeout: 2 * time.Second, Grace: time.Second})
		l, err := src.List(t.Context())
		if err != nil || len(l.Skills) != 1 {
			t.Fatalf("listing: %v, %+v", err, l)
		}
		if _, err := sources.ReadEntry(l.Skills[0], 1<<20); !errors.Is(err, errNoAnswer) {
			t.Fatalf("a hung read: %v, want errNoAnswer", err)
		}
		time.Sleep(1500 * time.Millisecond) // longer than the grace
		if l, err := src.List(t.Context()); err != nil || len(l.Skills) != 1 {
			t.Errorf("a slow List after a read timed out: %v, %+v; want the last listing", err, l)
		}
	})
	t.Run("restart", func(t *testing.T) {
		dir := t.TempDir()
		skillDir(t, dir, "alpha", "Alpha skill.")
		src, _ := newTestSource(t, "p", "thenhang", &Options{Env: map[string]string{envDir: dir}, Timeout: 300 * time.Millisecond, Grace: time.Hour, Backoff: Backoff{Min: 50 * time.Millisecond}})
		l, err := src.List(t.Context())
		if err != nil || len(l.Skills) != 1 {
			t.Fatalf("listing: %v, %+v", err, l)
		}
		eventually(t, 20*time.Second, "a plugin hung in List, whose reads are answered, was not restarted", func() bool {
			src.List(t.Context())
			sources.ReadEntry(l.Skills[0], 1<<20) // answered, when the plugin is up
			return src.Status().Restarts >= 1
		})
	})
}

// A plugin restarted for hanging that hangs again is restarted again: its
// timeouts are counted anew.
func TestHungPluginRestartedAgain(t *testing.T) {
	hung, _ := newTestSource(t, "hung", "hang", &Options{Timeout: 300 * time.Millisecond, Grace: -1, Backoff: Backoff{Min: 50 * time.Millisecond}})
	eventually(t, 20*time.Second, "the plugin was not restarted a second time", func() bool {
		hung.List(t.Context())
		return hung.Status().Restarts >= 2
	})
}

// TestStartWithinTimeout starts a plugin that never prints its handshake:
// it is given up on after the source's timeout, which bounds the start
// too, and the other source is served.
func TestStartWithinTimeout(t *testing.T) {
	mute, _ := newTestSource(t, "mute", "mute", &Options{Timeout: 300 * time.Millisecond, Grace: -1, Backoff: Backoff{Min: time.Hour}})
	other := &sourcetest.Fake{SourceName: "other", Skills: []sourcetest.FakeSkill{{Name: "local", Description: "Local."}}}
	res := resolver.New([]sources.Source{mute, other}, nil)
	if _, err := res.Reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !has(res, "local") {
		t.Error("the other source is not served")
	}
	f := res.Snapshot().Failed()
	if len(f) != 1 || !strings.Contains(f[0].Err.Error(), "printed no handshake line within 300ms") {
		t.Errorf("Failed() = %v", f)
	}
}

// TestRestartIsNotWaitedFor lists a plugin while it is being restarted,
// and its start hangs: List answers at once, from the last listing,
// rather than holding up the catalog until the start ends.
func TestRestartIsNotWaitedFor(t *testing.T) {
	dir := t.TempDir()
	skillDir(t, dir, "alpha", "Alpha skill.")
	src, _ := newTestSource(t, "p", "once", &Options{Env: map[string]string{envDir: dir, envMark: filepath.Join(t.TempDir(), "started")},
		Timeout: time.Minute, Grace: time.Hour, Backoff: Backoff{Min: time.Millisecond}})
	if _, err := src.List(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := kill(src.Status().PID); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the plugin is not being restarted", func() bool {
		st := src.Status()
		return st.State == "starting" && st.Restarts == 1
	})
	l, err := src.List(t.Context())
	if st := src.Status(); st.State != "starting" || st.Restarts != 1 {
		t.Fatalf("List returned when the restart was over (%+v); it waited for it", st)
	}
	if err != nil || len(l.Skills) != 1 {
		t.Fatalf("during the restart: %v, %v; want the last listing", l, err)
	}
	if last := l.Problems[len(l.Problems)-1]; last.Rule != "plugin-down" || !strings.Contains(last.Message, "being restarted") {
		t.Errorf("no plugin-down warning that says why: %+v", l.Problems)
	}
}

// TestCloseDuringStart closes a source while its plugin starts, and its
// start hangs: the process is stopped, and the listing that waited for it
// ends. Close runs on another goroutine than the start (run it with -race).
func TestCloseDuringStart(t *testing.T) {
	mark := filepath.Join(t.TempDir(), "pid")
	src, _ := newTestSource(t, "p", "mute", &Options{Env: map[string]string{envMark: mark}, Timeout: time.Minute})
	listed := make(chan error, 1)
	go func() {
		_, err := src.List(t.Context())
		listed <- err
	}()
	var pid int
	eventually(t, 10*time.Second, "the plugin did not start", func() bool {
		data, _ := os.ReadFile(mark)
		pid, _ = strconv.Atoi(string(data))
		return pid > 0
	})
	src.Close()
	if err := <-listed; err == nil {
		t.Error("List of a plugin closed while it started returned no error")
	}
	eventually(t, 5*time.Second, "the plugin outlived Close", func() bool { return !alive(pid) })
}

// What a plugin started in its process group ends with it, also a child
// that ignores SIGTERM when the plugin itself ends on it.
func TestCloseEndsThePluginsGroup(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no process groups, no SIGTERM")
	}
	dir, mark := t.TempDir(), filepath.Join(t.TempDir(), "pid")
	skillDir(t, dir, "alpha", "Alpha skill.")
	src, _ := newTestSource(t, "p", "forkchild", &Options{Env: map[string]string{envDir: dir, envMark: mark, "PATH": os.Getenv("PATH")}})
	if _, err := src.List(t.Context()); err != nil {
		t.Fatal(err)
	}
	var pid int
	eventually(t, 10*time.Second, "the child did not start", func() bool {
		data, _ := os.ReadFile(mark)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		return pid > 0
	})
	src.Close()
	eventually(t, 10*time.Second, "the plugin's child outlived Close", func() bool { return !alive(pid) })
}

func TestVersionMismatch(t *testing.T) {
	src, logs := newTestSource(t, "old", "v2", nil)
	_, err := src.List(t.Context())
	if !errors.Is(err, sources.ErrUnavailable) {
		t.Fatalf("List: %v, want ErrUnavailable", err)
	}
	for _, want := range []string{"speaks skillmux plugin protocol version 2", "this skillmux speaks version 1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	time.Sleep(100 * time.Millisecond)
	if st := src.Status(); st.State != "failed" || st.Restarts != 0 {
		t.Errorf("status %+v; want failed, never restarted", st)
	}
	if !strings.Contains(logs.String(), "cannot be used") {
		t.Errorf("no log line:\n%s", logs)
	}
}

func TestCrashLoopGivesUp(t *testing.T) {
	src, logs := newTestSource(t, "bad", "exit", &Options{Backoff: Backoff{Min: 5 * time.Millisecond, Max: 20 * time.Millisecond, MaxCrashes: 3, Window: time.Minute}})
	src.List(t.Context())
	eventually(t, 20*time.Second, "a plugin that always exits was not given up", func() bool { return src.Status().State == "failed" })
	st := src.Status()
	if st.Restarts != 2 || !strings.Contains(st.Err.Error(), "failed 3 times within 1m0s") {
		t.Errorf("status %+v", st)
	}
	// The reason is the plugin's own last words, on one line, not
	// go-plugin's, nor its hint about a handshake line.
	if msg := st.Err.Error(); !strings.Contains(msg, "the last line it wrote on stderr: exit: failing on purpose") || strings.Contains(msg, "\n") || strings.Contains(msg, "Unrecognized remote plugin message") {
		t.Errorf("the failure does not give the plugin's reason: %q", msg)
	}
	out := logs.String()
	for _, want := range []string{"given up after repeated crashes", "exit: failing on purpose", "plugin=bad"} {
		if !strings.Contains(out, want) {
			t.Errorf("logs do not say %q:\n%s", want, out)
		}
	}
}

// TestGivenUpPluginLogsOneError checks that a plugin whose command does
// not exist, served by a resolver under Run, leaves one error line in the
// log, when it is given up: the same failure, at each restart and at each
// rescan after, is logged at debug level.
func TestGivenUpPluginLogsOneError(t *testing.T) {
	src, logs := newTestSource(t, "ghost", "exit", &Options{
		Backoff: Backoff{Min: 5 * time.Millisecond, Max: 20 * time.Millisecond, MaxCrashes: 5, Window: time.Minute}})
	other := &sourcetest.Fake{SourceName: "other", Skills: []sourcetest.FakeSkill{{Name: "local", Description: "Local."}}}
	res := resolver.New([]sources.Source{src, other}, &resolver.Options{Logger: logs.logger()})
	ctx, cancel := context.WithCancel(t.Context())
	runDone := make(chan struct{})
	go func() {
		defer close(runDone)
		res.Run(ctx, &resolver.RunOptions{Interval: 20 * time.Millisecond})
	}()
	defer func() { cancel(); <-runDone }()
	eventually(t, 10*time.Second, "a plugin that cannot start was not given up", func() bool { return src.Status().State == "failed" })
	eventually(t, 10*time.Second, "no rescans after the plugin was given up", func() bool {
		return strings.Count(logs.String(), "given up") == 1 && strings.Count(logs.String(), "it failed 5 times") >= 10
	})
	var above []string
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, "level=ERROR") || strings.Contains(line, "level=WARN") {
			above = append(above, line)
		}
	}
	var errs, restarts int
	for _, line := range above {
		if strings.Contains(line, "level=ERROR") {
			errs++
		}
		if strings.Contains(line, "restarting it") {
			restarts++
		}
	}
	// Once given up, the rescans that follow (ten or more) log nothing
	// above debug level but the catalog's one line for the failed source.
	after := len(above)
	for i, line := range above {
		if strings.Contains(line, "given up") {
			after = len(above) - i - 1
		}
	}
	if errs != 1 || restarts != 1 || after > 1 {
		t.Errorf("%d error lines, %d warnings of a restart, %d lines above debug level after it was given up; want 1, 1 and at most 1:\n%s", errs, restarts, after, strings.Join(above, ""))
	}
}

// A plugin that fails its start is reported with what says why, on one
// line: what it printed instead of a handshake, or the first line of its
// panic rather than the last line of the stack that follows.
func TestStartFailureSaysWhy(t *testing.T) {
	for mode, want := range map[string]string{
		"hello": `printed "Hello! Welcome to my plugin" on stdout instead of its handshake line`,
		"panic": "the last line it wrote on stderr: panic: panicking on purpose",
		// Not "exited before its handshake (signal: killed)": skillmux
		// stopped it.
		"partial": `printed no whole handshake line within 1s: "1|1|unix|/nonexistent.sock|grpc", with no line end after it`,
	} {
		src, _ := newTestSource(t, mode, mode, &Options{Timeout: 2 * time.Second, StartTimeout: time.Second, Backoff: Backoff{MaxCrashes: 1}})
		src.List(t.Context())
		eventually(t, 10*time.Second, mode+": the plugin was not given up", func() bool { return src.Status().State == "failed" })
		if msg := src.Status().Err.Error(); !strings.Contains(msg, want) || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q; want one line with %q", mode, msg, want)
		}
	}
}

// A plugin that dies in a call is reported with its exit status and its
// last line on stderr, not with the connection's "error reading from
// server: EOF", which says nothing a user can act on.
func TestExitInACallSaysWhy(t *testing.T) {
	src, _ := newTestSource(t, "listexit", "listexit", &Options{Timeout: 5 * time.Second, Grace: -1})
	_, err := src.List(t.Context())
	if err == nil {
		t.Fatal("List of a plugin that exits in it succeeded")
	}
	for _, want := range []string{"the plugin exited during List (exit status 2)", "the last line it wrote on stderr: listexit: dying in List"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q; want it to say %q", err, want)
		}
	}
}

// A plugin whose List fails says why in its own words, without gRPC's
// ("rpc error: code = Unavailable desc = ...").
func TestListErrorInThePluginsWords(t *testing.T) {
	src, _ := newTestSource(t, "listerr", "listerr", &Options{Grace: -1})
	_, err := src.List(t.Context())
	if err == nil || !strings.Contains(err.Error(), "the plugin's List failed: the index is locked") || strings.Contains(err.Error(), "rpc error") {
		t.Errorf("List of a plugin whose List fails: %v; want its words", err)
	}
}

// A plugin whose Serve returned, and that says why on os.Stderr before
// it exits, as Serve's documented main does, is reported with that line:
// Serve gives os.Stderr back to the process when it returns.
func TestLastWordsAfterServe(t *testing.T) {
	src, _ := newTestSource(t, "lastwords", "lastwords", &Options{Timeout: 5 * time.Second, Grace: -1})
	_, err := src.List(t.Context())
	if err == nil || !strings.Contains(err.Error(), "the last line it wrote on stderr: lastwords: serving ended: context canceled") {
		t.Errorf("List of a plugin whose Serve ended in it: %v; want its last line on stderr", err)
	}
}

// A plugin that dies between calls is reported with its last line on
// stderr too.
func TestExitBetweenCallsSaysWhy(t *testing.T) {
	dir := t.TempDir()
	skillDir(t, dir, "alpha", "Alpha skill.")
	src, _ := newTestSource(t, "exitlater", "exitlater", &Options{Env: map[string]string{envDir: dir}, Backoff: Backoff{Min: time.Minute, Max: time.Minute, MaxCrashes: 5, Window: time.Minute}})
	if _, err := src.List(t.Context()); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the exit was not seen", func() bool { return src.Status().Err != nil })
	if msg := src.Status().Err.Error(); !strings.Contains(msg, "exit status 2") || !strings.Contains(msg, "the last line it wrote on stderr: exitlater: out of cheese") {
		t.Errorf("%q; want the exit status and the last line on stderr", msg)
	}
}

// A command that cannot be started (not there, not executable) is not a
// crash: it is refused at once, with one error line, and not restarted.
func TestMissingCommandIsRefusedAtOnce(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "plugin")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	noInterpreter := filepath.Join(t.TempDir(), "plugin.py")
	if err := os.WriteFile(noInterpreter, []byte("#!/nonexistent/python3 -u\nprint()\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	crlf := filepath.Join(t.TempDir(), "plugin.sh")
	if err := os.WriteFile(crlf, []byte("#!/bin/sh\r\nexec true\r\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	underFile := filepath.Join(notExec, "plugin")
	// What each error says besides the command: what would be right.
	says := map[string]string{
		"/nonexistent/bin/ghost": "does not exist; give the path of the plugin's program in command",
		underFile:                "a folder on its path is a file",
		notExec:                  "chmod +x " + notExec,
		noInterpreter:            "there is no /nonexistent/python3",
		crlf:                     "Windows line ends (CRLF)",
	}
	for _, cmd := range []string{"/nonexistent/bin/ghost", underFile, notExec, noInterpreter, crlf} {
		logs := &logBuffer{}
		src, err := New("ghost", []string{cmd}, &Options{Logger: logs.logger(), NoCache: true,
			Backoff: Backoff{Min: 5 * time.Millisecond, Max: 20 * time.Millisecond, MaxCrashes: 5, Window: time.Minute}})
		if err != nil {
			t.Fatal(err)
		}
		defer src.Close()
		src.List(t.Context())
		eventually(t, 10*time.Second, "a command that cannot start was not refused", func() bool { return src.Status().State == "failed" })
		st := src.Status()
		if st.Restarts != 0 || !strings.Contains(st.Err.Error(), cmd) || !strings.Contains(st.Err.Error(), says[cmd]) {
			t.Errorf("%s: status %+v; want no restart and an error naming the command and saying %q", cmd, st, says[cmd])
		}
		if n := strings.Count(logs.String(), "level=ERROR"); n != 1 || strings.Contains(logs.String(), "restarting it") {
			t.Errorf("%s: %d error lines; want 1 and no restart:\n%s", cmd, n, logs)
		}
	}
}

func TestEventFloodIsCoalesced(t *testing.T) {
	src, logs := newTestSource(t, "fl", "flood", nil)
	if _, err := src.List(t.Context()); err != nil {
		t.Fatal(err)
	}
	const flood = 2500 * time.Millisecond
	ctx, cancel := context.WithTimeout(t.Context(), flood)
	defer cancel()
	var n atomic.Int32
	src.Watch(ctx, func() { n.Add(1) })
	if got := n.Load(); got < 2 || got > 10 {
		t.Errorf("%d refreshes in %v of flood; want one or two a second", got, flood)
	}
	// The plugin would send thousands a second; past floodPerSecond the
	// stream is closed until the second is over.
	events := src.events.Load()
	if most := int64(3 * (floodPerSecond + 1)); events > most {
		t.Errorf("%d events read in %v of flood; want at most %d", events, flood, most)
	}
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range l.Problems {
		found = found || d.Rule == "plugin-event-flood"
	}
	if !found || !strings.Contains(logs.String(), "floods change events") {
		t.Errorf("the flood is not reported: %+v\n%s", l.Problems, logs)
	}
}

// TestEventBurstEndsSoon checks that the refreshes of a flood end soon
// after it does: the events a plugin queued on the stream while it was
// not read are dropped with it, not read and refreshed for many
// seconds more.
func TestEventBurstEndsSoon(t *testing.T) {
	src, _ := newTestSource(t, "bu", "burst", nil)
	if _, err := src.List(t.Context()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 7*time.Second)
	defer cancel()
	start := time.Now()
	var mu sync.Mutex
	var at []time.Duration
	src.Watch(ctx, func() {
		mu.Lock()
		at = append(at, time.Since(start))
		mu.Unlock()
	})
	mu.Lock()
	defer mu.Unlock()
	// The burst is the plugin's first second; the stream closed in its
	// last second opens again at most a second later, for one refresh, at
	// most a second after the one before.
	if len(at) == 0 || at[len(at)-1] > 4500*time.Millisecond {
		t.Errorf("refreshes at %v; want some, none more than about two seconds after the burst", at)
	}
}

func TestPluginEnvironmentAndStdin(t *testing.T) {
	t.Setenv("SKILLMUX_TEST_SECRET", "leaked")
	src, _ := newTestSource(t, "e", "env", &Options{Env: map[string]string{"GIVEN": "yes"}})
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := `HOME="" SECRET="" GIVEN="yes" STDIN=0`, l.Skills[0].Description; got != want {
		t.Errorf("the plugin saw %s; want %s", got, want)
	}
}

func TestPluginLogsAreTagged(t *testing.T) {
	dir := t.TempDir()
	skillDir(t, dir, "alpha", "Alpha skill.")
	src, logs := newTestSource(t, "loud", "noisy", &Options{Env: map[string]string{envDir: dir}})
	if _, err := src.List(t.Context()); err != nil {
		t.Fatal(err)
	}
	eventually(t, 5*time.Second, "the plugin's lines were not logged", func() bool {
		out := logs.String()
		return strings.Contains(out, "noisy: a stray line on stdout") && strings.Contains(out, "noisy: a JSON warning")
	})
	for _, line := range strings.Split(logs.String(), "\n") {
		switch {
		case strings.Contains(line, "noisy: before the handshake"):
			if !strings.Contains(line, "plugin=loud") || !strings.Contains(line, "stream=stderr") {
				t.Errorf("stderr line not tagged: %s", line)
			}
		case strings.Contains(line, "noisy: a JSON warning"):
			if !strings.Contains(line, "level=WARN") || !strings.Contains(line, "plugin=loud") {
				t.Errorf("JSON line lost its level or tag: %s", line)
			}
		case strings.Contains(line, "noisy: a stray line on stdout"):
			if !strings.Contains(line, "stream=stdout") || !strings.Contains(line, "plugin=loud") {
				t.Errorf("stdout line not tagged: %s", line)
			}
		}
	}
}

// TestNoOrphans runs a host process with a plugin, ends the host in
// several ways and checks, by process id, that the plugin is gone.
func TestNoOrphans(t *testing.T) {
	if testing.Short() {
		t.Skip("starts host processes")
	}
	for _, how := range []string{"SIGKILL", "SIGTERM", "Close"} {
		t.Run(how, func(t *testing.T) {
			dir := t.TempDir()
			skillDir(t, dir, "alpha", "Alpha skill.")
			host := exec.Command(os.Args[0])
			// A host killed leaves go-plugin's socket folder behind: in
			// the test's own temporary folder, not the machine's.
			host.Env = append(os.Environ(), envHost+"=dir", envDir+"="+dir, "TMPDIR="+t.TempDir())
			if how == "Close" {
				host.Env = append(host.Env, "SKILLMUX_TEST_CLOSE=1")
			}
			var stderr logBuffer
			host.Stderr = &stderr
			in, err := host.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			out, err := host.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := host.Start(); err != nil {
				t.Fatal(err)
			}
			defer host.Process.Kill()
			lines := bufio.NewScanner(out)
			if !lines.Scan() {
				t.Fatalf("the host printed nothing; its stderr:\n%s", stderr.String())
			}
			pid, err := strconv.Atoi(strings.TrimPrefix(lines.Text(), "pid="))
			if err != nil || pid <= 0 || !alive(pid) {
				t.Fatalf("host said %q; the plugin is alive: %v", lines.Text(), alive(pid))
			}
			switch how {
			case "SIGKILL":
				host.Process.Signal(syscall.SIGKILL)
			case "SIGTERM":
				host.Process.Signal(syscall.SIGTERM)
			case "Close":
				fmt.Fprintln(in, "close")
			}
			var rest []string
			for lines.Scan() {
				rest = append(rest, lines.Text())
			}
			host.Wait()
			eventually(t, 5*time.Second, "the plugin outlived its host (pid "+strconv.Itoa(pid)+")", func() bool { return !alive(pid) })
			want := ""
			if how == "Close" {
				want = "closed"
			}
			if got := strings.Join(rest, "\n"); got != want {
				t.Errorf("the host's stdout after the pid: %q, want %q (nothing of the plugin's)", got, want)
			}
		})
	}
}

// With FirstWait, the first List of a plugin slow to start gives up on it
// after that long: the plugin is unavailable meanwhile, and a Watch set up
// after is told at once that it may have changed, then lists its skills
// once the plugin is up.
func TestFirstWait(t *testing.T) {
	dir, mark := t.TempDir(), filepath.Join(t.TempDir(), "go")
	skillDir(t, dir, "alpha", "Alpha skill.")
	src, _ := newTestSource(t, "slow", "slowstart", &Options{Env: map[string]string{envDir: dir, envMark: mark}, FirstWait: 100 * time.Millisecond, Timeout: time.Minute})
	if _, err := src.List(t.Context()); !errors.Is(err, sources.ErrUnavailable) || !strings.Contains(err.Error(), "has not started yet") {
		t.Fatalf("first List: %v, want the plugin unavailable while it starts", err)
	}
	// A List after it does not wait for the start either.
	if _, err := src.List(t.Context()); !errors.Is(err, sources.ErrUnavailable) {
		t.Fatalf("second List: %v", err)
	}
	changed := make(chan struct{}, 16)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go src.Watch(ctx, func() { changed <- struct{}{} })
	select {
	case <-changed: // the missed first listing
	case <-time.After(10 * time.Second): // only to report a hang
		t.Fatal("the watch was not told of the missed first listing")
	}
	if err := os.WriteFile(mark, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the plugin's skills were not listed once it started", func() bool {
		l, err := src.List(t.Context())
		return err == nil && len(l.Skills) == 1
	})
}

// A plugin that keeps hanging is given up, as one that keeps crashing is:
// each hang takes three call timeouts, so the crashes' window never sees
// enough of them, and it was restarted for ever.
func TestHangingPluginIsGivenUp(t *testing.T) {
	hung, logs := newTestSource(t, "hung", "hang", &Options{Timeout: 200 * time.Millisecond, Grace: -1, Backoff: Backoff{Min: 20 * time.Millisecond, Window: time.Millisecond, MaxCrashes: 2}})
	eventually(t, 30*time.Second, "the hanging plugin was not given up", func() bool {
		hung.List(t.Context())
		return hung.Status().State == "failed"
	})
	if err := hung.Status().Err; err == nil || !strings.Contains(err.Error(), "it stopped answering 2 times within 10m0s") {
		t.Errorf("why: %v", err)
	}
	if !strings.Contains(logs.String(), "source plugin given up: it keeps hanging") {
		t.Errorf("no error line:\n%s", logs)
	}
}

// A plugin whose first listing is in the catalog has nothing more to
// settle: its watch settles at once, not at its first change (which may
// never come), so that what waits for the catalog's start (a skill call of
// an unknown name, the search index) does not wait out the resolver's
// SettleTimeout. One whose first listing was given up on settles when it
// comes up, with its first change; one that cannot start, at once.
func TestPluginWatchSettlesOnceListed(t *testing.T) {
	for _, watchFirst := range []bool{false, true} { // the catalog's start may begin either first
		t.Run(fmt.Sprint("cannot start, watched first ", watchFirst), func(t *testing.T) {
			src, err := New("ghost", []string{"/nonexistent/bin/ghost"}, &Options{NoCache: true, Logger: (&logBuffer{}).logger()})
			if err != nil {
				t.Fatal(err)
			}
			defer src.Close()
			settled := make(chan struct{})
			ctx, changed := sources.WithSettle(t.Context(), func() { close(settled) })
			watch := func() { go src.Watch(ctx, func() { changed() }) }
			if watchFirst {
				watch()
				eventually(t, 10*time.Second, "the watch did not begin", func() bool {
					src.mu.Lock()
					defer src.mu.Unlock()
					return len(src.listeners) == 1
				})
			}
			if _, err := src.List(t.Context()); err == nil {
				t.Fatal("a plugin that cannot start listed")
			}
			if !watchFirst {
				watch()
			}
			select {
			case <-settled:
			case <-time.After(10 * time.Second): // only to report a hang
				t.Fatal("a plugin that cannot start did not settle")
			}
		})
	}
	dir := t.TempDir()
	skillDir(t, dir, "alpha", "Alpha skill.")
	for _, mode := range []string{"dir", "noisy"} { // watching, and not (noisy hides its Watch)
		t.Run(mode, func(t *testing.T) {
			src, _ := newTestSource(t, "p", mode, &Options{Env: map[string]string{envDir: dir}})
			if _, err := src.List(t.Context()); err != nil {
				t.Fatal(err)
			}
			settled := make(chan struct{})
			ctx, changed := sources.WithSettle(t.Context(), func() { close(settled) })
			go src.Watch(ctx, func() { changed() })
			select {
			case <-settled:
			case <-time.After(10 * time.Second): // only to report a hang
				t.Fatal("a plugin that listed did not settle without a change")
			}
		})
	}
}
