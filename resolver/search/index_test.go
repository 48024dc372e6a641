package search_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/resolver/search"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

func writeSkill(t *testing.T, root, name, desc, body string) string {
	t.Helper()
	p := filepath.Join(root, name, "SKILL.md")
	sourcetest.WriteFile(t, p, "---\nname: "+name+"\ndescription: "+desc+"\n---\n"+body)
	return p
}

func list(t *testing.T, src sources.Source) []*sources.Skill {
	t.Helper()
	l, err := src.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return l.Skills
}

func update(t *testing.T, ix *search.Index, skills []*sources.Skill) search.Stats {
	t.Helper()
	st, err := ix.Update(context.Background(), skills, nil)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func names(hits []search.Hit) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h.Skill.Ref.String())
	}
	return out
}

func TestSearchFields(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "pdf-forms", "Fill in forms in documents.", "Use pdftk.")
	writeSkill(t, root, "spreadsheets", "Edit workbooks; mentions PDF export.", "Nothing else.")
	writeSkill(t, root, "notes", "Take notes.", "Convert the notes to PDF with pandoc. PDF PDF.")
	writeSkill(t, root, "unrelated", "Something else.", "Nothing.")
	ix := search.NewIndex()
	update(t, ix, list(t, dirtree.New(root, nil)))
	// The name outweighs the description, which outweighs the body.
	if diff := cmp.Diff([]string{"pdf-forms", "spreadsheets", "notes"}, names(ix.Search("pdf", 10, nil))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// Stems and case: "Filling FORMS" finds "Fill in forms".
	if got := names(ix.Search("Filling FORMS", 10, nil)); len(got) == 0 || got[0] != "pdf-forms" {
		t.Errorf("got %v", got)
	}
	// The exact name first, even against a better match elsewhere.
	hits := ix.Search("notes", 10, nil)
	if len(hits) == 0 || hits[0].Skill.Ref.Name != "notes" || !hits[0].Exact {
		t.Errorf("got %+v", hits)
	}
	// accept filters, and limit cuts.
	if diff := cmp.Diff([]string{"notes"}, names(ix.Search("pdf", 10, func(sk *sources.Skill) bool { return sk.Ref.Name == "notes" }))); diff != "" {
		t.Errorf("accept (-want +got):\n%s", diff)
	}
	if got := ix.Search("pdf", 1, nil); len(got) != 1 {
		t.Errorf("limit 1: %d hits", len(got))
	}
	for _, q := range []string{"", "   ", "the of and", "zzzz"} {
		if got := ix.Search(q, 10, nil); len(got) != 0 {
			t.Errorf("%q: %v", q, names(got))
		}
	}
}

// A query that is a skill's full name puts that skill first, before the
// skills whose short name it is, however much better they match, and the
// scores say so: the plain "access-control" before
// "discord:access-control" and "telegram:access-control", whose
// descriptions and bodies say access control over and over.
func TestSearchFullNameFirst(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, filepath.Join(root, "plain"), "access-control", "Plain.", "Nothing.")
	heavy := strings.Repeat("access control ", 40)
	for _, ns := range []string{"discord", "telegram"} {
		writeSkill(t, filepath.Join(root, ns), "access-control", "Manage "+heavy, heavy)
	}
	for i := range 200 {
		writeSkill(t, filepath.Join(root, "plain"), fmt.Sprintf("filler-%03d", i), "Something else.", "Nothing.")
	}
	var skills []*sources.Skill
	skills = append(skills, list(t, dirtree.New(filepath.Join(root, "plain"), nil))...)
	for _, ns := range []string{"discord", "telegram"} {
		skills = append(skills, list(t, dirtree.New(filepath.Join(root, ns), &dirtree.Options{Namespace: ns}))...)
	}
	ix := search.NewIndex()
	update(t, ix, skills)
	for _, tt := range []struct {
		query string
		limit int
		want  []string
	}{
		{"access control", 10, []string{"access-control", "discord:access-control", "telegram:access-control"}},
		{"access-control", 1, []string{"access-control"}},
		{"Telegram:Access-Control", 10, []string{"telegram:access-control", "discord:access-control", "access-control"}},
		{"discord:access-control", 1, []string{"discord:access-control"}},
	} {
		hits := ix.Search(tt.query, tt.limit, nil)
		if diff := cmp.Diff(tt.want, names(hits)); diff != "" {
			t.Errorf("%q, limit %d (-want +got):\n%s", tt.query, tt.limit, diff)
		}
		if len(hits) > 0 && !hits[0].Exact {
			t.Errorf("%q: the first hit is not marked exact", tt.query)
		}
		for i := 1; i < len(hits); i++ {
			if hits[i].Score > hits[i-1].Score {
				t.Errorf("%q: %s (%.2f) comes before %s (%.2f)", tt.query, hits[i-1].Skill.Ref, hits[i-1].Score, hits[i].Skill.Ref, hits[i].Score)
			}
		}
	}
}

// Update indexes only what changed: new skills, edited ones (a new
// *sources.Skill), removed ones; the same *sources.Skill costs nothing,
// and one returned anew for an unchanged file keeps its document.
func TestUpdateFollowsChanges(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "a", "Alpha.", "apples")
	bPath := writeSkill(t, root, "b", "Beta.", "bananas")
	writeSkill(t, root, "c", "Gamma.", "cherries")
	tree := dirtree.New(root, nil)
	ix := search.NewIndex()
	first := list(t, tree)
	if st := update(t, ix, first); st.Indexed != 3 {
		t.Errorf("first: %+v", st)
	}
	if st := update(t, ix, first); st.Kept != 3 || st.Indexed+st.Removed+st.Rebound != 0 {
		t.Errorf("the same skills again: %+v", st)
	}

	// An edit and a removal.
	sourcetest.WriteFile(t, bPath, "---\nname: b\ndescription: Beta.\n---\nblueberries now")
	if err := os.RemoveAll(filepath.Join(root, "c")); err != nil {
		t.Fatal(err)
	}
	second := list(t, tree)
	st := update(t, ix, second)
	if st.Kept != 1 || st.Indexed != 1 || st.Removed != 2 {
		t.Errorf("edit and removal: %+v", st) // b's old document and c's
	}
	if got := names(ix.Search("bananas", 10, nil)); len(got) != 0 {
		t.Errorf("the old body is still found: %v", got)
	}
	if got := names(ix.Search("blueberries", 10, nil)); len(got) != 1 || got[0] != "b" {
		t.Errorf("the new body is not found: %v", got)
	}
	if got := names(ix.Search("cherries", 10, nil)); len(got) != 0 {
		t.Errorf("a removed skill is found: %v", got)
	}

	// The same files given as new *sources.Skill values (a source that
	// made copies): documents kept, files read, nothing tokenized again.
	var copies []*sources.Skill
	for _, sk := range second {
		c := *sk
		copies = append(copies, &c)
	}
	if st := update(t, ix, copies); st.Rebound != 2 || st.Indexed != 0 || st.Removed != 0 {
		t.Errorf("copies: %+v", st)
	}
	if !ix.Has(copies[0]) || ix.Has(second[0]) || ix.Len() != 2 {
		t.Errorf("copies not bound: len %d", ix.Len())
	}
}

// Many edits end in a compaction; the index answers as before.
func TestCompaction(t *testing.T) {
	f := &sourcetest.Fake{SourceName: "s"}
	for i := range 40 {
		f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: "s" + strings.Repeat("x", i%5) + string(rune('a'+i%26)) + strings.Repeat("y", i/26), Description: "Word number " + string(rune('a'+i%26)) + ".", Body: "common body text"})
	}
	ix := search.NewIndex()
	for round := range 80 {
		// The Fake's skills are new values at every List, with new
		// front matter each round: every skill is indexed again.
		for i := range f.Skills {
			f.Skills[i].Description = strings.Repeat("Edited. ", round%3+1) + "Word number."
		}
		update(t, ix, list(t, f))
	}
	if ix.Len() != 40 {
		t.Errorf("%d skills", ix.Len())
	}
	if got := ix.Search("common", 100, nil); len(got) != 40 {
		t.Errorf("%d hits", len(got))
	}
}

func TestCancelledUpdateChangesNothing(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "a", "Alpha.", "apples")
	ix := search.NewIndex()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ix.Update(ctx, list(t, dirtree.New(root, nil)), nil); err == nil {
		t.Error("no error")
	}
	if ix.Len() != 0 {
		t.Errorf("%d skills indexed", ix.Len())
	}
}

func TestTokenizing(t *testing.T) {
	tests := []struct{ text, want string }{
		{"Debugging failing TESTS", "debug fail test"},
		{"test-driven", "test driven testdriven"},
		{"CLAUDE.md and p5.js", "claud md claudemd p5 js p5js"},
		{"Café résumé naïve", "cafe resum naiv"},
		{"Straße STRASSE", "strass"}, // one term, given once
		{"ſkill", "skill"},
		{"数据分析", "数 据 分 析"},
		{"Привет мир", "привет мир"},
		{"the of and a", ""},
		{strings.Repeat("x", 100) + " ok", "ok"},
	}
	for _, tt := range tests {
		if got := strings.Join(search.QueryTerms(tt.text), " "); got != tt.want {
			t.Errorf("%q: got %q, want %q", tt.text, got, tt.want)
		}
	}
}

func TestExcerpt(t *testing.T) {
	root := t.TempDir()
	body := strings.Repeat("Filler words about nothing in particular. ", 20) +
		"To rotate a PDF page, run the rotate script with the page number. " +
		strings.Repeat("More filler text. ", 20)
	writeSkill(t, root, "pdf", "Work with PDF files.", body)
	sk := list(t, dirtree.New(root, nil))[0]
	got := search.Excerpt(sk, search.QueryTerms("rotating pages"))
	if !strings.Contains(got, "rotate a PDF page") || !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, "…") {
		t.Errorf("excerpt %q", got)
	}
	if n := len([]rune(got)); n > search.ExcerptLength+30 || n < search.ExcerptLength/2 {
		t.Errorf("excerpt of %d characters: %q", n, got)
	}
	if got := search.Excerpt(sk, search.QueryTerms("unrelated")); !strings.HasPrefix(got, "Work with PDF files.") {
		t.Errorf("no match: excerpt %q, want the description", got)
	}
}

// A Live index is built in the background; Wait sees each submission.
func TestLive(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "a", "Alpha.", "apples")
	tree := dirtree.New(root, nil)
	l := search.NewLive(nil)
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	gen := l.Submit(list(t, tree))
	if ready, err := l.Wait(ctx, gen); !ready || err != nil {
		t.Fatalf("wait: %v %v", ready, err)
	}
	if l.Index().Len() != 1 {
		t.Errorf("%d skills", l.Index().Len())
	}
	writeSkill(t, root, "b", "Beta.", "bananas")
	gen = l.Submit(list(t, tree))
	if _, err := l.Wait(ctx, gen); err != nil {
		t.Fatal(err)
	}
	if got := names(l.Index().Search("bananas", 10, nil)); len(got) != 1 {
		t.Errorf("got %v", got)
	}
	// A wait for a submission that never comes ends with its context.
	short, cancelShort := context.WithCancel(ctx)
	cancelShort()
	if ready, err := l.Wait(short, gen+1); err == nil || !ready {
		t.Errorf("wait past the last submission: ready %v, err %v", ready, err)
	}
}

func TestASCIILower(t *testing.T) {
	in := "Hello, WORLD! Ünïcode ÀÉ [\\]^_`{|}~ @AZaz 0129 " + strings.Repeat("MiXeD", 7)
	want := []byte(in)
	for i, c := range want {
		if 'A' <= c && c <= 'Z' {
			want[i] = c + 'a' - 'A'
		}
	}
	if got := search.ASCIILower([]byte(in)); string(got) != string(want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

// While an update adds a changed skill's new document, its old one is
// still there: a search that runs meanwhile finds the skill once.
func TestSearchDuringAnUpdateFindsASkillOnce(t *testing.T) {
	root := t.TempDir()
	p := writeSkill(t, root, "pdf-forms", "Fill in PDF forms.", "Use the form filler for every PDF.")
	tree := dirtree.New(root, nil)
	ix := search.NewIndex()
	update(t, ix, list(t, tree))
	sourcetest.WriteFile(t, p, "---\nname: pdf-forms\ndescription: Fill in PDF forms, faster.\n---\nThe PDF form filler, again.")
	var during []string
	_, err := ix.Update(context.Background(), list(t, tree), func(done, total int) {
		during = names(ix.Search("pdf form", 10, nil))
	})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"pdf-forms"}, during); diff != "" {
		t.Errorf("hits during the update (-want +got):\n%s", diff)
	}
}

// A skill edited again and again (a learned note an agent keeps adding
// to) is still found by its own words: its dead documents do not pile up
// in the document frequencies.
func TestManyEditsKeepTheRanking(t *testing.T) {
	f := &sourcetest.Fake{SourceName: "s"}
	for i := range 21 {
		f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: "other-" + string(rune('a'+i)), Description: "Something else.", Body: "Plain words about other things."})
	}
	f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: "deploy", Description: "Ship it.", Body: "Use kubernetes and helm charts."})
	ix := search.NewIndex()
	update(t, ix, list(t, f))
	score := func() float64 {
		hits := ix.Search("kubernetes helm", 1, nil)
		if len(hits) != 1 || hits[0].Skill.Ref.Name != "deploy" {
			t.Fatalf("hits %v", names(hits))
		}
		return hits[0].Score
	}
	before := score()
	for round := range 200 {
		f.Skills[21].Body = "Use kubernetes and helm charts. Note " + strings.Repeat("x", round%7+1) + "."
		update(t, ix, list(t, f))
	}
	if after := score(); after < before/2 {
		t.Errorf("score %.3f after 200 edits, %.3f before", after, before)
	}
}

// TestSearchNameAnyUnicodeForm checks that a query naming a skill finds it
// exactly whichever Unicode form either is written in: a name typed with
// combining accents is the name the skill writes precomposed, as for the
// skill tool's lookup.
func TestSearchNameAnyUnicodeForm(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "r\u00e9sum\u00e9", "Write a CV.", "Nothing.")
	writeSkill(t, root, "resume-parser", "Parse a resume, then a r\u00e9sum\u00e9 again.", "resume resume resume")
	ix := search.NewIndex()
	update(t, ix, list(t, dirtree.New(root, nil)))
	for _, q := range []string{"r\u00e9sum\u00e9", "re\u0301sume\u0301", "RE\u0301SUME\u0301"} {
		hits := ix.Search(q, 10, nil)
		if len(hits) == 0 || hits[0].Skill.Ref.Name != "r\u00e9sum\u00e9" || !hits[0].Exact {
			t.Errorf("%+q: %v, first exact %v", q, names(hits), len(hits) > 0 && hits[0].Exact)
		}
	}
}

// An index updated after a few skills changed (dead documents left until
// a compaction) scores as one built afresh on the same skills: a term's
// weight counts the live documents that hold it.
func TestUpdatedIndexScoresAsAFreshOne(t *testing.T) {
	f := &sourcetest.Fake{SourceName: "s"}
	for i := range 40 {
		f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: fmt.Sprintf("skill-%02d", i), Description: "Does things.", Body: "Plain words."})
	}
	ix := search.NewIndex()
	update(t, ix, list(t, f))
	for i := range 4 { // fewer than a compaction waits for
		f.Skills[i].Description = "Does new things."
	}
	update(t, ix, list(t, f))
	fresh := search.NewIndex()
	update(t, fresh, list(t, f))
	for _, q := range []string{"does new things", "things", "plain"} {
		got, want := ix.Search(q, 10, nil), fresh.Search(q, 10, nil)
		if len(got) != len(want) {
			t.Fatalf("%q: %d hits, %d in a fresh index", q, len(got), len(want))
		}
		for i := range got {
			if got[i].Skill.Ref != want[i].Skill.Ref || math.Abs(got[i].Score-want[i].Score) > 1e-6 {
				t.Errorf("%q, hit %d: %s %.4f; a fresh index: %s %.4f", q, i, got[i].Skill.Ref, got[i].Score, want[i].Skill.Ref, want[i].Score)
			}
		}
	}
}
