package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/skillmux/skillmux/sources"
)

// isolatedEnv is an environment whose home and configuration folders are
// empty temp folders: no test reads the real ones.
func isolatedEnv(t *testing.T, extra ...string) []string {
	t.Helper()
	home := t.TempDir()
	return append([]string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "PATH=" + os.Getenv("PATH")}, extra...)
}

// runCLI runs the command tree in-process with the given SKILLS_DIR, in an
// empty home and an empty working folder.
// trustingEnv is isolatedEnv whose user file trusts the workspace files
// of dirs: for the tests of what a workspace file sets, which are not
// about trust.
func trustingEnv(t *testing.T, dirs ...string) []string {
	t.Helper()
	env := isolatedEnv(t)
	trustIn(t, env, dirs...)
	return env
}

// trustIn writes, in the configuration folder of environ
// (XDG_CONFIG_HOME), a user file that trusts dirs.
func trustIn(t *testing.T, environ []string, dirs ...string) {
	t.Helper()
	quoted := make([]string, len(dirs))
	for i, d := range dirs {
		quoted[i] = strconv.Quote(d)
	}
	writeFile(t, userFile(environ), "trust: ["+strings.Join(quoted, ", ")+"]\n")
}

// userFile is the user's configuration file in environ.
func userFile(environ []string) string {
	var config string
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "XDG_CONFIG_HOME="); ok {
			config = v
		}
	}
	return filepath.Join(config, "skillmux", "config.yaml")
}

func runCLI(t *testing.T, skillsDir string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	return runIn(t, isolatedEnv(t, "SKILLS_DIR="+skillsDir), t.TempDir(), args...)
}

// runIn runs the command tree in-process with an environment and a
// working folder.
func runIn(t *testing.T, environ []string, workdir string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, environ: environ, workdir: workdir}
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(&errOut)
	err = root.ExecuteContext(context.Background())
	return out.String(), errOut.String(), err
}

func examples(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "examples", "skills"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// list takes folders as serve does, so that a serve command line with
// list in its place lists what it serves.
func TestListTakesFoldersAsServeDoes(t *testing.T) {
	env, dir := isolatedEnv(t), t.TempDir()
	byArg, _, err := runIn(t, env, dir, "list", examples(t))
	if err != nil {
		t.Fatal(err)
	}
	byRoot, _, err := runIn(t, env, dir, "list", "--root", examples(t))
	if err != nil {
		t.Fatal(err)
	}
	if byArg != byRoot || !strings.Contains(byArg, "release-notes") {
		t.Errorf("list DIR:\n%s\nlist --root DIR:\n%s", byArg, byRoot)
	}
}

func TestListJSON(t *testing.T) {
	out, _, err := runCLI(t, "", "list", "--root", examples(t), "--json")
	if err != nil {
		t.Fatal(err)
	}
	var l listing
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	var names []string
	for _, s := range l.Skills {
		names = append(names, s.Name)
		if !filepath.IsAbs(s.Location) || s.Description == "" || s.Source == "" {
			t.Errorf("incomplete entry %+v", s)
		}
	}
	if got := strings.Join(names, ","); got != "commit-messages,csv-summary,release-notes" {
		t.Errorf("skills = %s", got)
	}
}

func TestListAllShowsShadowedAndSkipped(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(a, "dup", "SKILL.md"), "---\nname: dup\ndescription: From a.\n---\n")
	writeFile(t, filepath.Join(b, "dup", "SKILL.md"), "---\nname: dup\ndescription: From b.\n---\n")
	writeFile(t, filepath.Join(b, "bad", "SKILL.md"), "---\nname: bad\n---\n")
	writeFile(t, filepath.Join(b, "odd", "SKILL.md"), "---\nname: renamed\ndescription: Mismatch.\n---\n")
	// SKILLS_DIR with both separators.
	out, _, err := runCLI(t, a+","+b, "list", "--all")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"dup ", "From a.", "renamed",
		"Shadowed", filepath.Join(b, "dup", "SKILL.md"), "reach it as",
		"Skipped:", filepath.Join(b, "bad", "SKILL.md"), "description",
		"Warnings", "differs from its folder name",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("list --all lacks %q:\n%s", want, out)
		}
	}
	short, _, _ := runCLI(t, a+string(os.PathListSeparator)+b, "list")
	if strings.Contains(short, "Shadowed (") || strings.Contains(short, "Skipped:") || !strings.Contains(short, "renamed") {
		t.Errorf("plain list:\n%s", short)
	}
}

// A shadowed skill whose front matter keeps it from the model is tagged
// so, as a served one is, in text and in JSON.
func TestListAllTagsAShadowedUserInvokedSkill(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(a, "dup", "SKILL.md"), "---\nname: dup\ndescription: From a.\n---\n")
	writeFile(t, filepath.Join(b, "dup", "SKILL.md"), "---\nname: dup\ndescription: From b.\ndisable-model-invocation: true\n---\n")
	out, _, err := runCLI(t, a+","+b, "list", "--all")
	if err != nil || !strings.Contains(out, "dup [user-invoked]  "+filepath.Join(b, "dup", "SKILL.md")) || !strings.Contains(out, "[user-invoked]: its front matter says") {
		t.Errorf("%v\n%s", err, out)
	}
	out, _, err = runCLI(t, a+","+b, "list", "--all", "--json")
	var l struct {
		Shadowed []struct{ Catalog string }
	}
	if err != nil || json.Unmarshal([]byte(out), &l) != nil || len(l.Shadowed) != 1 || l.Shadowed[0].Catalog != "user-invoked" {
		t.Errorf("%v %+v\n%s", err, l, out)
	}
}

// A skill named "skill", which the loader prompt hides, is a warning in
// list --all that says how to reach it.
func TestListAllWarnsOfASkillNamedSkill(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "skill", "SKILL.md"), "---\nname: skill\ndescription: A skill called skill.\n---\n")
	out, _, err := runCLI(t, dir, "list", "--all")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, filepath.Join(dir, "skill", "SKILL.md")+`: name: "skill" is no prompt of its own`) || !strings.Contains(out, "argument name: skill") {
		t.Errorf("list --all:\n%s", out)
	}
}

// list and search write the control and invisible characters of a
// description as escapes: an escape sequence in a skill cannot hide text, retitle the
// terminal or turn a line around.
func TestListEscapesControls(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "esc", "SKILL.md"), "---\nname: esc\ndescription: \"Fine \\e[8mhid\\e[0m \\e]0;t\\a \\u202erev.\"\n---\n")
	for _, args := range [][]string{{"list"}, {"list", "--all"}, {"search", "fine"}} {
		out, _, err := runCLI(t, dir, args...)
		if err != nil {
			t.Fatal(err)
		}
		if strings.ContainsAny(out, "\x1b\a\u202e") || !strings.Contains(out, `Fine \x1b[8mhid\x1b[0m \x1b]0;t\a \u202erev.`) {
			t.Errorf("%s:\n%q", strings.Join(args, " "), out)
		}
	}
}

// A folder name that is not UTF-8 is written with \x escapes. Raw, its
// 0xff byte was text/tabwriter's escape character: every row after it
// lost its columns.
func TestListEscapesBytesThatAreNotUTF8(t *testing.T) {
	dir := t.TempDir()
	odd := filepath.Join(dir, "a\xffb")
	if err := os.Mkdir(odd, 0o755); err != nil {
		t.Skipf("this file system refuses a name that is not UTF-8: %v", err)
	}
	writeFile(t, filepath.Join(odd, "SKILL.md"), "---\nname: ab\ndescription: Odd folder.\n---\n")
	writeFile(t, filepath.Join(dir, "zz", "SKILL.md"), "---\nname: zz\ndescription: Plain folder.\n---\n")
	for _, args := range [][]string{{"list"}, {"list", "--all"}} {
		out, _, err := runCLI(t, dir, args...)
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(out) || !strings.Contains(out, `a\xffb`) {
			t.Errorf("%s writes the byte as it is:\n%q", strings.Join(args, " "), out)
		}
		if strings.Contains(out, "\t") || !regexp.MustCompile(`(?m)^zz +\S+ +Plain folder\. +`).MatchString(out) {
			t.Errorf("%s: the row after the odd name lost its columns:\n%s", strings.Join(args, " "), out)
		}
	}
	// validate names the file; show, as the skill tool does, gives the
	// folder quoted: JSON would carry U+FFFD in place of the byte, the
	// name of no folder.
	out, _, _ := runCLI(t, dir, "validate", dir)
	if !utf8.ValidString(out) || !strings.Contains(out, `a\xffb/SKILL.md: error: name:`) {
		t.Errorf("validate writes the byte as it is:\n%q", out)
	}
	out, _, err := runCLI(t, dir, "show", "ab")
	if err != nil {
		t.Fatal(err)
	}
	if want := "Base directory: " + strconv.Quote(odd) + "\n"; !strings.Contains(out, want) {
		t.Errorf("show:\n%q\nwant the line %q", out, want)
	}
}

// list shows how the model is offered each skill: catalog.visibility and
// disable-model-invocation tag a skill, in the table and in --json. Before,
// list showed a hidden skill as any other.
func TestListTagsWhatTheModelIsNotOffered(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "aa", "SKILL.md"), "---\nname: aa\ndescription: Hidden.\n---\n")
	writeFile(t, filepath.Join(dir, "bb", "SKILL.md"), "---\nname: bb\ndescription: Named.\n---\n")
	writeFile(t, filepath.Join(dir, "cc", "SKILL.md"), "---\nname: cc\ndescription: The user's.\ndisable-model-invocation: true\n---\n")
	writeFile(t, filepath.Join(dir, "dd", "SKILL.md"), "---\nname: dd\ndescription: Plain.\n---\n")
	cfg := filepath.Join(t.TempDir(), "c.yaml")
	writeFile(t, cfg, "catalog:\n  visibility:\n    aa: off\n    bb: name-only\n")
	out, _, err := runCLI(t, "", "list", "--no-builtin", "--config", cfg, "--root", dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"[off] Hidden.", "[name-only] Named.", "[user-invoked] The user's.", "  Plain.", "[off]: not in the catalog"} {
		if !strings.Contains(out, want) {
			t.Errorf("list lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runCLI(t, "", "list", "--no-builtin", "--config", cfg, "--root", dir, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var l struct{ Skills []listedSkill }
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range l.Skills {
		got[s.Name] = s.Catalog
	}
	if want := map[string]string{"aa": "off", "bb": "name-only", "cc": "user-invoked", "dd": ""}; !maps.Equal(got, want) {
		t.Errorf("list --json catalog = %v, want %v", got, want)
	}
}

// A problem's message may quote what a file holds, such as a plugin's
// name in Claude Code's records: its control characters are escaped as
// the path's are.
func TestSentenceEscapesTheMessage(t *testing.T) {
	d := sources.Diagnostic{Severity: sources.Warning, Path: "/h/p\x1b[2J.json", Field: "plugins.e\avil", Message: "/x/\x1b]0;T\a does not exist"}
	got := sentence(d, nil)
	if want := `warning: /h/p\x1b[2J.json: plugins.e\avil: /x/\x1b]0;T\a does not exist`; got != want {
		t.Errorf("sentence = %q, want %q", got, want)
	}
}

// list's columns line up as a terminal shows them: a CJK character takes
// two columns, a combining accent none, an emoji two; and a description of
// wide characters is cut at 60 columns like any other. Before, cells were
// padded by their count of characters.
func TestListColumnsByDisplayWidth(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "skills")
	writeFile(t, filepath.Join(dir, "cjk", "SKILL.md"), "---\nname: 日本語スキル\ndescription: "+strings.Repeat("説明", 40)+"\n---\n")
	writeFile(t, filepath.Join(dir, "accent", "SKILL.md"), "---\nname: \"e\u0301te\u0301\"\ndescription: Combining accents.\n---\n")
	writeFile(t, filepath.Join(dir, "emoji", "SKILL.md"), "---\nname: emoji-😀\ndescription: A smile.\n---\n")
	writeFile(t, filepath.Join(dir, "plain", "SKILL.md"), "---\nname: plain\ndescription: Plain.\n---\n")
	out, _, err := runCLI(t, "", "list", "--no-builtin", "--root", dir)
	if err != nil {
		t.Fatal(err)
	}
	// How many columns each cell takes in a terminal, counted by hand:
	// the name column is as wide as 日本語スキル (12), the description
	// column as the cut description (29 wide characters and "…", 59).
	cut := strings.Repeat("説明", 14) + "説…"
	rows := []struct{ name, desc, loc string }{
		{"NAME", "DESCRIPTION", "LOCATION"},
		{"emoji-😀", "A smile.", filepath.Join(dir, "emoji", "SKILL.md")},
		{"plain", "Plain.", filepath.Join(dir, "plain", "SKILL.md")},
		{"e\u0301te\u0301", "Combining accents.", filepath.Join(dir, "accent", "SKILL.md")},
		{"日本語スキル", cut, filepath.Join(dir, "cjk", "SKILL.md")},
	}
	nameCols := map[string]int{"NAME": 4, "emoji-😀": 8, "plain": 5, "e\u0301te\u0301": 3, "日本語スキル": 12}
	descCols := map[string]int{"DESCRIPTION": 11, "A smile.": 8, "Plain.": 6, "Combining accents.": 18, cut: 59}
	for i, r := range rows {
		src := "skills"
		if i == 0 {
			src = "SOURCE"
		}
		want := r.name + strings.Repeat(" ", 14-nameCols[r.name]) + src + "  " + r.desc + strings.Repeat(" ", 61-descCols[r.desc]) + r.loc + "\n"
		if !strings.Contains(out, want) {
			t.Errorf("list lacks the row %q:\n%s", want, out)
		}
	}
}

func TestShowPrintsToolResult(t *testing.T) {
	out, _, err := runCLI(t, "", "show", "--root", examples(t), "Release-Notes")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(examples(t), "release-notes")
	body, _ := os.ReadFile(filepath.Join(dir, "SKILL.md"))
	want := "Loading: release-notes\nBase directory: " + dir + "\n\n" + string(body) +
		"\nFiles in this skill (relative to the base directory):\nreferences/format.md\nscripts/commits.sh\n"
	if out != want {
		t.Errorf("show:\n%s\nwant:\n%s", out, want)
	}
	_, _, err = runCLI(t, "", "show", "--root", examples(t), "release-note")
	if err == nil || !strings.Contains(err.Error(), "did you mean release-notes") {
		t.Errorf("unknown name: %v", err)
	}
}

func TestValidateCommand(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "Bad_Name", "SKILL.md"), "---\nname: Bad_Name\ndescription: x\nversion: 1\n---\n")
	out, _, err := runCLI(t, "", "validate", filepath.Join(dir, "Bad_Name"))
	var ex *exitError
	if !errors.As(err, &ex) || ex.code != 1 {
		t.Errorf("err = %v, want exit status 1", err)
	}
	for _, want := range []string{filepath.Join(dir, "Bad_Name", "SKILL.md"), "error: name:", "[name-format]", "warning: version:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _, err = runCLI(t, "", "validate", "--json", examples(t))
	if err != nil {
		t.Errorf("examples must validate: %v\n%s", err, out)
	}
	var res []validated
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) != 3 {
		t.Errorf("json: %v %s", err, out)
	}
	if _, _, err := runCLI(t, "", "validate", filepath.Join(dir, "missing")); err == nil {
		t.Error("a missing path validated")
	}
}

// TestValidateFolderOfSkills checks that validating a folder of skills
// reports every folder that serving would skip or pass over: a SKILL.md
// that links nowhere or is a folder, and a skill.md in other letter cases.
// A folder validate cannot read is an error that names it: the skills in
// it go unchecked, and the check must not pass over them. Before, it was
// passed over in silence ("1 skill checked: 0 errors", status 0), and a
// skill folder that cannot be read was reported as its SKILL.md. CI runs
// it as nobody.
func TestValidateUnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 || runtime.GOOS == "windows" {
		t.Skip("root reads every folder; permissions differ on Windows")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "ok", "SKILL.md"), "---\nname: ok\ndescription: Fine.\n---\n")
	writeFile(t, filepath.Join(dir, "locked", "deploy", "SKILL.md"), "---\nname: Deploy_Bad\n---\n")
	locked := filepath.Join(dir, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	for _, arg := range []string{dir, locked} {
		out, _, err := runCLI(t, "", "validate", arg)
		var ex *exitError
		if !errors.As(err, &ex) || ex.code != 1 {
			t.Errorf("validate %s: err = %v, want exit status 1", arg, err)
		}
		if want := locked + ": error: cannot read folder: permission denied; the skills in it are not checked [read]"; !strings.Contains(out, want) {
			t.Errorf("validate %s:\n%s\nwant the line %q", arg, out, want)
		}
		if strings.Contains(out, filepath.Join(locked, "SKILL.md")) {
			t.Errorf("validate %s blames a SKILL.md that is not there:\n%s", arg, out)
		}
	}
}

// validate on a Claude Code plugin folder checks its manifest too: one
// that serving cannot read (a trailing comma) passed with 0 errors, and
// the plugin served nothing.
func TestValidatePluginManifest(t *testing.T) {
	p := t.TempDir()
	writeFile(t, filepath.Join(p, "skills", "a", "SKILL.md"), "---\nname: a\ndescription: x\n---\n")
	writeFile(t, filepath.Join(p, ".claude-plugin", "plugin.json"), `{"name": "playground",}`)
	out, _, err := runCLI(t, "", "validate", p)
	var ex *exitError
	if !errors.As(err, &ex) || ex.code != 1 || !strings.Contains(out, filepath.Join(p, ".claude-plugin", "plugin.json")+":1: error: not valid JSON") {
		t.Errorf("err = %v, want exit status 1 naming the manifest:\n%s", err, out)
	}
	writeFile(t, filepath.Join(p, ".claude-plugin", "plugin.json"), `{"name": "playground"}`)
	if out, _, err := runCLI(t, "", "validate", p); err != nil || !strings.Contains(out, "1 skill checked: 0 errors") {
		t.Errorf("a valid plugin: %v\n%s", err, out)
	}
	// A marketplace entry that serving goes on without leaves a plugin
	// unserved: an error for its author.
	m := t.TempDir()
	writeFile(t, filepath.Join(m, ".claude-plugin", "marketplace.json"), `{"name": "m", "plugins": [{"name": "gone", "source": "./gone"}]}`)
	out, _, err = runCLI(t, "", "validate", m)
	if !errors.As(err, &ex) || ex.code != 1 || !strings.Contains(out, `error: plugins[0].source: plugin "gone": folder ./gone does not exist`) {
		t.Errorf("err = %v, want exit status 1 naming the entry:\n%s", err, out)
	}
}

// Skill folders linked into a folder (from a dotfiles repository) are
// checked, as serving serves them, and a link back up is walked once.
func TestValidateFollowsLinkedFolders(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs symlinks")
	}
	real, dir := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(real, "linked", "SKILL.md"), "---\nname: linked\ndescription: x\n---\n")
	writeFile(t, filepath.Join(real, "group", "Bad_Name", "SKILL.md"), "---\nname: Bad_Name\ndescription: x\n---\n")
	writeFile(t, filepath.Join(dir, "own", "SKILL.md"), "---\nname: own\ndescription: x\n---\n")
	for link, target := range map[string]string{"linked": filepath.Join(real, "linked"), "group": filepath.Join(real, "group"), "up": dir} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := runCLI(t, "", "validate", dir)
	var ex *exitError
	if !errors.As(err, &ex) || ex.code != 1 {
		t.Errorf("err = %v, want exit status 1 for the linked Bad_Name", err)
	}
	for _, want := range []string{filepath.Join(dir, "group", "Bad_Name", "SKILL.md") + ": error: name:", "3 skills checked: 1 error"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestValidateFolderOfSkills(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("needs symlinks and file names that tell cases apart")
	}
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "good", "SKILL.md"), "---\nname: good\ndescription: x\n---\n")
	writeFile(t, filepath.Join(dir, "lower", "skill.md"), "---\nname: lower\ndescription: x\n---\n")
	if err := os.MkdirAll(filepath.Join(dir, "isdir", "SKILL.md"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "dangling"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("moved-away.md", filepath.Join(dir, "dangling", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	out, _, err := runCLI(t, "", "validate", dir)
	var ex *exitError
	if !errors.As(err, &ex) || ex.code != 1 {
		t.Errorf("err = %v, want exit status 1", err)
	}
	for _, want := range []string{
		filepath.Join(dir, "dangling", "SKILL.md") + ": error: SKILL.md is a link to moved-away.md, which does not exist",
		filepath.Join(dir, "lower", "skill.md") + ": error: found skill.md; the file must be named SKILL.md",
		filepath.Join(dir, "isdir", "SKILL.md") + ": error: not a regular file (a folder); SKILL.md must be a file",
		"4 skills checked: 3 errors",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestVersionAndHelp(t *testing.T) {
	out, _, err := runCLI(t, "", "version")
	if err != nil || !strings.HasPrefix(out, "skillmux ") {
		t.Errorf("version: %q %v", out, err)
	}
	for _, cmd := range []string{"serve", "mcp-server", "list", "show", "validate"} {
		out, _, err := runCLI(t, "", cmd, "--help")
		if err != nil || !strings.Contains(out, "Usage:") || len(out) < 300 {
			t.Errorf("%s --help: %v\n%s", cmd, err, out)
		}
	}
}

// binary is skillmux built for the tests that spawn it: once per run of
// the package's tests, in a temp folder TestMain removes at the end.
var binary struct {
	once      sync.Once
	dir, path string
	err       error
}

// --log-format is a flag wherever --log-level is, as log.format's, and
// config says where the format came from.
func TestLogFormatFlag(t *testing.T) {
	for _, cmd := range newRootCmd(&env{}).Commands() {
		if (cmd.Flags().Lookup("log-level") == nil) != (cmd.Flags().Lookup("log-format") == nil) {
			t.Errorf("%s has one of --log-level and --log-format, not both", cmd.Name())
		}
	}
	out, _, err := runCLI(t, "", "config", "--log-format", "json")
	if err != nil || !regexp.MustCompile(`format: json +# flag --log-format\n`).MatchString(out) {
		t.Errorf("config: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"serve", "--root", examples(t)},
		{"list", "--root", examples(t), "--log-level", "info"},
	} {
		_, stderr, err := runCLI(t, "", append(args, "--log-format", "json")...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if err != nil || stderr == "" {
			t.Fatalf("%v: %v\n%s", args, err, stderr)
		}
		for _, l := range lines {
			if !json.Valid([]byte(l)) {
				t.Errorf("%v: a log line that is not JSON: %s", args, l)
			}
		}
	}
	_, _, err = runCLI(t, "", "list", "--log-format", "yaml")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), `--log-format: log.format: "yaml" is not a format; use text or json`) {
		t.Errorf("a wrong format: exit %d, %v", exitCode(err), err)
	}
}

func TestMain(m *testing.M) {
	if os.Getenv(envTestPlugin) != "" {
		os.Exit(testPlugin())
	}
	code := m.Run()
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}

// buildBinary returns the path of the built binary, building it the first
// time; under -short the test is skipped instead.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	binary.once.Do(func() {
		binary.dir, binary.err = os.MkdirTemp("", "skillmux-test-")
		if binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "skillmux")
		if out, err := exec.Command("go", "build", "-o", binary.path, ".").CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// TestBinaryOverPipe spawns the real binary and speaks JSON-RPC to it over
// its stdin and stdout, as an MCP host does.
func TestBinaryOverPipe(t *testing.T) {
	bin := buildBinary(t)
	cmd := exec.Command(bin, "mcp-server", "--root", examples(t))
	cmd.Env, cmd.Dir = isolatedEnv(t), t.TempDir()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	// ask returns the reply to req; notifications, which may come
	// between (a change found just after the start), are skipped.
	ask := func(req string) map[string]any {
		t.Helper()
		io.WriteString(stdin, req+"\n")
		for {
			if !lines.Scan() {
				t.Fatalf("no reply to %s; stderr:\n%s", req, stderr.String())
			}
			var m map[string]any
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				t.Fatalf("stdout is not JSON-RPC: %q", lines.Text())
			}
			if _, ok := m["id"]; ok {
				return m
			}
		}
	}
	m := ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	res := m["result"].(map[string]any)
	if res["protocolVersion"] != "2025-06-18" || res["serverInfo"].(map[string]any)["name"] != "skillmux" {
		t.Errorf("initialize: %v", m)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	if m := ask(`{oops`); m["error"].(map[string]any)["code"] != float64(-32700) {
		t.Errorf("malformed line: %v", m)
	}
	m = ask(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"skill","arguments":{"name":"commit-messages"}}}`)
	content := m["result"].(map[string]any)["content"].([]any)
	body, _ := os.ReadFile(filepath.Join(examples(t), "commit-messages", "SKILL.md"))
	if got := content[0].(map[string]any)["text"].(string); !strings.HasSuffix(got, "\n\n"+string(body)) {
		t.Errorf("skill text does not end with the SKILL.md:\n%s", got)
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit after end of stdin: %v\n%s", err, stderr.String())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("still running 5s after stdin closed")
	}
	// What follows the last reply may be notifications, and nothing else.
	for lines.Scan() {
		var m struct{ JSONRPC, Method string }
		if err := json.Unmarshal(lines.Bytes(), &m); err != nil || m.JSONRPC != "2.0" || !strings.HasPrefix(m.Method, "notifications/") {
			t.Errorf("stray output on stdout: %q", lines.Text())
		}
	}
	for _, want := range []string{"catalog built", "skills=3", "stdin closed"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

func TestBinaryExitsOnSignal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	bin := buildBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		cmd := exec.Command(bin, "serve", "--root", examples(t))
		cmd.Env, cmd.Dir = isolatedEnv(t), t.TempDir()
		stdin, _ := cmd.StdinPipe() // kept open: only the signal may stop it
		defer stdin.Close()
		stderr := &syncBuffer{}
		cmd.Stderr = stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Signal once it serves, not before: a signal during start-up
		// would test something else.
		if !stderr.waitFor("serving MCP", 10*time.Second) {
			cmd.Process.Kill()
			t.Fatalf("%v: not serving after 10s:\n%s", sig, stderr.String())
		}
		cmd.Process.Signal(sig)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%v: exit %v, want status 0", sig, err)
			}
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: still running after 5s", sig)
		}
		if !strings.Contains(stderr.String(), "stopping on signal") {
			t.Errorf("%v: no log line:\n%s", sig, stderr.String())
		}
	}
}

// syncBuffer is a bytes.Buffer safe to read while a process writes to it,
// and to wait on for a string.
type syncBuffer struct {
	// mu guards the fields below.
	mu    sync.Mutex
	b     bytes.Buffer
	wrote chan struct{} // closed, and replaced, by each Write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wrote != nil {
		close(s.wrote)
		s.wrote = nil
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor reports whether the buffer holds want within timeout, which
// only bounds a hang: it returns as soon as a write brings want.
func (s *syncBuffer) waitFor(want string, timeout time.Duration) bool {
	return s.waitForCount(want, 1, timeout)
}

// waitForCount waits until want was written n times.
func (s *syncBuffer) waitForCount(want string, n int, timeout time.Duration) bool {
	deadline := time.After(timeout)
	for {
		s.mu.Lock()
		if strings.Count(s.b.String(), want) >= n {
			s.mu.Unlock()
			return true
		}
		if s.wrote == nil {
			s.wrote = make(chan struct{})
		}
		wrote := s.wrote
		s.mu.Unlock()
		select {
		case <-wrote:
		case <-deadline:
			return false
		}
	}
}

// TestValidateFileNotNamedSkillMD checks that validating a file by a name
// that makes no folder a skill says so: skill.md is the error serving
// would make of it, another name a warning beside the checks of its text.
func TestValidateFileNotNamedSkillMD(t *testing.T) {
	dir := t.TempDir()
	lower := filepath.Join(dir, "lower", "skill.md")
	writeFile(t, lower, "---\nname: lower\ndescription: x\n---\n")
	readme := filepath.Join(dir, "README.md")
	writeFile(t, readme, "# Read me\n")
	for _, tt := range []struct {
		path string
		want []string
	}{
		{lower, []string{lower + ": error: found skill.md; the file must be named SKILL.md", "1 skill checked: 1 error, 0 warnings"}},
		{readme, []string{readme + ": warning: checked as a SKILL.md, but only a file named SKILL.md makes its folder a skill", readme + ":1: error: no front matter", "1 skill checked: 1 error, 1 warning"}},
	} {
		out, _, err := runCLI(t, "", "validate", tt.path)
		var ex *exitError
		if !errors.As(err, &ex) || ex.code != 1 {
			t.Errorf("%s: err = %v, want exit status 1", tt.path, err)
		}
		for _, want := range tt.want {
			if !strings.Contains(out, want) {
				t.Errorf("%s: output lacks %q:\n%s", tt.path, want, out)
			}
		}
	}
	good := filepath.Join(dir, "good", "SKILL.md")
	writeFile(t, good, "---\nname: good\ndescription: x\n---\n")
	if out, _, err := runCLI(t, "", "validate", good); err != nil || !strings.Contains(out, "0 errors, 0 warnings") {
		t.Errorf("a SKILL.md given by its path: %v\n%s", err, out)
	}
}

// A signal while the catalog is still being read (here: waiting for a
// source plugin that never starts) stops serve as any other: at once,
// with status 0, and nothing said of a failure.
func TestBinaryExitsOnSignalDuringStart(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command")
	}
	bin := buildBinary(t)
	work := t.TempDir()
	cfg := filepath.Join(work, "slow.yaml")
	writeFile(t, cfg, fmt.Sprintf("sources:\n  - type: plugin\n    name: slow\n    command: [%q, \"30\"]\n", sleep))
	cmd := exec.Command(bin, "serve", "--no-builtin", "--config", cfg)
	cmd.Env, cmd.Dir = isolatedEnv(t), work
	stdin, _ := cmd.StdinPipe()
	defer stdin.Close()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if !stderr.waitFor("skillmux starting", 10*time.Second) {
		cmd.Process.Kill()
		t.Fatalf("not starting after 10s:\n%s", stderr.String())
	}
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit %v, want status 0:\n%s", err, stderr.String())
		}
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("still running 5s after the signal:\n%s", stderr.String())
	}
	if got := stderr.String(); !strings.Contains(got, "stopping on signal") || strings.Contains(got, "context canceled") {
		t.Errorf("stderr:\n%s", got)
	}
}

// A source a configuration names after a built-in one ("project") takes
// that name from neither it nor its skills' aliases: the built-in source
// keeps its name, and the renaming of the configured one is said.
func TestSourceNamedAsABuiltInOne(t *testing.T) {
	env, work, mine := isolatedEnv(t), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(work, ".claude", "skills", "pdf", "SKILL.md"), "---\nname: pdf\ndescription: The project's.\n---\n")
	writeFile(t, filepath.Join(mine, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: Mine.\n---\n")
	writeFile(t, filepath.Join(work, "c.yaml"), "sources:\n  - type: dir\n    name: project\n    path: "+mine+"\n")
	out, errOut, err := runIn(t, env, work, "list", "--all", "--config", "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The project's skill comes first; the configured one it shadows is
	// reached by the configured source's new name.
	if !strings.Contains(out, "pdf   project  The project's.") || !strings.Contains(out, `reach it as "project-2:pdf"`) {
		t.Errorf("the built-in project source lost its name:\n%s", out)
	}
	if !strings.Contains(errOut, `warning: source name "project" is the built-in project source's; the dir source of `+mine+` is named "project-2"`) {
		t.Errorf("no word of the renaming on stderr:\n%s", errOut)
	}
	// The same in another case: names are compared as lookups compare them.
	writeFile(t, filepath.Join(work, "c.yaml"), "sources:\n  - type: dir\n    name: Project\n    path: "+mine+"\n")
	_, errOut, err = runIn(t, env, work, "list", "--all", "--config", "c.yaml")
	if err != nil || !strings.Contains(errOut, `warning: source name "Project" is the built-in project source's; the dir source of `+mine+` is named "Project-2"`) {
		t.Errorf("Project: %v\n%s", err, errOut)
	}
}

// A folder named with what separates the parts of a skill's name ("x:y")
// names its source with '-' in its place: its shadowed skills are reached
// as "x-y:pdf", which no other skill's name or URI can be taken for.
func TestFolderSourceNameIsUsable(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "x:y")
	writeFile(t, filepath.Join(a, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: A's.\n---\n")
	writeFile(t, filepath.Join(b, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: X-y's.\n---\n")
	out, _, err := runIn(t, isolatedEnv(t), base, "list", "--all", "--no-builtin", a, b)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `reach it as "x-y:pdf"`) {
		t.Errorf("the shadowed skill's name:\n%s", out)
	}
	// Nor is a character that shows the name in another order kept.
	c := filepath.Join(base, "fdp\u202e")
	writeFile(t, filepath.Join(c, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: Reversed.\n---\n")
	out, _, err = runIn(t, isolatedEnv(t), base, "list", "--all", "--no-builtin", a, c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, `reach it as "fdp-:pdf"`) {
		t.Errorf("the shadowed skill's name:\n%s", out)
	}
}

// A home folder, or an XDG folder, that is not an absolute path is no
// home: read, it would be the working folder's, and a repository's file
// there would be taken for the user's own, which may start programs.
func TestRelativeHomeIsNoHome(t *testing.T) {
	work := t.TempDir()
	started := filepath.Join(t.TempDir(), "started")
	for _, f := range []string{".config/skillmux/config.yaml", "cfg/skillmux/config.yaml"} {
		writeFile(t, filepath.Join(work, f), "sources:\n  - type: plugin\n    name: pwn\n    command: [/bin/sh, -c, 'touch "+started+"; exit 1']\n")
	}
	writeFile(t, filepath.Join(work, ".claude/skills/theirs/SKILL.md"), skillMD("theirs", "The repository's."))
	writeFile(t, filepath.Join(work, "cx/skills/codex-theirs/SKILL.md"), skillMD("codex-theirs", "The repository's, as Codex's."))
	for _, environ := range [][]string{
		{"HOME=.", "PATH=" + os.Getenv("PATH")},
		{"HOME=" + t.TempDir(), "XDG_CONFIG_HOME=cfg", "PATH=" + os.Getenv("PATH")},
		{"HOME=" + t.TempDir(), "CODEX_HOME=cx", "PATH=" + os.Getenv("PATH")},
	} {
		cmd := exec.Command(buildBinary(t), "list")
		cmd.Env, cmd.Dir = environ, work
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%v: %v\n%s", environ, err, stderr.String())
		}
		out, errOut := stdout.String(), stderr.String()
		if _, err := os.Stat(started); err == nil {
			t.Fatalf("%v: the working folder's file started a program", environ)
		}
		if strings.Contains(out, "user ") || strings.Contains(out, "codex-theirs") {
			t.Errorf("%v: the working folder's skills were served as the user's:\n%s", environ, out)
		}
		if strings.HasPrefix(environ[0], "HOME=.") && !strings.Contains(errOut, "no home folder is known") {
			t.Errorf("no warning:\n%s", errOut)
		}
	}
}

// list --all says where skillmux looked, and which of those places are
// not there: what the server's warning of no skills found sends people to.
func TestListAllSaysWhereItLooked(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".agents/skills/mine/SKILL.md"), skillMD("mine", "Mine."))
	out, errOut, err := runIn(t, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, work, "list", "--all")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	_, looked, ok := strings.Cut(out, "\nLooked in:\n")
	if !ok {
		t.Fatalf("no Looked in section:\n%s", out)
	}
	rows := map[string]bool{}
	for _, line := range strings.Split(looked, "\n") {
		rows[strings.Join(strings.Fields(line), " ")] = true
	}
	for _, want := range []string{
		filepath.Join(home, ".claude", "skills") + " user (does not exist)",
		filepath.Join(home, ".agents", "skills") + " user",
		filepath.Join(work, ".claude", "skills") + " project (does not exist)",
	} {
		if !rows[want] {
			t.Errorf("Looked in lacks the row %q:\n%s", want, looked)
		}
	}
	js, _, err := runIn(t, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, work, "list", "--all", "--json")
	if err != nil || !strings.Contains(js, `"lookedIn"`) {
		t.Errorf("the JSON has no lookedIn: %v\n%s", err, js)
	}
}

// Started in a folder below its repository's root, as Claude Code is in a
// monorepo's package, the folder's own .claude settings and the plugins
// installed for it count as the project's, as they do for Claude Code:
// only the repository root's did.
func TestClaudePluginsOfASubfolderProject(t *testing.T) {
	home, repo := t.TempDir(), t.TempDir()
	pkg := filepath.Join(repo, "packages", "web")
	writeFile(t, filepath.Join(repo, ".git", "HEAD"), "ref: refs/heads/main\n")
	plugin := filepath.Join(home, ".claude/plugins/cache/m/tool/1.0.0")
	writeFile(t, filepath.Join(plugin, ".claude-plugin/plugin.json"), `{"name": "tool"}`)
	writeFile(t, filepath.Join(plugin, "skills/lint/SKILL.md"), skillMD("lint", "The package's plugin skill."))
	writeFile(t, filepath.Join(home, ".claude/plugins/installed_plugins.json"),
		`{"version": 2, "plugins": {"tool@m": [{"scope": "project", "projectPath": `+strconv.Quote(pkg)+`, "installPath": `+strconv.Quote(plugin)+`}]}}`)
	writeFile(t, filepath.Join(pkg, ".claude/settings.json"), `{"enabledPlugins": {"tool@m": true}}`)
	out, errOut, err := runIn(t, []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}, pkg, "list")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	if !strings.Contains(out, "tool:lint ") {
		t.Errorf("the package's plugin is not served:\n%s\n%s", out, errOut)
	}
}

// CLAUDE_CONFIG_DIR replaces ~/.claude, as it does for Claude Code: the
// user's Claude skills and installed plugins are that profile's, not those
// of ~/.claude, whose skills are then a project's when the working folder
// is the home folder; a relative one is ignored, as CODEX_HOME's is.
func TestClaudeConfigDir(t *testing.T) {
	home := t.TempDir()
	work := filepath.Join(home, ".claude-work")
	writeFile(t, filepath.Join(home, ".claude/skills/personal/SKILL.md"), skillMD("personal", "The other profile's."))
	writeFile(t, filepath.Join(work, "skills/at-work/SKILL.md"), skillMD("at-work", "This profile's."))
	plugin := filepath.Join(work, "plugins/cache/m/tool/1.0.0")
	writeFile(t, filepath.Join(plugin, ".claude-plugin/plugin.json"), `{"name": "tool"}`)
	writeFile(t, filepath.Join(plugin, "skills/lint/SKILL.md"), skillMD("lint", "The profile's plugin skill."))
	writeFile(t, filepath.Join(work, "plugins/installed_plugins.json"), `{"version": 2, "plugins": {"tool@m": [{"scope": "user", "installPath": `+strconv.Quote(plugin)+`}]}}`)
	writeFile(t, filepath.Join(work, "settings.json"), `{"enabledPlugins": {"tool@m": true}}`)
	elsewhere := t.TempDir()
	for _, c := range []struct {
		dir, workdir string
		want, not    []string
	}{
		{work, elsewhere, []string{"at-work", "tool:lint"}, []string{"personal"}},
		{work, home, []string{"at-work", "tool:lint", "personal project"}, nil},
		{".claude-work", elsewhere, []string{"personal user"}, []string{"at-work", "tool:lint"}},
	} {
		out, errOut, err := runIn(t, []string{"HOME=" + home, "CLAUDE_CONFIG_DIR=" + c.dir, "PATH=" + os.Getenv("PATH")}, c.workdir, "list")
		if err != nil {
			t.Fatalf("CLAUDE_CONFIG_DIR=%s: %v\n%s", c.dir, err, errOut)
		}
		var rows []string // each row's name and source
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) >= 2 {
				rows = append(rows, f[0]+" "+f[1], f[0])
			}
		}
		for _, name := range c.want {
			if !slices.Contains(rows, name) {
				t.Errorf("CLAUDE_CONFIG_DIR=%s: %s not served:\n%s", c.dir, name, out)
			}
		}
		for _, name := range c.not {
			if slices.Contains(rows, name) {
				t.Errorf("CLAUDE_CONFIG_DIR=%s: %s served:\n%s", c.dir, name, out)
			}
		}
	}
}

// A source renamed to make way for another of its name never takes the
// name a third one was given: every source's name reaches its own
// shadowed skills.
func TestSourceNamesStayUnique(t *testing.T) {
	env, work := isolatedEnv(t), t.TempDir()
	dirs := []string{t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "team")} // the last named after its folder
	for i, d := range dirs {
		writeFile(t, filepath.Join(d, "pdf", "SKILL.md"), fmt.Sprintf("---\nname: pdf\ndescription: Number %d.\n---\n", i))
	}
	writeFile(t, filepath.Join(work, "c.yaml"), "sources:\n  - type: dir\n    name: team\n    path: "+dirs[0]+"\n  - type: dir\n    name: team-2\n    path: "+dirs[1]+"\n")
	out, _, err := runIn(t, env, work, "list", "--all", "--no-builtin", "--config", "c.yaml", "--root", dirs[2])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`reach it as "team-2:pdf"`, `reach it as "team-3:pdf"`} {
		if !strings.Contains(out, want) {
			t.Errorf("list --all lacks %s:\n%s", want, out)
		}
	}
}

// Source names are unique as lookups compare them: "Skills" is "skills",
// and "été" with combining accents is "été" with accented letters, so
// the second of each is numbered. A folder named skills-2 keeps its name
// whatever comes before it: the numbered take names no source has.
func TestSourceNamesUniqueAsLookedUp(t *testing.T) {
	env, work := isolatedEnv(t), t.TempDir()
	dirs := []string{
		filepath.Join(t.TempDir(), "skills"), filepath.Join(t.TempDir(), "Skills"), filepath.Join(t.TempDir(), "skills-2"),
		filepath.Join(t.TempDir(), "\u00e9t\u00e9"), filepath.Join(t.TempDir(), "e\u0301te\u0301"),
	}
	args := []string{"list", "--all", "--no-builtin"}
	for i, d := range dirs {
		writeFile(t, filepath.Join(d, "pdf", "SKILL.md"), fmt.Sprintf("---\nname: pdf\ndescription: Number %d.\n---\n", i))
		args = append(args, "--root", d)
	}
	out, _, err := runIn(t, env, work, args...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`reach it as "Skills-3:pdf"`, `reach it as "skills-2:pdf"`, "reach it as \"e\u0301te\u0301-2:pdf\""} {
		if !strings.Contains(out, want) {
			t.Errorf("list --all lacks %s:\n%s", want, out)
		}
	}
	for _, in := range []struct{ name, want string }{{"Skills-3:pdf", "Number 1."}, {"skills-2:pdf", "Number 2."}, {"e\u0301te\u0301-2:pdf", "Number 4."}} {
		show, _, err := runIn(t, env, work, append([]string{"show", in.name, "--no-builtin"}, args[3:]...)...)
		if err != nil || !strings.Contains(show, in.want) {
			t.Errorf("show %s: %v\n%s", in.name, err, show)
		}
	}
}

// A name a configuration gives is kept, whatever ranks before it: a
// source named after its folder makes way, not the one the user named.
func TestGivenSourceNamesAreKept(t *testing.T) {
	env, work := isolatedEnv(t), t.TempDir()
	dirs := []string{filepath.Join(t.TempDir(), "team"), t.TempDir(), t.TempDir()}
	for i, d := range dirs {
		writeFile(t, filepath.Join(d, "pdf", "SKILL.md"), fmt.Sprintf("---\nname: pdf\ndescription: Number %d.\n---\n", i))
	}
	writeFile(t, filepath.Join(work, "c.yaml"), "sources:\n  - type: dir\n    path: "+dirs[0]+"\n  - type: dir\n    name: team-2\n    path: "+dirs[1]+"\n  - type: dir\n    name: team\n    path: "+dirs[2]+"\n")
	out, _, err := runIn(t, env, work, "list", "--all", "--no-builtin", "--config", "c.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pdf   team-3", `reach it as "team-2:pdf"`, `reach it as "team:pdf"`} {
		if !strings.Contains(out, want) {
			t.Errorf("list --all lacks %s:\n%s", want, out)
		}
	}
}

// The warnings of list are printed as lines of their own, or, with
// --log-level, logged at that level and in the format asked for.
func TestListWarningsFollowTheLogFlags(t *testing.T) {
	env, work, mine := isolatedEnv(t), t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(mine, "pdf", "SKILL.md"), "---\nname: pdf\ndescription: Mine.\n---\n")
	writeFile(t, filepath.Join(work, "c.yaml"), "sources:\n  - type: dir\n    name: user\n    path: "+mine+"\n")
	for _, tc := range []struct {
		args []string
		want string // in stderr; "" for nothing
	}{
		{nil, "warning: source name"},
		{[]string{"--log-level", "error"}, ""},
		{[]string{"--log-level", "warn", "--log-format", "json"}, `"level":"WARN","msg":"source name`},
	} {
		_, errOut, err := runIn(t, env, work, append([]string{"list", "--config", "c.yaml"}, tc.args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if tc.want == "" && errOut != "" || tc.want != "" && !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: stderr %q, want %q", tc.args, errOut, tc.want)
		}
	}
}
