package resolver_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

// listing is one source's listing of n in-memory skills with generated
// descriptions, as a folder of skillgen skills would give.
func listing(n int) []resolver.Input {
	rng := rand.New(rand.NewPCG(1, 2))
	l := &sources.Listing{}
	for i := range n {
		l.Skills = append(l.Skills, &sources.Skill{
			Ref:         sources.Ref{Name: fmt.Sprintf("skill-%05d", i)},
			Description: skillgen.Description(rng),
			Path:        fmt.Sprintf("/skills/group/skill-%05d/SKILL.md", i),
		})
	}
	return []resolver.Input{{Source: "bench", Listing: l}}
}

// BenchmarkBuild10k merges a listing of 10,000 skills into a snapshot.
func BenchmarkBuild10k(b *testing.B) {
	in := listing(10_000)
	b.ReportAllocs()
	for b.Loop() {
		resolver.Build(in)
	}
}

// BenchmarkBuildOneName10k merges 10,000 skills of one name from one
// source (a mirror of copies): one served, the others shadowed, each with
// its numbered alias. Numbering them took the square of their number
// (2.8 s for 6,000 through `skillmux list`).
func BenchmarkBuildOneName10k(b *testing.B) {
	in := listing(10_000)
	for _, sk := range in[0].Listing.Skills {
		sk.Ref.Name, sk.Source = "dup", "bench"
	}
	b.ReportAllocs()
	for b.Loop() {
		if s := resolver.Build(in); len(s.Shadowed()) != 9_999 {
			b.Fatalf("%d shadowed", len(s.Shadowed()))
		}
	}
}

// BenchmarkToolDescription10k renders what a server sends at start: the
// skill tool's description and the instructions, within the default budget.
func BenchmarkToolDescription10k(b *testing.B) {
	snap := resolver.Build(listing(10_000))
	b.ReportAllocs()
	for b.Loop() {
		snap.ToolDescription(nil)
		snap.Instructions(nil)
	}
}

// BenchmarkLookup10k looks up known names, in another case than listed
// (lookups fold case), spread over the catalog.
func BenchmarkLookup10k(b *testing.B) {
	snap := resolver.Build(listing(10_000))
	names := make([]string, 1024)
	for i := range names {
		names[i] = fmt.Sprintf("SKILL-%05d", (i*7919)%10_000)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := snap.Lookup(names[i%len(names)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkLookupUnknown10k looks up a name no skill has, which computes
// suggestions over the whole catalog.
func BenchmarkLookupUnknown10k(b *testing.B) {
	snap := resolver.Build(listing(10_000))
	b.ReportAllocs()
	for b.Loop() {
		snap.Lookup("skill-0000x-typo")
	}
}

// BenchmarkToolDescriptionOptions10k is ToolDescription10k with what a
// configured server renders with: visibility rules, a pin and use counts.
func BenchmarkToolDescriptionOptions10k(b *testing.B) {
	snap := resolver.Build(listing(10_000))
	vis, err := resolver.NewVisibility(map[string]string{"skill-00*": "name-only", "*-09999": "off"})
	if err != nil {
		b.Fatal(err)
	}
	usage := &resolver.MemoryUsage{}
	for i := range 50 {
		usage.Record(snap.Skills()[i*37].Ref.Key())
	}
	o := &resolver.CatalogOptions{Budget: 2048, Visibility: vis, Pin: []string{"skill-05*"}, Usage: usage}
	b.ReportAllocs()
	for b.Loop() {
		snap.ToolDescription(o)
		snap.Instructions(o)
	}
}
