package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/resolver"
)

// call sends a request with id and returns its result, or its error.
func (s *session) call(id int, method string, params any) (map[string]any, error) {
	s.t.Helper()
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	s.send(string(req))
	m := s.next(method, isID(float64(id)))
	if e, ok := m["error"].(map[string]any); ok {
		return nil, fmt.Errorf("%v: %v", e["code"], e["message"])
	}
	res, _ := m["result"].(map[string]any)
	return res, nil
}

// corpusArgs are the command-line arguments that serve the shared corpus
// (or, without it, the example skills), and a query that finds several.
func corpusArgs(t *testing.T) ([]string, string) {
	dir, ok := corpus.Lookup(t)
	if !ok {
		return []string{"--no-builtin", "--root", examples(t)}, "write release notes"
	}
	return []string{"--no-builtin",
		"--root", filepath.Join(dir, "anthropics-skills"), "--root", filepath.Join(dir, "obra-superpowers"),
		"--root", filepath.Join(dir, "openai-skills"), "--plugin-dir", filepath.Join(dir, "claude-plugins-official"),
	}, "reply to the comments people left on my github PR"
}

// `skillmux search` gives what the skills_search tool gives.
func TestSearchCommandIsTheTool(t *testing.T) {
	args, query := corpusArgs(t)
	environ, work := isolatedEnv(t), t.TempDir()
	out, _, err := runIn(t, environ, work, append([]string{"search", "--json", "--limit", "5"}, append(args, strings.Fields(query)...)...)...)
	if err != nil {
		t.Fatal(err)
	}
	var cli resolver.SearchResult
	if err := json.Unmarshal([]byte(out), &cli); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(cli.Hits) == 0 {
		t.Fatalf("no hits:\n%s", out)
	}
	s := startServe(t, environ, work, args...)
	s.handshake()
	res, err := s.call(2, "tools/call", map[string]any{"name": "skills_search", "arguments": map[string]any{"query": query, "limit": 5}})
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(res["structuredContent"])
	var tool resolver.SearchResult
	if err := json.Unmarshal(raw, &tool); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cli, tool); diff != "" {
		t.Errorf("the command (-) and the tool (+) differ:\n%s", diff)
	}
	text, _, err := runIn(t, environ, work, append([]string{"search", "--limit", "1"}, append(args, query)...)...)
	if err != nil || !strings.HasPrefix(text, cli.Hits[0].Name+"  (") {
		t.Errorf("text output: %v\n%s", err, text)
	}
}

func TestSearchCommandErrors(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"search"}, "search needs a QUERY"},
		{[]string{"search", "   "}, "QUERY must not be empty"},
		{[]string{"search", "--limit", "0", "pdf"}, "--limit must be an integer from 1 to 25 (default 10), got 0"},
		{[]string{"search", "--limit", "many", "pdf"}, `invalid value "many" for --limit: must be an integer;`},
		{[]string{"search", "--kind", "folder", "pdf"}, `--kind must be "skill" or "learned", got "folder"`},
		{[]string{"search", "--source", "nope", "pdf"}, `--source names no source: "nope"`},
	} {
		_, _, err := runCLI(t, examples(t), tt.args...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: exit %d, %v; want 2 and %q", tt.args, exitCode(err), err, tt.want)
		}
	}
}

// `serve DIR...` serves the folders given as arguments, as skill-jack
// users type them; SKILLS_DIR still works without them.
func TestServeTakesFolders(t *testing.T) {
	environ, work := isolatedEnv(t), t.TempDir()
	s := startServe(t, environ, work, "--no-builtin", examples(t))
	s.handshake()
	res, err := s.call(2, "prompts/get", map[string]any{"name": "release-notes"})
	if err != nil {
		t.Errorf("a skill of the folder given: %v %v", err, res)
	}
	s2 := startServe(t, isolatedEnv(t, "SKILLS_DIR="+examples(t)), work, "--no-builtin")
	s2.handshake()
	res, err = s2.call(2, "tools/call", map[string]any{"name": "skill", "arguments": map[string]any{"name": "release-notes"}})
	if err != nil || res["isError"] == true {
		t.Errorf("SKILLS_DIR: %v %v", err, res)
	}
}

// A bad tool profile, tool name or visibility in the configuration stops
// serve with status 2, naming the file, the line and the key.
func TestToolConfigurationErrors(t *testing.T) {
	work := t.TempDir()
	writeFile(t, filepath.Join(work, ".skillmux.yaml"), "tools:\n  profile: sk-mcp\ncatalog:\n  visibility:\n    pdf: hide\n")
	_, _, err := runIn(t, trustingEnv(t, work), work, "serve", "--no-builtin")
	if exitCode(err) != 2 {
		t.Fatalf("exit %d: %v", exitCode(err), err)
	}
	for _, want := range []string{`.skillmux.yaml:2: tools.profile: "sk-mcp" is not a tool profile`, `.skillmux.yaml:5: catalog.visibility.pdf: "hide" is not a visibility; use on, name-only or off`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// search --client leaves out what that client loads itself, as
// skills_search does for it: the CLI's "same results" held only for
// clients that load no folder.
func TestSearchAsAClient(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".claude/skills/claude-own/SKILL.md"), skillMD("claude-own", "Testing helpers Claude Code loads itself."))
	writeFile(t, filepath.Join(home, ".agents/skills/agents-own/SKILL.md"), skillMD("agents-own", "Testing helpers for every agent."))
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	all, _, err := runIn(t, env, t.TempDir(), "search", "testing")
	if err != nil || !strings.Contains(all, "claude-own") || !strings.Contains(all, "agents-own") {
		t.Fatalf("search: %v\n%s", err, all)
	}
	mine, _, err := runIn(t, env, t.TempDir(), "search", "--client", "claude-code", "testing")
	if err != nil || strings.Contains(mine, "claude-own") || !strings.Contains(mine, "agents-own") {
		t.Errorf("search --client claude-code: %v\n%s", err, mine)
	}
}
