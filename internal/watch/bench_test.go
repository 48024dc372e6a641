package watch

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// Run with: go test -run '^$' -bench . -benchtime 20x ./internal/watch/

// BenchmarkAddTree measures Add on a tree of 10,000 folders below its root
// (100 groups of 99 skill folders), as a large skills folder would be: the
// walk, a watch per folder, and the bookkeeping. New and Close are not timed.
// heap-B/folder is the heap the watches hold, fsnotify's share included,
// measured after a collection: what a large catalog's watching costs in
// memory for as long as the server runs.
func BenchmarkAddTree(b *testing.B) {
	root := b.TempDir()
	for g := range 100 {
		for s := range 99 {
			if err := os.MkdirAll(filepath.Join(root, fmt.Sprintf("g%02d", g), fmt.Sprintf("s%02d", s)), 0o755); err != nil {
				b.Fatal(err)
			}
		}
	}
	const folders = 1 + 100 + 100*99
	var held uint64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		w, err := New(nil)
		if err != nil {
			b.Fatal(err)
		}
		before := liveHeap()
		b.StartTimer()
		if err := w.Add(root); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if n := len(w.dirs); n != folders {
			b.Fatalf("%d folders watched; want %d", n, folders)
		}
		held = max(held, liveHeap()-min(before, liveHeap()))
		w.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/folders, "ns/folder")
	b.ReportMetric(float64(held)/folders, "heap-B/folder")
}

// liveHeap returns the bytes of heap objects reachable after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkLatency measures the time from writing a new file to the batch
// that names it arriving in the callback: the Debounce wait plus the
// watcher's own work. Each write is a new file, so that no batch is mistaken
// for another write's.
func BenchmarkLatency(b *testing.B) {
	for _, debounce := range []time.Duration{time.Millisecond, DefaultDebounce} {
		b.Run("debounce="+debounce.String(), func(b *testing.B) {
			root := b.TempDir()
			dir := filepath.Join(root, "skill")
			if err := os.Mkdir(dir, 0o755); err != nil {
				b.Fatal(err)
			}
			w, err := New(&Options{Debounce: debounce})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			if err := w.Add(root); err != nil {
				b.Fatal(err)
			}
			batches := make(chan Batch, 16)
			ctx, cancel := context.WithCancel(b.Context())
			defer cancel()
			go w.Run(ctx, func(bt Batch) { batches <- bt })

			var lat []time.Duration
			b.ResetTimer()
			for i := range b.N {
				f := filepath.Join(dir, fmt.Sprintf("f%d.md", i))
				t0 := time.Now()
				if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
					b.Fatal(err)
				}
				for found := false; !found; {
					select {
					case bt := <-batches:
						found = slices.Contains(bt.Paths, f)
					case <-time.After(hang):
						b.Fatalf("no batch with %s", f)
					}
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer() // not the deferred Close
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		})
	}
}
