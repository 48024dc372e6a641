package resolver

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/skillmux/skillmux/sources"
)

// slowAliasFor is aliasFor as it was written first, numbering from 2 for
// every skill: the reference aliasFor must agree with.
func (s *Snapshot) slowAliasFor(sk *sources.Skill) sources.Ref {
	prefix := func(src string) string {
		if sk.Ref.Namespace == "" {
			return src
		}
		return src + ":" + sk.Ref.Namespace
	}
	alias := sources.Ref{Namespace: prefix(sk.Source), Name: sk.Ref.Name}
	for n := 2; s.taken(alias.Key()); n++ {
		alias.Namespace = prefix(sk.Source + "~" + strconv.Itoa(n))
	}
	return alias
}

// aliasFor gives every shadowed skill the alias the slow way gives, for
// sources, namespaces and names alike but for case, Unicode form or a
// number, and sources whose names make the aliases of others ("u:x").
func TestAliasForAgreesWithTheSlowWay(t *testing.T) {
	srcs := []string{"user", "User", "user~2", "user~3", "USER~2", "u", "u:x", "é", "e\u0301", "É"}
	nss := []string{"", "", "x", "X", "y", "x~2"}
	names := []string{"pdf", "PDF", "Pdf", "pdf", "p\u0301df", "pÍdf", "píDF"}
	for seed := range 3000 {
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		nIn := 1 + r.IntN(4)
		var inputs []Input
		for i := range nIn {
			l := &sources.Listing{}
			src := srcs[r.IntN(len(srcs))]
			for j := range r.IntN(12) {
				s := src
				if r.IntN(5) == 0 {
					s = srcs[r.IntN(len(srcs))]
				}
				l.Skills = append(l.Skills, &sources.Skill{
					Ref:    sources.Ref{Namespace: nss[r.IntN(len(nss))], Name: names[r.IntN(len(names))]},
					Source: s, Path: fmt.Sprintf("/%d/%d/SKILL.md", i, j),
				})
			}
			inputs = append(inputs, Input{Source: src, Listing: l})
		}
		snap := Build(inputs)
		old := &Snapshot{byKey: snap.byKey, aliases: map[string]int{}}
		for i, sh := range snap.shadowed {
			want := old.slowAliasFor(sh.Skill)
			old.aliases[want.Key()] = i
			if want != sh.Alias {
				t.Fatalf("seed %d: %s of %s (%s): alias %q; want %q", seed, sh.Skill.Ref, sh.Skill.Source, sh.Skill.Path, sh.Alias, want)
			}
		}
	}
}

// Source "u:x" and source "u" with namespace "x" make one alias: the
// numbers one has taken are not skipped by the other.
func TestAliasForOfSourcesThatMakeOneAlias(t *testing.T) {
	sk := func(src, ns, path string) *sources.Skill {
		return &sources.Skill{Ref: sources.Ref{Namespace: ns, Name: "pdf"}, Source: src, Path: path}
	}
	l := &sources.Listing{Skills: []*sources.Skill{
		sk("u", "x", "/0"), sk("u", "x", "/1"), sk("u", "x", "/2"), sk("u", "x", "/3"),
		sk("u:x", "", "/4"), sk("u:x", "", "/5"),
	}}
	snap := Build([]Input{{Source: "u", Listing: l}})
	old := &Snapshot{byKey: snap.byKey, aliases: map[string]int{}}
	for i, sh := range snap.shadowed {
		want := old.slowAliasFor(sh.Skill)
		old.aliases[want.Key()] = i
		if want != sh.Alias {
			t.Errorf("%s of %s: alias %q; want %q", sh.Skill.Ref, sh.Skill.Source, sh.Alias, want)
		}
	}
}
