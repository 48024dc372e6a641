package main

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/skillmux/skillmux/sources"
)

// exitCode is the status err ends the process with.
func exitCode(err error) int {
	var ex *exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ex):
		return ex.code
	}
	return 1
}

// A source that yields nothing because its folder is missing, or is a
// file, is a warning on stderr in every command, naming the folder.
func TestMissingRootsAreWarnedEverywhere(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nowhere")
	file := filepath.Join(t.TempDir(), "a-file")
	writeFile(t, file, "x")
	for _, args := range [][]string{
		{"list", "--root", missing, "--root", file},
		{"list", "--json", "--root", missing, "--root", file},
		{"show", "--root", missing, "--root", file, "--root", examples(t), "csv-summary"},
	} {
		out, stderr, err := runCLI(t, "", args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		for _, want := range []string{"warning: " + missing + ": folder does not exist", "warning: " + file + ": is a file, not a folder"} {
			if strings.Count(stderr, want) != 1 {
				t.Errorf("%v: stderr should say %q once:\n%s", args, want, stderr)
			}
		}
		if strings.Contains(stderr, "level=") || strings.Contains(stderr, "time=") {
			t.Errorf("%v: raw log lines on stderr:\n%s", args, stderr)
		}
		if args[1] == "--json" {
			var l listing
			if err := json.Unmarshal([]byte(out), &l); err != nil || len(l.Warnings) != 2 {
				t.Errorf("list --json: warnings %v, %v", l.Warnings, err)
			}
		}
	}
	// A relative path says where it was looked for.
	_, stderr, _ := runIn(t, isolatedEnv(t), t.TempDir(), "list", "--root", "my-skills")
	if !strings.Contains(stderr, `"my-skills" was taken relative to the working folder`) {
		t.Errorf("relative root:\n%s", stderr)
	}
	// With --all the problems are in the listing, once, not on stderr too.
	// (Looked in, after them, names every place.)
	out, stderr, _ := runCLI(t, "", "list", "--all", "--root", missing)
	problems, _, _ := strings.Cut(out, "\nLooked in:\n")
	if strings.Contains(stderr, missing) || strings.Count(problems, missing) != 1 {
		t.Errorf("list --all: stdout:\n%s\nstderr:\n%s", out, stderr)
	}
}

func TestValidateSaysWhatIsWrongWithThePath(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nonexistent")
	out, _, err := runCLI(t, "", "validate", missing)
	if exitCode(err) != 1 || !strings.Contains(out, missing+": error: does not exist") || strings.Contains(out, "SKILL.md") && !strings.Contains(out, "a SKILL.md or") {
		t.Errorf("validate missing: %v\n%s", err, out)
	}
	if !strings.Contains(out, "0 skills checked: 1 error, 0 warnings") {
		t.Errorf("a missing path is counted as a skill:\n%s", out)
	}
	out, _, err = runCLI(t, "", "validate", t.TempDir())
	if exitCode(err) != 1 || !strings.Contains(out, "0 skills checked: 1 error, 0 warnings") {
		t.Errorf("validate an empty folder: %v\n%s", err, out)
	}
	_, _, err = runCLI(t, "", "validate")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "validate needs at least one PATH") {
		t.Errorf("validate without a path: %v", err)
	}
	out, _, _ = runCLI(t, "", "validate", filepath.Join(examples(t), "csv-summary"))
	if !strings.Contains(out, "1 skill checked: 0 errors, 0 warnings") {
		t.Errorf("counts: %s", out)
	}
}

func TestUsageErrorsExitTwoWithAHint(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"list", "--rot", "x"}, "unknown flag --rot (did you mean --root?)"},
		{[]string{"serve", "--budget", "abc"}, `invalid value "abc" for --budget: must be an integer;`},
		{[]string{"lst"}, `unknown command "lst" (did you mean "list"?)`},
		{[]string{"help", "lst"}, `unknown command "lst" (did you mean "list"?); run 'skillmux --help' for the commands`},
		{[]string{"help", "nosuch"}, `unknown command "nosuch"; run 'skillmux --help' for the commands`},
		{[]string{"completion", "nope"}, `completion: unknown shell "nope"; give one of bash, zsh, fish or powershell`},
		{[]string{"completion", "bash", "extra"}, `completion bash takes no arguments, got "extra"; see 'skillmux completion bash --help'`},
		{[]string{"completion", "zsh", "--bogus"}, "unknown flag --bogus; see 'skillmux completion zsh --help'"},
		{[]string{"--bogus"}, "unknown flag --bogus; see 'skillmux --help'"},
		{[]string{"show", "-leading-dash"}, "unknown flag -leading-dash; see 'skillmux show --help' (an argument that begins with '-' goes after --: 'skillmux show -- -leading-dash')"},
		{[]string{"version", "extra"}, `version takes no arguments, got "extra"`},
		{[]string{"show"}, "show takes one skill NAME"},
		{[]string{"list", "--root", ""}, "--root (or a folder argument) is empty"},
		{[]string{"search", "--root", " ", "pdf"}, "--root (or a folder argument) is empty"},
		{[]string{"config", "--check", ""}, "--check is empty; give the configuration file to check"},
		{[]string{"config", "--check="}, "--check is empty"},
		{[]string{"list", "--config", ""}, "--config is empty; give a configuration file"},
		{[]string{"config", "--log-level", ""}, "--log-level is empty; use debug, info, warn or error"},
		{[]string{"list", "--log-format", ""}, "--log-format is empty; use text or json"},
		{[]string{"list", "--plugin-dir", ""}, "--plugin-dir is empty; give a Claude Code plugin folder"},
		{[]string{"validate", ""}, "validate: a PATH is empty; give a skill folder"},
		{[]string{"validate", "x", " "}, "validate: a PATH is empty"},
	} {
		_, _, err := runCLI(t, "", tt.args...)
		if exitCode(err) != 2 || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: exit %d, %v; want 2 and %q", tt.args, exitCode(err), err, tt.want)
		}
	}
}

func TestListCounts(t *testing.T) {
	one := t.TempDir()
	writeFile(t, filepath.Join(one, "solo", "SKILL.md"), skillMD("solo", "The only one."))
	out, _, err := runCLI(t, "", "list", "--root", one)
	if err != nil || !strings.Contains(out, "\n1 skill\n") {
		t.Errorf("%v\n%s", err, out)
	}
}

// A malformed settings file of Claude Code is named with its line, in
// every command.
func TestMalformedClaudeSettingsAreReported(t *testing.T) {
	w := newWorkspace(t)
	settings := filepath.Join(w.home, ".claude", "settings.json")
	writeFile(t, settings, "{\n  \"enabledPlugins\": {\n    \"discord@claude-plugins-official\": true,\n  }\n}\n")
	out, stderr, err := runIn(t, w.environ, w.sub, "list")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "warning: "+settings+":4:") || !strings.Contains(stderr, "trailing comma") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if strings.Contains(out, "discord:access") {
		t.Error("a plugin enabled only by the broken file is served")
	}
}

// list --all shows every plugin considered, with its state and reason.
func TestListAllShowsPluginsConsidered(t *testing.T) {
	w := newWorkspace(t)
	l := w.list(t)
	states := map[string]string{}
	for _, p := range l.Plugins {
		states[p.Name] = string(p.State)
	}
	if states["discord@claude-plugins-official"] != "served" || states["superpowers@superpowers-dev"] != "disabled" {
		t.Errorf("plugins: %+v", l.Plugins)
	}
	out, _, err := runIn(t, w.environ, w.sub, "list", "--all")
	if err != nil || !strings.Contains(out, "Claude Code plugins considered:") || !regexp.MustCompile(`superpowers@superpowers-dev +disabled +enabledPlugins in \S+settings.json sets it to false`).MatchString(out) {
		t.Errorf("%v\n%s", err, out)
	}
}

// --client shows the catalog a client is served: Claude Code is spared
// ~/.claude/skills, the project's .claude/skills and its plugins.
func TestListAsAClient(t *testing.T) {
	w := newWorkspace(t)
	writeFile(t, filepath.Join(w.home, ".agents/skills/agents-skill/SKILL.md"), skillMD("agents-skill", "In ~/.agents/skills."))
	out, stderr, err := runIn(t, w.environ, w.sub, "list", "--client", "claude-code")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, gone := range []string{"mine", "repo-only", "discord:access"} {
		if strings.Contains(out, gone+" ") {
			t.Errorf("%s is listed for Claude Code:\n%s", gone, out)
		}
	}
	if !strings.Contains(out, "agents-skill") || !strings.Contains(out, "As Claude Code sees it") {
		t.Errorf("listing:\n%s", out)
	}
	// The plugins it loads itself are not "served" to it.
	for _, p := range w.list(t, "--client", "claude-code").Plugins {
		if p.Name == "discord@claude-plugins-official" && (p.State != sources.PackageLeftOut || !strings.Contains(p.Reason, "Claude Code")) {
			t.Errorf("for Claude Code, %s is %s (%s); want left-out", p.Name, p.State, p.Reason)
		}
	}
	// defaults.native: include serves every client everything.
	out, _, err = runIn(t, append(w.environ, "SKILLMUX_DEFAULTS__NATIVE=include"), w.sub, "list", "--client", "claude-code")
	if err != nil || !strings.Contains(out, "mine ") || strings.Contains(out, "As Claude Code sees it") {
		t.Errorf("with defaults.native include: %v\n%s", err, out)
	}
}

// list --all keeps the sources' warnings, which may be about what is not
// served, apart from the warnings of skills that are served.
func TestListAllWarningHeadings(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "odd", "SKILL.md"), "---\nname: odd\ndescription: Has a key nobody knows.\ncolour: blue\n---\nBody.\n")
	missing := filepath.Join(t.TempDir(), "missing")
	out, _, err := runCLI(t, "", "list", "--all", "--no-builtin", "--root", root, "--root", missing)
	if err != nil {
		t.Fatal(err)
	}
	sources, skills := strings.Index(out, "\nWarnings:\n"), strings.Index(out, "\nWarnings about skills served:\n")
	if sources < 0 || skills < 0 {
		t.Fatalf("want both headings:\n%s", out)
	}
	if m, c := strings.Index(out, missing), strings.Index(out, "colour"); !(sources < m && m < skills && skills < c) {
		t.Errorf("the missing root belongs under Warnings, the unknown key under the skills':\n%s", out)
	}
}

func TestCodexBuiltinsAreLeftOut(t *testing.T) {
	w := newWorkspace(t)
	writeFile(t, filepath.Join(w.home, ".codex/skills/.system/skill-installer/SKILL.md"), skillMD("skill-installer", "Codex's own."))
	writeFile(t, filepath.Join(w.home, ".codex/skills/my-codex-skill/SKILL.md"), skillMD("my-codex-skill", "Mine."))
	got := byName(w.list(t))
	if _, ok := got["skill-installer"]; ok {
		t.Error("Codex's built-in skills are served")
	}
	if _, ok := got["my-codex-skill"]; !ok {
		t.Error("the user's Codex skill is not served")
	}
}

// TestTildeIsHome: a leading ~/ in --config, config --check and validate
// is the home folder, as in --root: a client passes its arguments without
// a shell to expand it.
func TestTildeIsHome(t *testing.T) {
	environ := isolatedEnv(t)
	home := strings.TrimPrefix(environ[0], "HOME=")
	writeFile(t, filepath.Join(home, "x.yaml"), "catalog:\n  budget: 3000\n")
	writeFile(t, filepath.Join(home, "skills", "solo", "SKILL.md"), skillMD("solo", "The only one."))
	out, _, err := runIn(t, environ, t.TempDir(), "config", "--config", "~/x.yaml")
	if err != nil || !strings.Contains(out, "budget: 3000") {
		t.Errorf("config --config ~/x.yaml: %v\n%s", err, out)
	}
	if out, _, err := runIn(t, environ, t.TempDir(), "config", "--check", "~/x.yaml"); err != nil || !strings.Contains(out, "valid") {
		t.Errorf("config --check ~/x.yaml: %v\n%s", err, out)
	}
	if out, _, err := runIn(t, environ, t.TempDir(), "validate", "~/skills"); err != nil || !strings.Contains(out, "1 skill checked: 0 errors") {
		t.Errorf("validate ~/skills: %v\n%s", err, out)
	}
}

// TestForeignVariableIsAWarning: a user's own SKILLMUX_BIN does not stop
// a command; it is a warning on stderr that names it.
func TestForeignVariableIsAWarning(t *testing.T) {
	out, stderr, err := runIn(t, isolatedEnv(t, "SKILLMUX_BIN=/usr/local/bin/skillmux"), t.TempDir(), "list", "--root", examples(t))
	if err != nil || !strings.Contains(out, "release-notes") {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "warning: SKILLMUX_BIN: not a setting of skillmux") {
		t.Errorf("stderr:\n%s", stderr)
	}
}

// TestListAsAnUnknownClient: a client name not in the table is served
// everything, so list shows it all, but says so, naming the known ones:
// a typo must not pass for a check.
func TestListAsAnUnknownClient(t *testing.T) {
	out, stderr, err := runCLI(t, "", "list", "--root", examples(t), "--client", "claude")
	if err != nil || !strings.Contains(out, "release-notes") {
		t.Fatalf("%v\n%s", err, stderr)
	}
	// "claude" is the beginning of one known name: that one is meant.
	if want := `warning: --client "claude" is not a client whose own folders are left out (did you mean "claude-code"?), so it is served the full catalog; those clients are claude-code, codex-mcp-client, cursor-vscode`; !strings.Contains(stderr, want) {
		t.Errorf("stderr:\n%s\nwant %q", stderr, want)
	}
	if _, stderr, _ := runCLI(t, "", "list", "--root", examples(t), "--client", "claude-cod"); !strings.Contains(stderr, `(did you mean "claude-code"?)`) {
		t.Errorf("stderr:\n%s", stderr)
	}
	if _, stderr, _ := runCLI(t, "", "list", "--root", examples(t), "--client", "claude-code"); strings.Contains(stderr, "warning") {
		t.Errorf("a known client is warned about:\n%s", stderr)
	}
}

// TestPluginDirMistakes: --plugin-dir on a file, or on a folder of skills
// meant for --root, says what was expected instead of serving nothing
// quietly.
func TestPluginDirMistakes(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "notes.md")
	writeFile(t, file, "notes\n")
	_, stderr, err := runCLI(t, "", "list", "--plugin-dir", file)
	if want := "warning: " + file + ": is a file, not a folder; a plugin folder is expected"; err != nil || !strings.Contains(stderr, want) {
		t.Errorf("%v\nstderr:\n%s\nwant %q", err, stderr, want)
	}
	_, stderr, err = runCLI(t, "", "list", "--plugin-dir", examples(t))
	if want := "warning: " + examples(t) + ": holds skill folders but no plugin (no .claude-plugin folder, no skills folder); for a folder of skills, use --root"; err != nil || !strings.Contains(stderr, want) {
		t.Errorf("%v\nstderr:\n%s\nwant %q", err, stderr, want)
	}
}
