package dirtree_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	corpusdir "github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// benchmarkScan lists a folder of n skills written by write with a new
// Tree each time, as a server does at start. The files are in the page
// cache: this is the scan's own cost, not the disk's. b.Loop leaves the
// writing out of the timing.
func benchmarkScan(b *testing.B, n int, write func(dir string) error, opts *dirtree.Options) {
	dir := b.TempDir()
	if err := write(dir); err != nil {
		b.Fatal(err)
	}
	var held uint64
	b.ReportAllocs()
	for b.Loop() {
		before := liveHeap()
		t := dirtree.New(dir, opts)
		l, err := t.List(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Skills) != n {
			b.Fatalf("listed %d skills, want %d", len(l.Skills), n)
		}
		held = max(held, liveHeap()-min(before, liveHeap()))
		runtime.KeepAlive(t)
		runtime.KeepAlive(l)
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/skill")
	b.ReportMetric(float64(held)/float64(n), "held-B/skill")
}

// liveHeap returns the bytes of heap objects reachable after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// synthetic writes skills from skillgen.Generate: plain "key: value" front
// matter, a 3 kB body and one reference file each.
func synthetic(n int) func(string) error {
	return func(dir string) error { return skillgen.Generate(dir, n, nil) }
}

// real writes copies of the shared corpus's real skills
// (skillgen.Replicate): quoted and block-scalar descriptions, metadata
// maps, flow lists, real bodies, references and scripts, plugin layouts.
func real(b *testing.B, n int) func(string) error {
	corpus := corpusdir.Dir(b)
	return func(dir string) error {
		_, err := skillgen.Replicate(dir, corpus, n, nil)
		return err
	}
}

// The whole scan, inside skill folders too (what `skillmux list` does).
func BenchmarkScan1k(b *testing.B)      { benchmarkScan(b, 1_000, synthetic(1_000), nil) }
func BenchmarkScan10k(b *testing.B)     { benchmarkScan(b, 10_000, synthetic(10_000), nil) }
func BenchmarkScanReal10k(b *testing.B) { benchmarkScan(b, 10_000, real(b, 10_000), nil) }

// The deferred scan a watching server answers its first request after.
func BenchmarkScanDeferred10k(b *testing.B) {
	benchmarkScan(b, 10_000, synthetic(10_000), &dirtree.Options{Defer: true})
}
func BenchmarkScanDeferredReal10k(b *testing.B) {
	benchmarkScan(b, 10_000, real(b, 10_000), &dirtree.Options{Defer: true})
}

// BenchmarkRescan10k lists a tree of 10,000 skills again with nothing
// changed: the periodic rescan, every file's parse reused.
func BenchmarkRescan10k(b *testing.B) {
	dir := b.TempDir()
	if err := skillgen.Generate(dir, 10_000, nil); err != nil {
		b.Fatal(err)
	}
	t := dirtree.New(dir, nil)
	if _, err := t.List(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := t.List(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanWarmReal10k is a server's start on 10,000 real-shaped skills
// with the parse cache its last run saved (Options.CacheDir): a new Tree
// each time, deferred as a watching server's is.
func BenchmarkScanWarmReal10k(b *testing.B) {
	dir, cache := b.TempDir(), b.TempDir()
	if err := real(b, 10_000)(dir); err != nil {
		b.Fatal(err)
	}
	// Files written within the cache's racy window are not trusted.
	time.Sleep(2100 * time.Millisecond)
	opts := &dirtree.Options{Defer: true, CacheDir: cache}
	first := dirtree.New(dir, &dirtree.Options{CacheDir: cache})
	if _, err := first.List(context.Background()); err != nil {
		b.Fatal(err)
	}
	first.Close()
	b.ReportAllocs()
	for b.Loop() {
		t := dirtree.New(dir, opts)
		l, err := t.List(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Skills) != 10_000 {
			b.Fatalf("listed %d skills, want 10000", len(l.Skills))
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/10_000, "µs/skill")
}
