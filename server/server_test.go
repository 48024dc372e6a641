package server_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// skillsDir writes a few real skills to disk and returns the root.
func skillsDir(t testing.TB) string {
	t.Helper()
	root := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pdf/SKILL.md", "---\nname: pdf\ndescription: Fill and read PDF forms.\n---\n# PDF\n\n  indented line\ttab\r\nunicode: é 😀\n")
	write("pdf/scripts/fill.py", "print('fill')\n")
	write("pdf/references/forms.md", "# forms\n")
	write("pdf/nested/SKILL.md", "---\nname: nested\ndescription: A skill inside another.\n---\nbody\n")
	write("docx/SKILL.md", "---\nname: docx\ndescription: |-\n  Edit Word documents.\n  Keeps styles.\n---\nbody\n")
	return root
}

// refreshing returns a resolver over srcs, reloaded, and a server that
// refreshes at each of its swaps, as serve wires them.
func refreshing(t testing.TB, srcs ...sources.Source) (*resolver.Resolver, *server.Server) {
	t.Helper()
	r := newResolver(t, srcs...)
	srv := server.New(r, nil)
	r.OnSwap(func(_, _ *resolver.Snapshot) { srv.Refresh() })
	return r, srv
}

func newResolver(t testing.TB, srcs ...sources.Source) *resolver.Resolver {
	t.Helper()
	r := resolver.New(srcs, nil)
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	return r
}

// connect starts srv on an in-memory transport and returns a connected
// client session speaking protocol version (empty: the SDK's default).
func connect(t *testing.T, srv *server.Server, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connect (%q): %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func text(t *testing.T, c mcp.Content) string {
	t.Helper()
	tc, ok := c.(*mcp.TextContent)
	if !ok {
		t.Fatalf("content %T is not text", c)
	}
	return tc.Text
}

func callSkill(t *testing.T, cs *mcp.ClientSession, args any) (*mcp.CallToolResult, error) {
	t.Helper()
	return cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "skill", Arguments: args})
}

func TestHandshakes(t *testing.T) {
	root := skillsDir(t)
	srv := server.New(newResolver(t, dirtree.New(root, nil)), &server.Options{Version: "1.2.3"})
	for _, version := range []string{"", "2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"} {
		t.Run("version "+version, func(t *testing.T) {
			cs := connect(t, srv, version, nil)
			init := cs.InitializeResult()
			if version != "" && init.ProtocolVersion != "" && init.ProtocolVersion != version {
				t.Errorf("negotiated %q, asked %q", init.ProtocolVersion, version)
			}
			if init.ServerInfo == nil || init.ServerInfo.Name != "skillmux" || init.ServerInfo.Version != "1.2.3" {
				t.Errorf("serverInfo = %+v", init.ServerInfo)
			}
			if init.Capabilities == nil || init.Capabilities.Tools == nil || !init.Capabilities.Tools.ListChanged {
				t.Errorf("capabilities = %+v", init.Capabilities)
			}
			for _, want := range []string{"<available_skills>", "<name>pdf</name>", "<description>Edit Word documents. Keeps styles.</description>", "<location>" + filepath.Join(root, "pdf", "SKILL.md") + "</location>"} {
				if !strings.Contains(init.Instructions, want) {
					t.Errorf("instructions lack %q:\n%s", want, init.Instructions)
				}
			}
			res, err := callSkill(t, cs, map[string]any{"name": "pdf"})
			if err != nil || res.IsError {
				t.Fatalf("call: %v %+v", err, res)
			}
		})
	}
}

func TestToolList(t *testing.T) {
	r := newResolver(t, dirtree.New(skillsDir(t), nil))
	cs := connect(t, server.New(r, nil), "", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 3 || res.Tools[0].Name != "skill" || res.Tools[1].Name != "skill_resource" || res.Tools[2].Name != "skills_search" {
		t.Fatalf("tools = %v", toolNames(res.Tools))
	}
	want := "Load a skill by name to get specialized instructions.\n\nAvailable skills:\n" +
		"- docx: Edit Word documents. Keeps styles.\n- nested: A skill inside another.\n- pdf: Fill and read PDF forms."
	if got := res.Tools[0].Description; got != want {
		t.Errorf("description:\n%s\nwant:\n%s", got, want)
	}
}

func TestSkillResult(t *testing.T) {
	root := skillsDir(t)
	cs := connect(t, server.New(newResolver(t, dirtree.New(root, nil)), nil), "", nil)
	skillFile := filepath.Join(root, "pdf", "SKILL.md")
	// The body is read at call time: an edit after start-up shows.
	edited := "---\nname: pdf\ndescription: Fill and read PDF forms.\n---\n# PDF, edited\n\n  indented\r\n"
	if err := os.WriteFile(skillFile, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := callSkill(t, cs, map[string]any{"name": "PDF"})
	if err != nil || res.IsError {
		t.Fatalf("call: %v %+v", err, res)
	}
	if len(res.Content) != 2 {
		t.Fatalf("%d content blocks, want 2", len(res.Content))
	}
	want := "Loading: pdf\nBase directory: " + filepath.Join(root, "pdf") + "\n\n" + edited
	if got := text(t, res.Content[0]); got != want {
		t.Errorf("first block:\n%q\nwant\n%q", got, want)
	}
	wantFiles := "Files in this skill (relative to the base directory):\nreferences/forms.md\nscripts/fill.py"
	if got := text(t, res.Content[1]); got != wantFiles {
		t.Errorf("second block:\n%s\nwant\n%s", got, wantFiles)
	}
	res, _ = callSkill(t, cs, map[string]any{"name": "docx"})
	if got := text(t, res.Content[1]); got != "This skill has no other files." {
		t.Errorf("docx files: %q", got)
	}
}

func TestSkillErrors(t *testing.T) {
	r := newResolver(t,
		&sourcetest.Fake{SourceName: "a", Namespace: "discord", Skills: []sourcetest.FakeSkill{{Name: "access", Description: "d"}}},
		&sourcetest.Fake{SourceName: "b", Namespace: "telegram", Skills: []sourcetest.FakeSkill{{Name: "access", Description: "t"}, {Name: "configure", Description: "c"}}},
	)
	cs := connect(t, server.New(r, nil), "2025-11-25", nil)
	for _, tt := range []struct {
		name string
		args any
	}{
		{"missing name", map[string]any{}},
		{"no arguments", nil},
		{"number", map[string]any{"name": 5}},
		{"null", map[string]any{"name": nil}},
		{"empty", map[string]any{"name": "  "}},
		{"unknown argument", map[string]any{"name": "access", "bogus": 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := callSkill(t, cs, tt.args)
			if msg := refusedArguments(res, err); !strings.Contains(msg, `"name"`) {
				t.Errorf("got %v, %v; want a tool error naming \"name\"", res, err)
			}
		})
	}
	for _, tt := range []struct{ name, want string }{
		{"access", "discord:access, telegram:access"},
		{"acces", "did you mean"},
		{"nothing-like-it", `no skill named "nothing-like-it"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res, err := callSkill(t, cs, map[string]any{"name": tt.name})
			if err != nil || !res.IsError || !strings.Contains(text(t, res.Content[0]), tt.want) {
				t.Errorf("got %v %+v, want an error result containing %q", err, res, tt.want)
			}
		})
	}
}

func TestReadFailureIsReported(t *testing.T) {
	root := skillsDir(t)
	cs := connect(t, server.New(newResolver(t, dirtree.New(root, nil)), nil), "", nil)
	// A SKILL.md that is now a folder cannot be read (one that is gone
	// is TestSkillGoneBeforeRefresh's).
	entry := filepath.Join(root, "docx", "SKILL.md")
	if err := os.Remove(entry); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(entry, 0o755); err != nil {
		t.Fatal(err)
	}
	res, err := callSkill(t, cs, map[string]any{"name": "docx"})
	if err != nil || !res.IsError || !strings.Contains(text(t, res.Content[0]), "cannot load skill docx") {
		t.Errorf("got %v %+v", err, res)
	}
	if res, err := callSkill(t, cs, map[string]any{"name": "pdf"}); err != nil || res.IsError {
		t.Errorf("another skill broke: %v %+v", err, res)
	}
}

// flakyCatalog panics when asked to.
type flakyCatalog struct {
	*resolver.Resolver
	panics atomic.Bool
}

func (f *flakyCatalog) Snapshot() *resolver.Snapshot {
	if f.panics.Load() {
		panic("catalog exploded")
	}
	return f.Resolver.Snapshot()
}

func TestPanicBecomesInternalError(t *testing.T) {
	cat := &flakyCatalog{Resolver: newResolver(t, dirtree.New(skillsDir(t), nil))}
	cs := connect(t, server.New(cat, nil), "", nil)
	cat.panics.Store(true)
	_, err := callSkill(t, cs, map[string]any{"name": "pdf"})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInternalError {
		t.Fatalf("err = %v, want -32603", err)
	}
	cat.panics.Store(false)
	if res, err := callSkill(t, cs, map[string]any{"name": "pdf"}); err != nil || res.IsError {
		t.Errorf("the session did not survive the panic: %v", err)
	}
}

func TestRefreshNotifiesAndNewSessionsSeeNewCatalog(t *testing.T) {
	// 2026-07-28 has no notifications/initialized: its clients are told
	// as soon as their handshake is done.
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) { refreshNotifies(t, version) })
	}
}

func refreshNotifies(t *testing.T, version string) {
	src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "One."}}}
	r, srv := refreshing(t, src)
	changed := make(chan struct{}, 4)
	cs := connect(t, srv, version, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: "two", Description: "Two."})
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no tools/list_changed after the catalog changed")
	}
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil || !strings.Contains(tools.Tools[0].Description, "- two: Two.") {
		t.Errorf("description not updated: %v %+v", err, tools)
	}
	if res, err := callSkill(t, cs, map[string]any{"name": "two"}); err != nil || res.IsError {
		t.Errorf("new skill not loadable: %v %+v", err, res)
	}
	cs2 := connect(t, srv, "", nil)
	if !strings.Contains(cs2.InitializeResult().Instructions, "<name>two</name>") {
		t.Errorf("a new session got stale instructions")
	}
}

// A SKILL.md that grows past the limit after it was listed is refused
// by the skill tool with the reason; at the next listing it leaves the
// catalog, and the skill tool says why.
func TestOversizedSkillFileGrown(t *testing.T) {
	root := skillsDir(t)
	p := filepath.Join(root, "big", "SKILL.md")
	sourcetest.WriteFile(t, p, "---\nname: big\ndescription: Grows.\n---\n")
	logs := &logBuffer{}
	res := newResolver(t, dirtree.New(root, nil))
	srv := server.New(res, &server.Options{Logger: logs.logger()})
	res.OnSwap(func(_, _ *resolver.Snapshot) { srv.Refresh() })
	cs := connect(t, srv, "", nil)
	if err := os.Truncate(p, server.MaxSkillFileSize+1); err != nil {
		t.Fatal(err)
	}
	got, err := callSkill(t, cs, map[string]any{"name": "big"})
	if err != nil || !got.IsError || !strings.Contains(text(t, got.Content[0]), "over 8 MiB") {
		t.Errorf("grown SKILL.md: %v %+v", err, got)
	}
	if strings.Contains(logs.String(), "level=ERROR") {
		t.Errorf("logged as the server's error, not the files' doing:\n%s", logs.String())
	}
	if _, err := res.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, err = callSkill(t, cs, map[string]any{"name": "big"})
	if err != nil || !got.IsError || !strings.Contains(text(t, got.Content[0]), "over 8 MiB is not served") {
		t.Errorf("after a refresh: %v %q", err, text(t, got.Content[0]))
	}
}

func TestHugeNamesAndFiles(t *testing.T) {
	// No source lists a SKILL.md that large (see
	// TestOversizedSkillFileGrown), but one may serve it: a file that grew.
	f := &sourcetest.Fake{SourceName: "p", Skills: []sourcetest.FakeSkill{{Name: "big", Description: "Too big to load.", Body: strings.Repeat("x", server.MaxSkillFileSize+1)}}}
	cs := connect(t, server.New(newResolver(t, f), nil), "", nil)
	res, err := callSkill(t, cs, map[string]any{"name": "big"})
	if err != nil || !res.IsError || !strings.Contains(text(t, res.Content[0]), "MiB") {
		t.Errorf("oversized SKILL.md: %v %+v", err, res)
	}
	res, err = callSkill(t, cs, map[string]any{"name": strings.Repeat("pdf", 100_000)})
	if err != nil || !res.IsError || len(text(t, res.Content[0])) > 1000 {
		t.Errorf("a 300 kB name must be refused briefly: %v", err)
	}
}

// A source plugin's skill with no local copy (no cache, or a copy that
// could not be made) has no folder on this machine: the skill tool and
// the prompt say so, and how to read its files, rather than name a folder
// that does not exist.
func TestPluginSkillWithoutCopyNamesNoFolder(t *testing.T) {
	plugin := &sourcetest.Fake{SourceName: "p", Scope: sources.ScopeSourcePlugin, Skills: []sourcetest.FakeSkill{
		{Name: "remote", Description: "Remote.", Body: "Remote body.", Files: map[string]string{"ref.md": "r"}},
	}}
	for _, tc := range []struct {
		tools *server.ToolsOptions
		how   string
	}{
		{nil, "read them with the skill_resource tool"},
		{&server.ToolsOptions{Disable: []string{"skill_resource"}}, "read them as the MCP resources under skill://remote/"},
	} {
		cs := connect(t, server.New(newResolver(t, plugin), &server.Options{Tools: tc.tools}), "", nil)
		want := "Base directory: none on this machine: a source plugin serves this skill's files; " + tc.how + "\n"
		res, err := callSkill(t, cs, map[string]any{"name": "remote"})
		if err != nil || res.IsError {
			t.Fatalf("call: %v %+v", err, res)
		}
		if got := text(t, res.Content[0]); !strings.Contains(got, want) {
			t.Errorf("the skill tool's answer:\n%s\nwant the line %q", got, want)
		}
		p, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "remote"})
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Messages[0].Content.(*mcp.TextContent).Text; !strings.HasPrefix(got, "Base directory for this skill: none on this machine") {
			t.Errorf("the prompt: %q", got)
		}
	}
}

// A SKILL.md replaced by a link out of its folder after the catalog was
// read (within the debounce, say) is refused by the rule it breaks, by the
// skill tool and by prompts/get alike, as resources/read refuses it; not
// with the file system's own words, nor as the server's fault.
func TestEntryTurnedIntoALinkOut(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "skills")
	sourcetest.WriteFile(t, filepath.Join(root, "x", "SKILL.md"), "---\nname: x\ndescription: X.\n---\nbody\n")
	sourcetest.WriteFile(t, filepath.Join(base, "outside.md"), "---\nname: x\ndescription: Outside.\n---\nsecret\n")
	cs := connect(t, server.New(newResolver(t, dirtree.New(root, nil)), nil), "", nil)
	entry := filepath.Join(root, "x", "SKILL.md")
	if err := os.Remove(entry); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(base, "outside.md"), entry); err != nil {
		t.Fatal(err)
	}
	res, err := callSkill(t, cs, map[string]any{"name": "x"})
	if err != nil || !res.IsError || !strings.Contains(text(t, res.Content[0]), "rule outside-skill") {
		t.Errorf("the skill tool: %v %+v, want a refusal by rule outside-skill", err, res)
	}
	_, err = cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "x"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "rule outside-skill") {
		t.Errorf("prompts/get: %v, want -32602 naming rule outside-skill", err)
	}
}

// A file whose name holds a line break (or another control or bidi
// character) is shown quoted in the skill tool's and skill_resource's
// lists: raw, it would read as two files.
func TestOddFileNamesAreQuoted(t *testing.T) {
	root := t.TempDir()
	sourcetest.WriteFiles(t, root, map[string]string{
		"x/SKILL.md":      "---\nname: x\ndescription: X.\n---\nbody\n",
		"x/ctl\nname.md":  "odd",
		"x/plain name.md": "plain",
	})
	cs := connect(t, server.New(newResolver(t, dirtree.New(root, nil)), nil), "", nil)
	res, err := callSkill(t, cs, map[string]any{"name": "x"})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if got, want := text(t, res.Content[1]), "Files in this skill (relative to the base directory):\n\"ctl\\nname.md\"\nplain name.md"; got != want {
		t.Errorf("the skill tool's list:\n%q\nwant\n%q", got, want)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "skill_resource", Arguments: map[string]any{"skill": "x"}})
	if err != nil || res.IsError {
		t.Fatalf("%v %+v", err, res)
	}
	if got := text(t, res.Content[0]); !strings.Contains(got, "\n\"ctl\\nname.md\" (3 bytes)\n") {
		t.Errorf("skill_resource's list:\n%s", got)
	}
}

// failingFiles is a source plugin whose files cannot be read: it does not
// answer.
type failingFiles struct{ sourcetest.Fake }

type noAnswerFS struct{}

func (noAnswerFS) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("the source plugin did not answer in time")}
}

func (f *failingFiles) List(ctx context.Context) (*sources.Listing, error) {
	l, err := f.Fake.List(ctx)
	if err == nil {
		for _, sk := range l.Skills {
			sk.Files = noAnswerFS{}
		}
	}
	return l, err
}

// A plugin that fails a read is the plugin's doing, which the log tells
// of as a warning: the client is answered with the error, and the log has
// no error of the server's.
func TestPluginReadFailureIsAWarning(t *testing.T) {
	logs := &logBuffer{}
	src := &failingFiles{sourcetest.Fake{SourceName: "p", Namespace: "p", Scope: sources.ScopeSourcePlugin, Skills: []sourcetest.FakeSkill{{Name: "s", Description: "S."}}}}
	cs := connect(t, server.New(newResolver(t, src), &server.Options{Logger: logs.logger()}), "", nil)
	if res, err := callSkill(t, cs, map[string]any{"name": "p:s"}); err != nil || !res.IsError || !strings.Contains(text(t, res.Content[0]), "did not answer") {
		t.Errorf("skill: %v %+v", err, res)
	}
	if _, err := read(cs, "skill://p/s/SKILL.md"); err == nil || !strings.Contains(err.Error(), "did not answer") {
		t.Errorf("resources/read: %v", err)
	}
	if out := logs.String(); strings.Contains(out, "level=ERROR") || strings.Count(out, "level=WARN") < 2 {
		t.Errorf("want two warnings and no error:\n%s", out)
	}
}
