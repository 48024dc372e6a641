package resolver_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

// held is a source that lists what it was last given, the same Skill
// values from one listing to the next as a folder tree gives for files
// that did not change.
type held struct {
	name string
	mu   sync.Mutex
	l    *sources.Listing
}

func (h *held) Name() string { return h.name }
func (h *held) List(context.Context) (*sources.Listing, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.l, nil
}

// A refresh that keeps most skills in place serves what a build from
// nothing serves: the same skills, in the same order, the same shadowed
// ones; and so do the views without a convention.
func TestRefreshServesWhatAFullBuildServes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	// Few names, in two cases, so that sources collide and shadow.
	names := []string{"pdf", "PDF", "docx", "csv", "Csv", "deploy", "a", "b", "a-b", "ab", "z"}
	srcs := []*held{{name: "user", l: &sources.Listing{}}, {name: "project", l: &sources.Listing{}}}
	r := resolver.New([]sources.Source{srcs[0], srcs[1]}, nil)
	ctx := context.Background()
	if _, err := r.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	seq := 0
	for step := range 500 {
		src := srcs[rng.IntN(len(srcs))]
		var next []*sources.Skill
		for _, sk := range src.l.Skills {
			if rng.IntN(4) > 0 { // most stay, the same values
				next = append(next, sk)
			}
		}
		for range rng.IntN(4) {
			seq++
			sk := &sources.Skill{Ref: sources.Ref{Name: names[rng.IntN(len(names))]},
				Path:       fmt.Sprintf("/%s/%d/SKILL.md", src.name, seq),
				Convention: []string{"", ".claude"}[rng.IntN(2)]}
			next = slices.Insert(next, rng.IntN(len(next)+1), sk)
		}
		src.mu.Lock()
		src.l = &sources.Listing{Skills: next}
		src.mu.Unlock()
		r.MarkChanged(src)
		got, err := r.Refresh(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := resolver.Build([]resolver.Input{
			{Source: "user", Listing: srcs[0].l}, {Source: "project", Listing: srcs[1].l}})
		if d := cmp.Diff(served(want), served(got)); d != "" {
			t.Fatalf("step %d: refresh differs from a full build (-full +refresh):\n%s", step, d)
		}
		if d := cmp.Diff(served(want.Excluding([]string{".claude"})), served(got.Excluding([]string{".claude"}))); d != "" {
			t.Fatalf("step %d: view without .claude differs (-full +refresh):\n%s", step, d)
		}
	}
}

// served lists a snapshot's skills and shadowed skills by path, in order.
func served(s *resolver.Snapshot) []string {
	var out []string
	for _, sk := range s.Skills() {
		out = append(out, sk.Ref.String()+" "+sk.Path)
	}
	for _, sh := range s.Shadowed() {
		out = append(out, "shadowed "+sh.Skill.Path+" by "+sh.By.Path+" as "+sh.Alias.String())
	}
	return out
}
