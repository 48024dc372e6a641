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
