// Package searchcmp measures the search index of resolver/search against
// bleve (github.com/blevesearch/bleve/v2) on the same skills: build time,
// heap held, query time and the cost of indexing one edited skill, at
// 10,000 skills and, with SKILLMUX_BENCH_LARGE=1, 100,000. It is a module
// of its own so that bleve is not a dependency of skillmux:
//
//	cd internal/searchcmp && go test -run TestCompare -v -timeout 60m
//
// The skills are copies of the shared corpus (internal/corpus.Replicate):
// real descriptions and bodies.
package searchcmp

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/resolver/search"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

var queries = []string{
	"make an animated gif to post in slack",
	"my tests keep failing and I can't figure out why",
	"reply to the comments people left on my github PR",
	"package my mcp server so people can install it in claude desktop",
	"get ready for tomorrow's meeting from our notion pages",
	"work on two branches at once without stashing",
	"use our company colors and fonts",
	"add a slash command to my plugin",
	"call the anthropic api with prompt caching",
	"pdf",
}

// engine is one of the indexes compared.
type engine interface {
	build(skills []*sources.Skill, bodies []string) error
	query(q string) (int, error)
	update(sk *sources.Skill, body string, all []*sources.Skill) error
}

type mine struct{ ix *search.Index }

func (m *mine) build(skills []*sources.Skill, _ []string) error {
	m.ix = search.NewIndex()
	_, err := m.ix.Update(context.Background(), skills, nil)
	return err
}

func (m *mine) query(q string) (int, error) {
	hits := m.ix.Search(q, 10, nil)
	return len(hits), nil
}

func (m *mine) update(_ *sources.Skill, _ string, all []*sources.Skill) error {
	_, err := m.ix.Update(context.Background(), all, nil)
	return err
}

type bleveEngine struct {
	kind string // "scorch" (in memory) or "upsidedown" (NewMemOnly)
	ix   bleve.Index
}

type bleveDoc struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Body        string `json:"body"`
}

func (b *bleveEngine) build(skills []*sources.Skill, bodies []string) error {
	text := bleve.NewTextFieldMapping()
	text.Analyzer = en.AnalyzerName
	text.Store, text.IncludeTermVectors, text.IncludeInAll, text.DocValues = false, false, false, false
	dm := bleve.NewDocumentStaticMapping()
	for _, f := range []string{"name", "description", "body"} {
		dm.AddFieldMappingsAt(f, text)
	}
	m := bleve.NewIndexMapping()
	m.DefaultMapping = dm
	m.ScoringModel = index.BM25Scoring
	var err error
	if b.kind == "scorch" {
		b.ix, err = bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	} else {
		b.ix, err = bleve.NewMemOnly(m)
	}
	if err != nil {
		return err
	}
	batch := b.ix.NewBatch()
	for i, sk := range skills {
		if err := batch.Index(sk.Ref.Key(), bleveDoc{sk.Ref.String(), sk.Description, bodies[i]}); err != nil {
			return err
		}
		if batch.Size() == 10_000 {
			if err := b.ix.Batch(batch); err != nil {
				return err
			}
			batch = b.ix.NewBatch()
		}
	}
	return b.ix.Batch(batch)
}

func (b *bleveEngine) query(q string) (int, error) {
	var qs []query.Query
	for f, boost := range map[string]float64{"name": 3, "description": 2, "body": 1} {
		mq := bleve.NewMatchQuery(q)
		mq.SetField(f)
		mq.SetBoost(boost)
		qs = append(qs, mq)
	}
	req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery(qs...), 10, 0, false)
	res, err := b.ix.Search(req)
	if err != nil {
		return 0, err
	}
	return len(res.Hits), nil
}

func (b *bleveEngine) update(sk *sources.Skill, body string, _ []*sources.Skill) error {
	return b.ix.Index(sk.Ref.Key(), bleveDoc{sk.Ref.String(), sk.Description, body})
}

func body(t testing.TB, sk *sources.Skill) string {
	data, err := sources.ReadEntry(sk, search.MaxEntry)
	if err != nil {
		t.Fatal(err)
	}
	_, b, _ := sources.SplitFrontMatter(data)
	return string(b)
}

func heap() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func median(ds []time.Duration) time.Duration {
	slices.Sort(ds)
	return ds[len(ds)/2]
}

func TestCompare(t *testing.T) {
	sizes := []int{10_000}
	if os.Getenv("SKILLMUX_BENCH_LARGE") == "1" {
		sizes = append(sizes, 100_000)
	}
	kinds := strings.Fields(os.Getenv("SEARCHCMP_ENGINES"))
	if len(kinds) == 0 {
		kinds = []string{"mine", "scorch", "upsidedown"}
	}
	var report strings.Builder
	fmt.Fprintf(&report, "| skills | index | build | heap held | query, median (p90) | one edited skill |\n|---|---|---|---|---|---|\n")
	for _, n := range sizes {
		dir := t.TempDir()
		corpus.Replicate(t, dir, n)
		tree := dirtree.New(dir, nil)
		l, err := tree.List(context.Background())
		if err != nil || len(l.Skills) != n {
			t.Fatalf("listed %d skills of %d: %v", len(l.Skills), n, err)
		}
		skills := l.Skills
		for _, kind := range kinds {
			if kind == "upsidedown" && n >= 100_000 {
				// Nearly two minutes and half a gigabyte at 10,000: at
				// 100,000 it would run for the better part of an hour.
				fmt.Fprintf(&report, "| %d | upsidedown | not run | | | |\n", n)
				continue
			}
			var e engine
			switch kind {
			case "mine":
				e = &mine{}
			default:
				e = &bleveEngine{kind: kind}
			}
			// Bleve takes documents; reading the bodies is part of the
			// build for both (the index of skillmux reads them itself).
			before := heap()
			start := time.Now()
			var bodies []string
			if kind != "mine" {
				for _, sk := range skills {
					bodies = append(bodies, body(t, sk))
				}
			}
			if err := e.build(skills, bodies); err != nil {
				t.Fatal(err)
			}
			bodies = nil
			build := time.Since(start)
			held := int64(heap()) - int64(before)
			var qt []time.Duration
			for range 20 {
				for _, q := range queries {
					t0 := time.Now()
					if _, err := e.query(q); err != nil {
						t.Fatal(err)
					}
					qt = append(qt, time.Since(t0))
				}
			}
			// One edited skill: its SKILL.md gains a line, its source
			// gives a new *sources.Skill, and the index follows.
			edited := skills[n/2]
			f := edited.Path
			data, _ := os.ReadFile(f)
			os.WriteFile(f, append(data, []byte("\nOne more line about spreadsheets.\n")...), 0o644)
			l2, err := tree.List(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			var changed *sources.Skill
			for _, sk := range l2.Skills {
				if sk.Path == f {
					changed = sk
				}
			}
			t0 := time.Now()
			if err := e.update(changed, body(t, changed), l2.Skills); err != nil {
				t.Fatal(err)
			}
			upd := time.Since(t0)
			os.WriteFile(f, data, 0o644)
			skills = l2.Skills
			med := median(qt) // sorts qt
			p90 := qt[len(qt)*9/10]
			fmt.Fprintf(&report, "| %d | %s | %s | %.0f MB | %s (%s) | %s |\n", n, kind, build.Round(time.Millisecond),
				float64(held)/(1<<20), med.Round(time.Microsecond), p90.Round(time.Microsecond), upd.Round(time.Microsecond))
			t.Logf("%d %s done", n, kind)
			runtime.KeepAlive(e)
		}
	}
	t.Logf("machine: %d CPUs, %s\n%s", runtime.NumCPU(), runtime.Version(), report.String())
}
