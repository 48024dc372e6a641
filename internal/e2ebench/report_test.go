//go:build e2ebench

package e2ebench

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// pct is the p-th percentile of ds by the nearest-rank method: the
// smallest value that at least p of the values do not exceed. (Of 20
// values, the 95th percentile is the 19th smallest, not the largest.)
func pct(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	rank := int(math.Ceil(p * float64(len(s))))
	return s[min(len(s), max(rank, 1))-1]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
func us(d time.Duration) string { return fmt.Sprintf("%d µs", d.Microseconds()) }
func mb(kb int64) string        { return fmt.Sprintf("%.1f MB", float64(kb)/1024) }

// report logs the markdown report, and writes it to SKILLMUX_BENCH_OUT;
// load is the load average when the test started.
func report(t *testing.T, set settings, load string, results []result) {
	var b strings.Builder
	fmt.Fprintf(&b, "Machine: %s; runtime.NumCPU %d; uname -m %s; %s/%s; %s; load average (1, 5, 15 min) %s at the start, %s at the end\n\n",
		cpuModel(), runtime.NumCPU(), unameM(), runtime.GOOS, runtime.GOARCH, runtime.Version(), load, loadAverage())
	mode := ""
	if set.ci {
		mode = " (CI mode: notifications timed on the smallest catalogs only)"
	}
	fmt.Fprintf(&b, "%d cold and %d warm server processes per catalog%s. A cold one starts with an empty cache folder (XDG_CACHE_HOME) and, after initialize, makes %d pings and %d skill calls interleaved, and as many again once the work of its start is done (the search index built); a warm one follows it on the same home and cache and only initializes, so its CPU time (user and system, all threads) is the start's. The skill files are in the page cache for both.\n\n",
		set.runs, set.runs, mode, calls, calls)

	b.WriteString("| catalog | skills served | start, cold: median (p90) | start, warm: median (p90) | warm process CPU, median | ping RTT median (p90) | skill call RTT median (p90) | skill / ping, medians | the same once the start's work is done | peak RSS, cold / warm (max) |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		ping, call := pct(r.ping, 0.5), pct(r.call, 0.5)
		sping, scall := pct(r.settledPing, 0.5), pct(r.settledCall, 0.5)
		fmt.Fprintf(&b, "| %s | %s | %s (%s) | %s (%s) | %s | %s (%s) | %s (%s) | %.2f | %s / %s: %.2f | %s / %s |\n",
			r.cat.label, thousands(r.served),
			ms(pct(r.cold, 0.5)), ms(pct(r.cold, 0.9)), ms(pct(r.warm, 0.5)), ms(pct(r.warm, 0.9)), ms(pct(r.warmCPU, 0.5)),
			us(ping), us(pct(r.ping, 0.9)), us(call), us(pct(r.call, 0.9)),
			float64(call)/float64(max(ping, 1)), us(scall), us(sping), float64(scall)/float64(max(sping, 1)),
			mb(r.coldRSSKB), mb(r.warmRSSKB))
	}

	b.WriteString("\n| corpus | sizes | start, cold: ms per 1,000 skills | start, warm: ms per 1,000 skills |\n")
	b.WriteString("|---|---|---|---|\n")
	for _, corpus := range []string{synthetic, realShaped} {
		var prev *result
		for i := range results {
			r := &results[i]
			if r.cat.corpus != corpus {
				continue
			}
			if prev != nil {
				per := float64(r.cat.skills-prev.cat.skills) / 1000
				slope := func(a, b []time.Duration) string {
					return fmt.Sprintf("%.2f", float64((pct(b, 0.5)-pct(a, 0.5)).Microseconds())/1000/per)
				}
				fmt.Fprintf(&b, "| %s | %s → %s | %s | %s |\n", corpus, thousands(prev.cat.skills), thousands(r.cat.skills),
					slope(prev.cold, r.cold), slope(prev.warm, r.warm))
			}
			prev = r
		}
	}

	fmt.Fprintf(&b, "\n| catalog | new skills written | notifications/tools/list_changed: median | p95 | largest (which) | none within %v |\n", watchTimeout)
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, r := range results {
		w := r.watch
		if w == nil {
			continue
		}
		tried := len(w.arrived) + w.missed
		missed := fmt.Sprint(w.missed)
		if tried < w.planned {
			missed += fmt.Sprintf(" (the other %d not tried)", w.planned-tried)
		}
		median, p95, largest := "not supported", "-", "-"
		if w.supported() {
			median, p95 = ms(pct(w.arrived, 0.5)), ms(pct(w.arrived, 0.95))
			i := slices.Index(w.arrived, slices.Max(w.arrived))
			largest = fmt.Sprintf("%s (skill %d)", ms(w.arrived[i]), i+1)
		}
		fmt.Fprintf(&b, "| %s | %d of %d | %s | %s | %s | %s |\n", r.cat.label, tried, w.planned, median, p95, largest, missed)
	}

	b.WriteString("\n| catalog | written in | on disk (hard links once) |\n")
	b.WriteString("|---|---|---|\n")
	for _, r := range results {
		if r.cat.written > 0 {
			fmt.Fprintf(&b, "| %s | %v | %.0f MB |\n", r.cat.label, r.cat.written.Round(10*time.Millisecond), float64(r.cat.disk)/1e6)
		}
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

// loadAverage is the 1, 5 and 15 minute load of the machine: other work on
// a shared machine moves the figures.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func TestPct(t *testing.T) {
	var ds []time.Duration
	for i := 20; i >= 1; i-- {
		ds = append(ds, time.Duration(i))
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{0.5, 10}, {0.9, 18}, {0.95, 19}, {1, 20}, {0.01, 1}} {
		if got := pct(ds, c.p); got != c.want {
			t.Errorf("pct(1..20, %v) = %v, want %v", c.p, got, c.want)
		}
	}
}
