//go:build e2ebench

package e2ebench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// session is one server process and the client end of its pipes.
type session struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr string // file the server logs to
	id     int

	// lines, once follow has been called, carries every line the server
	// writes, read by a goroutine of follow; out is then its alone.
	lines chan []byte

	started   time.Duration // process start to initialize answered
	peakRSSKB int64         // after exit
	cpu       time.Duration // user and system CPU time, after exit
	served    int           // skills the server said it serves; -1 if it did not say
}

// start prepares, without starting it, a server over c. Its stderr goes to
// a file, as a client would keep it, so that a failure can show the log.
// The server's home, configuration and cache folders are the catalog's:
// no run shares a cache with the user's, or with another catalog's.
func start(t *testing.T, bin string, c *catalog) *session {
	t.Helper()
	cmd := exec.Command(bin, c.args...)
	cmd.Dir = c.home
	cmd.Env = []string{
		"HOME=" + c.home,
		"XDG_CONFIG_HOME=" + filepath.Join(c.home, ".config"),
		"XDG_CACHE_HOME=" + c.cache,
		"PATH=" + os.Getenv("PATH"),
	}
	// The collector's settings reach the server, to measure their effect.
	for _, k := range []string{"GOGC", "GOMEMLIMIT"} {
		if v, ok := os.LookupEnv(k); ok {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
	}
	logf, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { logf.Close() })
	cmd.Stderr = logf
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	return &session{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), stderr: logf.Name(), served: -1}
}

// initialize sends the initialize request at once and returns the time
// from begin (just before the process started) to its answer.
func (s *session) initialize(begin time.Time) time.Duration {
	s.t.Helper()
	init, _ := s.roundTrip("initialize", map[string]any{
		"protocolVersion": "2025-11-25",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "e2ebench", "version": "1"},
	})
	d := time.Since(begin)
	if _, ok := init["serverInfo"].(map[string]any); !ok {
		s.fail("initialize answered without serverInfo: %v", init)
	}
	return d
}

// fail stops the test with the server's log attached.
func (s *session) fail(format string, args ...any) {
	s.t.Helper()
	if s.cmd.ProcessState == nil && s.cmd.Process != nil {
		s.cmd.Process.Kill()
	}
	log, _ := os.ReadFile(s.stderr)
	if len(log) > 4000 {
		log = log[len(log)-4000:]
	}
	s.t.Fatalf("%s\nserver log (end):\n%s", fmt.Sprintf(format, args...), log)
}

func (s *session) send(msg map[string]any) {
	s.t.Helper()
	b, err := json.Marshal(msg)
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := s.in.Write(append(b, '\n')); err != nil {
		s.fail("write %v: %v", msg["method"], err)
	}
}

// next returns the server's next line.
func (s *session) next() ([]byte, error) {
	if s.lines == nil {
		return s.out.ReadBytes('\n')
	}
	line, ok := <-s.lines
	if !ok {
		return nil, io.EOF
	}
	return line, nil
}

// message decodes a line the server wrote; anything on stdout that is not
// JSON-RPC fails the test.
func (s *session) message(what string, line []byte) map[string]any {
	s.t.Helper()
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil || m["jsonrpc"] != "2.0" {
		s.fail("%s: stdout is not JSON-RPC: %.200q", what, line)
	}
	return m
}

// roundTrip sends a request and returns its result and the time from
// just before the write to the arrival of the whole answer line. Decoding
// the answer is the client's work, so the clock stops before it. Lines
// that answer nothing (notifications) are skipped; anything on stdout that
// is not JSON-RPC, and any error answer, fails the test.
func (s *session) roundTrip(method string, params any) (map[string]any, time.Duration) {
	s.t.Helper()
	s.id++
	req, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params})
	if err != nil {
		s.t.Fatal(err)
	}
	begin := time.Now()
	if _, err := s.in.Write(append(req, '\n')); err != nil {
		s.fail("%s: write: %v", method, err)
	}
	for {
		line, err := s.next()
		if err != nil {
			s.fail("%s: no answer: %v", method, err)
		}
		d := time.Since(begin)
		m := s.message(method, line)
		if _, isNotification := m["method"]; isNotification && m["id"] == nil {
			continue
		}
		if m["id"] != float64(s.id) {
			s.fail("%s: answer to id %v, want %d: %.200q", method, m["id"], s.id, line)
		}
		if m["error"] != nil {
			s.fail("%s: error answer: %v", method, m["error"])
		}
		res, _ := m["result"].(map[string]any)
		return res, d
	}
}

// follow hands stdout to a goroutine that passes each line on s.lines, so
// that a wait can time out. The goroutine ends at the end of stdout, once
// the process has exited; the returned function waits for it, and so does
// the test's cleanup, which first ends the process if the test failed
// before it could.
func (s *session) follow() (wait func()) {
	s.lines = make(chan []byte, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(s.lines)
		for {
			line, err := s.out.ReadBytes('\n')
			if len(line) > 0 {
				s.lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	var once sync.Once
	wait = func() {
		once.Do(func() {
			for range s.lines { // nobody reads any more: let the reader finish
			}
			<-done
		})
	}
	s.t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Kill()
		}
		wait()
	})
	return wait
}

// qualifiedNames lists the tools and returns the namespaced (plugin) skill
// names the skill tool's description shows, so that calls reach plugin
// skills too; it checks that the skill tool is there.
func (s *session) qualifiedNames() []string {
	s.t.Helper()
	res, _ := s.roundTrip("tools/list", map[string]any{})
	tools, _ := res["tools"].([]any)
	for _, tool := range tools {
		tool, _ := tool.(map[string]any)
		if tool["name"] != "skill" {
			continue
		}
		desc, _ := tool["description"].(string)
		var names []string
		for _, line := range strings.Split(desc, "\n") {
			if entry, ok := strings.CutPrefix(line, "- "); ok {
				name, _, _ := strings.Cut(entry, ": ")
				if strings.Contains(name, ":") {
					names = append(names, name)
				}
			}
		}
		return names
	}
	s.fail("tools/list has no skill tool: %v", res)
	return nil
}

// checkSkill checks that a skill call answered with the skill: no error,
// and a first text block that names it and carries its file.
func (s *session) checkSkill(name string, res map[string]any) {
	s.t.Helper()
	if res == nil || res["isError"] == true {
		s.fail("skill %s: %v", name, res)
	}
	content, _ := res["content"].([]any)
	if len(content) == 0 {
		s.fail("skill %s: no content", name)
	}
	first, _ := content[0].(map[string]any)
	text, _ := first["text"].(string)
	if first["type"] != "text" || !strings.Contains(text, name) || !strings.Contains(text, "\n---\n") {
		s.fail("skill %s: first block is not the skill: %.300q", name, text)
	}
}

// peakRSS returns the high-water mark of the running server's resident
// memory, in KiB: VmHWM in /proc/<pid>/status. The Maxrss that wait4
// reports after exit does not do: at exec, Linux keeps in it the resident
// size of the process image being replaced, which for a child of the Go
// runtime (cloned sharing its parent's memory) is the test process's own.
// A harness holding 50 MB made every server under 50 MB report 50 MB.
func (s *session) peakRSS() (int64, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb, err == nil
		}
	}
	return 0, false
}

// servingLine is the log line serve writes once the catalog is built.
var servingLine = regexp.MustCompile(`msg="serving MCP on stdio" skills=(\d+)`)

// servedCount returns the number of skills the server's log says it
// serves, or -1. The server's logs go through a queue of their own, so
// the line may reach the file a moment after initialize was answered: it
// is awaited for a while.
func (s *session) servedCount() int {
	m := s.awaitLog(servingLine, 5*time.Second)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// indexedLine is the log line serve writes once the search index is built,
// which it starts once the deferred scan is complete and the folders are
// watched.
var indexedLine = regexp.MustCompile(`msg="search index updated"`)

// awaitLog waits up to timeout for a line of the server's log that re
// matches, and returns the match, or nil.
func (s *session) awaitLog(re *regexp.Regexp, timeout time.Duration) [][]byte {
	for deadline := time.Now().Add(timeout); ; time.Sleep(5 * time.Millisecond) {
		log, err := os.ReadFile(s.stderr)
		if err != nil {
			s.t.Fatal(err)
		}
		if m := re.FindSubmatch(log); m != nil {
			return m
		}
		if time.Now().After(deadline) {
			return nil
		}
	}
}
