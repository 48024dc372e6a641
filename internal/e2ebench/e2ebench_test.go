//go:build e2ebench

// Package e2ebench measures the built skillmux binary from a separate
// client process over real pipes: process start to the initialize answer,
// the round trip of a skill call next to that of a ping, and peak resident
// memory. Targets are reported, never asserted: these machines are shared
// and noisy. The test fails only on a wrong answer.
//
//	go test -tags e2ebench -run TestE2EBench -v -count=1 ./internal/e2ebench/
//
// SKILLMUX_BENCH_RUNS sets the number of server processes per catalog
// (default 15); SKILLMUX_BENCH_OUT names a file to write the markdown
// report to.
package e2ebench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/internal/skillgen"
)

// Workload of one run, after initialize.
const (
	calls          = 200              // pings, and as many skill calls, interleaved
	processTimeout = 60 * time.Second // a server that hangs fails the test instead of the whole go test
)

// catalog is one set of skills to serve and how to serve it.
type catalog struct {
	label string
	home  string   // HOME of the server; its working folder too
	args  []string // after the binary
	names []string // skills to call, spread over the catalog
}

// result is what the runs over one catalog measured.
type result struct {
	label      string
	start      []time.Duration // process start to initialize answered
	ping, call []time.Duration // every round trip of every run
	peakRSSKB  int64           // the largest of the runs
}

func TestE2EBench(t *testing.T) {
	runs := 15
	if v, err := strconv.Atoi(os.Getenv("SKILLMUX_BENCH_RUNS")); err == nil && v > 0 {
		runs = v
	}
	bin := build(t)
	var cats []catalog
	for _, n := range []int{1_000, 10_000} {
		dir := t.TempDir()
		if err := skillgen.Generate(dir, n, nil); err != nil {
			t.Fatal(err)
		}
		// An empty home: the built-in sources find nothing and cost only
		// their look-ups, as on a machine with no other skills.
		cats = append(cats, catalog{
			label: fmt.Sprintf("%d skills, `serve --root DIR`", n),
			home:  t.TempDir(),
			args:  []string{"serve", "--root", dir},
			names: generatedNames("skill", n),
		})
	}
	if c, ok := realisticHome(t); ok {
		cats = append(cats, c)
	}
	var results []result
	for _, c := range cats {
		results = append(results, measure(t, bin, c, runs))
	}
	report(t, runs, results)
}

// build compiles the binary from the module root.
func build(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	bin := filepath.Join(t.TempDir(), "skillmux")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/skillmux")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// generatedNames returns the names skillgen gives n skills, in an order
// that visits the whole catalog in few steps (a stride prime to n).
func generatedNames(prefix string, n int) []string {
	names := make([]string, n)
	for i := range n {
		names[i] = fmt.Sprintf("%s-%05d", prefix, (i*7919)%n)
	}
	return names
}

// realisticHome is a home folder with 1,000 skills of the person's own in
// ~/.claude/skills and every plugin of the shared corpus's marketplaces
// that the corpus holds installed and enabled in Claude Code, served with
// a plain `serve`.
func realisticHome(t *testing.T) (catalog, bool) {
	dir, ok := corpus.Lookup(t)
	if !ok {
		return catalog{}, false
	}
	markets, _ := filepath.Glob(filepath.Join(dir, "*", ".claude-plugin", "marketplace.json"))
	if len(markets) == 0 {
		t.Fatalf("no marketplace.json in the corpus at %s", dir)
	}
	home := t.TempDir()
	if err := skillgen.Generate(filepath.Join(home, ".claude", "skills"), 1_000, &skillgen.Options{Prefix: "mine"}); err != nil {
		t.Fatal(err)
	}
	records, enabled := map[string]any{}, map[string]bool{}
	for _, m := range markets {
		var market struct {
			Name    string
			Plugins []struct {
				Name   string
				Source any // a path inside the marketplace, or where to fetch from
			}
		}
		data, err := os.ReadFile(m)
		if err == nil {
			err = json.Unmarshal(data, &market)
		}
		if err != nil {
			t.Fatalf("read %s: %v", m, err)
		}
		marketDir := filepath.Dir(filepath.Dir(m))
		for _, p := range market.Plugins {
			src, ok := p.Source.(string)
			if !ok {
				continue // fetched from elsewhere: not in the corpus
			}
			dir := filepath.Join(marketDir, src)
			if _, err := os.Stat(dir); err != nil {
				continue
			}
			key := p.Name + "@" + market.Name
			records[key] = []any{map[string]any{"scope": "user", "installPath": dir, "version": "1"}}
			enabled[key] = true
		}
	}
	writeJSON(t, filepath.Join(home, ".claude", "plugins", "installed_plugins.json"), map[string]any{"version": 2, "plugins": records})
	writeJSON(t, filepath.Join(home, ".claude", "settings.json"), map[string]any{"enabledPlugins": enabled})
	return catalog{
		label: fmt.Sprintf("realistic home: 1,000 own skills + %d corpus plugins installed, `serve`", len(records)),
		home:  home,
		args:  []string{"serve"},
		names: generatedNames("mine", 1_000),
	}, true
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o755)
	}
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// measure starts the server runs times over c and times each run.
func measure(t *testing.T, bin string, c catalog, runs int) result {
	t.Helper()
	r := result{label: c.label}
	for range runs {
		s := start(t, bin, c)
		begin := time.Now()
		if err := s.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		watchdog := time.AfterFunc(processTimeout, func() { s.cmd.Process.Kill() })
		init, _ := s.roundTrip("initialize", map[string]any{
			"protocolVersion": "2025-11-25",
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]any{"name": "e2ebench", "version": "1"},
		})
		r.start = append(r.start, time.Since(begin))
		if _, ok := init["serverInfo"].(map[string]any); !ok {
			s.fail("initialize answered without serverInfo: %v", init)
		}
		s.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})

		names := append(slices.Clone(c.names), s.qualifiedNames()...)
		for i := range calls {
			res, d := s.roundTrip("ping", map[string]any{})
			if res == nil {
				s.fail("ping answered without a result object")
			}
			r.ping = append(r.ping, d)
			name := names[i*len(names)/calls]
			res, d = s.roundTrip("tools/call", map[string]any{"name": "skill", "arguments": map[string]any{"name": name}})
			s.checkSkill(name, res)
			r.call = append(r.call, d)
		}

		s.in.Close()
		err := s.cmd.Wait()
		watchdog.Stop()
		if err != nil {
			s.fail("exit: %v", err)
		}
		if ru, ok := s.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.peakRSSKB = max(r.peakRSSKB, ru.Maxrss) // KiB on Linux
		}
	}
	return r
}

// session is one server process and the client end of its pipes.
type session struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr string // file the server logs to
	id     int
}

// start prepares, without starting it, a server over c. Its stderr goes to
// a file, as a client would keep it, so that a failure can show the log.
func start(t *testing.T, bin string, c catalog) *session {
	t.Helper()
	cmd := exec.Command(bin, c.args...)
	cmd.Dir = c.home
	cmd.Env = []string{"HOME=" + c.home, "XDG_CONFIG_HOME=" + filepath.Join(c.home, ".config"), "PATH=" + os.Getenv("PATH")}
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
	return &session{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), stderr: logf.Name()}
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
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			s.fail("%s: no answer: %v", method, err)
		}
		d := time.Since(begin)
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil || m["jsonrpc"] != "2.0" {
			s.fail("%s: stdout is not JSON-RPC: %.200q", method, line)
		}
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

func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
func us(d time.Duration) string { return fmt.Sprintf("%d µs", d.Microseconds()) }

func report(t *testing.T, runs int, results []result) {
	var b strings.Builder
	fmt.Fprintf(&b, "Machine: %s; runtime.NumCPU %d; uname -m %s; %s/%s; %s\n\n", cpuModel(), runtime.NumCPU(), unameM(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	fmt.Fprintf(&b, "%d server processes per catalog; in each, %d pings and %d skill calls interleaved.\n\n", runs, calls, calls)
	b.WriteString("| catalog | start to initialize answered, median (p90) | ping RTT median (p90) | skill call RTT median (p90) | skill / ping, medians | peak RSS, max |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, r := range results {
		ping, call := pct(r.ping, 0.5), pct(r.call, 0.5)
		fmt.Fprintf(&b, "| %s | %s (%s) | %s (%s) | %s (%s) | %.2f | %.1f MB |\n",
			r.label, ms(pct(r.start, 0.5)), ms(pct(r.start, 0.9)),
			us(ping), us(pct(r.ping, 0.9)), us(call), us(pct(r.call, 0.9)),
			float64(call)/float64(max(ping, 1)), float64(r.peakRSSKB)/1024)
	}
	t.Log("\n" + b.String())
	if out := os.Getenv("SKILLMUX_BENCH_OUT"); out != "" {
		if err := os.WriteFile(out, []byte(b.String()), 0o644); err != nil {
			t.Error(err)
		}
	}
}

func cpuModel() string {
	data, _ := os.ReadFile("/proc/cpuinfo")
	for _, line := range strings.Split(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}

func unameM() string {
	out, err := exec.Command("uname", "-m").Output()
	if err != nil {
		return "unknown"
	}
	return strings.TrimSpace(string(out))
}
