package server_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// The resource templates complete skill names, and the files of the
// skill chosen.
func TestResourceCompletion(t *testing.T) {
	rt := newResourceTree(t)
	plugins := &sourcetest.Fake{SourceName: "plugins", Namespace: "example-skills", Skills: []sourcetest.FakeSkill{{Name: "pdf", Description: "The plugin's."}}}
	shadow := &sourcetest.Fake{SourceName: "project", Skills: []sourcetest.FakeSkill{{Name: "pdf", Description: "Shadowed."}}}
	cs := connect(t, server.New(newResolver(t, dirtree.New(rt.root, nil), plugins, shadow), nil), "2025-11-25", nil)
	complete := func(template, arg, value string, ctx map[string]string) []string {
		t.Helper()
		return completeResource(t, cs, template, arg, value, ctx)
	}
	for _, tt := range []struct {
		template, arg, value string
		ctx                  map[string]string
		want                 []string
	}{
		{"skill://{+skill}/{+path}", "skill", "pd", nil, []string{"example-skills/pdf", "pdf", "project/pdf"}},
		{"skill://{+skill}", "skill", "EX", nil, []string{"example-skills/pdf"}},
		{"skill://{+skill}/", "skill", "", nil, []string{"docx", "example-skills/pdf", "nested", "pdf", "project/pdf"}},
		{"skill://{+skill}/{+path}", "path", "ref", map[string]string{"skill": "pdf"}, []string{"references/guide.md"}},
		{"skill://{+skill}/{+path}", "path", "nested/", map[string]string{"skill": "pdf"}, []string{"nested/SKILL.md", "nested/ref.md"}},
		{"skill://{+skill}/{+path}", "path", "", map[string]string{"skill": "project/pdf"}, []string{"SKILL.md"}},
		{"skill://{+skill}/{+path}", "path", "", nil, []string{}},
		{"skill://{+skill}/{+path}", "path", "x", map[string]string{"skill": "../pdf"}, []string{}},
		{"file:///{path}", "skill", "", nil, []string{}},
	} {
		if diff := cmp.Diff(tt.want, complete(tt.template, tt.arg, tt.value, tt.ctx)); diff != "" {
			t.Errorf("%s %s=%q (-want +got):\n%s", tt.template, tt.arg, tt.value, diff)
		}
	}
}

// completeResource completes the argument arg of a resource template,
// with the other arguments ctx, and returns the values.
func completeResource(t *testing.T, cs *mcp.ClientSession, template, arg, value string, ctx map[string]string) []string {
	t.Helper()
	p := &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: template}, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
	if ctx != nil {
		p.Context = &mcp.CompleteContext{Arguments: ctx}
	}
	res, err := cs.Complete(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	return res.Completion.Values
}

// A skill of more files than a walk lists completes its paths with as
// many as an answer holds, and more to come, but no total: the walk
// stopped before it could count them.
func TestPathCompletionOfManyFiles(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"many/SKILL.md": "---\nname: many\ndescription: Many files.\n---\n"}
	for i := range sources.MaxListedFiles + 50 {
		files[fmt.Sprintf("many/f%05d.md", i)] = "x"
	}
	sourcetest.WriteFiles(t, root, files)
	cs := connect(t, server.New(newResolver(t, dirtree.New(root, nil)), nil), "2025-11-25", nil)
	res, err := cs.Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "skill://{+skill}/{+path}"},
		Argument: mcp.CompleteParamsArgument{Name: "path", Value: "f"},
		Context:  &mcp.CompleteContext{Arguments: map[string]string{"skill": "many"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Completion; !c.HasMore || c.Total != 0 || len(c.Values) == 0 {
		t.Errorf("hasMore %v, total %d, %d values; want more to come, no total", c.HasMore, c.Total, len(c.Values))
	}
	// A prefix is looked for among all the files, not the first listed:
	// those past them are completed too, and counted.
	res, err = cs.Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "skill://{+skill}/{+path}"},
		Argument: mcp.CompleteParamsArgument{Name: "path", Value: "F0102"},
		Context:  &mcp.CompleteContext{Arguments: map[string]string{"skill": "many"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Completion; c.HasMore || c.Total != 10 || len(c.Values) != 10 || c.Values[0] != "f01020.md" || c.Values[9] != "f01029.md" {
		t.Errorf("hasMore %v, total %d, values %v; want f01020.md to f01029.md", c.HasMore, c.Total, c.Values)
	}
}

// Completion values are what a template's {+var} takes: a client that
// expands the template as RFC 6570 says reaches every file with them, and
// one that encodes every '%' again (the TypeScript SDK's encodeURI) every
// file whose name holds no '%', '?' or '#'. A URI that a value encoded
// twice, or a name's '?' written as it is, is answered with the URI meant.
func TestResourceCompletionValuesExpand(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"été/SKILL.md": "---\nname: été\ndescription: Summer.\n---\nbody\n"}
	names := []string{"a b.md", "refs/c d.md", "p%41.md", "q?.md", "x#y.md", "plain.md", "v[1].md", "s%2Ft.md"}
	for _, n := range names {
		files["été/"+n] = n
	}
	sourcetest.WriteFiles(t, root, files)
	cs := connect(t, server.New(newResolver(t, dirtree.New(root, nil)), nil), "2025-11-25", nil)
	complete := func(arg, value string, ctx map[string]string) []string {
		t.Helper()
		return completeResource(t, cs, "skill://{+skill}/{+path}", arg, value, ctx)
	}
	if got := complete("skill", "ét", nil); !slices.Equal(got, []string{"été"}) {
		t.Fatalf("skill ét: %q", got)
	}
	if got := complete("skill", "%C3%A9t", nil); !slices.Equal(got, []string{"été"}) {
		t.Errorf("skill %%C3%%A9t, as the URI holds it: %q", got)
	}
	paths := complete("path", "", map[string]string{"skill": "été"})
	want := []string{"SKILL.md", "a b.md", "p%2541.md", "plain.md", "q%3F.md", "refs/c d.md", "s%252Ft.md", "v[1].md", "x%23y.md"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Fatalf("paths of été (-want +got):\n%s", diff)
	}
	if got := complete("path", "refs/c%20", map[string]string{"skill": "%C3%A9t%C3%A9"}); !slices.Equal(got, []string{"refs/c d.md"}) {
		t.Errorf("path refs/c%%20 of %%C3%%A9t%%C3%%A9: %q", got)
	}
	if got := complete("path", "refs/", map[string]string{"skill": "e\u0301te\u0301"}); !slices.Equal(got, []string{"refs/c d.md"}) {
		t.Errorf("path refs/ of the skill typed with combining accents: %q", got)
	}
	nameOf := map[string]string{"p%2541.md": "p%41.md", "q%3F.md": "q?.md", "x%23y.md": "x#y.md", "s%252Ft.md": "s%2Ft.md"}
	for _, p := range paths {
		name := p
		if n, ok := nameOf[p]; ok {
			name = n
		}
		if uri := "skill://" + rfc6570Reserved("été") + "/" + rfc6570Reserved(p); !readsAs(t, cs, uri, name) {
			t.Errorf("%q, expanded as RFC 6570 says: %s does not read", p, uri)
		}
		if strings.ContainsAny(name, "%?#") {
			continue
		}
		if uri := "skill://" + encodeURI("été") + "/" + encodeURI(p); !readsAs(t, cs, uri, name) {
			t.Errorf("%q, expanded with encodeURI: %s does not read", p, uri)
		}
	}
	for uri, near := range map[string]string{
		"skill://%25C3%25A9t%25C3%25A9/a%2520b.md": "skill://%C3%A9t%C3%A9/a%20b.md",
		"skill://%25C3%25A9t%25C3%25A9":            "skill://%C3%A9t%C3%A9",
		"skill://%25C3%25A9t%25C3%25A9/":           "skill://%C3%A9t%C3%A9/",
		"skill://%C3%A9t%C3%A9/q?.md":              "skill://%C3%A9t%C3%A9/q%3F.md",
		"skill://%C3%A9t%C3%A9/x#y.md":             "skill://%C3%A9t%C3%A9/x%23y.md",
		"skill://%C3%A9t%C3%A9/p%41.md":            "skill://%C3%A9t%C3%A9/p%2541.md",
		"skill://%C3%A9t%C3%A9/s%2Ft.md":           "skill://%C3%A9t%C3%A9/s%252Ft.md",
	} {
		_, err := read(cs, uri)
		if err == nil || !strings.Contains(err.Error(), "did you mean "+near+"?") {
			t.Errorf("%s: %v; want the URI meant, %s", uri, err, near)
		}
	}
}

// readsAs reports whether uri reads as the file whose text is its name.
func readsAs(t *testing.T, cs *mcp.ClientSession, uri, name string) bool {
	t.Helper()
	res, err := read(cs, uri)
	if err != nil {
		t.Log(err)
		return false
	}
	return name == "SKILL.md" || res.Contents[0].Text == name
}

// rfc6570Reserved expands a {+var}: unreserved and reserved characters
// and percent-encoded triplets as they are, every other byte encoded.
func rfc6570Reserved(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		triplet := c == '%' && i+2 < len(v) && strings.ContainsRune("0123456789ABCDEFabcdef", rune(v[i+1])) && strings.ContainsRune("0123456789ABCDEFabcdef", rune(v[i+2]))
		if triplet || c < 0x80 && (unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) || strings.ContainsRune("-._~:/?#[]@!$&'()*+,;=", rune(c))) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// encodeURI is JavaScript's: every byte encoded but letters, digits and
// -_.!~*'();/?:@&=+$,#.
func encodeURI(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < 0x80 && (unicode.IsLetter(rune(c)) || unicode.IsDigit(rune(c)) || strings.ContainsRune("-_.!~*'();/?:@&=+$,#", rune(c))) {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// The URI meant is never one a read would refuse: whether an editor's
// leftover, or a file outside resources.allow_dirs, exists is not told.
func TestLiteralURIHintsOnlyWhatIsServed(t *testing.T) {
	root := t.TempDir()
	sourcetest.WriteFiles(t, root, map[string]string{
		"s/SKILL.md":           "---\nname: s\ndescription: Hidden files.\n---\nbody\n",
		"s/#notes.md#":         "an autosave",
		"s/private/a#b.md":     "outside allow_dirs",
		"s/scripts/run#1.sh":   "served",
		"trail /SKILL.md":      "---\nname: trail\ndescription: A folder that ends in a space.\n---\nbody\n",
		"trail /assets/big.md": strings.Repeat("\x01", 2<<20),
	})
	cs := connect(t, server.New(newResolver(t, dirtree.New(root, nil)), &server.Options{AllowDirs: []string{"scripts", "assets"}}), "2025-11-25", nil)
	for uri, want := range map[string]string{
		"skill://s/#notes.md#":       "resource not found: skill://s/#notes.md#",
		"skill://s/private/a#b.md":   "resource not found: skill://s/private/a#b.md",
		"skill://s/scripts/run#1.sh": "did you mean skill://s/scripts/run%231.sh?",
	} {
		_, err := read(cs, uri)
		if err == nil || !strings.HasSuffix(err.Error(), want) && !strings.Contains(err.Error(), want+" ") {
			t.Errorf("%s: %v; want it to end %q", uri, err, want)
		}
	}
	// The path on disk of a file too large for a message is given for a
	// folder whose name ends in a space too.
	_, err := read(cs, "skill://trail/assets/big.md")
	if want := "; read it from " + filepath.Join(root, "trail ", "assets", "big.md"); err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("a file too large in %q: %v; want it to end %s", "trail ", err, want)
	}
}
