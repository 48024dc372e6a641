package config_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/config"
)

// A workspace file comes with a repository: until the user file trusts its
// folder, it only adds sources. It starts no program, cannot put the
// repository's skills in the place of the user's own (its user and
// claude-plugins entries are set aside; its sources rank last, see
// UntrustedSources), and sets nothing else: not how the user's skills are
// offered (visibility, tools), nor the built-in sources. What it sets
// aside is named, with the line and how to trust the folder.
func TestUntrustedWorkspaceIsConfined(t *testing.T) {
	f := untrustedFixture(t)
	user := f.userFile(t, "sources:\n  - type: dir\n    path: ~/mine\n")
	ws := write(t, filepath.Join(f.repo, ".skillmux.yaml"), `defaults:
  builtin: false
sources:
  - type: project
  - type: plugin
    name: hook
    command: [./hook.sh]
  - type: user
    exclude: ["deploy"]
  - type: dir
    path: skills
    namespace: discord
  - type: claude-plugins
    enabled: false
  - type: project
    exclude: ["*"]
  - type: dir
    paths: [skills, ~/secrets, ../elsewhere, more]
catalog:
  visibility:
    "*": off
tools:
  disable: [skill]
`)
	c, err := f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The user file's sources first, then the workspace's: no plugin, no
	// user, claude-plugins or project source of its own, no namespace,
	// no folder outside the repository, none twice.
	want := []config.Source{
		{Type: "dir", Path: filepath.Join(f.home, "mine")},
		{Type: "dir", Path: filepath.Join(f.repo, "skills"), Within: f.repo},
		{Type: "dir", Paths: []string{filepath.Join(f.repo, "more")}, Within: f.repo},
	}
	if diff := cmp.Diff(want, c.Sources); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	if c.UntrustedSources() != 2 {
		t.Errorf("UntrustedSources = %d, want the workspace's 2", c.UntrustedSources())
	}
	if !c.Defaults.Builtin || len(c.Catalog.Visibility) != 0 || len(c.Tools.Disable) != 0 {
		t.Errorf("settings of an untrusted workspace file applied: builtin %v, visibility %v, tools.disable %v", c.Defaults.Builtin, c.Catalog.Visibility, c.Tools.Disable)
	}
	for key, want := range map[string]string{
		"sources[0].path":     "user file " + user + ":3",
		"sources[1].path":     "workspace file " + ws + ":11",
		"sources[2].paths[0]": "workspace file " + ws + ":18",
		"catalog.visibility":  "default",
	} {
		if got := c.Origin(key).String(); got != want {
			t.Errorf("Origin(%s) = %s, want %s", key, got, want)
		}
	}
	how := "to allow it, trust the folder in your user file " + user + ` (trust: [` + strconv.Quote(f.repo) + `])`
	aside := ": set aside: a workspace file you have not trusted adds sources, and sets nothing else; " + how
	own := " keep their place, above this file's sources, and their settings: a workspace file you have not trusted cannot rank other skills above them, rename, filter or turn them off; " + how
	outside := " is set aside: a workspace file you have not trusted serves skills from its own folder (" + f.repo + "), not from elsewhere; " + how
	wantWarnings := []string{
		ws + ":2: defaults.builtin" + aside,
		ws + `:5: sources[1]: source plugin "hook" is not started: a workspace file you have not trusted would run "` + filepath.Join(f.repo, "hook.sh") + `"; ` + how,
		ws + ":8: sources[2]: your own skills (user)" + own,
		ws + `:12: sources[3].namespace: "discord" set aside: a workspace file you have not trusted cannot choose names that may reach your own skills (such as user:deploy); its skills keep their plain names; ` + how,
		ws + ":13: sources[4]: your own skills (claude-plugins)" + own,
		ws + ":15: sources[5]: the project source keeps its place and its settings: a workspace file you have not trusted cannot filter, rename or turn off the project skills of the folders you serve; " + how,
		ws + ":18: sources[6].paths[1]: " + strconv.Quote(filepath.Join(f.home, "secrets")) + outside,
		ws + ":18: sources[6].paths[2]: " + strconv.Quote(filepath.Join(filepath.Dir(f.repo), "elsewhere")) + outside,
		ws + ":21: catalog.visibility" + aside,
		ws + ":23: tools.disable" + aside,
	}
	if diff := cmp.Diff(wantWarnings, c.Warnings()); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// An untrusted file's dir sources stay inside its folder: a link in the
// repository that leads out of it is set aside as a path outside is; and
// they add at most 16 folders, each once.
func TestUntrustedDirSourcesStayInTheRepository(t *testing.T) {
	f := untrustedFixture(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(f.home, "private"), 0o755))
	must(os.Symlink(filepath.Join(f.home, "private"), filepath.Join(f.repo, "linked")))
	var paths strings.Builder
	paths.WriteString("      - linked\n      - a\n      - a/\n      - ./a\n")
	for i := range 30 {
		fmt.Fprintf(&paths, "      - b%d\n", i)
	}
	write(t, filepath.Join(f.repo, ".skillmux.yaml"), "sources:\n  - type: dir\n    paths:\n"+paths.String())
	c, err := f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sources) != 1 || len(c.Sources[0].Paths) != 16 || c.Sources[0].Paths[0] != filepath.Join(f.repo, "a") || c.Sources[0].Paths[1] != filepath.Join(f.repo, "b0") {
		t.Fatalf("sources %+v, want one with 16 paths: a once, then b0 to b14", c.Sources)
	}
	for _, p := range c.Sources[0].Paths {
		if !strings.HasPrefix(p, f.repo+string(filepath.Separator)) {
			t.Errorf("path %s outside the repository", p)
		}
	}
	var linked, bound int
	for _, w := range c.Warnings() {
		switch {
		case strings.Contains(w, `linked"`) && strings.Contains(w, "not from elsewhere"):
			linked++
		case strings.Contains(w, "adds at most 16 folders"):
			bound++
		}
	}
	if linked != 1 || bound == 0 {
		t.Errorf("warnings: %d for the link out, %d for the bound:\n%s", linked, bound, strings.Join(c.Warnings(), "\n"))
	}
}

// Plain user and project sources in a workspace's list change nothing
// when they are set aside (the built-in ones serve what they name): no
// warning.
func TestUntrustedWorkspaceWithUserFirst(t *testing.T) {
	f := untrustedFixture(t)
	write(t, filepath.Join(f.repo, ".skillmux.yaml"), "sources:\n  - type: user\n  - type: project\n")
	c, err := f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sources) != 0 || c.UntrustedSources() != 0 {
		t.Errorf("sources %+v, want none of the file's", c.Sources)
	}
	if len(c.Warnings()) > 0 {
		t.Errorf("warnings: %q", c.Warnings())
	}
}

// The user file trusts a folder and every folder below it; a link to one
// is the folder. Nothing else trusts: trust in a workspace file (which
// would trust itself) is ignored, with a warning.
func TestTrust(t *testing.T) {
	f := untrustedFixture(t)
	ws := write(t, filepath.Join(f.repo, ".skillmux.yaml"), "trust: [\".\"]\nsources:\n  - type: plugin\n    name: hook\n    command: [./hook.sh]\n")
	c, err := f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sources) != 0 || len(c.Warnings()) != 2 || !strings.HasPrefix(c.Warnings()[0], ws+":1: trust: ignored: only your user file ") {
		t.Errorf("a workspace file trusting itself: sources %+v, warnings %q", c.Sources, c.Warnings())
	}

	f.userFile(t, "trust: [\"~/../repo\"]\n")
	if c, err = f.load(t, nil); err != nil {
		t.Fatal(err)
	}
	if len(c.Sources) != 1 || c.Sources[0].Type != config.TypePlugin || len(c.Warnings()) != 1 {
		t.Errorf("trusted by the user file: sources %+v, warnings %q", c.Sources, c.Warnings())
	}
	if d := c.Describe(); !strings.Contains(d, "trust: ["+f.repo+"]") {
		t.Errorf("Describe leaves out trust:\n%s", d)
	}
	// With the client's roots, the file ranks the project skills of every
	// root: it is trusted only when each of them is.
	other := t.TempDir()
	c, err = config.Load(&config.Options{WorkDir: f.sub, Home: f.home, Env: []string{}, AlsoServes: []string{other}})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Sources) != 0 {
		t.Errorf("trusted, with another root not trusted: sources %+v, want the plugin set aside", c.Sources)
	}
	// The warning names the root to trust, not the file's own folder,
	// which is trusted already.
	if w := strings.Join(c.Warnings(), "\n"); !strings.Contains(w, "the client's other workspace folders, which you have not trusted") || !strings.Contains(w, "(trust: ["+strconv.Quote(other)+"])") {
		t.Errorf("the warning does not name the root to trust:\n%s", w)
	}

	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(f.repo, link); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		dir   string
		trust []string
		want  bool
	}{
		{f.repo, []string{f.repo}, true},
		{f.sub, []string{f.repo}, true},
		{f.repo, []string{f.sub}, false},
		{f.repo + "-other", []string{f.repo}, false},
		{f.repo, []string{link}, true},
		{filepath.Join(link, "svc"), []string{f.repo}, true},
		{f.repo, nil, false},
	} {
		if got := config.Trusted(tt.dir, tt.trust); got != tt.want {
			t.Errorf("Trusted(%s, %q) = %v, want %v", tt.dir, tt.trust, got, tt.want)
		}
	}
}
