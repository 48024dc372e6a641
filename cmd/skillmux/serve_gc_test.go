package main

import (
	"os"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// gcPercent is the collector's setting, read without changing it.
func gcPercent(t *testing.T) int64 {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Skip("no /gc/gogc:percent metric")
	}
	return int64(s[0].Value.Uint64())
}

// The start's lazy collector lasts while the heap is small, and ends at
// once when it grows past smallStart or when the start is over.
func TestLazyStartGC(t *testing.T) {
	if os.Getenv("GOGC") != "" {
		t.Skip("GOGC is set, which the start leaves alone")
	}
	before := gcPercent(t)
	end := lazyStartGC()
	if got := gcPercent(t); got != startGOGC {
		t.Errorf("during a small start: GOGC %d, want %d", got, startGOGC)
	}
	end()
	if got := gcPercent(t); got != before {
		t.Errorf("once the start is over: GOGC %d, want %d again", got, before)
	}

	end = lazyStartGC()
	defer end()
	big := make([]byte, smallStart+8<<20)
	for deadline := time.Now().Add(5 * time.Second); gcPercent(t) != before; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("a heap past %d bytes left GOGC at %d for 5 s; want %d", smallStart, gcPercent(t), before)
		}
	}
	runtime.KeepAlive(big)
}
