//go:build e2ebench

// Package e2ebench measures the built skillmux binary from a separate
// client process over a real pipe: start-up to the initialize answer, the
// round trip of a skill call next to a ping, and peak resident memory.
// Targets are reported, never asserted: these machines are shared.
//
//	go test -tags e2ebench -run TestE2EBench -v -count=1 ./internal/e2ebench/
//
// SKILLMUX_BENCH_RUNS sets the number of runs per size (default 15) and
// SKILLMUX_BENCH_OUT a file to write the markdown table to.
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

	"github.com/skillmux/skillmux/internal/skillgen"
)

type result struct {
	label      string
	skills     int
	start      []time.Duration // process start to initialize answered
	ping, call []time.Duration
	peakRSSKB  int64
}

func TestE2EBench(t *testing.T) {
	runs := 15
	if v, err := strconv.Atoi(os.Getenv("SKILLMUX_BENCH_RUNS")); err == nil && v > 0 {
		runs = v
	}
	bin := build(t)
	var results []result
	for _, n := range []int{1_000, 10_000} {
		dir := t.TempDir()
		if err := skillgen.Generate(dir, n, nil); err != nil {
			t.Fatal(err)
		}
		home := t.TempDir()
		results = append(results, measure(t, bin, fmt.Sprintf("%d skills (--root)", n), n, runs, home, "serve", "--no-builtin", "--root", dir))
	}
	if home, n, ok := realisticHome(t); ok {
		results = append(results, measure(t, bin, "realistic home: 1,000 own skills + every corpus plugin installed", n, runs, home, "serve"))
	}
	report(t, results)
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

// realisticHome is a home folder with 1,000 skills of the person's own and
// every plugin package of the shared corpus installed and enabled.
func realisticHome(t *testing.T) (string, int, bool) {
	corpus, _ := filepath.Abs(filepath.Join("..", "..", "..", "shared", "corpus"))
	if _, err := os.Stat(corpus); err != nil {
		t.Log("corpus not present: realistic home skipped")
		return "", 0, false
	}
	home := t.TempDir()
	if err := skillgen.Generate(filepath.Join(home, ".claude", "skills"), 1_000, &skillgen.Options{Prefix: "mine"}); err != nil {
		t.Fatal(err)
	}
	plugins := map[string]string{}
	matches, _ := filepath.Glob(filepath.Join(corpus, "claude-plugins-official", "*", "*"))
	for _, m := range matches {
		plugins[filepath.Base(m)+"@claude-plugins-official"] = m
	}
	for _, n := range []string{"example-skills", "document-skills", "claude-api"} {
		plugins[n+"@anthropic-agent-skills"] = filepath.Join(corpus, "anthropics-skills")
	}
	plugins["superpowers@superpowers-dev"] = filepath.Join(corpus, "obra-superpowers")
	records, enabled := map[string]any{}, map[string]bool{}
	for k, p := range plugins {
		records[k] = []any{map[string]any{"scope": "user", "installPath": p, "version": "1"}}
		enabled[k] = true
	}
	writeJSON(t, filepath.Join(home, ".claude", "plugins", "installed_plugins.json"), map[string]any{"version": 2, "plugins": records})
	writeJSON(t, filepath.Join(home, ".claude", "settings.json"), map[string]any{"enabledPlugins": enabled})
	return home, 1_000, true
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, _ := json.Marshal(v)
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// session is one server process and a client of it.
type session struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func (s *session) roundTrip(method string, params any) (map[string]any, time.Duration) {
	s.t.Helper()
	s.id++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params})
	start := time.Now()
	if _, err := s.in.Write(append(req, '\n')); err != nil {
		s.t.Fatal(err)
	}
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			s.t.Fatalf("%s: %v", method, err)
		}
		// The clock stops when the whole answer has arrived: decoding it
		// is the client's work, not the server's.
		d := time.Since(start)
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			s.t.Fatalf("%s: stdout is not JSON: %q", method, line)
		}
		if m["id"] == float64(s.id) {
			if m["error"] != nil {
				s.t.Fatalf("%s: %v", method, m["error"])
			}
			return m["result"].(map[string]any), d
		}
	}
}

func measure(t *testing.T, bin, label string, n, runs int, home string, args ...string) result {
	t.Helper()
	r := result{label: label, skills: n}
	for run := range runs {
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}
		cmd.Dir = home
		in, _ := cmd.StdinPipe()
		out, _ := cmd.StdoutPipe()
		s := &session{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
		begin := time.Now()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		init, _ := s.roundTrip("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "bench", "version": "1"}})
		r.start = append(r.start, time.Since(begin))
		if init["serverInfo"] == nil {
			t.Fatalf("initialize: %v", init)
		}
		in.Write([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"))
		if run == 0 {
			names := skillNames(t, s)
			if len(names) == 0 {
				t.Fatalf("%s: no skill listed", label)
			}
			for i := range 200 {
				_, d := s.roundTrip("ping", map[string]any{})
				r.ping = append(r.ping, d)
				res, d2 := s.roundTrip("tools/call", map[string]any{"name": "skill", "arguments": map[string]any{"name": names[(i*7919)%len(names)]}})
				if res["isError"] == true {
					t.Fatalf("skill call failed: %v", res)
				}
				r.call = append(r.call, d2)
			}
		}
		in.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("exit: %v", err)
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.peakRSSKB = max(r.peakRSSKB, ru.Maxrss)
		}
	}
	return r
}

// skillNames reads the names listed in the tool description (the budget
// cuts the list; those listed are spread over the catalog).
func skillNames(t *testing.T, s *session) []string {
	t.Helper()
	res, _ := s.roundTrip("tools/list", map[string]any{})
	desc := res["tools"].([]any)[0].(map[string]any)["description"].(string)
	var names []string
	for _, line := range strings.Split(desc, "\n") {
		if name, ok := strings.CutPrefix(line, "- "); ok {
			name, _, _ = strings.Cut(name, ": ")
			names = append(names, name)
		}
	}
	return names
}

func pct(ds []time.Duration, p float64) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
func us(d time.Duration) string { return fmt.Sprintf("%d µs", d.Microseconds()) }

func report(t *testing.T, results []result) {
	var b strings.Builder
	fmt.Fprintf(&b, "Machine: %s, %d CPUs, %s/%s, %s\n\n", cpuModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	b.WriteString("| catalog | start to initialize, median (p90) | ping RTT median | skill call RTT median | call / ping | peak RSS |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, r := range results {
		ping, call := pct(r.ping, 0.5), pct(r.call, 0.5)
		fmt.Fprintf(&b, "| %s | %s (%s) | %s | %s | %.2f | %.1f MB |\n", r.label, ms(pct(r.start, 0.5)), ms(pct(r.start, 0.9)),
			us(ping), us(call), float64(call)/float64(max(ping, 1)), float64(r.peakRSSKB)/1024)
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
