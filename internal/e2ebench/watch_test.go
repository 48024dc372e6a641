//go:build e2ebench

package e2ebench

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// watchTimeout is how long a new skill's notification is awaited.
const watchTimeout = 10 * time.Second

// watchResult is the latency from writing a new skill under a served root
// to notifications/tools/list_changed.
type watchResult struct {
	planned int             // new skills the run meant to write
	arrived []time.Duration // one per notification that came
	missed  int             // new skills with no notification within watchTimeout
}

// supported reports whether any notification came.
func (w *watchResult) supported() bool { return len(w.arrived) > 0 }

// measureWatch starts a server over c, completes the handshake as a client
// does (initialize, notifications/initialized, tools/list), then writes
// new skills one at a time, each a folder with a SKILL.md in c.watchDir,
// and times each from just before its folder is made to the arrival of
// notifications/tools/list_changed after which the new skill is served:
// after each notification it lists the tools again, as a client would,
// and loads the new skill; a notification after which it is not served
// yet was for another change, and the wait goes on. The first skill whose
// notification does not come within watchTimeout ends the measurement: a
// server that does not watch its folders costs one timeout, not one per
// sample.
func measureWatch(t *testing.T, bin string, c *catalog, samples int) *watchResult {
	t.Helper()
	w := &watchResult{planned: samples}
	s := start(t, bin, c)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	watchdog := time.AfterFunc(processTimeout+time.Duration(samples)*watchTimeout, func() { s.cmd.Process.Kill() })
	defer watchdog.Stop()
	s.initialize(time.Now())
	s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	s.qualifiedNames()
	wait := s.follow()

	var written []string
	defer func() {
		for _, dir := range written {
			os.RemoveAll(dir)
		}
	}()
	for i := range samples {
		name := fmt.Sprintf("watch-probe-%05d", i)
		dir := filepath.Join(c.watchDir, name)
		md := fmt.Sprintf("---\nname: %s\ndescription: A skill written while the server runs, to time its notification.\n---\n\n# %s\n\nBody.\n", name, name)
		begin := time.Now()
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		written = append(written, dir)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(md), 0o644); err != nil {
			t.Fatal(err)
		}
		// A tools/list_changed may be for another change (the order of
		// the catalog, which follows the skills loaded, say): the one
		// timed is the first after which the new skill is served.
		d, served := s.awaitServed(name, begin)
		if !served {
			w.missed++
			break
		}
		w.arrived = append(w.arrived, d)
	}
	s.in.Close()
	if err := s.cmd.Wait(); err != nil {
		s.fail("exit: %v", err)
	}
	wait()
	return w
}

// awaitServed waits, up to watchTimeout from begin, for the
// tools/list_changed after which the skill name is served, and returns the
// time since begin at its arrival. After each notification it lists the
// tools, as a client would, and loads the skill.
func (s *session) awaitServed(name string, begin time.Time) (time.Duration, bool) {
	s.t.Helper()
	for {
		d, ok := s.awaitListChanged(begin, watchTimeout)
		if !ok {
			return 0, false
		}
		s.qualifiedNames()
		res, _ := s.roundTrip("tools/call", map[string]any{"name": "skill", "arguments": map[string]any{"name": name}})
		if res != nil && res["isError"] == true {
			continue // not served yet: the notification was for another change
		}
		s.checkSkill(name, res)
		return d, true
	}
}

// awaitListChanged waits up to timeout for notifications/tools/list_changed
// and returns the time since begin at its arrival. Other notifications are
// skipped; an answer or anything that is not JSON-RPC fails the test.
func (s *session) awaitListChanged(begin time.Time, timeout time.Duration) (time.Duration, bool) {
	s.t.Helper()
	timer := time.NewTimer(timeout - time.Since(begin))
	defer timer.Stop()
	for {
		select {
		case line, ok := <-s.lines:
			if !ok {
				s.fail("stdout ended while waiting for tools/list_changed")
			}
			d := time.Since(begin)
			m := s.message("tools/list_changed", line)
			if m["id"] != nil {
				s.fail("unexpected message while waiting for tools/list_changed: %.200q", line)
			}
			if m["method"] == "notifications/tools/list_changed" {
				return d, true
			}
		case <-timer.C:
			return 0, false
		}
	}
}
