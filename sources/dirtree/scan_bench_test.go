package dirtree_test

import (
	"context"
	"testing"

	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/sources/dirtree"
)

func benchmarkScan(b *testing.B, n int) {
	dir := b.TempDir()
	if err := skillgen.Generate(dir, n, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := dirtree.New(dir, nil).List(context.Background())
		if err != nil || len(l.Skills) != n {
			b.Fatalf("%d skills, %v", len(l.Skills), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/skill")
}

func BenchmarkScan1k(b *testing.B)  { benchmarkScan(b, 1_000) }
func BenchmarkScan10k(b *testing.B) { benchmarkScan(b, 10_000) }
