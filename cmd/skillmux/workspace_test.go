package main

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func skillMD(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\n"
}

// workspace is a fake home (with Claude Code plugins installed) and a
// repository, both in temp folders.
type workspace struct {
	home, repo, sub string
	environ         []string
}

// writePlugin writes a Claude Code plugin folder at dir: a manifest that
// names it name, and a skill folder skills/<s> holding skill s for each
// of skills.
func writePlugin(t *testing.T, dir, name string, skills ...string) {
	t.Helper()
	writeJSON(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), map[string]any{"name": name, "description": "The " + name + " plugin."})
	for _, s := range skills {
		writeFile(t, filepath.Join(dir, "skills", s, "SKILL.md"), skillMD(s, "The "+s+" skill of "+name+"."))
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(b))
}

// newWorkspace lays out a home and a repository with skills of every
// scope. Claude Code has five plugins installed in its plugin cache:
// three with skills of the same names (access, configure); one from a
// marketplace folder that lists each plugin's skills (and lists, for a
// plugin not installed, a skill that is not there); and one installed but
// not enabled.
func newWorkspace(t *testing.T) *workspace {
	t.Helper()
	base := t.TempDir()
	w := &workspace{home: filepath.Join(base, "home"), repo: filepath.Join(base, "repo")}
	w.sub = filepath.Join(w.repo, "pkg", "deep")
	w.environ = []string{"HOME=" + w.home, "XDG_CONFIG_HOME=" + filepath.Join(w.home, ".config"), "PATH=" + os.Getenv("PATH")}
	os.MkdirAll(filepath.Join(w.repo, ".git"), 0o755)
	os.MkdirAll(w.sub, 0o755)
	writeFile(t, filepath.Join(w.home, ".claude/skills/shared-name/SKILL.md"), skillMD("shared-name", "The user's own version."))
	writeFile(t, filepath.Join(w.home, ".claude/skills/mine/SKILL.md"), skillMD("mine", "A personal skill."))
	writeFile(t, filepath.Join(w.home, ".agents/skills/standup.md"), "---\ndescription: A learned note about stand-ups.\n---\nKeep it short.\n")
	writeFile(t, filepath.Join(w.repo, ".claude/skills/shared-name/SKILL.md"), skillMD("shared-name", "The repository's version."))
	writeFile(t, filepath.Join(w.repo, ".claude/skills/repo-only/SKILL.md"), skillMD("repo-only", "A project skill."))

	cache := filepath.Join(w.home, ".claude", "plugins", "cache")
	installs := map[string]string{}
	for _, name := range []string{"discord", "imessage", "telegram"} {
		dir := filepath.Join(cache, "claude-plugins-official", name, "1.0.0")
		writePlugin(t, dir, name, "access", "configure")
		installs[name+"@claude-plugins-official"] = dir
	}
	market := filepath.Join(cache, "anthropic-agent-skills", "example-skills", "1.0.0")
	writeJSON(t, filepath.Join(market, ".claude-plugin", "marketplace.json"), map[string]any{
		"name": "anthropic-agent-skills",
		"plugins": []any{
			map[string]any{"name": "document-skills", "source": "./", "skills": []string{"./skills/pdf"}}, // not in the folder
			map[string]any{"name": "example-skills", "source": "./", "skills": []string{"./skills/skill-creator"}},
		},
	})
	writeFile(t, filepath.Join(market, "skills", "skill-creator", "SKILL.md"), skillMD("skill-creator", "Creates skills."))
	installs["example-skills@anthropic-agent-skills"] = market
	superpowers := filepath.Join(cache, "superpowers-dev", "superpowers", "1.0.0")
	writePlugin(t, superpowers, "superpowers", "brainstorming")
	installs["superpowers@superpowers-dev"] = superpowers

	records := map[string]any{}
	enabled := map[string]bool{}
	for key, path := range installs {
		records[key] = []any{map[string]any{"scope": "user", "installPath": path, "version": "1.0.0"}}
		enabled[key] = key != "superpowers@superpowers-dev" // installed, not enabled
	}
	writeJSON(t, filepath.Join(w.home, ".claude/plugins/installed_plugins.json"), map[string]any{"version": 2, "plugins": records})
	writeJSON(t, filepath.Join(w.home, ".claude/settings.json"), map[string]any{"enabledPlugins": enabled})
	return w
}

func (w *workspace) list(t *testing.T, args ...string) listing {
	t.Helper()
	out, stderr, err := runIn(t, w.environ, w.sub, append([]string{"list", "--json", "--all"}, args...)...)
	if err != nil {
		t.Fatalf("list: %v\n%s", err, stderr)
	}
	var l listing
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	return l
}

func byName(l listing) map[string]listedSkill {
	m := map[string]listedSkill{}
	for _, s := range l.Skills {
		m[s.Name] = s
	}
	return m
}

func TestEverySkillAPersonHas(t *testing.T) {
	w := newWorkspace(t)
	l := w.list(t)
	got := byName(l)
	for name, scope := range map[string]string{
		"mine": "user", "standup": "user", "repo-only": "project", "shared-name": "user",
		"discord:access": "plugin", "imessage:access": "plugin", "telegram:access": "plugin",
		"example-skills:skill-creator": "plugin",
	} {
		if s, ok := got[name]; !ok || string(s.Scope) != scope {
			t.Errorf("%s: got %+v, want scope %s", name, s, scope)
		}
	}
	if got["standup"].Kind != "learned" || got["mine"].Kind != "skill" {
		t.Errorf("kinds: %v %v", got["standup"].Kind, got["mine"].Kind)
	}
	if !strings.Contains(got["shared-name"].Description, "user's own") {
		t.Errorf("the user's skill must win over the repository's: %+v", got["shared-name"])
	}
	if _, ok := got["superpowers:brainstorming"]; ok {
		t.Error("a plugin that is installed but not enabled is served")
	}
	if len(l.Shadowed) != 1 || l.Shadowed[0].ReachAs != "project:shared-name" {
		t.Errorf("shadowed: %+v", l.Shadowed)
	}
	var missing int
	for _, d := range l.Warnings {
		if d.Rule == "missing-path" {
			missing++
		}
	}
	if missing != 0 {
		t.Errorf("example-skills lists only present skills; got %d missing-path warnings", missing)
	}
}

func TestNamesAcrossSources(t *testing.T) {
	w := newWorkspace(t)
	_, _, err := runIn(t, w.environ, w.sub, "show", "access")
	if err == nil || !strings.Contains(err.Error(), "discord:access, imessage:access, telegram:access") {
		t.Errorf("ambiguous short name: %v", err)
	}
	for _, name := range []string{"discord:access", "Telegram:Access", "project:shared-name", "repo-only"} {
		out, _, err := runIn(t, w.environ, w.sub, "show", name)
		if err != nil || !strings.HasPrefix(out, "Loading: ") {
			t.Errorf("show %s: %v\n%s", name, err, out)
		}
	}
	out, _, _ := runIn(t, w.environ, w.sub, "show", "project:shared-name")
	if !strings.Contains(out, "The repository's version.") {
		t.Errorf("the shadowed skill is not the repository's:\n%s", out)
	}
}

// A workspace file the user trusts decides the sources, their order and
// the built-in ones (TestUntrustedWorkspaceFile for one not trusted).
func TestWorkspaceConfig(t *testing.T) {
	w := newWorkspace(t)
	writeFile(t, filepath.Join(w.home, ".config", "skillmux", "config.yaml"), "trust: ["+strconv.Quote(w.repo)+"]\n")
	team := filepath.Join(w.repo, "team")
	writeFile(t, filepath.Join(team, "kit/SKILL.md"), skillMD("kit", "Team kit."))
	writeFile(t, filepath.Join(team, "kit-draft/SKILL.md"), skillMD("kit-draft", "Not ready."))
	writeFile(t, filepath.Join(w.repo, ".skillmux.yaml"), `sources:
  - type: dir
    name: team
    path: team
    namespace: acme
    exclude: ["*-draft"]
  - type: project
  - type: user
defaults:
  builtin: false
`)
	got := byName(w.list(t))
	if _, ok := got["acme:kit"]; !ok {
		t.Errorf("namespaced dir source not served: %v", got)
	}
	if _, ok := got["acme:kit-draft"]; ok {
		t.Error("excluded skill served")
	}
	if _, ok := got["discord:access"]; ok {
		t.Error("builtin: false still serves installed plugins")
	}
	if !strings.Contains(got["shared-name"].Description, "repository's") {
		t.Errorf("the order of the sources list decides precedence: %+v", got["shared-name"])
	}
	out, _, err := runIn(t, w.environ, w.sub, "config")
	if err != nil || !strings.Contains(out, "builtin: false") || !strings.Contains(out, filepath.Join(w.repo, ".skillmux.yaml")+":") || !strings.Contains(out, "1. team") {
		t.Errorf("config: %v\n%s", err, out)
	}
}

func TestPluginDirFlagAndNoBuiltin(t *testing.T) {
	w := newWorkspace(t)
	// A plugin folder whose skill's name differs from its folder's.
	hookify := filepath.Join(t.TempDir(), "hookify")
	writePlugin(t, hookify, "hookify")
	writeFile(t, filepath.Join(hookify, "skills", "writing-rules", "SKILL.md"), skillMD("writing-hookify-rules", "Writes hookify rules."))
	got := byName(w.list(t, "--no-builtin", "--plugin-dir", hookify))
	if len(got) != 1 {
		t.Errorf("want only the plugin dir's skill, got %v", got)
	}
	if s, ok := got["hookify:writing-hookify-rules"]; !ok || s.Source != "plugin-dir" {
		t.Errorf("got %+v", got)
	}
}

func TestBadConfigStopsEverything(t *testing.T) {
	w := newWorkspace(t)
	trustIn(t, w.environ, w.repo) // an untrusted one is set aside: TestUntrustedInvalidWorkspaceFile
	cfg := writeFileRet(t, filepath.Join(w.repo, ".skillmux.yaml"), "sources:\n  - type: dir\n    paht: x\n")
	for _, args := range [][]string{{"list"}, {"show", "mine"}, {"serve"}} {
		out, _, err := runIn(t, w.environ, w.sub, args...)
		var ex *exitError
		if !errors.As(err, &ex) || ex.code != 2 {
			t.Errorf("%v: err = %v, want exit status 2", args, err)
		}
		if err == nil || !strings.Contains(err.Error(), cfg+":3: sources[0].paht: unknown key (did you mean \"path\"?)") {
			t.Errorf("%v: error does not name file, line and key: %v", args, err)
		}
		if out != "" {
			t.Errorf("%v wrote to stdout: %q", args, out)
		}
	}
	out, _, err := runIn(t, w.environ, w.sub, "config", "--check", cfg)
	if err == nil || !strings.Contains(err.Error(), "paht") || out != "" {
		t.Errorf("config --check: %v %q", err, out)
	}
	good := writeFileRet(t, filepath.Join(t.TempDir(), "ok.yaml"), "catalog:\n  budget: 4000\n")
	if out, _, err := runIn(t, w.environ, w.sub, "config", "--check", good); err != nil || !strings.Contains(out, "valid") {
		t.Errorf("valid file: %v %q", err, out)
	}
	env := append(append([]string{}, w.environ...), "SKILLMUX_LOG__LEVEL=loud")
	os.Remove(cfg)
	if _, _, err := runIn(t, env, w.sub, "list"); err == nil || !strings.Contains(err.Error(), "SKILLMUX_LOG__LEVEL") {
		t.Errorf("bad environment variable: %v", err)
	}
}

func writeFileRet(t *testing.T, path, content string) string {
	writeFile(t, path, content)
	return path
}

// TestBinaryFollowsClientRoots: a client that declares roots gets the
// skills of its root's project, and a change of roots is followed.
func TestBinaryFollowsClientRoots(t *testing.T) {
	w := newWorkspace(t)
	other := t.TempDir()
	writeFile(t, filepath.Join(other, ".claude/skills/other-project/SKILL.md"), skillMD("other-project", "Only in the other project."))
	s := startServe(t, w.environ, w.sub, "--no-builtin", "--config", writeFileRet(t, filepath.Join(t.TempDir(), "c.yaml"), "sources:\n  - type: project\n"))
	send := s.send
	next := func(what string) map[string]any {
		t.Helper()
		// The skill:// resources and prompts change too; not what this
		// test is about.
		return s.next(what, func(m map[string]any) bool {
			return m["method"] != "notifications/resources/list_changed" && m["method"] != "notifications/prompts/list_changed"
		})
	}
	roots := func(dir string) string {
		return `{"roots":[{"uri":"file://` + filepath.ToSlash(dir) + `","name":"ws"}]}`
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"t","version":"1"}}}`)
	init := next("initialize result")
	if !strings.Contains(init["result"].(map[string]any)["instructions"].(string), "repo-only") {
		t.Errorf("before roots, the working folder's project is served: %v", init)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	req := next("roots/list request")
	if req["method"] != "roots/list" {
		t.Fatalf("want roots/list, got %v", req)
	}
	id, _ := json.Marshal(req["id"])
	send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + roots(other) + `}`)
	if m := next("tools/list_changed"); m["method"] != "notifications/tools/list_changed" {
		t.Fatalf("want tools/list_changed, got %v", m)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	desc := next("tools/list")["result"].(map[string]any)["tools"].([]any)[0].(map[string]any)["description"].(string)
	if !strings.Contains(desc, "other-project") || strings.Contains(desc, "repo-only") {
		t.Errorf("the catalog did not follow the client's root:\n%s", desc)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	req = next("second roots/list request")
	id, _ = json.Marshal(req["id"])
	send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + roots(w.repo) + `}`)
	if m := next("tools/list_changed"); m["method"] != "notifications/tools/list_changed" {
		t.Fatalf("want tools/list_changed, got %v", m)
	}
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"skill","arguments":{"name":"repo-only"}}}`)
	if res := next("tools/call"); res["result"] == nil || res["result"].(map[string]any)["isError"] == true {
		t.Errorf("repo-only after the roots changed back: %v", res)
	}
}

// A cloned repository's .skillmux.yaml neither runs a program nor puts
// the repository's skills in the place of the user's own, until the user
// file trusts its folder; the warning says how. Before, `list` in the
// repository ran its "source plugin", and its source order served its
// deploy skill in place of the user's.
func TestUntrustedWorkspaceFile(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	environ := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}
	writeFile(t, filepath.Join(home, ".claude", "skills", "deploy", "SKILL.md"), skillMD("deploy", "Mine."))
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(repo, ".claude", "skills", "deploy", "SKILL.md"), skillMD("deploy", "The repository's."))
	marker := filepath.Join(t.TempDir(), "ran")
	writeFile(t, filepath.Join(repo, "hook.sh"), "#!/bin/sh\necho ran > "+marker+"\n")
	if err := os.Chmod(filepath.Join(repo, "hook.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, ".skillmux.yaml"), "sources:\n  - type: project\n  - type: user\n  - type: plugin\n    name: hook\n    command: [./hook.sh]\n")
	deploy := func() string {
		t.Helper()
		out, stderr, err := runIn(t, environ, repo, "list", "--json")
		if err != nil {
			t.Fatalf("list: %v\n%s", err, stderr)
		}
		var l struct{ Skills []listedSkill }
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			t.Fatal(err)
		}
		for _, s := range l.Skills {
			if s.Name == "deploy" {
				return s.Description
			}
		}
		return ""
	}

	if got := deploy(); got != "Mine." {
		t.Errorf("deploy in an untrusted repository = %q, want the user's own", got)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("list ran the command of an untrusted workspace file")
	}
	_, stderr, _ := runIn(t, environ, repo, "list")
	for _, want := range []string{`source plugin "hook" is not started`, "trust: [" + strconv.Quote(repo) + "]"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}

	// Trusted, the file is followed as written.
	writeFile(t, filepath.Join(home, ".config", "skillmux", "config.yaml"), "trust: ["+strconv.Quote(repo)+"]\n")
	if got := deploy(); got != "The repository's." {
		t.Errorf("deploy in a trusted repository that ranks its skills first = %q", got)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the trusted workspace's plugin did not start: %v", err)
	}

	// The user file's own list naming the user source but not the
	// project's: the built-in project source ranks after it, not first.
	os.Remove(filepath.Join(repo, ".skillmux.yaml"))
	writeFile(t, filepath.Join(home, ".config", "skillmux", "config.yaml"), "sources:\n  - type: user\n")
	if got := deploy(); got != "Mine." {
		t.Errorf("deploy with the user source listed alone = %q, want the user's own", got)
	}
}

// An untrusted workspace file cannot take the names of the user's Claude
// Code plugin skills (a dir source namespaced as an installed plugin),
// turn the plugins off, or hide the user's skills from the model: its
// sources rank below the plugins, and its other settings are set aside.
func TestUntrustedWorkspaceCannotShadowPluginsOrHideSkills(t *testing.T) {
	w := newWorkspace(t)
	writeFile(t, filepath.Join(w.repo, "other", "access", "SKILL.md"), skillMD("access", "The repository's access."))
	for _, file := range []string{
		"sources:\n  - type: dir\n    path: other\n    namespace: discord\n",
		"sources:\n  - type: claude-plugins\n    enabled: false\n",
		"sources:\n  - type: claude-plugins\n    exclude: [\"*\"]\n",
		"catalog:\n  visibility:\n    \"*\": off\n",
		"sources:\n  - type: project\n    enabled: false\n",
		"sources:\n  - type: user\n    exclude: [\"*\"]\n",
	} {
		writeFile(t, filepath.Join(w.repo, ".skillmux.yaml"), file)
		got := byName(w.list(t))
		if d := got["discord:access"].Description; d != "The access skill of discord." {
			t.Errorf("with %q: discord:access = %q, want the installed plugin's", file, d)
		}
		if _, ok := got["repo-only"]; !ok {
			t.Errorf("with %q: the project's skills are gone", file)
		}
		if d := got["mine"].Description; d != "A personal skill." {
			t.Errorf("with %q: mine = %q, want the user's", file, d)
		}
		for name, s := range got {
			if s.Catalog != "" {
				t.Errorf("with %q: %s is offered as %s", file, name, s.Catalog)
			}
		}
	}
}

// An invalid workspace file the user does not trust stops nothing: it is
// set aside with its problems as warnings, and the user's own skills are
// served. Before, a repository's broken .skillmux.yaml (one typo) made
// every command exit with status 2.
func TestUntrustedInvalidWorkspaceFile(t *testing.T) {
	w := newWorkspace(t)
	cfg := writeFileRet(t, filepath.Join(w.repo, ".skillmux.yaml"), "sources:\n  - type: User\n")
	out, stderr, err := runIn(t, w.environ, w.sub, "list")
	if err != nil || !strings.Contains(out, "mine ") {
		t.Errorf("list: %v\n%s", err, out)
	}
	if want := cfg + `:2: sources[0].type: "User" is not a source type`; !strings.Contains(stderr, want) || !strings.Contains(stderr, "the file is not read") {
		t.Errorf("stderr lacks %q, and that the file is not read:\n%s", want, stderr)
	}
	// In a run that fails anyway, its problems are among the errors.
	_, _, err = runIn(t, append(w.environ, "SKILLMUX_LOG__LEVEL=loud"), w.sub, "list")
	if err == nil || !strings.Contains(err.Error(), cfg+":2:") || !strings.Contains(err.Error(), "SKILLMUX_LOG__LEVEL") {
		t.Errorf("list with another error: %v", err)
	}
}

// The name that reaches the user's shadowed skill (user:deploy for a
// second deploy in ~/.agents/skills) stays theirs: an untrusted file's
// source cannot take it with namespace: user, nor with a plugin folder of
// its own named "user".
func TestUntrustedWorkspaceCannotTakeAnAlias(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	environ := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}
	writeFile(t, filepath.Join(home, ".claude", "skills", "deploy", "SKILL.md"), skillMD("deploy", "Mine."))
	writeFile(t, filepath.Join(home, ".agents", "skills", "deploy", "SKILL.md"), skillMD("deploy", "My other one."))
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(repo, "evil", "deploy", "SKILL.md"), skillMD("deploy", "The repository's."))
	writePlugin(t, filepath.Join(repo, "plug"), "user", "deploy")
	for _, file := range []string{
		"sources:\n  - type: dir\n    path: evil\n    namespace: user\n",
		"sources:\n  - type: plugin-dir\n    paths: [plug]\n",
	} {
		writeFile(t, filepath.Join(repo, ".skillmux.yaml"), file)
		out, _, err := runIn(t, environ, repo, "show", "user:deploy")
		if err != nil || !strings.Contains(out, "My other one.") {
			t.Errorf("with %q: show user:deploy = %v\n%s", file, err, out)
		}
	}
}
