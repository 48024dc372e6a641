package search_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/resolver/search"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// The benchmarks index copies of the shared corpus (real descriptions and
// bodies, internal/corpus.Replicate) written to disk, so a build reads
// every file as the server does:
//
//	go test -run '^$' -bench . -benchmem ./resolver/search/
//	SKILLMUX_BENCH_LARGE=1 go test -run '^$' -bench 100k -benchmem -timeout 30m ./resolver/search/

func replicas(b *testing.B, n int) (*dirtree.Tree, []*sources.Skill) {
	b.Helper()
	if n >= 100_000 && os.Getenv("SKILLMUX_BENCH_LARGE") != "1" {
		b.Skip("set SKILLMUX_BENCH_LARGE=1 for 100,000 skills")
	}
	dir := b.TempDir()
	corpus.Replicate(b, dir, n)
	tree := dirtree.New(dir, nil)
	l, err := tree.List(context.Background())
	if err != nil || len(l.Skills) != n {
		b.Fatalf("%d skills listed of %d: %v", len(l.Skills), n, err)
	}
	return tree, l.Skills
}

func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// benchmarkBuild indexes n skills from scratch and reports the heap the
// index holds afterwards.
func benchmarkBuild(b *testing.B, n int) {
	_, skills := replicas(b, n)
	var held uint64
	for b.Loop() {
		before := heapInUse()
		ix := search.NewIndex()
		if _, err := ix.Update(context.Background(), skills, nil); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		held = heapInUse() - before
		runtime.KeepAlive(ix)
		b.StartTimer()
	}
	b.ReportMetric(float64(held)/(1<<20), "MB-held")
}

func BenchmarkBuild10k(b *testing.B)  { benchmarkBuild(b, 10_000) }
func BenchmarkBuild100k(b *testing.B) { benchmarkBuild(b, 100_000) }

var queries = []string{
	"make an animated gif to post in slack",
	"my tests keep failing and I can't figure out why",
	"reply to the comments people left on my github PR",
	"get ready for tomorrow's meeting from our notion pages",
	"add a slash command to my plugin",
	"pdf",
}

// benchmarkSearch searches n skills, edited of which have been edited
// since the index was built: their old documents are dead, as after a
// session's edits, which leave them until a compaction.
func benchmarkSearch(b *testing.B, n, edited int) {
	_, skills := replicas(b, n)
	ix := search.NewIndex()
	if _, err := ix.Update(context.Background(), skills, nil); err != nil {
		b.Fatal(err)
	}
	if edited > 0 {
		skills = slices.Clone(skills)
		for i := range edited {
			sk := *skills[i]
			sk.Description += " Edited."
			skills[i] = &sk
		}
		if st, err := ix.Update(context.Background(), skills, nil); err != nil || st.Removed != edited {
			b.Fatalf("%+v, %v; want %d dead documents", st, err, edited)
		}
	}
	i := 0
	for b.Loop() {
		if len(ix.Search(queries[i%len(queries)], 10, nil)) == 0 {
			b.Fatal("no hits")
		}
		i++
	}
}

func BenchmarkSearch1k(b *testing.B)   { benchmarkSearch(b, 1_000, 0) }
func BenchmarkSearch10k(b *testing.B)  { benchmarkSearch(b, 10_000, 0) }
func BenchmarkSearch100k(b *testing.B) { benchmarkSearch(b, 100_000, 0) }

// BenchmarkSearchEdited10k is BenchmarkSearch10k after one edit: a term's
// weight counts the live documents that hold it, which one dead document
// makes a search count (once after each change).
func BenchmarkSearchEdited10k(b *testing.B) { benchmarkSearch(b, 10_000, 1) }

// benchmarkEdit measures what one edited SKILL.md costs the index: the
// source lists again (only that skill is new), and Update compares the
// whole list and indexes the one.
func benchmarkEdit(b *testing.B, n int) {
	tree, skills := replicas(b, n)
	ix := search.NewIndex()
	if _, err := ix.Update(context.Background(), skills, nil); err != nil {
		b.Fatal(err)
	}
	path := skills[n/2].Path
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(path, fmt.Appendf(data, "\nEdit %d.\n", i), 0o644); err != nil {
			b.Fatal(err)
		}
		i++
		l, err := tree.List(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		st, err := ix.Update(context.Background(), l.Skills, nil)
		if err != nil || st.Indexed != 1 || st.Removed != 1 {
			b.Fatalf("%+v %v", st, err)
		}
	}
}

func BenchmarkEdit10k(b *testing.B)  { benchmarkEdit(b, 10_000) }
func BenchmarkEdit100k(b *testing.B) { benchmarkEdit(b, 100_000) }
