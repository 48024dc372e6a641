package dirtree_test

import (
	"context"
	"testing"

	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// benchmarkScan lists a folder of n skills written by write, as the server
// does at start. The files are in the page cache: this is the scan's own
// cost, not the disk's. b.Loop leaves the writing out of the timing.
func benchmarkScan(b *testing.B, n int, write func(dir string) error) {
	dir := b.TempDir()
	if err := write(dir); err != nil {
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

// benchmarkSynthetic scans skills from skillgen.Generate: plain
// "key: value" front matter, a 3 kB body and one reference file each.
func benchmarkSynthetic(b *testing.B, n int) {
	benchmarkScan(b, n, func(dir string) error { return skillgen.Generate(dir, n, nil) })
}

// benchmarkReal scans copies of the shared corpus's real skills
// (skillgen.Replicate): quoted and block-scalar descriptions, metadata
// maps, flow lists, real bodies, references and scripts, plugin layouts.
func benchmarkReal(b *testing.B, n int) {
	corpus := skillgen.Corpus(b)
	benchmarkScan(b, n, func(dir string) error {
		_, err := skillgen.Replicate(dir, corpus, n, nil)
		return err
	})
}

func BenchmarkScan1k(b *testing.B)      { benchmarkSynthetic(b, 1_000) }
func BenchmarkScan10k(b *testing.B)     { benchmarkSynthetic(b, 10_000) }
func BenchmarkScanReal10k(b *testing.B) { benchmarkReal(b, 10_000) }
