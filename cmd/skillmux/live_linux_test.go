package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A source plugin that configuration edits keep (its settings did not
// change) logs at the level in force, as the server does: one an edit
// brought, then kept by an edit to log.level error, says nothing below
// it when it crashes and is restarted.
func TestBinaryKeptPluginFollowsLogLevel(t *testing.T) {
	s, cfg, first, second := serveFirstOfTwo(t)
	plugin := fmt.Sprintf("  - type: plugin\n    name: tp\n    command: [%q]\n    env: {%s: \"1\"}\n", os.Args[0], envTestPlugin)
	writeFile(t, cfg, "sources:\n  - type: dir\n    path: "+first+"\n"+plugin)
	if !s.stderr.waitFor(`msg="source plugin started"`, 15*time.Second) {
		t.Fatalf("the plugin did not start:\n%s", s.stderr.String())
	}
	s.next("tools/list_changed after the plugin came", isMethod("notifications/tools/list_changed"))
	// The folder changes, so that the edit is one; the plugin is kept.
	writeFile(t, cfg, "log:\n  level: error\nsources:\n  - type: dir\n    path: "+second+"\n"+plugin)
	// Applied once the second folder's skill is served: a tools/list_changed
	// may be the plugin's skills coming late, before the edit is seen.
	for id, deadline := 10, time.Now().Add(15*time.Second); !strings.Contains(s.toolDescription(id), "- two:"); id++ {
		if time.Now().After(deadline) {
			t.Fatalf("the edit was not applied:\n%s", s.stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	pid := onlyChild(t, s.cmd.Process.Pid)
	mark := len(s.stderr.String())
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// It is restarted 250 ms after its crash, and says so at info level.
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) && onlyChildOrNone(s.cmd.Process.Pid) == pid {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)
	if after := s.stderr.String()[mark:]; strings.Contains(after, "level=INFO") || strings.Contains(after, "level=WARN") {
		t.Errorf("after log.level became error, the kept plugin still logs below it:\n%s", after)
	}
}

// onlyChild is the pid of the one child process of parent.
func onlyChild(t *testing.T, parent int) int {
	t.Helper()
	kids := children(parent)
	if len(kids) != 1 {
		t.Fatalf("children of serve: %v", kids)
	}
	return kids[0]
}

// onlyChildOrNone is the pid of the one child of parent, or 0.
func onlyChildOrNone(parent int) int {
	if kids := children(parent); len(kids) == 1 {
		return kids[0]
	}
	return 0
}

func children(parent int) []int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", parent))
	var kids []int
	for _, f := range tasks {
		b, _ := os.ReadFile(f)
		for _, f := range strings.Fields(string(b)) {
			n, _ := strconv.Atoi(f)
			kids = append(kids, n)
		}
	}
	return kids
}
