package resolver_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

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

func BenchmarkBuild10k(b *testing.B) {
	in := listing(10_000)
	b.ReportAllocs()
	for b.Loop() {
		resolver.Build(in)
	}
}

func BenchmarkToolDescription10k(b *testing.B) {
	snap := resolver.Build(listing(10_000))
	b.ReportAllocs()
	for b.Loop() {
		snap.ToolDescription(resolver.DefaultBudget)
		snap.Instructions(resolver.DefaultBudget)
	}
}

func BenchmarkLookup10k(b *testing.B) {
	snap := resolver.Build(listing(10_000))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := snap.Lookup(fmt.Sprintf("SKILL-%05d", i%10_000)); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkLookupUnknown10k(b *testing.B) {
	snap := resolver.Build(listing(10_000))
	b.ReportAllocs()
	for b.Loop() {
		snap.Lookup("skill-0000x-typo")
	}
}
