package resolver_test

import (
	"context"
	"testing"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/resolver/search"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// BenchmarkSearch1k is what a skills_search call costs the server in
// process, excerpts included (each read from disk), on 1,000 copies of the
// corpus's skills.
func BenchmarkSearch1k(b *testing.B) {
	dir := b.TempDir()
	corpus.Replicate(b, dir, 1_000)
	res := resolver.New([]sources.Source{dirtree.New(dir, nil)}, nil)
	snap, err := res.Reload(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	ix := search.NewIndex()
	if _, err := ix.Update(context.Background(), snap.IndexedSkills(), nil); err != nil {
		b.Fatal(err)
	}
	queries := []string{"make an animated gif to post in slack", "my tests keep failing and I can't figure out why", "write release notes", "pdf"}
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		q := resolver.SearchQuery{Text: queries[i%len(queries)]}
		if r := snap.Search(ix, q, nil); len(r.Hits) == 0 {
			b.Fatal("no hits")
		}
		i++
	}
}
