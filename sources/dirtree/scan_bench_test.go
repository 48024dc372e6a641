package dirtree_test

import (
	"context"
	"testing"

	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// benchmarkScan lists a folder of n generated skills, as the server does at
// start. The files are in the page cache: this is the scan's own cost, not
// the disk's. b.Loop leaves the generation out of the timing.
func benchmarkScan(b *testing.B, n int) {
	dir := b.TempDir()
	if err := skillgen.Generate(dir, n, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := dirtree.New(dir, nil).List(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Skills) != n {
			b.Fatalf("listed %d skills, want %d", len(l.Skills), n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/skill")
}

func BenchmarkScan1k(b *testing.B)  { benchmarkScan(b, 1_000) }
func BenchmarkScan10k(b *testing.B) { benchmarkScan(b, 10_000) }

// benchmarkScanDeferred lists as a server does at start: without looking
// inside skill folders.
func benchmarkScanDeferred(b *testing.B, n int) {
	dir := b.TempDir()
	if err := skillgen.Generate(dir, n, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := dirtree.New(dir, &dirtree.Options{Defer: true}).List(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Skills) != n {
			b.Fatalf("listed %d skills, want %d", len(l.Skills), n)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/skill")
}

func BenchmarkScanDeferred10k(b *testing.B) { benchmarkScanDeferred(b, 10_000) }

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
