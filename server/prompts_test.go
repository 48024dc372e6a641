package server_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

func promptNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var names []string
	for p, err := range cs.Prompts(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	return names
}

func TestPrompts(t *testing.T) {
	root := searchDir(t)
	r := newResolver(t, dirtree.New(root, nil))
	srv := server.New(r, &server.Options{Catalog: visibility(t, map[string]string{"noisy": "off"})})
	defer srv.Close()
	cs := connect(t, srv, "", nil)
	if cs.InitializeResult().Capabilities.Prompts == nil || !cs.InitializeResult().Capabilities.Prompts.ListChanged {
		t.Errorf("capabilities: %+v", cs.InitializeResult().Capabilities)
	}
	// Every skill the user may invoke, the model-disabled one included;
	// not the model's own, not the hidden one; and the loader.
	if diff := cmp.Diff([]string{"pdf-forms", "release-notes", "secret-ops", "skill", "spreadsheets"}, promptNames(t, cs)); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	get := func(name string, args map[string]string) (*mcp.GetPromptResult, error) {
		return cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name, Arguments: args})
	}
	res, err := get("release-notes", map[string]string{"arguments": "features first"})
	if err != nil {
		t.Fatal(err)
	}
	body := res.Messages[0].Content.(*mcp.TextContent).Text
	if res.Description != "Write release notes from the git log." || res.Messages[0].Role != "user" ||
		!strings.Contains(body, "Group the commits by kind: features first") || !strings.HasPrefix(body, "Base directory for this skill: "+filepath.Join(root, "release-notes")) {
		t.Errorf("%+v\n%s", res, body)
	}
	// Without $ARGUMENTS in the body, the arguments follow it.
	res, err = get("pdf-forms", map[string]string{"arguments": "invoice.pdf"})
	if err != nil || !strings.HasSuffix(res.Messages[0].Content.(*mcp.TextContent).Text, "then flatten.\n\nARGUMENTS: invoice.pdf") {
		t.Errorf("%v %+v", err, res)
	}
	// No arguments: $ARGUMENTS is emptied.
	res, err = get("release-notes", nil)
	if err != nil || !strings.Contains(res.Messages[0].Content.(*mcp.TextContent).Text, "Group the commits by kind: \n") {
		t.Errorf("%v %+v", err, res)
	}
	// The loader, and a hidden skill by its exact name.
	for _, name := range []string{"release-notes", "noisy"} {
		if _, err := get("skill", map[string]string{"name": name}); err != nil {
			t.Errorf("loader %s: %v", name, err)
		}
	}
	if _, err := get("noisy", nil); err != nil {
		t.Errorf("a hidden skill's prompt by its exact name: %v", err)
	}
	for _, tt := range []struct {
		name string
		args map[string]string
		want string
	}{
		{"model-only", nil, "is not a prompt: its front matter says user-invocable: false"},
		{"pdf-form", nil, `unknown prompt: no skill named "pdf-form"; did you mean pdf-forms?`},
		{"skill", nil, `prompt "skill" needs the argument "name"`},
		{"pdf-forms", map[string]string{"args": "x"}, `prompt "pdf-forms" takes no argument "args"; it takes "arguments"`},
		{"skill", map[string]string{"name": "pdf-forms", "extra": "1"}, `prompt "skill" takes no argument "extra"; it takes "name" and "arguments"`},
	} {
		_, err := get(tt.name, tt.args)
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, tt.want) {
			t.Errorf("%s: got %v, want -32602 with %q", tt.name, err, tt.want)
		}
	}
}

func TestSubstituteArguments(t *testing.T) {
	for _, tt := range []struct{ body, args, want string }{
		{"Do $ARGUMENTS now; $ARGUMENTS.", "it", "Do it now; it."},
		{"Body.\n", "x y", "Body.\n\nARGUMENTS: x y"},
		{"Body.\n", "", "Body.\n"},
		{"Use $ARGUMENTS.", "", "Use ."},
	} {
		if got := server.SubstituteArguments(tt.body, tt.args); got != tt.want {
			t.Errorf("%q with %q: got %q, want %q", tt.body, tt.args, got, tt.want)
		}
	}
}

// A description that would show in another order than it reads (a
// bidirectional override), or ring the terminal, is shown without those
// characters in the lists a client puts before its user, as in the
// catalog; its line breaks stay.
func TestListedDescriptionsAreShownAsRead(t *testing.T) {
	f := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "rtl", Description: "RTL \u202ereversed\u202c and\nbell\a."}}}
	cs := connect(t, server.New(newResolver(t, f), nil), "", nil)
	const want = "RTL reversed and\nbell."
	prompts, err := cs.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts.Prompts {
		if p.Name == "rtl" && p.Description != want {
			t.Errorf("prompts/list: %q, want %q", p.Description, want)
		}
	}
	got, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "rtl"})
	if err != nil || got.Description != want {
		t.Errorf("prompts/get: %v, %v; want %q", got, err, want)
	}
	resources, err := cs.ListResources(context.Background(), nil)
	if err != nil || len(resources.Resources) == 0 {
		t.Fatalf("resources/list: %v, %v", resources, err)
	}
	for _, r := range resources.Resources {
		if r.Name == "rtl" && r.Description != want {
			t.Errorf("resources/list: %q, want %q", r.Description, want)
		}
	}
}

// A description longer than the specification allows (served leniently)
// is cut to its limit in the lists, so that a page of prompts or resources
// stays a size clients take; prompts/get gives it whole.
func TestListedDescriptionsAreBounded(t *testing.T) {
	long := strings.Repeat("é", sources.MaxDescriptionLen) + strings.Repeat("x", 60_000)
	f := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "long", Description: long}}}
	cs := connect(t, server.New(newResolver(t, f), nil), "", nil)
	want := strings.Repeat("é", sources.MaxDescriptionLen-1) + "…"
	prompts, err := cs.ListPrompts(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompts.Prompts {
		if p.Name == "long" && p.Description != want {
			t.Errorf("prompts/list: %d characters, want %d ending in …", utf8.RuneCountInString(p.Description), sources.MaxDescriptionLen)
		}
	}
	resources, err := cs.ListResources(context.Background(), nil)
	if err != nil || len(resources.Resources) == 0 {
		t.Fatalf("resources/list: %v, %v", resources, err)
	}
	for _, r := range resources.Resources {
		if r.Name == "long" && r.Description != want {
			t.Errorf("resources/list: %d characters, want %d ending in …", utf8.RuneCountInString(r.Description), sources.MaxDescriptionLen)
		}
	}
	got, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "long"})
	if err != nil || got.Description != long {
		t.Errorf("prompts/get: %v; want the whole description", err)
	}
}

// Thousands of prompts come in pages.
func TestPromptPages(t *testing.T) {
	f := &sourcetest.Fake{SourceName: "s"}
	for i := range 2500 {
		f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: fmt.Sprintf("s%04d", i), Description: "D."})
	}
	cs := connect(t, server.New(newResolver(t, f), nil), "", nil)
	res, err := cs.ListPrompts(context.Background(), nil)
	if err != nil || len(res.Prompts) != 1000 || res.NextCursor == "" {
		t.Fatalf("first page: %v %d %q", err, len(res.Prompts), res.NextCursor)
	}
	if names := promptNames(t, cs); len(names) != 2501 || names[0] != "s0000" || names[2500] != "skill" {
		t.Errorf("%d prompts", len(names))
	}
}

func TestPromptCompletion(t *testing.T) {
	r := newResolver(t, dirtree.New(searchDir(t), nil), fake("p", "plug", "release-check"))
	srv := server.New(r, nil)
	defer srv.Close()
	cs := connect(t, srv, "", nil)
	if cs.InitializeResult().Capabilities.Completions == nil {
		t.Error("no completions capability")
	}
	complete := func(prompt, arg, value string) (*mcp.CompleteResult, error) {
		return cs.Complete(context.Background(), &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: prompt},
			Argument: mcp.CompleteParamsArgument{Name: arg, Value: value},
		})
	}
	for _, tt := range []struct {
		prompt, arg, value string
		want               []string
	}{
		{"skill", "name", "REL", []string{"plug:release-check", "release-notes"}},
		{"skill", "name", "plug:", []string{"plug:release-check"}},
		{"skill", "name", "sheet", []string{"spreadsheets"}},
		{"skill", "name", "", []string{"noisy", "pdf-forms", "plug:release-check", "release-notes", "secret-ops", "spreadsheets"}},
		{"skill", "arguments", "x", []string{}},
		{"release-notes", "arguments", "v", []string{}},
	} {
		res, err := complete(tt.prompt, tt.arg, tt.value)
		if err != nil {
			t.Fatalf("%+v: %v", tt, err)
		}
		if diff := cmp.Diff(tt.want, res.Completion.Values); diff != "" {
			t.Errorf("%s %s %q (-want +got):\n%s", tt.prompt, tt.arg, tt.value, diff)
		}
	}
	for _, tt := range []struct{ prompt, arg, want string }{
		{"nope", "arguments", `unknown prompt "nope"`},
		{"model-only", "arguments", `unknown prompt "model-only"`},
		{"skill", "title", `prompt "skill" has no argument "title"`},
		{"release-notes", "name", `prompt "release-notes" has no argument "name"`},
	} {
		_, err := complete(tt.prompt, tt.arg, "")
		var werr *jsonrpc.Error
		if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams || !strings.Contains(werr.Message, tt.want) {
			t.Errorf("%s %s: got %v, want -32602 with %q", tt.prompt, tt.arg, err, tt.want)
		}
	}
}

// Completion offers at most 100 names, and says how many there are.
func TestCompletionIsBounded(t *testing.T) {
	f := &sourcetest.Fake{SourceName: "s"}
	for i := range 150 {
		f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: fmt.Sprintf("s%03d", i), Description: "D."})
	}
	cs := connect(t, server.New(newResolver(t, f), nil), "", nil)
	res, err := cs.Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "skill"},
		Argument: mcp.CompleteParamsArgument{Name: "name", Value: "s"},
	})
	if err != nil || len(res.Completion.Values) != 100 || !res.Completion.HasMore || res.Completion.Total != 150 {
		t.Errorf("%v %+v", err, res)
	}
	// The answer to a name or an argument it does not know quotes a
	// few hundred bytes of it, whatever its size.
	huge := strings.Repeat("é", 500_000)
	for _, p := range []*mcp.CompleteParams{
		{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: huge}, Argument: mcp.CompleteParamsArgument{Name: "arguments", Value: ""}},
		{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "skill"}, Argument: mcp.CompleteParamsArgument{Name: huge, Value: ""}},
	} {
		_, err := cs.Complete(context.Background(), p)
		if err == nil || len(err.Error()) > 1000 || !utf8.ValidString(err.Error()) {
			t.Errorf("%d bytes: %.200s", len(err.Error()), err)
		}
	}
}

// prompts/list_changed reaches the sessions that listed prompts and whose
// prompts changed, once per change; in a synctest bubble, so that "not
// sent" can be checked.
func TestPromptsListChanged(t *testing.T) {
	synctest.Test(t, testPromptsListChanged)
}

func testPromptsListChanged(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "One."}}}
	r, srv := refreshing(t, src)
	connectPrompts := func(name string) (*mcp.ClientSession, chan struct{}) {
		changed := make(chan struct{}, 8)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, &mcp.ClientOptions{
			PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) { changed <- struct{}{} },
		})
		// A session of 2025-11-25: list_changed notifications come
		// unasked (2026-07-28 clients subscribe to them).
		cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs, changed
	}
	lister, listerChanged := connectPrompts("a")
	_, silentChanged := connectPrompts("b") // never lists prompts
	promptNames(t, lister)

	src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: "two", Description: "Two."})
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, listerChanged, "the session that listed prompts")
	synctest.Wait()
	if n := len(listerChanged); n != 0 {
		t.Errorf("the session that listed prompts was told %d more times", n)
	}
	if n := len(silentChanged); n != 0 {
		t.Errorf("a session that never listed prompts was told %d times", n)
	}
	if diff := cmp.Diff([]string{"one", "skill", "two"}, promptNames(t, lister)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	// A change that leaves the prompts as they are (a body) is not told:
	// on the bubble's clock, far past the SDK's 10 ms debounce, nothing
	// comes.
	src.Skills[0].Body = "New body."
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-listerChanged:
		t.Error("told of a body change")
	case <-time.After(time.Minute):
	}
}

// An argument put in place of many $ARGUMENTS cannot make a prompt of
// unbounded size: it is refused, naming the argument.
func TestPromptArgumentsAreBounded(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "echo", Description: "Echo.", Body: strings.Repeat("$ARGUMENTS ", 1000)}}}
	cs := connect(t, server.New(newResolver(t, src), nil), "", nil)
	_, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "echo", Arguments: map[string]string{"arguments": strings.Repeat("x", 20_000)}})
	if err == nil || !strings.Contains(err.Error(), `argument "arguments" is too long`) {
		t.Fatalf("err = %v", err)
	}
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "echo", Arguments: map[string]string{"arguments": "ok"}})
	if err != nil || !strings.Contains(res.Messages[0].Content.(*mcp.TextContent).Text, "ok ok ok") {
		t.Fatalf("%v %+v", err, res)
	}
}

// A skill named "skill" is no prompt of its own, since the loader prompt
// has that name: it is reached through the loader, and the log says so
// once, with how to reach it.
func TestSkillNamedSkillIsNoPrompt(t *testing.T) {
	root := t.TempDir()
	sourcetest.WriteFile(t, filepath.Join(root, "skill", "SKILL.md"), "---\nname: skill\ndescription: A skill called skill.\n---\nThe body of skill.\n")
	sourcetest.WriteFile(t, filepath.Join(root, "other", "SKILL.md"), "---\nname: other\ndescription: Other.\n---\nOther.\n")
	var logs logBuffer
	srv := server.New(newResolver(t, dirtree.New(root, nil)), &server.Options{Logger: logs.logger()})
	defer srv.Close()
	cs := connect(t, srv, "", nil)
	if diff := cmp.Diff([]string{"other", "skill"}, promptNames(t, cs)); diff != "" {
		t.Errorf("prompts (-want +got):\n%s", diff)
	}
	promptNames(t, cs)
	if got := strings.Count(logs.String(), "skill not offered as a prompt"); got != 1 || !strings.Contains(logs.String(), "argument name: skill") {
		t.Errorf("%d warnings, want 1 that says how to reach it:\n%s", got, logs.String())
	}
	res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "skill", Arguments: map[string]string{"name": "skill"}})
	if err != nil || !strings.Contains(res.Messages[0].Content.(*mcp.TextContent).Text, "The body of skill.") {
		t.Errorf("the loader with name skill: %v %+v", err, res)
	}
}

// Completion matches a name typed in either Unicode form: combining
// accents complete the name the skill writes precomposed.
func TestCompletionAnyUnicodeForm(t *testing.T) {
	f := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "r\u00e9sum\u00e9", Description: "A CV."}, {Name: "other", Description: "O."}}}
	cs := connect(t, server.New(newResolver(t, f), nil), "", nil)
	res, err := cs.Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "skill"},
		Argument: mcp.CompleteParamsArgument{Name: "name", Value: "RE\u0301S"},
	})
	if err != nil || !slices.Equal(res.Completion.Values, []string{"r\u00e9sum\u00e9"}) {
		t.Errorf("%v %+v", err, res)
	}
	// Typed without its accents, as the skill tool's suggestions take it.
	res, err = cs.Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "skill"},
		Argument: mcp.CompleteParamsArgument{Name: "name", Value: "resu"},
	})
	if err != nil || !slices.Equal(res.Completion.Values, []string{"r\u00e9sum\u00e9"}) {
		t.Errorf("resu: %v %+v", err, res)
	}
	// The resource templates' skill too.
	for _, typed := range []string{"RE\u0301S", "resu", "r\u00e9s"} {
		res, err = cs.Complete(context.Background(), &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "skill://{+skill}/{+path}"},
			Argument: mcp.CompleteParamsArgument{Name: "skill", Value: typed},
		})
		if err != nil || !slices.Equal(res.Completion.Values, []string{"r\u00e9sum\u00e9"}) {
			t.Errorf("template skill %q: %v %+v", typed, err, res)
		}
	}
}

// A shadowed skill, which prompts/get takes by its alias, is completed by
// it once what is typed begins the alias.
func TestCompletionOfShadowedSkills(t *testing.T) {
	a := &sourcetest.Fake{SourceName: "first", Skills: []sourcetest.FakeSkill{{Name: "deploy", Description: "Served."}}}
	b := &sourcetest.Fake{SourceName: "second", Skills: []sourcetest.FakeSkill{{Name: "deploy", Description: "Shadowed."}}}
	cs := connect(t, server.New(newResolver(t, a, b), nil), "", nil)
	complete := func(typed string) []string {
		t.Helper()
		res, err := cs.Complete(context.Background(), &mcp.CompleteParams{
			Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "skill"},
			Argument: mcp.CompleteParamsArgument{Name: "name", Value: typed},
		})
		if err != nil {
			t.Fatal(err)
		}
		return res.Completion.Values
	}
	if got := complete("SECOND:"); !slices.Equal(got, []string{"second:deploy"}) {
		t.Errorf("second: %q", got)
	}
	if got := complete("dep"); !slices.Equal(got, []string{"deploy"}) {
		t.Errorf("dep: %q; want the skill served under the name only", got)
	}
	// Turned off by catalog.visibility, it is offered nowhere.
	hidden := connect(t, server.New(newResolver(t, a, b), &server.Options{Catalog: visibility(t, map[string]string{"second:*": "off"})}), "", nil)
	if res, err := hidden.Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: "skill"},
		Argument: mcp.CompleteParamsArgument{Name: "name", Value: "second:"},
	}); err != nil || len(res.Completion.Values) != 0 {
		t.Errorf("second: with second:* off: %v %+v", err, res)
	}
	if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "skill", Arguments: map[string]string{"name": "second:deploy"}}); err != nil {
		t.Errorf("the completed alias as a prompt: %v", err)
	}
}

// A SKILL.md that is no longer a file it can read (a FIFO or a folder put
// in its place, a link that loops), before the refresh that would drop
// it, is the user's files' doing: prompts/get and resources/read say what
// it is with -32602, and log no error of the server's.
func TestEntryReplacedByWhatIsNoFile(t *testing.T) {
	for _, tc := range []struct {
		name    string
		replace func(path string) error
		want    string
	}{
		{"a FIFO", makeFIFO, "(a FIFO)"},
		{"a folder", func(p string) error { return os.Mkdir(p, 0o755) }, "folder"},
		{"a link loop", func(p string) error { return os.Symlink(filepath.Base(p), p) }, "too many levels of symbolic links"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, "odd", "SKILL.md")
			sourcetest.WriteFile(t, p, "---\nname: odd\ndescription: Replaced.\n---\nbody\n")
			logs := &logBuffer{}
			srv := server.New(newResolver(t, dirtree.New(root, nil)), &server.Options{Logger: logs.logger()})
			cs := connect(t, srv, "2025-11-25", nil)
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := tc.replace(p); err != nil {
				t.Skip("this system cannot make it:", err)
			}
			skill, err := callSkill(t, cs, map[string]any{"name": "odd"})
			if err != nil || !skill.IsError || !strings.Contains(text(t, skill.Content[0]), tc.want) {
				t.Errorf("the skill tool: %v, %v; want an error saying %q", skill, err, tc.want)
			}
			_, perr := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "odd"})
			_, rerr := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://odd/SKILL.md"})
			for what, err := range map[string]error{"prompts/get": perr, "resources/read": rerr} {
				if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: %v, want -32602 saying %q", what, err, tc.want)
				}
			}
			if strings.Contains(logs.String(), "level=ERROR") {
				t.Errorf("logged as the server's error:\n%s", logs.String())
			}
		})
	}
}

// A session that listed since it was last told of a change is told of the
// next one, even when the catalog comes back to what it was told of then:
// a skill added, removed, listed without it, and added again is told
// twice, for the tools and for the prompts. (In a synctest bubble, so
// that "not told" can be checked.)
func TestListChangedAfterBackAndForth(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "The one skill."}}}
		r, srv := refreshing(t, src)
		tools, prompts := make(chan struct{}, 8), make(chan struct{}, 8)
		st, ct := mcp.NewInMemoryTransports()
		ss, err := srv.Connect(context.Background(), st)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ss.Close() })
		client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{
			ToolListChangedHandler:   func(context.Context, *mcp.ToolListChangedRequest) { tools <- struct{}{} },
			PromptListChangedHandler: func(context.Context, *mcp.PromptListChangedRequest) { prompts <- struct{}{} },
		})
		cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		list := func() {
			toolDescription(t, cs)
			promptNames(t, cs)
		}
		set := func(names ...string) (told [2]int) {
			src.Skills = nil
			for _, n := range names {
				src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: n, Description: "The " + n + " skill."})
			}
			if _, err := r.Reload(context.Background()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second) // on the bubble's clock: far past the SDK's 10 ms
			synctest.Wait()
			told = [2]int{len(tools), len(prompts)}
			for range told[0] {
				<-tools
			}
			for range told[1] {
				<-prompts
			}
			return told
		}
		list()
		if got := set("one", "x"); got != [2]int{1, 1} {
			t.Errorf("x added: told %v times (tools, prompts); want once each", got)
		}
		if got := set("one"); got != [2]int{0, 0} {
			t.Errorf("x removed before the session listed: told %v times; want none", got)
		}
		list()
		if got := set("one", "x"); got != [2]int{1, 1} {
			t.Errorf("x added again, after a list without it: told %v times; want once each", got)
		}
	})
}
