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
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/skillmux/skillmux/internal/corpus"
)

// TestE2ESearch measures skills_search from a separate client process
// over real pipes, on copies of the shared corpus (real descriptions and
// bodies): the time from the first handshake to the first answer (the
// index is built in the background from the handshake on, and a search
// waits for it), then the round trip of searches next to that of pings.
// Targets (median under 1 ms at 1,000 skills, 3 ms at 10,000) are
// reported, not asserted; the test fails only on a wrong answer.
//
//	go test -tags e2ebench -run TestE2ESearch -v -count=1 ./internal/e2ebench/
//
// SKILLMUX_BENCH_RUNS sets the server processes per catalog (default 5).
func TestE2ESearch(t *testing.T) {
	runs := 5
	if v, err := strconv.Atoi(os.Getenv("SKILLMUX_BENCH_RUNS")); err == nil && v > 0 {
		runs = v
	}
	bin := build(t)
	queries := []string{
		"make an animated gif to post in slack",
		"my tests keep failing and I can't figure out why",
		"reply to the comments people left on my github PR",
		"get ready for tomorrow's meeting from our notion pages",
		"add a slash command to my plugin",
		"write release notes",
		"pdf",
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Machine: %s; runtime.NumCPU %d; %s/%s; %s\n\n", cpuModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	fmt.Fprintf(&b, "%d server processes per catalog; in each, 200 skills_search calls (%d queries in turn, limit 10) and 200 pings interleaved.\n\n", runs, len(queries))
	b.WriteString("| catalog | start to initialize answered, median | handshake to first search answered, median (max) | search RTT median (p90) | ping RTT median (p90) | target |\n|---|---|---|---|---|---|\n")
	for _, tt := range []struct {
		n      int
		target time.Duration
	}{{1_000, time.Millisecond}, {10_000, 3 * time.Millisecond}} {
		dir := t.TempDir()
		corpus.Replicate(t, dir, tt.n)
		var starts, firsts, searches, pings []time.Duration
		for range runs {
			c := startSearchClient(t, bin, dir)
			begin := time.Now()
			if err := c.cmd.Start(); err != nil {
				t.Fatal(err)
			}
			c.call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "e2ebench", "version": "1"}})
			starts = append(starts, time.Since(begin))
			c.notify("notifications/initialized")
			res, d := c.call("tools/call", map[string]any{"name": "skills_search", "arguments": map[string]any{"query": queries[0]}})
			c.checkHits(res)
			firsts = append(firsts, d)
			for i := range 200 {
				_, d := c.call("ping", map[string]any{})
				pings = append(pings, d)
				res, d = c.call("tools/call", map[string]any{"name": "skills_search", "arguments": map[string]any{"query": queries[i%len(queries)]}})
				c.checkHits(res)
				searches = append(searches, d)
			}
			c.stop()
		}
		med := pct(searches, 0.5)
		met := "met"
		if med > tt.target {
			met = "not met"
		}
		fmt.Fprintf(&b, "| %d real-shaped skills, `serve --no-builtin --root DIR` | %s | %s (%s) | %s (%s) | %s (%s) | median under %s: %s |\n", tt.n,
			ms(pct(starts, 0.5)), ms(pct(firsts, 0.5)), ms(pct(firsts, 1)), us(med), us(pct(searches, 0.9)), us(pct(pings, 0.5)), us(pct(pings, 0.9)), tt.target, met)
	}
	t.Log("\n" + b.String())
}

// searchClient is one server process and the client end of its pipes.
type searchClient struct {
	t   *testing.T
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	log string
	id  int
}

func startSearchClient(t *testing.T, bin, dir string) *searchClient {
	t.Helper()
	home := t.TempDir()
	s := start(t, bin, &catalog{home: home, cache: filepath.Join(home, ".cache"), args: []string{"serve", "--no-builtin", "--root", dir}})
	return &searchClient{t: t, cmd: s.cmd, in: s.in, out: s.out, log: s.stderr}
}

func (c *searchClient) fail(format string, args ...any) {
	c.t.Helper()
	if c.cmd.Process != nil {
		c.cmd.Process.Kill()
	}
	log, _ := os.ReadFile(c.log)
	c.t.Fatalf("%s\nserver log:\n%s", fmt.Sprintf(format, args...), log)
}

func (c *searchClient) notify(method string) {
	fmt.Fprintf(c.in, `{"jsonrpc":"2.0","method":%q}`+"\n", method)
}

// call times a request from just before the write to the arrival of the
// whole answer line; notifications on the way are skipped.
func (c *searchClient) call(method string, params any) (map[string]any, time.Duration) {
	c.t.Helper()
	c.id++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	begin := time.Now()
	if _, err := c.in.Write(append(req, '\n')); err != nil {
		c.fail("%s: write: %v", method, err)
	}
	for {
		line, err := c.out.ReadBytes('\n')
		if err != nil {
			c.fail("%s: no answer: %v", method, err)
		}
		d := time.Since(begin)
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			c.fail("%s: stdout is not JSON-RPC: %.200q", method, line)
		}
		if m["id"] != float64(c.id) {
			continue
		}
		if m["error"] != nil {
			c.fail("%s: %v", method, m["error"])
		}
		res, _ := m["result"].(map[string]any)
		return res, d
	}
}

func (c *searchClient) checkHits(res map[string]any) {
	c.t.Helper()
	sc, _ := res["structuredContent"].(map[string]any)
	hits, _ := sc["hits"].([]any)
	if res["isError"] == true || len(hits) == 0 {
		c.fail("search found nothing: %v", res)
	}
}

func (c *searchClient) stop() {
	c.in.Close()
	if err := c.cmd.Wait(); err != nil {
		c.fail("exit: %v", err)
	}
}
