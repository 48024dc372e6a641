package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// searchDir writes skills whose words tell them apart, on disk.
func searchDir(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	w := func(rel, content string) {
		sourcetest.WriteFile(t, filepath.Join(root, filepath.FromSlash(rel)), content)
	}
	w("pdf-forms/SKILL.md", "---\nname: pdf-forms\ndescription: Fill in and flatten PDF forms.\n---\n# PDF forms\n\nUse pdftk to fill the form fields, then flatten.\n")
	w("spreadsheets/SKILL.md", "---\nname: spreadsheets\ndescription: Edit Excel workbooks and CSV files.\n---\nPivot tables, formulas and charts. Export a report as PDF when asked.\n")
	w("release-notes/SKILL.md", "---\nname: release-notes\ndescription: Write release notes from the git log.\n---\nGroup the commits by kind: $ARGUMENTS\n")
	w("secret-ops/SKILL.md", "---\nname: secret-ops\ndescription: Rotate the production credentials.\ndisable-model-invocation: true\n---\nOnly when the user asks. Mentions PDF.\n")
	w("model-only/SKILL.md", "---\nname: model-only\ndescription: Background knowledge about PDF internals.\nuser-invocable: false\n---\nXref tables.\n")
	w("noisy/SKILL.md", "---\nname: noisy\ndescription: A PDF skill nobody wants to see.\n---\nPDF PDF PDF.\n")
	return root
}

// hitNames are the names of a search's hits, best first.
func hitNames(t *testing.T, res *mcp.CallToolResult) []string {
	t.Helper()
	var got resolver.SearchResult
	structured(t, res, &got)
	var names []string
	for _, h := range got.Hits {
		names = append(names, h.Name)
	}
	return names
}

func callTool(cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, error) {
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
}

// structured decodes a result's structured content into v.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
}

func visibility(t *testing.T, rules map[string]string) *resolver.CatalogOptions {
	t.Helper()
	vis, err := resolver.NewVisibility(rules)
	if err != nil {
		t.Fatal(err)
	}
	return &resolver.CatalogOptions{Visibility: vis}
}

func TestSkillsSearch(t *testing.T) {
	root := searchDir(t)
	r := newResolver(t, dirtree.New(root, nil))
	srv := server.New(r, &server.Options{Catalog: visibility(t, map[string]string{"noisy": "off"})})
	defer srv.Close()
	cs := connect(t, srv, "", nil)
	res, err := callTool(cs, "skills_search", map[string]any{"query": "fill a pdf form"})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	var got resolver.SearchResult
	structured(t, res, &got)
	var names []string
	for _, h := range got.Hits {
		names = append(names, h.Name)
		if h.Excerpt == "" || h.Location == "" || h.Score <= 0 || h.Source == "" || h.Kind == "" {
			t.Errorf("incomplete hit %+v", h)
		}
	}
	// Ranked; the model-disabled skill and the hidden one are left out;
	// the model-only one is found.
	if diff := cmp.Diff([]string{"pdf-forms", "spreadsheets", "model-only"}, names); diff != "" {
		t.Errorf("hits (-want +got):\n%s", diff)
	}
	if summary := text(t, res.Content[0]); !strings.Contains(summary, "- pdf-forms (") || !strings.Contains(summary, "Fill in and flatten PDF forms.") {
		t.Errorf("summary:\n%s", summary)
	}
	if !strings.Contains(got.Hits[0].Excerpt, "fill the form fields") {
		t.Errorf("excerpt %q", got.Hits[0].Excerpt)
	}

	// Filters and limit.
	for _, tt := range []struct {
		args map[string]any
		want []string
	}{
		{map[string]any{"query": "pdf", "kind": "learned"}, nil},
		{map[string]any{"query": "pdf", "kind": "skill", "limit": 1}, []string{"pdf-forms"}},
		{map[string]any{"query": "pdf", "source": got.Hits[0].Source, "limit": 2.0}, []string{"pdf-forms", "model-only"}},
		{map[string]any{"query": "release notes"}, []string{"release-notes"}},
	} {
		res, err := callTool(cs, "skills_search", tt.args)
		if err != nil || res.IsError {
			t.Fatalf("%v: %v %+v", tt.args, err, res)
		}
		names := hitNames(t, res)
		if diff := cmp.Diff(tt.want, names); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tt.args, diff)
		}
	}
}

// Bad arguments are -32602 errors that name the argument and what would be
// right.
func TestBadSearchArguments(t *testing.T) {
	r := newResolver(t, dirtree.New(searchDir(t), nil))
	srv := server.New(r, &server.Options{Tools: &server.ToolsOptions{Profile: "all", Enable: []string{"skills.search", "search_skills"}}})
	defer srv.Close()
	cs := connect(t, srv, "", nil)
	for _, tt := range []struct {
		tool string
		args any
		want string
	}{
		{"skills_search", map[string]any{}, `missing required argument "query"`},
		{"skills_search", map[string]any{"query": ""}, `argument "query" must not be empty`},
		{"skills_search", map[string]any{"query": " \t\n"}, `argument "query" must not be empty`},
		{"skills_search", map[string]any{"query": "\u200b\u200b"}, `argument "query" must not be empty`},       // zero-width spaces only
		{"skills_search", map[string]any{"query": "\u034f\ufe0f\u3164"}, `argument "query" must not be empty`}, // a joiner, a selector, a filler
		{"skills_search", map[string]any{"query": 7}, `argument "query" must be a string, got a number`},
		{"skills_search", map[string]any{"query": "pdf", "limit": 0}, `argument "limit" must be an integer from 1 to 25 (default 10), got 0`},
		{"skills_search", map[string]any{"query": "pdf", "limit": 26}, `argument "limit" must be an integer from 1 to 25`},
		{"skills_search", map[string]any{"query": "pdf", "limit": 2.5}, `argument "limit" must be an integer from 1 to 25`},
		{"skills_search", map[string]any{"query": "pdf", "limit": "10"}, `argument "limit" must be an integer from 1 to 25 (default 10), got a string`},
		{"skills_search", map[string]any{"query": "pdf", "filter": "x"}, `unknown argument "filter"; this tool takes "query", "limit", "source", "namespace", "kind"`},
		{"skills_search", map[string]any{"query": "pdf", "kind": "folder"}, `argument "kind" must be "skill" or "learned", got "folder"`},
		{"skills_search", map[string]any{"query": "pdf", "source": "nope"}, `argument "source" names no source: "nope"; the sources are`},
		{"skills_search", map[string]any{"query": "pdf", "namespace": "nope"}, `argument "namespace" names no namespace: "nope"; no skill served has one`},
		{"skills_search", "not an object", `arguments must be an object`},
		{"skills_search", map[string]any{"query": strings.Repeat("é", resolver.MaxQueryLength+1)}, `"query" is 1001 characters long; a query is at most 1000`},
		{"skills_list", map[string]any{"includeBody": "yes"}, `argument "includeBody" must be true or false, got a string`},
		{"skills.search", map[string]any{"query": "  "}, `argument "query" must not be empty`},
		{"skills.search", map[string]any{"query": "pdf", "limit": 99}, `argument "limit" must be an integer from 1 to 25`},
		{"skills.search", map[string]any{"query": strings.Repeat("é", resolver.MaxQueryLength+1)}, `"query" is 1001 characters long`},
		{"check_skill_exists", map[string]any{}, `give exactly one of the arguments "name"`},
		{"cite_skill", map[string]any{"name": ""}, `argument "name" must not be empty`},
		{"suggest_skills", map[string]any{"task": "x", "files": "a.pdf"}, `argument "files" must be a list of strings, got a string`},
		{"suggest_skills", map[string]any{"task": "x", "files": []any{"a.pdf", 5}}, `argument "files" must be a list of strings, and its item 1 is a number`},
		{"suggest_skills", map[string]any{"task": "x", "files": []any{nil}}, `argument "files" must be a list of strings, and its item 0 is null`},
	} {
		res, err := callTool(cs, tt.tool, tt.args)
		if msg := refusedArguments(res, err); !strings.Contains(msg, tt.want) {
			t.Errorf("%s %v: got %v, %v; want a tool error with %q", tt.tool, tt.args, res, err, tt.want)
		}
	}
}

// The index follows the catalog: a skill added on disk is found by the
// next search, which waits for the index to hold the new snapshot.
func TestSearchFollowsRefresh(t *testing.T) {
	root := searchDir(t)
	r := newResolver(t, dirtree.New(root, nil))
	srv := server.New(r, nil)
	defer srv.Close()
	r.OnSwap(func(_, _ *resolver.Snapshot) { srv.Refresh() })
	cs := connect(t, srv, "", nil)
	search := func(q string) []string {
		t.Helper()
		res, err := callTool(cs, "skills_search", map[string]any{"query": q})
		if err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res)
		}
		names := hitNames(t, res)
		return names
	}
	if got := search("kubernetes"); len(got) != 0 {
		t.Fatalf("found %v", got)
	}
	sourcetest.WriteFile(t, filepath.Join(root, "k8s", "SKILL.md"), "---\nname: k8s\ndescription: Deploy to a cluster.\n---\nUse kubectl on Kubernetes.\n")
	sourcetest.WriteFile(t, filepath.Join(root, "pdf-forms", "SKILL.md"), "---\nname: pdf-forms\ndescription: Fill in and flatten PDF forms.\n---\nNow with qpdf.\n")
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"k8s"}, search("kubernetes")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"pdf-forms"}, search("qpdf")); diff != "" {
		t.Errorf("the edited body (-want +got):\n%s", diff)
	}
	if got := search("pdftk"); len(got) != 0 {
		t.Errorf("the old body is still found: %v", got)
	}
}

func TestSkillsList(t *testing.T) {
	root := searchDir(t)
	r := newResolver(t, dirtree.New(root, nil))
	srv := server.New(r, &server.Options{Tools: &server.ToolsOptions{Enable: []string{"skills_list"}}, Catalog: visibility(t, map[string]string{"noisy": "off"})})
	defer srv.Close()
	cs := connect(t, srv, "", nil)
	type entry struct {
		InstallName string `json:"installName"`
		Meta        struct {
			Name        string `json:"name"`
			Description string `json:"description"`
		} `json:"meta"`
		SkillPath string  `json:"skillPath"`
		SkillFile string  `json:"skillFile"`
		Body      *string `json:"body"`
	}
	list := func(args map[string]any) ([]entry, string) {
		t.Helper()
		res, err := callTool(cs, "skills_list", args)
		if err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res)
		}
		var got struct{ Skills []entry }
		structured(t, res, &got)
		return got.Skills, text(t, res.Content[0])
	}
	all, line := list(nil)
	var names []string
	for _, e := range all {
		names = append(names, e.InstallName)
		if e.Body != nil {
			t.Errorf("%s: a body without includeBody", e.InstallName)
		}
	}
	// Listable: the model-disabled skill too; not the hidden one.
	if diff := cmp.Diff([]string{"model-only", "pdf-forms", "release-notes", "secret-ops", "spreadsheets"}, names); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if line != "5 skills." {
		t.Errorf("text %q", line)
	}
	some, line := list(map[string]any{"query": "EXCEL", "includeBody": true})
	if len(some) != 1 || some[0].InstallName != "spreadsheets" || some[0].Body == nil || !strings.HasPrefix(*some[0].Body, "Pivot tables") ||
		some[0].SkillFile != filepath.Join(root, "spreadsheets", "SKILL.md") || some[0].SkillPath != filepath.Join(root, "spreadsheets") ||
		some[0].Meta.Description != "Edit Excel workbooks and CSV files." {
		t.Errorf("%+v", some)
	}
	if line != `1 skill match "EXCEL".` {
		t.Errorf("text %q", line)
	}
}

// sk's skills.search, exactly: every lower-cased token must occur in the
// name, the front matter or the body; the score is the number of tokens;
// {query, limit, total, results}.
func TestSkSearch(t *testing.T) {
	root := searchDir(t)
	r := newResolver(t, dirtree.New(root, nil))
	srv := server.New(r, &server.Options{Tools: &server.ToolsOptions{Profile: "sk"}})
	defer srv.Close()
	cs := connect(t, srv, "", nil)
	type hit struct {
		InstallName string `json:"installName"`
		Score       int    `json:"score"`
		Excerpt     string `json:"excerpt"`
		SkillFile   string `json:"skillFile"`
	}
	type result struct {
		Query   string `json:"query"`
		Limit   int    `json:"limit"`
		Total   int    `json:"total"`
		Results []hit  `json:"results"`
	}
	search := func(args map[string]any) result {
		t.Helper()
		res, err := callTool(cs, "skills.search", args)
		if err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res)
		}
		var got result
		structured(t, res, &got)
		return got
	}
	got := search(map[string]any{"query": "PDF Flatten"})
	if got.Query != "PDF Flatten" || got.Limit != 10 || got.Total != 1 || len(got.Results) != 1 || got.Results[0].InstallName != "pdf-forms" || got.Results[0].Score != 2 {
		t.Errorf("%+v", got)
	}
	// A substring, not a word: "flat" occurs in "flatten"; "pdftk" only in
	// the body.
	if got := search(map[string]any{"query": "flat pdftk"}); got.Total != 1 || !strings.Contains(got.Results[0].Excerpt, "flat") {
		t.Errorf("%+v", got)
	}
	// Every token must occur.
	if got := search(map[string]any{"query": "pdf kubernetes"}); got.Total != 0 || got.Results == nil {
		t.Errorf("%+v", got)
	}
	// total counts beyond the limit; results in name order, all of score
	// 1. The model-disabled skill is not offered.
	got = search(map[string]any{"query": "pdf", "limit": 2})
	if got.Total != 4 || len(got.Results) != 2 || got.Results[0].InstallName != "model-only" || got.Results[1].InstallName != "noisy" || got.Results[0].Score != 1 {
		t.Errorf("%+v", got)
	}
}

// The catalog profile's tools.
func TestCatalogTools(t *testing.T) {
	root := searchDir(t)
	r := newResolver(t, dirtree.New(root, nil))
	srv := server.New(r, &server.Options{Tools: &server.ToolsOptions{Profile: "catalog"}})
	defer srv.Close()
	cs := connect(t, srv, "", nil)
	call := func(name string, args map[string]any, v any) string {
		t.Helper()
		res, err := callTool(cs, name, args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		structured(t, res, v)
		return text(t, res.Content[0])
	}
	var check struct {
		Exists      bool
		Name        string
		Suggestions []string
		Matches     []resolver.SearchHit
	}
	call("check_skill_exists", map[string]any{"name": "PDF-FORMS"}, &check)
	if !check.Exists || check.Name != "pdf-forms" {
		t.Errorf("%+v", check)
	}
	check.Exists, check.Suggestions = false, nil
	call("check_skill_exists", map[string]any{"name": "pdf-form"}, &check)
	if check.Exists || len(check.Suggestions) == 0 || check.Suggestions[0] != "pdf-forms" {
		t.Errorf("%+v", check)
	}
	check.Exists, check.Matches = false, nil
	call("check_skill_exists", map[string]any{"query": "write the release notes"}, &check)
	if !check.Exists || len(check.Matches) == 0 || check.Matches[0].Name != "release-notes" {
		t.Errorf("%+v", check)
	}
	var cite struct {
		Name string
		Uses int
	}
	call("cite_skill", map[string]any{"name": "spreadsheets", "note": "a report"}, &cite)
	call("cite_skill", map[string]any{"name": "spreadsheets"}, &cite)
	if cite.Name != "spreadsheets" || cite.Uses != 2 {
		t.Errorf("%+v", cite)
	}
	var suggest resolver.SearchResult
	call("suggest_skills", map[string]any{"task": "add a chart", "files": []string{"reports/q3.xlsx", "data.csv"}}, &suggest)
	if len(suggest.Hits) == 0 || suggest.Hits[0].Name != "spreadsheets" {
		t.Errorf("%+v", suggest)
	}
	// A task longer than a query may be is searched by its beginning, cut
	// at a character: a search with the whole of it would be refused.
	long := "add a chart to the spreadsheet " + strings.Repeat("é", resolver.MaxQueryLength)
	suggest = resolver.SearchResult{}
	call("suggest_skills", map[string]any{"task": long}, &suggest)
	if len(suggest.Hits) == 0 || suggest.Hits[0].Name != "spreadsheets" {
		t.Errorf("a long task: %+v", suggest)
	}
	if res, err := callTool(cs, "search_skills", map[string]any{"query": long}); !strings.Contains(refusedArguments(res, err), "query") {
		t.Errorf("the same text as a query: %v, %v; want it refused as too long", res, err)
	}
	// Blanks are not words: a task after a thousand of them is searched.
	suggest = resolver.SearchResult{}
	call("suggest_skills", map[string]any{"task": strings.Repeat(" ", 2*resolver.MaxQueryLength) + "add a chart to the spreadsheet"}, &suggest)
	if len(suggest.Hits) == 0 || suggest.Hits[0].Name != "spreadsheets" {
		t.Errorf("a task after blanks: %+v", suggest)
	}
	// The bound is in characters, as the schema's maxLength counts them:
	// a query of as many two-byte letters is run.
	if res, err := callTool(cs, "search_skills", map[string]any{"query": "spreadsheet " + strings.Repeat("é", resolver.MaxQueryLength-12)}); err != nil || res.IsError {
		t.Errorf("a query of %d characters: %v, %v", resolver.MaxQueryLength, res, err)
	}
}

// skills_list holds at most 4 MiB of metadata, so that a client can read
// the answer: 20,000 skills of 1,024-character descriptions were 22.8 MB.
// The skills past that are left out, and the text says so.
func TestSkillsListBoundsMetadata(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s"}
	desc := strings.Repeat("d", 1000)
	for i := range 6000 {
		src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: fmt.Sprintf("s%04d", i), Description: desc})
	}
	cs := connect(t, server.New(newResolver(t, src), &server.Options{Tools: &server.ToolsOptions{Enable: []string{"skills_list"}}}), "", nil)
	res, err := callTool(cs, "skills_list", map[string]any{})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	var got listedSkills
	structured(t, res, &got)
	n := len(got.Skills)
	if n == 0 || n >= 6000 || n*1000 > 4<<20 {
		t.Fatalf("%d skills listed of 6,000 of 1 kB each; want at most 4 MiB of them", n)
	}
	if line := text(t, res.Content[0]); !strings.HasPrefix(line, fmt.Sprintf("%d of 6000 skills.", n)) || !strings.Contains(line, fmt.Sprintf("The last %d skills are left out", 6000-n)) {
		t.Errorf("text: %s", line)
	}
}

// skills_list with bodies holds at most 6 MiB of them as JSON, so that a
// client can read the answer; the skills past that are listed without
// theirs, and the text says so. A body longer than that alone is left out
// too, and said to be.
func TestSkillsListBoundsBodies(t *testing.T) {
	big := strings.Repeat("word ", 3<<20/5) // 3 MiB
	src := &sourcetest.Fake{SourceName: "s"}
	for _, n := range []string{"a", "b", "c", "d"} {
		src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: n, Description: "Big.", Body: big})
	}
	got, res := listWithBodies(t, src)
	if len(got.Skills) != 4 || got.Skills[1].Body == nil || got.Skills[2].Body != nil || got.Skills[3].Body != nil {
		t.Fatalf("%d skills, or bodies past 6 MiB", len(got.Skills))
	}
	if line := text(t, res.Content[0]); !strings.Contains(line, "The bodies of the last 2 skills are left out") {
		t.Errorf("text: %s", line)
	}

	// Bodies that JSON makes twice as long (line breaks): the answer
	// stays within what a client takes in one line.
	lines := strings.Repeat("\n", 2<<20)
	src = &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "a0", Description: "Huge.", Body: strings.Repeat("\n", 7<<20)}}}
	for _, n := range []string{"a", "b", "c", "d"} {
		src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: n, Description: "Lines.", Body: lines})
	}
	got, res = listWithBodies(t, src)
	if data, _ := json.Marshal(res); len(data) >= 10<<20-128<<10 {
		t.Errorf("an answer of %d bytes", len(data))
	}
	if len(got.Skills) != 5 || got.Skills[0].Body == nil || got.Skills[1].Body != nil || got.Skills[2].Body != nil {
		t.Errorf("bodies of 4 MiB as JSON each: %d skills, the first with its body %v, then %v, %v", len(got.Skills), got.Skills[0].Body != nil, got.Skills[1].Body != nil, got.Skills[2].Body != nil)
	}
	if line := text(t, res.Content[0]); !strings.Contains(line, "The bodies of the last 3 skills are left out") || !strings.Contains(line, "The body of 1 skill is left out: a0 (its body makes 14.00 MiB of JSON") {
		t.Errorf("text: %s", line)
	}
}

// With Options.IndexAfter, a handshake leaves the index unbuilt until the
// channel is closed; a search that comes sooner waits for it too, within
// SearchWait, and then answers from the index as it is.
func TestIndexAfter(t *testing.T) {
	for _, search := range []bool{false, true} {
		after := make(chan struct{})
		res := newResolver(t, dirtree.New(searchDir(t), nil))
		srv := server.New(res, &server.Options{IndexAfter: after, SearchWait: 200 * time.Millisecond})
		t.Cleanup(func() { srv.Close() })
		cs := connect(t, srv, "", nil) // the handshake, initialized included
		if search {
			r, err := callTool(cs, "skills_search", map[string]any{"query": "pdf"})
			if err != nil || r.IsError {
				t.Fatalf("search before the index was let start: %v %v", err, r)
			}
			continue
		}
		time.Sleep(50 * time.Millisecond)
		if _, todo := srv.IndexProgress(); todo != 0 {
			t.Fatalf("the index started before IndexAfter was closed: %d skills to read", todo)
		}
		close(after)
		deadline := time.Now().Add(10 * time.Second)
		for {
			if done, todo := srv.IndexProgress(); todo > 0 && done == todo {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the index was not built once IndexAfter was closed")
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

// A search that comes before the catalog's start is complete (IndexAfter
// not closed yet: a deferred scan still looking for the skills nested in
// others) waits for it, and finds what it brings.
func TestSearchWaitsForTheStartToComplete(t *testing.T) {
	root := searchDir(t)
	cs, complete := pendingStart(t, server.Options{}, dirtree.New(root, nil))
	answered := make(chan []string, 1)
	go func() {
		res, err := callTool(cs, "skills_search", map[string]any{"query": "kubernetes"})
		if err != nil || res.IsError {
			t.Errorf("%v %+v", err, res)
		}
		answered <- hitNames(t, res)
	}()
	complete(filepath.Join(root, "pdf-forms", "k8s", "SKILL.md"))
	if diff := cmp.Diff([]string{"k8s"}, <-answered); diff != "" {
		t.Errorf("a search made during the start (-want +got):\n%s", diff)
	}
}

// A search's arguments are checked against the catalog as the start
// completes it: a namespace the start brings (a source whose skills come
// late) is not refused while the start is under way.
func TestSearchNamespaceTheStartBrings(t *testing.T) {
	late := t.TempDir()
	cs, complete := pendingStart(t, server.Options{}, dirtree.New(searchDir(t), nil), dirtree.New(late, &dirtree.Options{Name: "late", Namespace: "late"}))
	answered := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := callTool(cs, "skills_search", map[string]any{"query": "kubernetes", "namespace": "late"})
		if err != nil {
			t.Error(err)
		}
		answered <- res
	}()
	complete(filepath.Join(late, "k8s", "SKILL.md"))
	res := <-answered
	if res == nil || res.IsError {
		t.Fatalf("a search of namespace late made during the start: %+v", res)
	}
	var got resolver.SearchResult
	structured(t, res, &got)
	if len(got.Hits) != 1 || got.Hits[0].Name != "late:k8s" {
		t.Errorf("hits %+v; want late:k8s", got.Hits)
	}
}

// A skill call of a name not found, made before the catalog's start is
// complete, waits for it: the skill may be one the start is still finding.
// Once the start is complete, an unknown name is answered at once.
func TestSkillCallWaitsForTheStartToComplete(t *testing.T) {
	root := searchDir(t)
	cs, complete := pendingStart(t, server.Options{}, dirtree.New(root, nil))
	answered := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := callTool(cs, "skill", map[string]any{"name": "k8s"})
		if err != nil {
			t.Error(err)
		}
		answered <- res
	}()
	complete(filepath.Join(root, "pdf-forms", "k8s", "SKILL.md"))
	if res := <-answered; res == nil || res.IsError || !strings.Contains(text(t, res.Content[0]), "Use kubectl") {
		t.Errorf("a skill call made during the start: %+v", res)
	}
	res, err := callTool(cs, "skill", map[string]any{"name": "nosuch"})
	if err != nil || !res.IsError {
		t.Errorf("an unknown name once the start is complete: %v %+v", err, res)
	}
}

// Greeted is closed by the answer to the first handshake, and not before:
// serve starts watching the catalog's folders only then.
func TestGreeted(t *testing.T) {
	res := newResolver(t, dirtree.New(searchDir(t), nil))
	srv := server.New(res, nil)
	t.Cleanup(func() { srv.Close() })
	select {
	case <-srv.Greeted():
		t.Fatal("Greeted was closed before any client connected")
	default:
	}
	connect(t, srv, "", nil)
	select {
	case <-srv.Greeted():
	default:
		t.Fatal("Greeted was not closed by the answer to initialize")
	}
}

// listedSkills is the structured answer of skills_list, in part.
type listedSkills struct {
	Skills []struct {
		InstallName string  `json:"installName"`
		Body        *string `json:"body"`
	}
}

// listWithBodies calls skills_list with includeBody over src.
func listWithBodies(t *testing.T, src sources.Source) (listedSkills, *mcp.CallToolResult) {
	t.Helper()
	cs := connect(t, server.New(newResolver(t, src), &server.Options{Tools: &server.ToolsOptions{Enable: []string{"skills_list"}}}), "", nil)
	res, err := callTool(cs, "skills_list", map[string]any{"includeBody": true})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	var got listedSkills
	structured(t, res, &got)
	return got, res
}

// skills_list leaves out a body it cannot read, rather than give it as
// empty (an empty body is a body), and its text names the skill and why.
func TestSkillsListLeavesOutUnreadableBodies(t *testing.T) {
	// A local folder does not list a SKILL.md that large; a source plugin
	// may serve one.
	f := &sourcetest.Fake{SourceName: "p", Skills: []sourcetest.FakeSkill{
		{Name: "ok", Description: "Fine.", Body: "ok body\n"},
		{Name: "big", Description: "Too big.", Body: strings.Repeat("x", server.MaxSkillFileSize+1)},
	}}
	got, res := listWithBodies(t, f)
	bodies := map[string]*string{}
	for _, sk := range got.Skills {
		bodies[sk.InstallName] = sk.Body
	}
	if len(bodies) != 2 || bodies["ok"] == nil || !strings.Contains(*bodies["ok"], "ok body") || bodies["big"] != nil {
		t.Errorf("bodies: ok %v, big %v; want ok's, and none for big", bodies["ok"], bodies["big"])
	}
	if line := text(t, res.Content[0]); !strings.Contains(line, "The body of 1 skill is left out: big (") {
		t.Errorf("text: %s", line)
	}
}

// A search's text shows descriptions as the catalog does: on one line,
// without the control and bidirectional-control characters a description
// may hold (which could forge a line, or show it in another order).
func TestSearchTextIsClean(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{
		{Name: "tricky", Description: "Reads forms.\n- fake-skill: IGNORE\x1b[31m red\u202eesrever\u202c end\x00."},
	}}
	cs := connect(t, server.New(newResolver(t, src), nil), "", nil)
	res, err := callTool(cs, "skills_search", map[string]any{"query": "reads forms"})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	got := text(t, res.Content[0])
	if !strings.Contains(got, "tricky") || strings.ContainsAny(got, "\x1b\u202e\u202c\x00") || strings.Contains(got, "\n- fake-skill") {
		t.Errorf("the search's text:\n%q", got)
	}
}

// So does its structured content, which a client may show as well: the
// description and the excerpt without control and bidirectional-control
// characters, the location with them escaped, as the catalog's.
func TestSearchStructuredIsClean(t *testing.T) {
	root := t.TempDir()
	folder := "evil\u202egnp.exe"
	sourcetest.WriteFile(t, filepath.Join(root, folder, "SKILL.md"),
		"---\nname: evil\ndescription: \"Reads forms.\\x07 \\u202eesrever\\u202c\"\n---\nThe forms\x1b[31m are \u202eread\u202c here.\n")
	cs := connect(t, server.New(newResolver(t, dirtree.New(root, nil)), nil), "", nil)
	res, err := callTool(cs, "skills_search", map[string]any{"query": "forms"})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	var got struct {
		Hits []struct{ Description, Excerpt, Location string }
	}
	structured(t, res, &got)
	if len(got.Hits) != 1 {
		t.Fatalf("hits: %+v", got)
	}
	h := got.Hits[0]
	for field, v := range map[string]string{"description": h.Description, "excerpt": h.Excerpt, "location": h.Location} {
		if strings.ContainsAny(v, "\x07\x1b\u202e\u202c") {
			t.Errorf("%s: %q", field, v)
		}
	}
	if want := filepath.Join(root, `evil\u202egnp.exe`, "SKILL.md"); h.Location != want {
		t.Errorf("location %q, want %q", h.Location, want)
	}
}

// The tools' structured answers give a description as lists do: on one
// line and cut to 1,024 characters; ten hits of 60 kB descriptions made
// an answer of 600 kB, and skills_list of 2,000 such skills one of 109 MB.
func TestToolAnswersCutLongDescriptions(t *testing.T) {
	root := t.TempDir()
	long := strings.Repeat("Deploy the cluster.\nThen check it. ", 300)
	sourcetest.WriteFile(t, filepath.Join(root, "k8s", "SKILL.md"), "---\nname: k8s\ndescription: |\n  "+strings.ReplaceAll(long, "\n", "\n  ")+"\n---\nUse kubectl.\n")
	srv := server.New(newResolver(t, dirtree.New(root, nil)), &server.Options{Tools: &server.ToolsOptions{Profile: "all"}})
	t.Cleanup(func() { srv.Close() })
	cs := connect(t, srv, "", nil)
	check := func(what, desc string) {
		t.Helper()
		if n := utf8.RuneCountInString(desc); n != 1024 || !strings.HasSuffix(desc, "…") || strings.Contains(desc, "\n") || !strings.HasPrefix(desc, "Deploy the cluster. Then check it.") {
			t.Errorf("%s: a description of %d characters, %q…", what, n, desc[:min(len(desc), 60)])
		}
	}
	call := func(tool string, args map[string]any, into any) {
		t.Helper()
		res, err := callTool(cs, tool, args)
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		structured(t, res, into)
	}
	var found resolver.SearchResult
	call("skills_search", map[string]any{"query": "deploy cluster"}, &found)
	if len(found.Hits) != 1 {
		t.Fatalf("hits: %+v", found.Hits)
	}
	check("skills_search", found.Hits[0].Description)
	var meta struct {
		Skills []struct {
			Meta struct{ Description string } `json:"meta"`
		}
	}
	call("skills_list", map[string]any{}, &meta)
	if len(meta.Skills) != 1 {
		t.Fatalf("skills_list: %+v", meta)
	}
	check("skills_list", meta.Skills[0].Meta.Description)
	var exists struct{ Description string }
	call("check_skill_exists", map[string]any{"name": "k8s"}, &exists)
	check("check_skill_exists", exists.Description)
}
