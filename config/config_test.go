package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/skillmux/skillmux/config"
)

// fixture is a fake home and repository: nothing reads the real ones.
// fixture is a home and a repository, whose workspace file the user file
// trusts unless untrusted: the tests of what a workspace file sets are not
// about trust (trust_test.go is).
type fixture struct {
	home, repo, sub string
	untrusted       bool
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	base := t.TempDir()
	f := &fixture{home: filepath.Join(base, "home"), repo: filepath.Join(base, "repo")}
	f.sub = filepath.Join(f.repo, "svc", "api")
	for _, d := range []string{f.home, filepath.Join(f.repo, ".git"), f.sub} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	f.userFile(t, "")
	return f
}

// untrustedFixture is a fixture whose user file does not trust the
// repository.
func untrustedFixture(t *testing.T) *fixture {
	f := newFixture(t)
	f.untrusted = true
	os.Remove(filepath.Join(f.home, ".config", "skillmux", "config.yaml"))
	return f
}

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func (f *fixture) userFile(t *testing.T, content string) string {
	if !f.untrusted && !strings.Contains(content, "trust:") {
		content += "trust: [" + strconv.Quote(f.repo) + "]\n"
	}
	return write(t, filepath.Join(f.home, ".config", "skillmux", "config.yaml"), content)
}

func (f *fixture) load(t *testing.T, env []string, flags ...config.FlagValue) (*config.Config, error) {
	t.Helper()
	if env == nil {
		env = []string{}
	}
	return config.Load(&config.Options{WorkDir: f.sub, Home: f.home, Env: env, Flags: flags})
}

func TestDefaults(t *testing.T) {
	f := newFixture(t)
	c, err := f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Defaults.Builtin || c.Catalog.Budget != 2048 || c.Log.Level != "info" || c.Log.Format != "text" || len(c.Sources) != 0 {
		t.Errorf("defaults: %+v", c)
	}
	if o := c.Origin("catalog.budget"); o.Layer != "default" {
		t.Errorf("origin = %v", o)
	}
}

func TestLayers(t *testing.T) {
	f := newFixture(t)
	user := f.userFile(t, "catalog:\n  budget: 3000\nlog:\n  level: debug\n  format: json\nsources:\n  - type: dir\n    path: ~/user-skills\n")
	ws := write(t, filepath.Join(f.repo, ".skillmux.yaml"), "log:\n  level: warn\nsources:\n  - type: dir\n    name: repo-skills\n    path: team/skills\n  - type: user\n")
	c, err := f.load(t, []string{"SKILLMUX_LOG__LEVEL=error", "OTHER=x"}, config.FlagValue{Key: "catalog.budget", Flag: "--budget", Value: "5000"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Catalog.Budget != 5000 || c.Log.Level != "error" || c.Log.Format != "json" {
		t.Errorf("merged: %+v %+v", c.Catalog, c.Log)
	}
	// The list of a trusted workspace replaces the user list whole; its
	// relative path is relative to the workspace file.
	want := []config.Source{
		{Type: "dir", Name: "repo-skills", Path: filepath.Join(f.repo, "team", "skills")},
		{Type: "user"},
	}
	if diff := cmp.Diff(want, c.Sources); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	origins := map[string]string{
		"catalog.budget":   "flag --budget",
		"log.level":        "env SKILLMUX_LOG__LEVEL",
		"log.format":       "user file " + user + ":5",
		"sources[0]":       "workspace file " + ws + ":4",
		"sources[1].type":  "workspace file " + ws + ":7",
		"defaults.builtin": "default",
		// Left out of its item: the item's line does not set it.
		"sources[0].namespace": "default",
	}
	for key, want := range origins {
		if got := c.Origin(key).String(); got != want {
			t.Errorf("Origin(%s) = %s, want %s", key, got, want)
		}
	}
	if diff := cmp.Diff([]string{user, ws}, c.Files()); diff != "" {
		t.Errorf("files: %s", diff)
	}
	d := c.Describe()
	for _, s := range []string{"budget: 5000", "# flag --budget", "path: " + filepath.Join(f.repo, "team", "skills"), ws + ":4", "builtin: true", "# default"} {
		if !strings.Contains(d, s) {
			t.Errorf("Describe lacks %q:\n%s", s, d)
		}
	}
}

func TestUserPathsAndTilde(t *testing.T) {
	f := newFixture(t)
	f.userFile(t, "sources:\n  - type: dir\n    paths: [~/a, rel, /abs/b]\n")
	c, err := f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(f.home, "a"), filepath.Join(f.home, ".config", "skillmux", "rel"), "/abs/b"}
	if diff := cmp.Diff(want, c.Sources[0].Paths); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestXDGConfigHome(t *testing.T) {
	f := newFixture(t)
	xdg := t.TempDir()
	write(t, filepath.Join(xdg, "skillmux", "config.yaml"), "catalog:\n  budget: 999\n")
	c, err := f.load(t, []string{"XDG_CONFIG_HOME=" + xdg})
	if err != nil || c.Catalog.Budget != 999 {
		t.Fatalf("%v %+v", err, c)
	}
}

func TestWorkspaceFileSearch(t *testing.T) {
	f := newFixture(t)
	above := write(t, filepath.Join(filepath.Dir(f.repo), ".skillmux.yaml"), "catalog:\n  budget: 111\n")
	_ = above
	if got := config.WorkspaceFile(f.sub); got != "" {
		t.Errorf("found %s above the repository root", got)
	}
	mid := write(t, filepath.Join(f.repo, "svc", ".skillmux.yaml"), "catalog:\n  budget: 300\n")
	write(t, filepath.Join(f.repo, ".skillmux.yaml"), "catalog:\n  budget: 400\n")
	if got := config.WorkspaceFile(f.sub); got != mid {
		t.Errorf("nearest: got %s, want %s", got, mid)
	}
	c, err := f.load(t, nil)
	if err != nil || c.Catalog.Budget != 300 {
		t.Errorf("%v %+v", err, c)
	}
}

// TestWorkspaceFileOutsideRepository: outside a git repository only the
// working folder's own .skillmux.yaml is read, as the README says: a file
// in a parent folder may be anyone's.
func TestWorkspaceFileOutsideRepository(t *testing.T) {
	notes := t.TempDir()
	own := write(t, filepath.Join(notes, ".skillmux.yaml"), "catalog:\n  budget: 300\n")
	sub := filepath.Join(notes, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := config.WorkspaceFile(notes); got != own {
		t.Errorf("in the folder: got %q, want %q", got, own)
	}
	if got := config.WorkspaceFile(sub); got != "" {
		t.Errorf("below it: got %q, want none", got)
	}
}

// TestWorkspaceFileNotAFile: a .skillmux.yaml that is a link leading
// nowhere or a folder is an error that names it, not "no configuration
// file": a broken link to a team's file must not drop its settings.
func TestWorkspaceFileNotAFile(t *testing.T) {
	f := newFixture(t)
	ws := filepath.Join(f.sub, ".skillmux.yaml")
	if err := os.Symlink(filepath.Join(f.repo, "gone.yaml"), ws); err != nil {
		t.Fatal(err)
	}
	_, err := f.load(t, nil)
	if want := ws + ": a symbolic link to " + filepath.Join(f.repo, "gone.yaml") + ", which does not exist"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("dangling link: %v; want %q", err, want)
	}
	os.Remove(ws)
	if err := os.Mkdir(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := f.load(t, nil); err == nil || !strings.Contains(err.Error(), ws+": a folder, not a configuration file") {
		t.Errorf("folder: %v", err)
	}
}

func TestExplicitConfigFile(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.repo, ".skillmux.yaml"), "catalog:\n  budget: 400\n")
	other := write(t, filepath.Join(t.TempDir(), "custom.yaml"), "catalog:\n  budget: 700\n")
	c, err := config.Load(&config.Options{WorkDir: f.sub, Home: f.home, Env: []string{}, ConfigFile: other})
	if err != nil || c.Catalog.Budget != 700 || c.Origin("catalog.budget").Layer != "config file" {
		t.Errorf("%v %+v", err, c)
	}
	_, err = config.Load(&config.Options{WorkDir: f.sub, Home: f.home, Env: []string{}, ConfigFile: filepath.Join(f.repo, "missing.yaml")})
	if err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("missing --config file: %v", err)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name  string
		file  string   // workspace file content
		env   []string // extra environment
		flags []config.FlagValue
		want  []string // substrings of the error
	}{
		{name: "unknown key with a suggestion", file: "sources:\n  - type: dir\n    paht: x\n",
			want: []string{".skillmux.yaml:3: sources[0].paht: unknown key (did you mean \"path\"?)"}},
		{name: "unknown section", file: "catalogue:\n  budget: 10\n",
			want: []string{".skillmux.yaml:1: catalogue: unknown key (did you mean \"catalog\"?)"}},
		{name: "wrong type", file: "catalog:\n  budget: lots\n",
			want: []string{".skillmux.yaml:2: catalog.budget: must be an integer, got the string \"lots\""}},
		{name: "out of range", file: "catalog:\n  budget: 10\n",
			want: []string{".skillmux.yaml:2: catalog.budget: must be an integer between 200 and 1000000, got 10"}},
		{name: "bad source type", file: "sources:\n  - type: folder\n    path: x\n",
			want: []string{".skillmux.yaml:2: sources[0].type: \"folder\" is not a source type", "use one of user, project, dir"}},
		{name: "typo in source type", file: "sources:\n  - type: dirs\n    path: x\n",
			want: []string{"(did you mean \"dir\"?)"}},
		{name: "dir without path", file: "sources:\n  - type: dir\n",
			want: []string{"sources[0].path: a dir source needs path"}},
		{name: "bad glob", file: "sources:\n  - type: user\n    include: [\"[a-\"]\n",
			want: []string{".skillmux.yaml:3: sources[0].include[0]: \"[a-\" is not a valid pattern"}},
		{name: "duplicate source name", file: "sources:\n  - type: dir\n    name: a\n    path: x\n  - type: dir\n    name: a\n    path: y\n",
			want: []string{"sources[1].name: \"a\" is already the name of sources[0]"}},
		{name: "bad YAML with line", file: "log:\n  level: info\n  format: [text\n",
			want: []string{".skillmux.yaml:", "not valid YAML"}},
		{name: "list where a map belongs", file: "log: [debug]\n",
			want: []string{".skillmux.yaml:1: log: must be a map"}},
		{name: "bad log level", file: "log:\n  level: verbose\n",
			want: []string{"log.level: \"verbose\" is not a level; use debug, info, warn or error"}},
		{name: "namespace on a non-dir source", file: "sources:\n  - type: user\n    namespace: me\n",
			want: []string{"sources[0].namespace: only dir and plugin sources take a namespace"}},
		{name: "several errors at once", file: "catalog:\n  budget: x\nlog:\n  lvl: debug\n",
			want: []string{"catalog.budget", "log.lvl: unknown key (did you mean \"level\"?)"}},
		{name: "unknown environment variable", env: []string{"SKILLMUX_CATALOG__BUDGT=3"},
			want: []string{"SKILLMUX_CATALOG__BUDGT: unknown setting (did you mean \"SKILLMUX_CATALOG__BUDGET\"?)"}},
		{name: "bad environment value", env: []string{"SKILLMUX_DEFAULTS__BUILTIN=maybe"},
			want: []string{"SKILLMUX_DEFAULTS__BUILTIN: defaults.builtin: must be true or false, got \"maybe\""}},
		{name: "sources from the environment", env: []string{"SKILLMUX_SOURCES=x"},
			want: []string{"sources cannot be set from the environment"}},
		{name: "a list from the environment", env: []string{"SKILLMUX_RESOURCES__ALLOW_DIRS=scripts"},
			want: []string{"SKILLMUX_RESOURCES__ALLOW_DIRS: resources.allow_dirs cannot be set from the environment or flags: it is a list, and lists and maps can only be set in a configuration file"}},
		{name: "pins from the environment", env: []string{"SKILLMUX_CATALOG__PIN=release-*"},
			want: []string{"SKILLMUX_CATALOG__PIN: catalog.pin cannot be set from the environment or flags: it is a list"}},
		{name: "tools from the environment", env: []string{"SKILLMUX_TOOLS__ENABLE=skills_list", "SKILLMUX_TOOLS__DISABLE=skill"},
			want: []string{"SKILLMUX_TOOLS__ENABLE: tools.enable cannot be set from the environment or flags: it is a list", "SKILLMUX_TOOLS__DISABLE: tools.disable cannot"}},
		{name: "a map from the environment", env: []string{"SKILLMUX_CATALOG__VISIBILITY__NOISY=off"},
			want: []string{"SKILLMUX_CATALOG__VISIBILITY__NOISY: catalog.visibility cannot be set from the environment or flags: it is a map"}},
		{name: "bad flag value", flags: []config.FlagValue{{Key: "catalog.budget", Flag: "--budget", Value: "big"}},
			want: []string{"--budget: catalog.budget: must be an integer, got \"big\""}},
		{name: "flag value out of range", flags: []config.FlagValue{{Key: "catalog.budget", Flag: "--budget", Value: "5"}},
			want: []string{"--budget: catalog.budget: must be an integer between 200"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.file != "" {
				write(t, filepath.Join(f.repo, ".skillmux.yaml"), tt.file)
			}
			_, err := f.load(t, tt.env, tt.flags...)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if tt.file != "" && !strings.Contains(err.Error(), filepath.Join(f.repo, ".skillmux.yaml")) {
				t.Errorf("error does not name the file:\n%v", err)
			}
		})
	}
}

func TestCheckFileAndExample(t *testing.T) {
	example := filepath.Join("..", "examples", "config", "skillmux.yaml")
	if err := config.CheckFile(example, nil); err != nil {
		t.Errorf("the example configuration must be valid: %v", err)
	}
	// It shows every setting, defaults.native among them.
	home := t.TempDir()
	abs, err := filepath.Abs(example)
	if err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(&config.Options{WorkDir: home, Home: home, Env: []string{}, ConfigFile: abs})
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"defaults.builtin", "defaults.native", "catalog.budget", "log.level", "log.format"} {
		if o := c.Origin(key); o.Layer != "config file" {
			t.Errorf("the example does not set %s (origin %v)", key, o)
		}
	}
	bad := write(t, filepath.Join(t.TempDir(), "bad.yaml"), "sources:\n  - type: nope\n")
	if err := config.CheckFile(bad, nil); err == nil || !strings.Contains(err.Error(), bad+":2: sources[0].type") {
		t.Errorf("CheckFile: %v", err)
	}
	if err := config.CheckFile(filepath.Join(t.TempDir(), "none.yaml"), nil); err == nil {
		t.Error("a missing file checked fine")
	}
}

func TestEmptyFile(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.repo, ".skillmux.yaml"), "# nothing yet\n")
	c, err := f.load(t, nil)
	if err != nil || c.Catalog.Budget != 2048 {
		t.Errorf("%v %+v", err, c)
	}
}

// TestCheckFileOptions: CheckFile reads the home and the working folder
// the caller gives, as Load does, not the process's.
func TestCheckFileOptions(t *testing.T) {
	t.Setenv("HOME", "") // the process has no home; the caller's must be used
	f := newFixture(t)
	rel := filepath.Join("conf", "skills.yaml")
	file := write(t, filepath.Join(f.sub, rel), "sources:\n  - type: dir\n    paths: [a, ~/b]\ntrust: [~/c]\n")
	tests := []struct {
		name string
		path string
		opts *config.Options
		want string // "" for valid
	}{
		{name: "home and working folder injected", path: rel, opts: &config.Options{WorkDir: f.sub, Home: f.home}},
		{name: "absolute path, home injected", path: file, opts: &config.Options{Home: f.home}},
		{name: "no home anywhere", path: file, opts: nil,
			want: file + ":3: sources[0].paths[1]: ~ stands for the home folder, which is not known here (HOME is not set); write the path out\n" +
				file + ":4: trust[0]: ~ stands for the home folder, which is not known here (HOME is not set); write the path out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := config.CheckFile(tt.path, tt.opts)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("CheckFile(%s) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}

// problems returns the lines of err, with dir, if given, replaced by "D",
// so that a test can compare every problem, in order.
func problems(err error, dir string) []string {
	if err == nil {
		return nil
	}
	s := err.Error()
	if dir != "" {
		s = strings.ReplaceAll(s, dir, "D")
	}
	return strings.Split(s, "\n")
}

// TestEveryProblemOfAFile: a file's problems come together, whatever
// check finds them, each on its own line, first line first.
func TestEveryProblemOfAFile(t *testing.T) {
	tests := []struct {
		name, file string
		want       []string
	}{
		{name: "bad budget and bad source type",
			file: "catalog:\n  budget: lots\nsources:\n  - type: folder\n    path: x\n",
			want: []string{
				`D/c.yaml:2: catalog.budget: must be an integer, got the string "lots"`,
				`D/c.yaml:4: sources[0].type: "folder" is not a source type; use one of user, project, dir, claude-plugins, plugin-dir or plugin`,
			}},
		{name: "value out of range after a bad type",
			file: "sources:\n  - type: dirs\n    path: x\ncatalog:\n  budget: 10\nlog:\n  level: verbose\n  format: xml\n",
			want: []string{
				`D/c.yaml:2: sources[0].type: "dirs" is not a source type (did you mean "dir"?); use one of user, project, dir, claude-plugins, plugin-dir or plugin`,
				`D/c.yaml:5: catalog.budget: must be an integer between 200 and 1000000, got 10`,
				`D/c.yaml:7: log.level: "verbose" is not a level; use debug, info, warn or error`,
				`D/c.yaml:8: log.format: "xml" is not a format; use text or json`,
			}},
		{name: "a relation found after the keys still sorts by line",
			file: "sources:\n  - type: dir\n    paht: x\n    include: [\"[a-\"]\n",
			want: []string{
				`D/c.yaml:2: sources[0].path: a dir source needs path (or paths): the folder to read`,
				`D/c.yaml:3: sources[0].paht: unknown key (did you mean "path"?); known keys here: command, enabled, env, exclude, grace, include, name, namespace, path, paths, timeout, type`,
				`D/c.yaml:4: sources[0].include[0]: "[a-" is not a valid pattern (use * and ? and [a-z])`,
			}},
		{name: "every source is checked",
			file: "sources:\n  - type: user\n    path: a\n    namespace: x\n  - name: b\n  - type: dir\n    name: b\n    path: c\n    namespace: Bad\n",
			want: []string{
				`D/c.yaml:3: sources[0].path: a user source finds its folders itself and takes no path; use type dir for a folder of your own`,
				`D/c.yaml:4: sources[0].namespace: only dir and plugin sources take a namespace; Claude Code plugin skills are named after their plugin`,
				`D/c.yaml:5: sources[1].type: missing; use one of user, project, dir, claude-plugins, plugin-dir or plugin`,
				`D/c.yaml:7: sources[2].name: "b" is already the name of sources[1] (line 5); names must be unique`,
				`D/c.yaml:9: sources[2].namespace: "Bad" must be lowercase letters, digits, '.', '_' or '-', starting with a letter or digit`,
			}},
		{name: "a key set twice",
			file: "log:\n  level: info\n  format: text\n  level: debug\n",
			want: []string{`D/c.yaml:4: log.level: set twice, here and on line 2; keep one`}},
		{name: "an alias",
			file: "log:\n  level: &l info\n  format: *l\n",
			want: []string{`D/c.yaml:3: log.format: must be a string, got an alias (*l); aliases are not supported here, write the value out; use text or json`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := write(t, filepath.Join(dir, "c.yaml"), tt.file)
			got := problems(config.CheckFile(file, &config.Options{Home: dir}), dir)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("CheckFile (-want +got):\n%s", diff)
			}
			// Load reports the same problems for the same file.
			_, err := config.Load(&config.Options{WorkDir: dir, Home: dir, Env: []string{}, ConfigFile: file})
			if diff := cmp.Diff(tt.want, problems(err, dir)); diff != "" {
				t.Errorf("Load (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEveryProblemOfEveryLayer: a problem in one layer hides none in
// another; layers come lowest first.
func TestEveryProblemOfEveryLayer(t *testing.T) {
	f := newFixture(t)
	user := f.userFile(t, "log:\n  level: loud\n")
	ws := write(t, filepath.Join(f.repo, ".skillmux.yaml"), "catalog:\n  budget: 1\n")
	_, err := f.load(t, []string{"SKILLMUX_LOG__FORMAT=xml", "SKILLMUX_CATALOG__BUDGET=big"},
		config.FlagValue{Key: "defaults.builtin", Flag: "--no-builtin", Value: "nah"})
	want := []string{
		user + `:2: log.level: "loud" is not a level; use debug, info, warn or error`,
		ws + `:2: catalog.budget: must be an integer between 200 and 1000000, got 1`,
		`SKILLMUX_LOG__FORMAT: log.format: "xml" is not a format; use text or json`,
		`SKILLMUX_CATALOG__BUDGET: catalog.budget: must be an integer, got "big"`,
		`--no-builtin: defaults.builtin: must be true or false, got "nah"`,
	}
	if diff := cmp.Diff(want, problems(err, "")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestForeignVariables: a SKILLMUX_ variable that is no setting and does
// not look like one (a user's own SKILLMUX_BIN) is a warning naming it;
// one that looks like a misspelt setting is still an error.
func TestForeignVariables(t *testing.T) {
	f := newFixture(t)
	c, err := f.load(t, []string{"SKILLMUX_BIN=/usr/local/bin/skillmux", "SKILLMUX_VERSION=1.2", "SKILLMUX_CATALOG__BUDGET=3000"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"SKILLMUX_BIN: not a setting of skillmux, so ignored; settings are SKILLMUX_<SECTION>__<KEY>, such as SKILLMUX_CATALOG__BUDGET",
		"SKILLMUX_VERSION: not a setting of skillmux, so ignored; settings are SKILLMUX_<SECTION>__<KEY>, such as SKILLMUX_CATALOG__BUDGET",
	}
	if diff := cmp.Diff(want, c.Warnings()); diff != "" || c.Catalog.Budget != 3000 {
		t.Errorf("budget %d, warnings (-want +got):\n%s", c.Catalog.Budget, diff)
	}
	for _, name := range []string{"SKILLMUX_LOG_LEVEL", "SKILLMUX_CATALOG__BUDGTE", "SKILLMUX_SOURCES", "SKILLMUX_FOO__BAR", "SKILLMUX_catalog_budget"} {
		if _, err := f.load(t, []string{name + "=1"}); err == nil || !strings.HasPrefix(err.Error(), name+": ") {
			t.Errorf("%s: %v; want an error naming it", name, err)
		}
	}
}

// TestEnvironmentLastWins: a variable given twice counts once, with its
// last value, as the process environment does.
func TestEnvironmentLastWins(t *testing.T) {
	f := newFixture(t)
	c, err := f.load(t, []string{"SKILLMUX_LOG__LEVEL=loud", "SKILLMUX_LOG__LEVEL=warn"})
	if err != nil || c.Log.Level != "warn" {
		t.Errorf("%v %+v", err, c)
	}
}

// TestSyntaxErrorLines: a YAML syntax error names the line to fix. The
// library names the line where the enclosing key began for a tab, counts
// a parser error's line from 0, and names no line on line 1 or for a
// character it cannot read.
func TestSyntaxErrorLines(t *testing.T) {
	const tab = "not valid YAML: a tab is used for indentation; indent with spaces"
	tests := []struct {
		name, file string
		want       string // "D/c.yaml:" is prefixed
	}{
		{"tab indents the first key of a map", "log:\n\tlevel: info\n", "2: " + tab},
		{"tab indents a later key", "log:\n  level: info\n\tformat: text\n", "3: " + tab},
		{"tab indents a key of a list item", "sources:\n  - type: dir\n\tpath: x\n", "3: " + tab},
		{"tab alone on a blank line far below", "sources:\n  - type: dir\n    path: x\n\n\n\t\n", "6: " + tab},
		{"tab on line 1", "\tlog: x\n", "1: " + tab},
		{"tab after a tab that is allowed", "log:\n  level: 'a\tb'\n  format: text\n\tx: 1\n", "4: " + tab},
		{"every line indented with tabs", "log:\n\tlevel: info\n\tformat: text\n", "2: " + tab},
		{"tab in a block scalar", "log:\n  level: |\n    a\n\tb\n", "4: " + tab},
		{"CRLF line ends", "log:\r\n  level: info\r\n\tformat: text\r\n", "3: " + tab},
		{"tab after a dash", "sources:\n  -\ttype: dir\n", "2: not valid YAML: a tab where YAML allows none; use spaces"},
		{"not a tab: a character no token starts with", "log:\n  level: info\n  format: @x\n", "3: not valid YAML: found character that cannot start any token"},
		{"parser error counted from 0", "log:\n  level: info\nsources:\n- type: user\n  - x\n", "4: not valid YAML: did not find expected key"},
		{"parser error at the problem", "log:\n  level: info\n- x\n", "3: not valid YAML: did not find expected key"},
		{"unclosed list", "log:\n  level: [info\n", "2: not valid YAML: did not find expected ',' or ']'"},
		{"scanner error on line 1", "log: level: info\n", "1: not valid YAML: mapping values are not allowed in this context"},
		{"control character", "log:\n  level: info\x01\n", "2: not valid YAML: the character U+0001 is not allowed in YAML; remove it"},
		{"not UTF-8", "log:\n  # caf\xe9\n  level: info\n", "2: not valid YAML: the byte 0xE9 is not UTF-8 text; save the file as UTF-8"},
		{"unknown anchor", "log:\n  level: info\n  format: *fmt\n", "3: not valid YAML: unknown anchor \"fmt\" referenced"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := write(t, filepath.Join(dir, "c.yaml"), tt.file)
			got := problems(config.CheckFile(file, &config.Options{Home: dir}), dir)
			if diff := cmp.Diff([]string{"D/c.yaml:" + tt.want}, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestOneDocument: a configuration file holds one YAML document; the keys
// of a second one are an error, not quietly dropped.
func TestOneDocument(t *testing.T) {
	const second = `a second YAML document starts here; a configuration file holds one document: move its keys into the first and remove the "---" line`
	tests := []struct {
		name, file string
		want       []string // after "D/c.yaml:"; none for valid
	}{
		{name: "a second document", file: "log:\n  level: info\n---\nlog:\n  level: debug\n", want: []string{"3: " + second}},
		{name: "both documents marked", file: "---\nlog:\n  level: info\n---\ncatalog:\n  budget: 300\n", want: []string{"4: " + second}},
		{name: "an empty second document", file: "log:\n  level: info\n---\n", want: []string{"3: " + second}},
		{name: "a broken second document", file: "log:\n  level: info\n--- \n# c\nlog: [\n", want: []string{"3: " + second}},
		{name: "after an end marker", file: "log:\n  level: info\n...\ncatalog:\n  budget: 300\n",
			want: []string{`4: not valid YAML: content after the end of the document ("..."); a configuration file holds one document`}},
		{name: "and the first document's problems", file: "catalog:\n  budget: 1\n---\nlog:\n  level: info\n",
			want: []string{"2: catalog.budget: must be an integer between 200 and 1000000, got 1", "3: " + second}},
		{name: "one marked document", file: "---\nlog:\n  level: info\n"},
		{name: "one document and its end marker", file: "log:\n  level: info\n...\n"},
		{name: "a marker alone", file: "---\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := write(t, filepath.Join(dir, "c.yaml"), tt.file)
			var want []string
			for _, w := range tt.want {
				want = append(want, "D/c.yaml:"+w)
			}
			if diff := cmp.Diff(want, problems(config.CheckFile(file, &config.Options{Home: dir}), dir)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// knownVars is the list an unknown SKILLMUX_ variable is answered with.
const knownVars = "SKILLMUX_CATALOG__BUDGET, SKILLMUX_CATALOG__CHANNEL, SKILLMUX_DEFAULTS__BUILTIN, SKILLMUX_DEFAULTS__NATIVE, SKILLMUX_LOG__FORMAT, SKILLMUX_LOG__LEVEL, SKILLMUX_REFRESH__DEBOUNCE, SKILLMUX_REFRESH__INTERVAL, SKILLMUX_REFRESH__WATCH, SKILLMUX_RESOURCES__MAX_FILE_SIZE, SKILLMUX_TOOLS__PROFILE"

// TestValuesInMessages: a value echoed in a message is short and on one
// line, whatever it holds, so that each problem stays one
// "file:line: key: message" line.
func TestValuesInMessages(t *testing.T) {
	huge := strings.Repeat("x", 500_000)
	clipped := `"` + strings.Repeat("x", 60) + `…" (500000 bytes)`
	tests := []struct {
		name  string
		file  string // the workspace file, if any
		env   []string
		flags []config.FlagValue
		want  string // the one problem, the workspace file's path as "D/.skillmux.yaml"
	}{
		{name: "huge value in a file", file: "log:\n  level: " + huge + "\n",
			want: "D/.skillmux.yaml:2: log.level: " + clipped + " is not a level; use debug, info, warn or error"},
		{name: "huge key in a file", file: "? " + huge + "\n: 1\n", // an implicit key is at most 1024 characters
			want: "D/.skillmux.yaml:1: " + clipped + ": unknown key; known keys here: catalog, defaults, log, refresh, resources, sources, tools, trust"},
		{name: "huge value in the environment", env: []string{"SKILLMUX_CATALOG__BUDGET=" + huge},
			want: "SKILLMUX_CATALOG__BUDGET: catalog.budget: must be an integer, got " + clipped},
		{name: "huge flag value", flags: []config.FlagValue{{Key: "log.format", Flag: "--log-format", Value: huge}},
			want: "--log-format: log.format: " + clipped + " is not a format; use text or json"},
		{name: "huge variable name", env: []string{"SKILLMUX_LOG__" + huge + "=1"},
			want: `"SKILLMUX_LOG__` + strings.Repeat("x", 46) + `…" (500014 bytes): unknown setting; known: ` + knownVars},
		{name: "newline in a quoted value", file: "log:\n  level: \"de\\nbug\"\n",
			want: `D/.skillmux.yaml:2: log.level: "de\nbug" is not a level (did you mean "debug"?); use debug, info, warn or error`},
		{name: "newlines in a block value", file: "sources:\n  - type: |\n      dir\n      user\n",
			want: `D/.skillmux.yaml:2: sources[0].type: "dir\nuser\n" is not a source type; use one of user, project, dir, claude-plugins, plugin-dir or plugin`},
		{name: "newline in a key", file: "\"lo\\ng\": 1\n",
			want: `D/.skillmux.yaml:1: "lo\ng": unknown key (did you mean "log"?); known keys here: catalog, defaults, log, refresh, resources, sources, tools, trust`},
		{name: "newline in an environment value", env: []string{"SKILLMUX_LOG__LEVEL=de\nbug"},
			want: `SKILLMUX_LOG__LEVEL: log.level: "de\nbug" is not a level (did you mean "debug"?); use debug, info, warn or error`},
		{name: "newline in a variable name", env: []string{"SKILLMUX_LOG\n__LEVEL=debug"},
			want: `"SKILLMUX_LOG\n__LEVEL": unknown setting (did you mean "SKILLMUX_LOG__LEVEL"?); known: ` + knownVars},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.file != "" {
				write(t, filepath.Join(f.repo, ".skillmux.yaml"), tt.file)
			}
			_, err := f.load(t, tt.env, tt.flags...)
			if diff := cmp.Diff([]string{tt.want}, problems(err, f.repo)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestFileSize: a configuration file is bounded; a larger one is refused
// with its name and the limit, before it is read whole.
func TestFileSize(t *testing.T) {
	dir := t.TempDir()
	comment := "# " + strings.Repeat("x", 77) + "\n" // 80 bytes
	fits := strings.Repeat(comment, config.MaxFileSize/80)
	fits += strings.Repeat("#", config.MaxFileSize-len(fits))
	tests := []struct {
		name, content string
		want          []string
	}{
		{name: "at the limit", content: fits},
		{name: "one byte over", content: fits + "\n",
			want: []string{"D/c.yaml: larger than 1048576 bytes (1 MiB), the most a configuration file may hold; is it the right file?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := write(t, filepath.Join(dir, "c.yaml"), tt.content)
			if diff := cmp.Diff(tt.want, problems(config.CheckFile(file, &config.Options{Home: dir}), dir)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if err := config.CheckFile(dir, &config.Options{Home: dir}); err == nil || err.Error() != dir+": a folder, not a configuration file" {
		t.Errorf("a folder: %v", err)
	}
}

// TestNative: defaults.native is exclude unless a file, a variable or a
// flag says include; any other value is an error with the allowed values.
func TestNative(t *testing.T) {
	const bad = `"inclde" is not a choice for native (did you mean "include"?); use exclude or include`
	tests := []struct {
		name   string
		file   string // the workspace file, if any
		env    []string
		flags  []config.FlagValue
		want   string // the value, when valid
		origin string
		err    string // the one problem, the workspace file's path as "D/.skillmux.yaml"
	}{
		{name: "default", want: config.NativeExclude, origin: "default"},
		{name: "file", file: "defaults:\n  native: include\n", want: config.NativeInclude, origin: "workspace file D/.skillmux.yaml:2"},
		{name: "environment", file: "defaults:\n  native: include\n", env: []string{"SKILLMUX_DEFAULTS__NATIVE=exclude"},
			want: config.NativeExclude, origin: "env SKILLMUX_DEFAULTS__NATIVE"},
		{name: "flag", env: []string{"SKILLMUX_DEFAULTS__NATIVE=exclude"}, flags: []config.FlagValue{{Key: "defaults.native", Flag: "--native", Value: "include"}},
			want: config.NativeInclude, origin: "flag --native"},
		{name: "bad in a file", file: "defaults:\n  native: inclde\n", err: "D/.skillmux.yaml:2: defaults.native: " + bad},
		{name: "not a string in a file", file: "defaults:\n  native: true\n", err: `D/.skillmux.yaml:2: defaults.native: must be a string, got "true" (quote it); use exclude or include`},
		// A map is no string once quoted: no such advice, but the words.
		{name: "a map in a file", file: "defaults:\n  native: {mode: include}\n", err: `D/.skillmux.yaml:2: defaults.native: must be a string, got a map; use exclude or include`},
		{name: "bad in the environment", env: []string{"SKILLMUX_DEFAULTS__NATIVE=inclde"}, err: "SKILLMUX_DEFAULTS__NATIVE: defaults.native: " + bad},
		{name: "bad flag", flags: []config.FlagValue{{Key: "defaults.native", Flag: "--native", Value: "inclde"}}, err: "--native: defaults.native: " + bad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			if tt.file != "" {
				write(t, filepath.Join(f.repo, ".skillmux.yaml"), tt.file)
			}
			c, err := f.load(t, tt.env, tt.flags...)
			if tt.err != "" {
				if diff := cmp.Diff([]string{tt.err}, problems(err, f.repo)); diff != "" {
					t.Errorf("(-want +got):\n%s", diff)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			origin := strings.ReplaceAll(c.Origin("defaults.native").String(), f.repo, "D")
			if c.Defaults.Native != tt.want || origin != tt.origin {
				t.Errorf("native = %s from %s, want %s from %s", c.Defaults.Native, origin, tt.want, tt.origin)
			}
			if line := fmt.Sprintf("native: %s", tt.want); !strings.Contains(c.Describe(), line) {
				t.Errorf("Describe lacks %q:\n%s", line, c.Describe())
			}
		})
	}
}

// TestDescribeLines: Describe gives every value one line, quoted when
// YAML would not read it back as is, with the line it came from.
func TestDescribeLines(t *testing.T) {
	f := newFixture(t)
	ws := write(t, filepath.Join(f.repo, ".skillmux.yaml"),
		"sources:\n  - type: dir\n    name: team\n    paths:\n      - \"a\\nb\"\n      - plain\n    include: [\"*\", \"x,y\", z]\n"+
			"catalog:\n  visibility:\n    alpha: off\n    \"gamma: draft\": off\nresources:\n  allow_dirs: []\n")
	c, err := f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(c.Describe(), "\n")
	for _, want := range []string{
		fmt.Sprintf("%-44s # workspace file %s:2", "  - type: dir", ws),
		fmt.Sprintf("%-44s # workspace file %s:3", "    name: team", ws),
		fmt.Sprintf("%-44s # workspace file %s:5", "    paths:", ws), // a block list starts at its first "-"
		fmt.Sprintf("%-44s # workspace file %s:5", "      - "+strconv.Quote(filepath.Join(f.repo, "a\nb")), ws),
		fmt.Sprintf("%-44s # workspace file %s:6", "      - "+filepath.Join(f.repo, "plain"), ws),
		fmt.Sprintf("%-44s # workspace file %s:7", `    include: ["*", "x,y", z]`, ws),
		fmt.Sprintf("%-44s # workspace file %s:10", `    alpha: off`, ws),
		// A pattern that must be quoted has its own line, not its map's.
		fmt.Sprintf("%-44s # workspace file %s:11", `    "gamma: draft": off`, ws),
		// Set empty, it is shown: it lifts a lower layer's limit.
		fmt.Sprintf("%-44s # workspace file %s:13", `  allow_dirs: []`, ws),
	} {
		if !slices.Contains(lines, want) {
			t.Errorf("Describe lacks the line\n%s\n%s", want, c.Describe())
		}
	}
}

// TestDescribeRoundTrip: what Describe prints is a configuration file
// that means the same, lists included, for a file that sets every key.
func TestDescribeRoundTrip(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.repo, ".skillmux.yaml"), `sources:
  - type: user
    include: ["*"]
  - type: project
    exclude: [scratch-*]
  - type: dir
    name: team
    path: ../team-skills
    paths: [/tmp/a, "/tmp/b c", "~/x,y"]
    namespace: team-kit
    include: ["*", "x,y"]
    exclude: ["*-draft"]
    enabled: true
  - type: dir
    name: off
    path: /tmp/off
    enabled: false
  - type: plugin-dir
    paths: [~/src/my-claude-plugin]
  - type: plugin
    name: bundles
    command: [./bin/zipped, --dir, ~/bundles]
    timeout: 2s
    grace: 0
  - type: plugin
    name: Plain.Names
    namespace: ""
    command: [python3, plugin.py]
  - type: claude-plugins
defaults:
  builtin: false
  native: include
catalog:
  budget: 4000
  pin: ["release-*", "*:deploy"]
  visibility:
    "example-skills:*": name-only
    noisy-skill: off
    "*-beta": on
  channel: tool
tools:
  profile: sk
  enable: [skills_list]
  disable: [skills_search]
refresh:
  watch: false
  debounce: 500ms
  interval: 0
resources:
  max_file_size: 2097152
  allow_dirs: [scripts, references/, assets/fonts]
log:
  level: debug
  format: json
`)
	want, err := f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := write(t, filepath.Join(t.TempDir(), "described.yaml"), want.Describe())
	if err := config.CheckFile(out, &config.Options{WorkDir: f.sub, Home: f.home}); err != nil {
		t.Fatalf("Describe's output is not a valid configuration: %v\n%s", err, want.Describe())
	}
	got, err := config.Load(&config.Options{WorkDir: f.sub, Home: f.home, Env: []string{}, ConfigFile: out})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(config.Config{})); diff != "" {
		t.Errorf("read back (-want +got):\n%s\n%s", diff, want.Describe())
	}
}

// TestConfigFileIsTheUserFile checks that the user file given with
// --config too, by another path, is read once: each problem is told once,
// and its values come from the user file.
func TestConfigFileIsTheUserFile(t *testing.T) {
	f := newFixture(t)
	user := f.userFile(t, "catalog:\n  budgt: 3\n  budget: 3000\n")
	other := filepath.Join(f.home, ".config", "skillmux", "..", "skillmux", "config.yaml")
	_, err := config.Load(&config.Options{WorkDir: f.sub, Home: f.home, Env: []string{}, ConfigFile: other})
	if err == nil || strings.Count(err.Error(), "budgt") != 1 {
		t.Fatalf("the problem should be told once: %v", err)
	}
	f.userFile(t, "catalog:\n  budget: 3000\n")
	c, err := config.Load(&config.Options{WorkDir: f.sub, Home: f.home, Env: []string{}, ConfigFile: other})
	if err != nil {
		t.Fatal(err)
	}
	if c.Catalog.Budget != 3000 || len(c.Files()) != 1 || c.Origin("catalog.budget").String() != "user file "+user+":2" {
		t.Errorf("budget %d from %s, files %v", c.Catalog.Budget, c.Origin("catalog.budget"), c.Files())
	}
}

// TestDescribeDefaults checks that the configuration printed with no file
// names every key, the lists and maps left empty too, and reads back as
// the same configuration.
func TestDescribeDefaults(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	want, err := config.Load(&config.Options{WorkDir: work, Home: home, Env: []string{}})
	if err != nil {
		t.Fatal(err)
	}
	d := want.Describe()
	for _, line := range []string{"sources: []", "  pin: []", "  visibility: {}", "  allow_dirs: []", "  enable: []", "  disable: []", "trust: []"} {
		if !strings.Contains(d, fmt.Sprintf("%-44s # default\n", line)) {
			t.Errorf("Describe lacks %q as a default:\n%s", line, d)
		}
	}
	out := write(t, filepath.Join(t.TempDir(), "described.yaml"), d)
	got, err := config.Load(&config.Options{WorkDir: work, Home: home, Env: []string{}, ConfigFile: out})
	if err != nil {
		t.Fatalf("Describe's output is not a valid configuration: %v\n%s", err, d)
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(config.Config{}), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("read back (-want +got):\n%s\n%s", diff, d)
	}
}

func TestRefresh(t *testing.T) {
	f := newFixture(t)
	c, err := f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !c.Refresh.Watch || c.Refresh.Debounce != 200*time.Millisecond || c.Refresh.Interval != 30*time.Second {
		t.Errorf("defaults: %+v", c.Refresh)
	}
	write(t, filepath.Join(f.repo, config.WorkspaceFileName), "refresh:\n  watch: false\n  debounce: 50ms\n  interval: 0\n")
	c, err = f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Refresh.Watch || c.Refresh.Debounce != 50*time.Millisecond || c.Refresh.Interval != 0 {
		t.Errorf("from the file: %+v", c.Refresh)
	}
	c, err = f.load(t, []string{"SKILLMUX_REFRESH__INTERVAL=2m"})
	if err != nil || c.Refresh.Interval != 2*time.Minute {
		t.Errorf("from the environment: %+v %v", c.Refresh, err)
	}
	write(t, filepath.Join(f.repo, config.WorkspaceFileName), "refresh:\n  debounce: soon\n  interval: 5ms\nsources:\n  - type: plugin\n    name: p\n    command: [p]\n    timeout: 0\n")
	_, err = f.load(t, nil)
	for _, want := range []string{`refresh.debounce: "soon" is not a duration`, `refresh.interval: "5ms" is out of range; use a duration from 1s to 24h0m0s, or 0 to turn it off`,
		`sources[0].timeout: 0 is out of range; use a duration from 100ms to 10m0s`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
}

func TestResources(t *testing.T) {
	f := newFixture(t)
	c, err := f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Resources.MaxFileSize != 10<<20 || c.Resources.AllowDirs != nil {
		t.Errorf("defaults: %+v", c.Resources)
	}
	ws := write(t, filepath.Join(f.repo, config.WorkspaceFileName), "resources:\n  max_file_size: 2097152\n  allow_dirs: [scripts, references/, assets/fonts]\n")
	c, err = f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(config.Resources{MaxFileSize: 2 << 20, AllowDirs: []string{"scripts", "references/", "assets/fonts"}}, c.Resources); diff != "" {
		t.Errorf("from the file (-want +got):\n%s", diff)
	}
	if d := c.Describe(); !strings.Contains(d, "allow_dirs: [scripts, references/, assets/fonts]") || !strings.Contains(d, ws+":3") {
		t.Errorf("Describe:\n%s", d)
	}
	c, err = f.load(t, []string{"SKILLMUX_RESOURCES__MAX_FILE_SIZE=4096"})
	if err != nil || c.Resources.MaxFileSize != 4096 {
		t.Errorf("from the environment: %+v %v", c.Resources, err)
	}
	// Every problem of the file, each with its line.
	write(t, ws, "resources:\n  max_file_size: big\n  allow_dirs:\n    - ../etc\n    - /abs\n    - a\\b\n    - ok\n    - ''\n  allow_dir: [x]\n")
	_, err = f.load(t, nil)
	for _, want := range []string{
		ws + ":2: resources.max_file_size: must be an integer, got the string \"big\"",
		ws + ":4: resources.allow_dirs[0]: \"../etc\" must be a plain relative path",
		ws + ":5: resources.allow_dirs[1]: \"/abs\" must be relative to the skill folder",
		ws + ":6: resources.allow_dirs[2]: \"a\\\\b\" must separate folders with '/'",
		ws + ":8: resources.allow_dirs[4]: must name a folder inside the skill folder",
		ws + ":9: resources.allow_dir: unknown key (did you mean \"allow_dirs\"?)",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	_, err = f.load(t, []string{"SKILLMUX_RESOURCES__MAX_FILE_SIZE=12"})
	if err == nil || !strings.Contains(err.Error(), "SKILLMUX_RESOURCES__MAX_FILE_SIZE: resources.max_file_size: must be an integer between 1024 and 1073741824, got 12") {
		t.Errorf("a small value from the environment: %v", err)
	}
}

// A home folder that is not an absolute path is none: the warning says what
// is not read, the user file among it only when no XDG folder names it.
func TestRelativeHomeIsSaid(t *testing.T) {
	xdg := t.TempDir()
	for _, tc := range []struct {
		env      []string
		userFile bool // the warning says the user file is not read
	}{
		{[]string{"HOME=rel"}, true},
		{[]string{"HOME=rel", "XDG_CONFIG_HOME=" + xdg}, false},
	} {
		c, err := config.Load(&config.Options{WorkDir: t.TempDir(), Env: tc.env})
		if err != nil {
			t.Fatal(err)
		}
		w := strings.Join(c.Warnings(), "\n")
		if !strings.Contains(w, "no home folder is known") || strings.Contains(w, "your user file") != tc.userFile {
			t.Errorf("%v: warnings %q", tc.env, w)
		}
	}
}
