package resolver_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// uriCatalog is a snapshot with every kind of skill a URI must reach:
// plain and namespaced names, shadowed skills (one of them namespaced),
// names with unusual characters, a learned note, and the two skills
// whose URIs overlap (pdf, and pdf:forms).
func uriCatalog(t *testing.T) *resolver.Snapshot {
	t.Helper()
	ctx := context.Background()
	listing := func(src sources.Source) resolver.Input {
		l, err := src.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return resolver.Input{Source: src.Name(), Listing: l}
	}
	user := &sourcetest.Fake{SourceName: "user", Skills: []sourcetest.FakeSkill{
		{Name: "pdf", Description: "Mine.", Files: map[string]string{"forms/fill.md": "x"}},
		{Name: "my skill", Description: "A space."},
		{Name: "café", Description: "Not ASCII."},
		{Name: "100%", Description: "A percent sign."},
		{Name: "%2e%2e", Description: "Looks encoded, is a name."},
		{Name: "Mixed~Case_1.0", Description: "Unreserved characters."},
	}}
	project := &sourcetest.Fake{SourceName: "project", Skills: []sourcetest.FakeSkill{{Name: "pdf", Description: "The project's."}}}
	plugins := &sourcetest.Fake{SourceName: "plugin-dir", Namespace: "example-skills", Skills: []sourcetest.FakeSkill{{Name: "pdf", Description: "The plugin's."}}}
	plugins2 := &sourcetest.Fake{SourceName: "claude-plugins", Namespace: "example-skills", Skills: []sourcetest.FakeSkill{{Name: "pdf", Description: "Installed too."}}}
	forms := &sourcetest.Fake{SourceName: "plugin-dir", Namespace: "pdf", Skills: []sourcetest.FakeSkill{{Name: "forms", Description: "A plugin named pdf."}}}

	dir := t.TempDir()
	note := filepath.Join(dir, "deploy-tips.md")
	if err := os.WriteFile(note, []byte("---\ndescription: Deploy on Fridays with care.\n---\nTips.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sk, err := sources.Load(note, sources.LoadOptions{Source: "notes", Kind: sources.KindLearned})
	if err != nil {
		t.Fatal(err)
	}
	notes := resolver.Input{Source: "notes", Listing: &sources.Listing{Skills: []*sources.Skill{sk}}}
	// A source named as a library names a folder tree by default.
	odd := &sourcetest.Fake{SourceName: `dir:/tmp/a b\c`, Skills: []sourcetest.FakeSkill{{Name: "pdf", Description: "A third pdf."}}}
	return resolver.Build([]resolver.Input{listing(user), listing(project), listing(plugins), listing(plugins2), listing(forms), notes, listing(odd)})
}

// Every skill's URIs resolve back to the skill, under the name that
// reaches it.
func TestURIsRoundTrip(t *testing.T) {
	snap := uriCatalog(t)
	var got []string
	for _, a := range snap.Addresses() {
		got = append(got, a.URI.Entry())
		cases := []struct{ uri, file string }{
			{a.URI.Entry(), a.Match.Skill.EntryFile()},
			{a.URI.Root(), ""},
		}
		if a.Match.Skill.Kind != sources.KindLearned {
			cases = append(cases, struct{ uri, file string }{a.URI.File("references/a b%.md"), "references/a b%.md"})
		}
		for _, tc := range cases {
			r, err := snap.Resolve(tc.uri)
			if err != nil {
				t.Errorf("%s: %v", tc.uri, err)
				continue
			}
			if r.Match.Ref != a.Match.Ref || r.Match.Skill != a.Match.Skill || r.File != tc.file {
				t.Errorf("%s resolves to %s %q, want %s %q", tc.uri, r.Match.Ref, r.File, a.Match.Ref, tc.file)
			}
		}
	}
	want := []string{
		"skill://%252e%252e/SKILL.md",
		"skill://100%25/SKILL.md",
		"skill://Mixed~Case_1.0/SKILL.md",
		"skill://caf%C3%A9/SKILL.md",
		"skill://claude-plugins/example-skills/pdf/SKILL.md", // shadowed, namespaced
		"skill://deploy-tips/SKILL.md",                       // a learned note
		"skill://dir/%2Ftmp%2Fa%20b%5Cc/pdf/SKILL.md",        // shadowed, its source's name holding '/', ' ' and '\\'
		"skill://example-skills/pdf/SKILL.md",
		"skill://my%20skill/SKILL.md",
		"skill://pdf/SKILL.md",
		"skill://pdf/forms/SKILL.md",
		"skill://project/pdf/SKILL.md", // shadowed
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("URIs (-want +got):\n%s", diff)
	}
}

// Where a URI splits into skill path and file path in two ways, the
// longest skill path wins.
func TestURILongestSkillPathWins(t *testing.T) {
	snap := uriCatalog(t)
	for uri, want := range map[string]struct{ ref, file string }{
		"skill://pdf/forms/SKILL.md":  {"pdf:forms", "SKILL.md"},
		"skill://pdf/forms/fill.md":   {"pdf:forms", "fill.md"},
		"skill://pdf/forms":           {"pdf:forms", ""},
		"skill://pdf/other/fill.md":   {"pdf", "other/fill.md"},
		"skill://pdf/SKILL.md":        {"pdf", "SKILL.md"},
		"skill://project/pdf/x/y.txt": {"project:pdf", "x/y.txt"},
	} {
		a, err := snap.Resolve(uri)
		if err != nil {
			t.Errorf("%s: %v", uri, err)
			continue
		}
		if a.Match.Ref.String() != want.ref || a.File != want.file {
			t.Errorf("%s: got %s %q, want %s %q", uri, a.Match.Ref, a.File, want.ref, want.file)
		}
	}
}

func TestURIFoldersAboveSkills(t *testing.T) {
	snap := uriCatalog(t)
	a, err := snap.Resolve("skill://example-skills")
	if err != nil || a.Prefix != "example-skills" || a.Match.Skill != nil {
		t.Errorf("skill://example-skills: %+v %v", a, err)
	}
	if a, err := snap.Resolve("skill://"); err != nil || !a.IsSchemeRoot() {
		t.Errorf("skill://: %+v %v", a, err)
	}
	if diff := cmp.Diff([]string{"pdf"}, snap.Children("claude-plugins/example-skills")); diff != "" {
		t.Error(diff)
	}
	want := []string{"%252e%252e", "100%25", "Mixed~Case_1.0", "caf%C3%A9", "claude-plugins", "deploy-tips", "dir", "example-skills", "my%20skill", "pdf", "project"}
	if diff := cmp.Diff(want, snap.Children("")); diff != "" {
		t.Errorf("children of skill:// (-want +got):\n%s", diff)
	}
}

// Bad URIs are refused by a named rule, unknown ones are not found, and
// names are matched case-sensitively.
func TestURIRefusals(t *testing.T) {
	snap := uriCatalog(t)
	for uri, rule := range map[string]sources.PathRule{
		"skill://pdf/../secret":           sources.RuleParent,
		"skill://pdf/a/../../x":           sources.RuleParent,
		"skill://pdf/%2e%2e/x":            sources.RuleEncoded,
		"skill://pdf/%2E%2e":              sources.RuleEncoded,
		"skill://pdf/a%2fb":               sources.RuleEncoded,
		"skill://pdf/a%2Fb":               sources.RuleEncoded,
		"skill://pdf/a%5cb":               sources.RuleEncoded,
		`skill://pdf/a\b`:                 sources.RuleBackslash,
		"skill://pdf/a%00b":               sources.RuleNUL,
		"skill://pdf/a\x00b":              sources.RuleNUL,
		"skill://pdf/a\nb":                sources.RuleControl,
		"skill://pdf/a b":                 sources.RuleRaw,
		"skill://café/SKILL.md":           sources.RuleRaw,
		`skill://pdf/a"b`:                 sources.RuleRaw,
		"skill://pdf//etc/passwd":         sources.RuleEmpty,
		"skill:///etc/passwd":             sources.RuleEmpty,
		"skill://pdf/./SKILL.md":          sources.RuleDot,
		"skill://pdf/%zz":                 sources.RuleBadEncoding,
		"skill://pdf/%2":                  sources.RuleBadEncoding,
		"skill://pdf/0%80":                sources.RuleNotUTF8,
		"skill://pdf/a/%C3":               sources.RuleNotUTF8,
		"skill://pdf/" + longName(300):    sources.RuleTooLong,
		"skill://pdf/" + longPath(5000):   sources.RuleTooLong,
		"skill://pdf/a/" + longPath(1100): sources.RuleTooLong,
	} {
		_, err := snap.Resolve(uri)
		var pe *sources.PathError
		if !errors.As(err, &pe) || pe.Rule != rule {
			t.Errorf("%.60q: got %v, want rule %s", uri, err, rule)
		}
		if !errors.Is(err, sources.ErrBadPath) {
			t.Errorf("%.60q: %v does not match ErrBadPath", uri, err)
		}
	}
	// Decoded once, a '%' is the file name's own: these name files in
	// the folder, which the file system never decodes again.
	for uri, file := range map[string]string{
		"skill://pdf/%252e%252e/x": "%2e%2e/x",
		"skill://pdf/%252fetc":     "%2fetc",
		"skill://pdf/x%252Fy.md":   "x%2Fy.md",
	} {
		if a, err := snap.Resolve(uri); err != nil || a.File != file {
			t.Errorf("%q: got %+v, %v, want the file %q", uri, a, err, file)
		}
	}
	for _, uri := range []string{
		"skill://PDF/SKILL.md", // case-sensitive
		"skill://nope/SKILL.md",
		"skill://pdf:forms/SKILL.md", // ':' is written as '/'
		"skill://pdf%3Aforms/SKILL.md",
		"file:///etc/passwd",
		"skill://pdf/SKILL.md?x=1",
		"skill://pdf/SKILL.md#top",
		"skill://deploy-tips/other.md", // a note is alone in its skill
		"",
	} {
		if _, err := snap.Resolve(uri); !errors.Is(err, sources.ErrNotFound) {
			t.Errorf("%q: got %v, want not found", uri, err)
		}
	}
}

func longName(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a'
	}
	return string(b)
}

func longPath(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a'
		if i%100 == 99 {
			b[i] = '/'
		}
	}
	return string(b)
}

// A learned note is served as the SKILL.md of a skill of its own.
func TestURILearnedNote(t *testing.T) {
	snap := uriCatalog(t)
	a, err := snap.Resolve("skill://deploy-tips/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	if a.File != "deploy-tips.md" || a.Match.Skill.Kind != sources.KindLearned {
		t.Errorf("%+v", a)
	}
	if got := a.URI.File("deploy-tips.md"); got != "skill://deploy-tips/SKILL.md" {
		t.Errorf("the note's own file is %s", got)
	}
}
