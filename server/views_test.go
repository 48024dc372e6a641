package server_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// connectAs starts srv on an in-memory transport for a client that calls
// itself name, and reports its tools/list_changed notifications on the
// returned channel.
func connectAs(t *testing.T, srv *server.Server, name string) (*mcp.ClientSession, chan struct{}) {
	t.Helper()
	changed := make(chan struct{}, 8)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "2.1.0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default: // enough are waiting to be seen
			}
		},
	})
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, changed
}

// nativeCatalog holds a skill in ~/.claude/skills (Claude Code's own), one
// in ~/.agents/skills (Codex's own) and one in a folder of the user's.
func nativeCatalog() (claude, agents, mine *sourcetest.Fake) {
	claude = &sourcetest.Fake{SourceName: "user", Convention: sources.ConventionClaudeUser, Skills: []sourcetest.FakeSkill{{Name: "claude-own", Description: "In ~/.claude/skills."}}}
	agents = &sourcetest.Fake{SourceName: "user", Convention: sources.ConventionAgentsUser, Skills: []sourcetest.FakeSkill{{Name: "agents-own", Description: "In ~/.agents/skills."}}}
	mine = &sourcetest.Fake{SourceName: "team", Skills: []sourcetest.FakeSkill{{Name: "team-skill", Description: "The team's."}}}
	return
}

func toolDescription(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools[0].Description
}

// Each client is spared the skills it loads itself.
func TestClientsAreNotServedTheirOwnSkills(t *testing.T) {
	claude, agents, mine := nativeCatalog()
	r := newResolver(t, claude, agents, mine)
	for _, tt := range []struct {
		client         string
		include        bool
		want, dontWant []string
	}{
		{"claude-code", false, []string{"agents-own", "team-skill"}, []string{"claude-own"}},
		{"codex-mcp-client", false, []string{"claude-own", "team-skill"}, []string{"agents-own"}},
		{"Visual Studio Code", false, []string{"claude-own", "agents-own", "team-skill"}, nil},
		{"claude-code", true, []string{"claude-own", "agents-own", "team-skill"}, nil},
	} {
		t.Run(tt.client, func(t *testing.T) {
			srv := server.New(r, &server.Options{IncludeNative: tt.include})
			cs, _ := connectAs(t, srv, tt.client)
			instrs, tool := cs.InitializeResult().Instructions, toolDescription(t, cs)
			for _, name := range tt.want {
				if !strings.Contains(instrs, "<name>"+name+"</name>") || !strings.Contains(tool, "- "+name+":") {
					t.Errorf("%s is not in the catalog:\n%s\n%s", name, instrs, tool)
				}
			}
			for _, name := range tt.dontWant {
				if strings.Contains(instrs, name) || strings.Contains(tool, name) {
					t.Errorf("%s is in the catalog:\n%s\n%s", name, instrs, tool)
				}
				// Asked for by name, it still loads, as a tool call and as a
				// prompt, whose argument completes.
				if res, err := callSkill(t, cs, map[string]any{"name": name}); err != nil || res.IsError {
					t.Errorf("%s does not load by name: %v %v", name, err, res)
				}
				if _, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: name}); err != nil {
					t.Errorf("prompt %s: %v", name, err)
				}
				if _, err := cs.Complete(context.Background(), &mcp.CompleteParams{
					Ref:      &mcp.CompleteReference{Type: "ref/prompt", Name: name},
					Argument: mcp.CompleteParamsArgument{Name: server.ArgumentsName},
				}); err != nil {
					t.Errorf("completion of prompt %s: %v", name, err)
				}
			}
		})
	}
}

// A change that only touches what a client loads itself is not announced
// to that client; other clients are told. The test runs in a synctest
// bubble so that "not announced" can be checked: once every goroutine of
// the server and the clients is idle, a notification sent would have been
// handled.
func TestListChangedOnlyWhenTheViewChanges(t *testing.T) {
	synctest.Test(t, testListChangedOnlyWhenTheViewChanges)
}

func testListChangedOnlyWhenTheViewChanges(t *testing.T) {
	claude, agents, mine := nativeCatalog()
	r, srv := refreshing(t, claude, agents, mine)
	cc, ccChanged := connectAs(t, srv, "claude-code")
	other, otherChanged := connectAs(t, srv, "mcp-inspector")
	before := toolDescription(t, cc)

	claude.Skills = append(claude.Skills, sourcetest.FakeSkill{Name: "claude-new", Description: "New in ~/.claude/skills."})
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, otherChanged, "the other client")
	synctest.Wait()
	if n := len(ccChanged); n != 0 {
		t.Errorf("Claude Code was told %d times of a change to its own folder", n)
	}
	if got := toolDescription(t, cc); got != before {
		t.Errorf("Claude Code's catalog changed:\n%s", got)
	}
	if !strings.Contains(toolDescription(t, other), "claude-new") {
		t.Error("the other client's catalog lacks the new skill")
	}

	mine.Skills = append(mine.Skills, sourcetest.FakeSkill{Name: "team-new", Description: "New for the team."})
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ccChanged, "Claude Code")
	synctest.Wait()
	if n := len(ccChanged); n != 0 {
		t.Errorf("Claude Code was told %d more times of one change", n)
	}
	if !strings.Contains(toolDescription(t, cc), "team-new") {
		t.Error("Claude Code's catalog lacks the team's new skill")
	}
}

func waitFor(t *testing.T, ch chan struct{}, who string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s got no tools/list_changed", who)
	}
}

// A session that starts between a snapshot swap and Refresh sees the new
// catalog at once and is not told of a change it already has; a session
// from before is told. In a synctest bubble, as above, so that "not told"
// can be checked.
func TestHandshakeBetweenSwapAndRefresh(t *testing.T) {
	synctest.Test(t, testHandshakeBetweenSwapAndRefresh)
}

func testHandshakeBetweenSwapAndRefresh(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "One."}}}
	r := newResolver(t, src)
	srv := server.New(r, nil)
	old, oldChanged := connectAs(t, srv, "a")
	src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: "two", Description: "Two."})
	if _, err := r.Reload(context.Background()); err != nil { // no Refresh yet
		t.Fatal(err)
	}
	late, lateChanged := connectAs(t, srv, "b")
	if !strings.Contains(toolDescription(t, late), "- two: Two.") || !strings.Contains(late.InitializeResult().Instructions, "<name>two</name>") {
		t.Error("a session that started after the swap has a stale catalog")
	}
	srv.Refresh()
	waitFor(t, oldChanged, "the earlier session")
	synctest.Wait()
	if !strings.Contains(toolDescription(t, old), "- two: Two.") {
		t.Error("the earlier session's catalog is stale")
	}
	if n := len(lateChanged); n != 0 {
		t.Errorf("the later session was told %d times of a change it already had", n)
	}
}

// The header names the skill as it was reached: qualified, or by the alias
// of a shadowed skill.
func TestLoadingHeaderIsQualified(t *testing.T) {
	r := newResolver(t,
		&sourcetest.Fake{SourceName: "user", Skills: []sourcetest.FakeSkill{{Name: "frontend-design", Description: "Mine."}}},
		&sourcetest.Fake{SourceName: "project", Skills: []sourcetest.FakeSkill{{Name: "frontend-design", Description: "The project's."}}},
		&sourcetest.Fake{SourceName: "plugins", Namespace: "discord", Skills: []sourcetest.FakeSkill{{Name: "access", Description: "Discord."}}},
	)
	cs := connect(t, server.New(r, nil), "", nil)
	for name, want := range map[string]string{
		"project:frontend-design": "Loading: project:frontend-design\n",
		"frontend-design":         "Loading: frontend-design\n",
		"access":                  "Loading: discord:access\n",
	} {
		res, err := callSkill(t, cs, map[string]any{"name": name})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %v", name, err, res)
		}
		if got := text(t, res.Content[0]); !strings.HasPrefix(got, want) {
			t.Errorf("%s: got %q, want it to start %q", name, got[:min(60, len(got))], want)
		}
	}
}

// Many clients ignore tools/list_changed: the skill tool's answer says
// once what changed since the session started, then since its last note.
func TestSkillAnswerNotesChangesOnce(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "One."}, {Name: "gone", Description: "Gone."}}}
	r := newResolver(t, src)
	cs, _ := connectAs(t, server.New(r, nil), "a")
	src.Skills = []sourcetest.FakeSkill{{Name: "one", Description: "One."}, {Name: "two", Description: "Two."}, {Name: "Three", Description: "Three."}}
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := callSkill(t, cs, map[string]any{"name": "one"})
	if err != nil || res.IsError || len(res.Content) != 3 {
		t.Fatalf("%v %+v", err, res)
	}
	if note := text(t, res.Content[2]); !strings.Contains(note, "2 skills added (Three, two)") || !strings.Contains(note, "1 skill removed (gone)") {
		t.Errorf("note: %q", note)
	}
	if note := text(t, res.Content[2]); !strings.HasPrefix(note, "The skill catalog changed since this session started:") {
		t.Errorf("first note: %q", note)
	}
	res, _ = callSkill(t, cs, map[string]any{"name": "two"})
	if len(res.Content) != 2 {
		t.Errorf("the change was noted twice: %d blocks", len(res.Content))
	}

	// A later note tells what changed since the last one, and says so.
	src.Skills = src.Skills[:2]
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, _ = callSkill(t, cs, map[string]any{"name": "two"})
	if len(res.Content) != 3 {
		t.Fatalf("no note of the second change: %d blocks", len(res.Content))
	}
	if note := text(t, res.Content[2]); note != "The skill catalog changed again since the last note: 1 skill removed (three). Call this tool with a skill's name to load any of them." {
		t.Errorf("second note: %q", note)
	}
}

// A skill that keeps its name but whose description changed, or that its
// name now loads from another source, is noted as changed; an edit of its
// body alone is not a change of the catalog.
func TestSkillAnswerNotesChangedSkills(t *testing.T) {
	user := &sourcetest.Fake{SourceName: "user", Skills: []sourcetest.FakeSkill{{Name: "pdf", Description: "Mine."}}}
	project := &sourcetest.Fake{SourceName: "project", Skills: []sourcetest.FakeSkill{{Name: "pdf", Description: "Reports."}, {Name: "deploy", Description: "To staging."}}}
	r := newResolver(t, user, project)
	cs, _ := connectAs(t, server.New(r, nil), "a")
	note := func(change func()) string {
		t.Helper()
		change()
		if _, err := r.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		res, err := callSkill(t, cs, map[string]any{"name": "deploy"})
		if err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res)
		}
		if len(res.Content) < 3 {
			return ""
		}
		return text(t, res.Content[2])
	}
	for _, tt := range []struct {
		what   string
		change func()
		want   string
	}{
		{"a description", func() { project.Skills[1].Description = "To PRODUCTION." }, "The skill catalog changed since this session started: 1 skill changed (deploy)."},
		{"a body", func() { project.Skills[1].Body = "new steps\n" }, ""},
		{"the skill a name loads", func() { user.Skills = nil }, "The skill catalog changed again since the last note: 1 skill changed (pdf)."},
	} {
		if got, want := note(tt.change), tt.want; !strings.HasPrefix(got, want) || want == "" && got != "" {
			t.Errorf("%s: note %q, want %q", tt.what, got, want)
		}
	}
}

// The note works as well in the view of a client that loads some folders
// itself (Claude Code's leaves out ~/.claude/skills): its skill calls
// after a change are answered, and say what changed in what it sees.
func TestSkillAnswerNotesChangesInAClientsView(t *testing.T) {
	native := &sourcetest.Fake{SourceName: "user", Convention: sources.ConventionClaudeUser, Skills: []sourcetest.FakeSkill{{Name: "mine", Description: "Mine."}}}
	team := &sourcetest.Fake{SourceName: "team", Skills: []sourcetest.FakeSkill{{Name: "deploy", Description: "To staging."}}}
	r := newResolver(t, native, team)
	cs, _ := connectAs(t, server.New(r, nil), "claude-code")
	for _, tt := range []struct {
		change func()
		want   string
	}{
		{func() { team.Skills = append(team.Skills, sourcetest.FakeSkill{Name: "lint", Description: "Lint."}) }, "1 skill added (lint)"},
		{func() { team.Skills[0].Description = "To PRODUCTION." }, "1 skill changed (deploy)"},
		{func() { native.Skills[0].Description = "Mine, edited." }, ""},
	} {
		tt.change()
		if _, err := r.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		res, err := callSkill(t, cs, map[string]any{"name": "deploy"})
		if err != nil || res.IsError {
			t.Fatalf("a skill call after a change: %v %+v", err, res)
		}
		got := ""
		if len(res.Content) >= 3 {
			got = text(t, res.Content[2])
		}
		if tt.want == "" && got != "" || !strings.Contains(got, tt.want) {
			t.Errorf("note %q, want one with %q", got, tt.want)
		}
	}
}
