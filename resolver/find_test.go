package resolver_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/resolver/search"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// An index follows the catalog in the background, so a session may search
// with a snapshot one refresh away from the one indexed, whose skills are
// new values read from the same files. The skills the session's snapshot
// serves are found, as it has them; the ones it does not serve are not.
func TestSearchAnIndexOneRefreshAway(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "team", Skills: []sourcetest.FakeSkill{
		{Name: "pdf-forms", Description: "Fill in PDF forms.", Body: "Use the form filler for every PDF."},
		{Name: "old-pdf", Description: "Merge PDF files.", Body: "Merge PDF pages."},
	}}
	r := resolver.New([]sources.Source{src}, nil)
	indexed, err := r.Reload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ix := search.NewIndex()
	if _, err := ix.Update(context.Background(), indexed.IndexedSkills(), nil); err != nil {
		t.Fatal(err)
	}
	src.Skills = src.Skills[:1]
	src.Skills[0].Description = "Fill in PDF forms, again."
	now, err := r.Reload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res := now.Search(ix, resolver.SearchQuery{Text: "pdf"}, nil)
	if len(res.Hits) != 1 || res.Hits[0].Name != "pdf-forms" {
		t.Fatalf("hits = %+v, want pdf-forms alone", res.Hits)
	}
	if got := res.Hits[0].Description; got != "Fill in PDF forms, again." {
		t.Errorf("description %q, want the one the snapshot serves", got)
	}
	// And the other way round: an index ahead of the snapshot.
	old := indexed.Search(ix, resolver.SearchQuery{Text: "merge"}, nil)
	if len(old.Hits) != 1 || old.Hits[0].Name != "old-pdf" {
		t.Errorf("the older snapshot's search: %+v", old.Hits)
	}
}

// A shadowed skill is served (as a resource, by its alias), so search finds
// it too, by text only it holds, under the alias that loads it; a view
// that leaves out the skill shadowing it still finds it so.
func TestSearchFindsShadowed(t *testing.T) {
	user := &sourcetest.Fake{SourceName: "user", Convention: sources.ConventionClaudeUser, Skills: []sourcetest.FakeSkill{
		{Name: "pdf", Description: "My own PDF skill.", Body: "Fill in forms."},
	}}
	project := &sourcetest.Fake{SourceName: "project", Skills: []sourcetest.FakeSkill{
		{Name: "pdf", Description: "Another PDF skill.", Body: "Render with the zorblax renderer on ACME letterhead."},
	}}
	snap := load(t, user, project)
	ix := search.NewIndex()
	if _, err := ix.Update(context.Background(), snap.IndexedSkills(), nil); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*resolver.Snapshot{snap, snap.Excluding([]string{sources.ConventionClaudeUser})} {
		res := s.Search(ix, resolver.SearchQuery{Text: "zorblax renderer"}, nil)
		if len(res.Hits) != 1 || res.Hits[0].Name != "project:pdf" || res.Hits[0].Source != "project" {
			t.Errorf("hits = %+v, want project:pdf alone", res.Hits)
		}
	}
	hidden, err := resolver.NewVisibility(map[string]string{"project:*": "off"})
	if err != nil {
		t.Fatal(err)
	}
	if res := snap.Search(ix, resolver.SearchQuery{Text: "zorblax renderer"}, hidden); len(res.Hits) != 0 {
		t.Errorf("a shadowed skill hidden by its alias is found: %+v", res.Hits)
	}
	res := snap.Search(ix, resolver.SearchQuery{Text: "pdf"}, nil)
	var names []string
	for _, h := range res.Hits {
		names = append(names, h.Name)
	}
	if len(names) != 2 || names[0] != "pdf" {
		t.Errorf("searching a name gives %v; want the skill it loads first, then project:pdf", names)
	}
	res = snap.Search(ix, resolver.SearchQuery{Text: "Project:PDF"}, nil)
	if len(res.Hits) == 0 || res.Hits[0].Name != "project:pdf" {
		t.Errorf("searching an alias gives %+v; want project:pdf first", res.Hits)
	}
	// A source is named in any case, as names are.
	if err := (&resolver.SearchQuery{Text: "pdf", Source: "PROJECT"}).Check(snap); err != nil {
		t.Errorf("source PROJECT: %v", err)
	}
	res = snap.Search(ix, resolver.SearchQuery{Text: "pdf", Source: "PROJECT"}, nil)
	if len(res.Hits) != 1 || res.Hits[0].Name != "project:pdf" {
		t.Errorf("source PROJECT gives %+v; want project:pdf alone", res.Hits)
	}
}

// A skill whose file the index could not read (a plugin's that failed or
// hung until its timeout) is found by its name and description, and its
// excerpt is the description's start: the search does not read the file
// again, which would wait as long again.
func TestSearchDoesNotReadAgainWhatTheIndexCouldNot(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "team", Skills: []sourcetest.FakeSkill{
		{Name: "remote-forms", Description: "Fill in remote forms.", Body: "Body."},
	}}
	snap := load(t, src)
	sk := snap.IndexedSkills()[0]
	failing := &failingFS{}
	sk.Files = failing
	ix := search.NewIndex()
	if _, err := ix.Update(context.Background(), snap.IndexedSkills(), nil); err != nil {
		t.Fatal(err)
	}
	opened := failing.opens.Load()
	res := snap.Search(ix, resolver.SearchQuery{Text: "remote forms"}, nil)
	if len(res.Hits) != 1 || res.Hits[0].Excerpt != "Fill in remote forms." {
		t.Fatalf("hits = %+v, want remote-forms with its description as excerpt", res.Hits)
	}
	if n := failing.opens.Load() - opened; n != 0 {
		t.Errorf("the search opened the unreadable file %d times", n)
	}
}

// failingFS counts its opens, which all fail.
type failingFS struct{ opens atomic.Int32 }

func (f *failingFS) Open(name string) (fs.File, error) {
	f.opens.Add(1)
	return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("the plugin did not answer in time")}
}

// Hits of equal score come in one order whatever the index's history: the
// skill a name loads before the shadowed one of that name, which the index
// knows by the same name.
func TestSearchTiesDoNotFollowTheIndexsHistory(t *testing.T) {
	mk := func(src, body string) *sourcetest.Fake {
		return &sourcetest.Fake{SourceName: src, Skills: []sourcetest.FakeSkill{{Name: "dup", Description: "Checks the zorblax ledger.", Body: body}}}
	}
	first, second := mk("a", "Same body.\n"), mk("b", "Same body.\n")
	snap := load(t, first, second)
	ix := search.NewIndex()
	if _, err := ix.Update(context.Background(), snap.IndexedSkills(), nil); err != nil {
		t.Fatal(err)
	}
	names := func(s *resolver.Snapshot) []string {
		var out []string
		for _, h := range s.Search(ix, resolver.SearchQuery{Text: "zorblax ledger"}, nil).Hits {
			out = append(out, fmt.Sprintf("%s %.3f", h.Name, h.Score))
		}
		return out
	}
	want := names(snap)
	if len(want) != 2 || !strings.HasPrefix(want[0], "dup ") || !strings.HasPrefix(want[1], "b:dup ") {
		t.Fatalf("hits %v; want dup, then b:dup", want)
	}
	// The served skill edited, with a line its score does not see: its
	// document is renumbered after the other's.
	first.Skills[0].Body = "Same body.\n\n"
	snap = load(t, first, second)
	if _, err := ix.Update(context.Background(), snap.IndexedSkills(), nil); err != nil {
		t.Fatal(err)
	}
	if got := names(snap); !slices.Equal(got, want) {
		t.Errorf("after an edit that moves no score: %v; want %v", got, want)
	}
}
