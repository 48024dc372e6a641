package claudeplugins_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/claudeplugins"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

var write = sourcetest.WriteFile

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	write(t, path, string(b))
}

func skill(t *testing.T, dir, name string) {
	write(t, filepath.Join(dir, "SKILL.md"), "---\nname: "+name+"\ndescription: The "+name+" skill.\n---\n")
}

func names(l *sources.Listing) []string {
	var out []string
	for _, sk := range l.Skills {
		out = append(out, sk.Ref.String())
	}
	return out
}

func problems(l *sources.Listing) []string {
	var out []string
	for _, d := range l.Problems {
		out = append(out, d.Severity.String()+":"+d.Rule+":"+d.Field)
	}
	return out
}

func list(t *testing.T, s sources.Source) *sources.Listing {
	t.Helper()
	l, err := s.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// fakeHome builds a home with Claude Code's install records.
type fakeHome struct {
	t           *testing.T
	home, store string
	records     map[string]any
	userEnabled map[string]bool
}

func newHome(t *testing.T) *fakeHome {
	base := t.TempDir()
	return &fakeHome{t: t, home: filepath.Join(base, "home"), store: filepath.Join(base, "store"), records: map[string]any{}, userEnabled: map[string]bool{}}
}

// plugin makes a plugin folder with a manifest (name may be empty) and
// skills, records its install and returns its folder.
func (h *fakeHome) plugin(key, manifestName string, enabled bool, rec map[string]any, skills ...string) string {
	dir := filepath.Join(h.store, strings.ReplaceAll(key, "@", "_"))
	if manifestName != "-" {
		m := map[string]any{"description": "x"}
		if manifestName != "" {
			m["name"] = manifestName
		}
		writeJSON(h.t, filepath.Join(dir, ".claude-plugin", "plugin.json"), m)
	}
	for _, s := range skills {
		skill(h.t, filepath.Join(dir, "skills", s), s)
	}
	if rec == nil {
		rec = map[string]any{"scope": "user"}
	}
	rec["installPath"] = dir
	h.records[key] = []any{rec}
	h.userEnabled[key] = enabled
	return dir
}

func (h *fakeHome) save() {
	writeJSON(h.t, claudeplugins.InstalledFile(h.home), map[string]any{"version": 2, "plugins": h.records})
	writeJSON(h.t, filepath.Join(h.home, ".claude", "settings.json"), map[string]any{"enabledPlugins": h.userEnabled, "model": "x"})
}

func TestInstalled(t *testing.T) {
	h := newHome(t)
	project := t.TempDir()
	other := t.TempDir()
	h.plugin("discord@official", "discord", true, nil, "access", "configure")
	h.plugin("telegram@official", "telegram", true, nil, "access")
	h.plugin("disabled@official", "disabled", false, nil, "nope")
	h.plugin("unlisted@official", "", true, nil, "fallback") // manifest without name
	h.plugin("nomanifest@official", "-", true, nil, "bare")  // no manifest at all
	h.plugin("here@official", "here", true, map[string]any{"scope": "project", "projectPath": project}, "local-skill")
	h.plugin("there@official", "there", true, map[string]any{"scope": "local", "projectPath": other}, "elsewhere")
	h.plugin("byproject@official", "byproject", false, nil, "enabled-by-project")
	h.save()
	writeJSON(t, filepath.Join(project, ".claude", "settings.json"), map[string]any{"enabledPlugins": map[string]bool{"byproject@official": true}})
	writeJSON(t, filepath.Join(project, ".claude", "settings.local.json"), map[string]any{"enabledPlugins": map[string]bool{"telegram@official": false}})

	src := claudeplugins.Installed(h.home, &claudeplugins.Options{ProjectDirs: []string{project}})
	l := list(t, src)
	want := []string{"byproject:enabled-by-project", "discord:access", "discord:configure", "here:local-skill", "nomanifest:bare", "unlisted:fallback"}
	if diff := cmp.Diff(want, names(l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(l.Problems) != 0 {
		t.Errorf("problems: %v", l.Problems)
	}
	for _, sk := range l.Skills {
		if sk.Scope != sources.ScopePlugin || sk.Source != "claude-plugins" {
			t.Errorf("%s: %s %s", sk.Ref, sk.Scope, sk.Source)
		}
	}
	sourcetest.Run(t, src)

	// Without the project, its installs and its settings do not apply.
	l = list(t, claudeplugins.Installed(h.home, nil))
	if diff := cmp.Diff([]string{"discord:access", "discord:configure", "nomanifest:bare", "telegram:access", "unlisted:fallback"}, names(l)); diff != "" {
		t.Errorf("no project (-want +got):\n%s", diff)
	}
}

func TestInstalledProblems(t *testing.T) {
	t.Run("no Claude Code at all", func(t *testing.T) {
		src := claudeplugins.Installed(t.TempDir(), nil)
		l := list(t, src)
		if len(l.Skills)+len(l.Problems) != 0 {
			t.Errorf("got %+v", l)
		}
		sourcetest.Run(t, src)
	})
	t.Run("malformed install records", func(t *testing.T) {
		home := t.TempDir()
		write(t, claudeplugins.InstalledFile(home), "{\"version\": 2, \"plugins\": ")
		l := list(t, claudeplugins.Installed(home, nil))
		if len(l.Problems) != 1 || l.Problems[0].Path != claudeplugins.InstalledFile(home) || !strings.Contains(l.Problems[0].Message, "not valid JSON") {
			t.Errorf("got %v", l.Problems)
		}
	})
	t.Run("install path gone and a bad record", func(t *testing.T) {
		h := newHome(t)
		dir := h.plugin("gone@m", "gone", true, nil, "s")
		h.records["weird@m"] = "not a record"
		h.userEnabled["weird@m"] = true
		h.plugin("fine@m", "fine", true, nil, "ok")
		h.save()
		os.RemoveAll(dir)
		l := list(t, claudeplugins.Installed(h.home, nil))
		if diff := cmp.Diff([]string{"fine:ok"}, names(l)); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{"warning:missing-path:plugins.gone@m.installPath", "error:plugin-json:plugins.weird@m"}, problems(l)); diff != "" {
			t.Errorf("problems (-want +got):\n%s", diff)
		}
	})
	t.Run("version 1 records", func(t *testing.T) {
		h := newHome(t)
		dir := h.plugin("old@m", "old", true, nil, "s")
		h.records["old@m"] = map[string]any{"installPath": dir}
		h.save()
		if diff := cmp.Diff([]string{"old:s"}, names(list(t, claudeplugins.Installed(h.home, nil)))); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	})
}

func TestDirs(t *testing.T) {
	base := t.TempDir()
	p := filepath.Join(base, "my-plugin")
	writeJSON(t, filepath.Join(p, ".claude-plugin", "plugin.json"), map[string]any{"name": "mine", "skills": []string{"./extra/one", "./more", "./missing"}})
	skill(t, filepath.Join(p, "skills", "std"), "std")
	skill(t, filepath.Join(p, "extra", "one"), "one")
	skill(t, filepath.Join(p, "more", "two"), "two")
	skill(t, filepath.Join(p, "more", "three"), "three")
	src := claudeplugins.Dirs([]string{p, filepath.Join(base, "absent")}, &claudeplugins.Options{Name: "local"})
	l := list(t, src)
	if diff := cmp.Diff([]string{"mine:one", "mine:std", "mine:three", "mine:two"}, names(l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"warning:root-missing:", "warning:missing-path:skills[2]"}, problems(l)); diff != "" {
		t.Errorf("problems (-want +got):\n%s\n%v", diff, l.Problems)
	}
	sourcetest.Run(t, claudeplugins.Dirs([]string{p}, nil))
}

// A plugin folder given twice, as written differently or through a link,
// is one plugin, not two that shadow each other; and a folder of skills
// given as a plugin is said to be one, with the state invalid, not served.
func TestDirsGivenTwiceAndNotPlugins(t *testing.T) {
	base := t.TempDir()
	p := filepath.Join(base, "my-plugin")
	writeJSON(t, filepath.Join(p, ".claude-plugin", "plugin.json"), map[string]any{"name": "mine"})
	skill(t, filepath.Join(p, "skills", "std"), "std")
	link := filepath.Join(base, "link")
	if err := os.Symlink(p, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	plain := filepath.Join(base, "plain")
	skill(t, filepath.Join(plain, "lone"), "lone")
	l := list(t, claudeplugins.Dirs([]string{p, p + string(filepath.Separator), link, plain}, nil))
	if diff := cmp.Diff([]string{"mine:std"}, names(l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(l.Skills) != 1 {
		t.Errorf("skills: %d, want the plugin's one, once", len(l.Skills))
	}
	var states []string
	for _, pkg := range l.Packages {
		states = append(states, pkg.Name+" "+string(pkg.State))
	}
	if diff := cmp.Diff([]string{"mine " + string(sources.PackageServed), "plain " + string(sources.PackageInvalid)}, states); diff != "" {
		t.Errorf("packages (-want +got):\n%s", diff)
	}
}

func TestMarketplaceFolder(t *testing.T) {
	m := t.TempDir()
	writeJSON(t, filepath.Join(m, ".claude-plugin", "marketplace.json"), map[string]any{
		"name": "market",
		"plugins": []any{
			map[string]any{"name": "docs", "source": "./", "skills": []string{"./skills/a", "./skills/missing"}},
			map[string]any{"name": "tools", "source": "./plugins/tools"},
			map[string]any{"name": "remote", "source": map[string]any{"source": "github", "repo": "x/y"}},
			map[string]any{"name": "absent", "source": "./plugins/absent"},
		},
	})
	skill(t, filepath.Join(m, "skills", "a"), "a")
	skill(t, filepath.Join(m, "skills", "b"), "b") // not listed by docs
	skill(t, filepath.Join(m, "plugins", "tools", "skills", "t"), "t")
	l := list(t, claudeplugins.Dirs([]string{m}, nil))
	if diff := cmp.Diff([]string{"docs:a", "tools:t"}, names(l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"warning:missing-path:plugins[3].source", "warning:missing-path:plugins[0].skills[1]"}, problems(l)); diff != "" {
		t.Errorf("problems (-want +got):\n%s\n%v", diff, l.Problems)
	}
	sourcetest.Run(t, claudeplugins.Dirs([]string{m}, nil))
}

// A marketplace's metadata.pluginRoot is the folder its relative sources
// are in, as Claude Code reads it: every plugin was "missing" before.
func TestMarketplacePluginRoot(t *testing.T) {
	m := t.TempDir()
	writeJSON(t, filepath.Join(m, ".claude-plugin", "marketplace.json"), map[string]any{
		"name":     "team",
		"metadata": map[string]any{"pluginRoot": "./plugins"},
		"plugins": []any{
			map[string]any{"name": "deploy-kit", "source": "deploy-kit"},
			map[string]any{"name": "db-kit", "source": "./db-kit"},
			map[string]any{"name": "beside", "source": "./beside"}, // not under pluginRoot: under the marketplace
		},
	})
	skill(t, filepath.Join(m, "plugins", "deploy-kit", "skills", "ship"), "ship")
	skill(t, filepath.Join(m, "plugins", "db-kit", "skills", "migrate"), "migrate")
	skill(t, filepath.Join(m, "beside", "skills", "near"), "near")
	l := list(t, claudeplugins.Dirs([]string{m}, nil))
	if diff := cmp.Diff([]string{"beside:near", "db-kit:migrate", "deploy-kit:ship"}, names(l)); diff != "" {
		t.Errorf("(-want +got):\n%s\nproblems %v", diff, l.Problems)
	}
}

// A repository that is a plugin of no skills of its own and a marketplace
// of plugins that have some serves the marketplace's plugins: read as the
// plugin alone, it served nothing and said nothing. A plugin with skills
// of its own stays a plugin.
func TestPluginOfNoSkillsBesideAMarketplace(t *testing.T) {
	m := t.TempDir()
	writeJSON(t, filepath.Join(m, ".claude-plugin", "plugin.json"), map[string]any{"name": "repo"})
	writeJSON(t, filepath.Join(m, ".claude-plugin", "marketplace.json"), map[string]any{
		"name":    "market",
		"plugins": []any{map[string]any{"name": "tools", "source": "./plugins/tools"}},
	})
	skill(t, filepath.Join(m, "plugins", "tools", "skills", "t"), "t")
	if diff := cmp.Diff([]string{"tools:t"}, names(list(t, claudeplugins.Dirs([]string{m}, nil)))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	skill(t, filepath.Join(m, "skills", "own"), "own")
	if diff := cmp.Diff([]string{"repo:own"}, names(list(t, claudeplugins.Dirs([]string{m}, nil)))); diff != "" {
		t.Errorf("with skills of its own (-want +got):\n%s", diff)
	}
}

// A repository that is its own marketplace ("source": "./") is read as
// the plugin it is, whether it has a plugin.json of no skills (commands,
// hooks; installed, as Claude Code copies such a repository whole) or no
// plugin.json and a skills folder; marketplaces that list each other are
// read once each, with a warning. Each of these recursed until the stack
// overflowed.
func TestMarketplacesThatLeadBack(t *testing.T) {
	h := newHome(t)
	dir := h.plugin("tools@tools-mkt", "tools", true, nil)
	writeJSON(t, filepath.Join(dir, ".claude-plugin", "marketplace.json"), map[string]any{
		"name": "tools-mkt", "plugins": []any{map[string]any{"name": "tools", "source": "./"}},
	})
	h.save()
	if l := list(t, claudeplugins.Installed(h.home, nil)); len(l.Skills) != 0 || len(l.Problems) != 0 {
		t.Errorf("a plugin of no skills, its own marketplace: %v %v", names(l), problems(l))
	}

	self := t.TempDir()
	writeJSON(t, filepath.Join(self, ".claude-plugin", "marketplace.json"), map[string]any{
		"name": "m", "plugins": []any{map[string]any{"name": "solo", "source": "./"}},
	})
	skill(t, filepath.Join(self, "skills", "a"), "a")
	if diff := cmp.Diff([]string{"solo:a"}, names(list(t, claudeplugins.Dirs([]string{self}, nil)))); diff != "" {
		t.Errorf("its own marketplace, no plugin.json (-want +got):\n%s", diff)
	}

	base := t.TempDir()
	one, two := filepath.Join(base, "one"), filepath.Join(base, "two")
	writeJSON(t, filepath.Join(one, ".claude-plugin", "marketplace.json"), map[string]any{
		"name": "one", "plugins": []any{map[string]any{"name": "two", "source": "../two"}},
	})
	writeJSON(t, filepath.Join(two, ".claude-plugin", "marketplace.json"), map[string]any{
		"name": "two", "plugins": []any{map[string]any{"name": "one", "source": "../one"}},
	})
	l := list(t, claudeplugins.Dirs([]string{one}, nil))
	if diff := cmp.Diff([]string{"warning:plugin-loop:plugins[0].source"}, problems(l)); diff != "" {
		t.Errorf("two marketplaces that list each other (-want +got):\n%s", diff)
	}
}

// Marketplaces that lead to one folder by several ways (each listing the
// next twice) read it once: 18 of them gave 131,072 plugins in 8.6 s.
func TestMarketplaceFolderReachedTwiceIsReadOnce(t *testing.T) {
	base := t.TempDir()
	const depth = 18
	for i := range depth {
		dir := filepath.Join(base, fmt.Sprint(i))
		var entries []any
		if i+1 < depth {
			next := fmt.Sprintf("../%d", i+1)
			entries = []any{map[string]any{"name": fmt.Sprintf("a%d", i), "source": next}, map[string]any{"name": fmt.Sprintf("b%d", i), "source": next}}
		} else {
			skill(t, filepath.Join(dir, "skills", "leaf"), "leaf")
			entries = []any{map[string]any{"name": "leaf", "source": "./"}}
		}
		writeJSON(t, filepath.Join(dir, ".claude-plugin", "marketplace.json"), map[string]any{"name": fmt.Sprint(i), "plugins": entries})
	}
	l := list(t, claudeplugins.Dirs([]string{filepath.Join(base, "0")}, nil))
	if diff := cmp.Diff([]string{"leaf:leaf"}, names(l)); diff != "" || len(l.Packages) != 1 || len(l.Problems) != 0 {
		t.Errorf("%d packages, problems %v; skills (-want +got):\n%s", len(l.Packages), problems(l), diff)
	}
}

// A repository whose plugin.json has no skills and whose marketplace lists
// itself and other plugins serves the others': plugin.json alone gave
// nothing.
func TestMarketplaceOfItselfAndOthers(t *testing.T) {
	repo := t.TempDir()
	writeJSON(t, filepath.Join(repo, ".claude-plugin", "plugin.json"), map[string]any{"name": "tools"})
	writeJSON(t, filepath.Join(repo, ".claude-plugin", "marketplace.json"), map[string]any{
		"name": "m", "plugins": []any{
			map[string]any{"name": "tools", "source": "./"},
			map[string]any{"name": "x", "source": "./plugins/x"},
		},
	})
	skill(t, filepath.Join(repo, "plugins", "x", "skills", "a"), "a")
	if diff := cmp.Diff([]string{"x:a"}, names(list(t, claudeplugins.Dirs([]string{repo}, nil)))); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestCorpusAsInstalledPlugins(t *testing.T) {
	c := corpus.Dir(t)
	h := newHome(t)
	for key, path := range map[string]string{
		"discord@claude-plugins-official":        filepath.Join(c, "claude-plugins-official", "external_plugins", "discord"),
		"imessage@claude-plugins-official":       filepath.Join(c, "claude-plugins-official", "external_plugins", "imessage"),
		"telegram@claude-plugins-official":       filepath.Join(c, "claude-plugins-official", "external_plugins", "telegram"),
		"receipts@claude-plugins-official":       filepath.Join(c, "claude-plugins-official", "plugins", "receipts"),
		"example-skills@anthropic-agent-skills":  filepath.Join(c, "anthropics-skills"),
		"document-skills@anthropic-agent-skills": filepath.Join(c, "anthropics-skills"),
		"superpowers@superpowers-dev":            filepath.Join(c, "obra-superpowers"),
	} {
		h.records[key] = []any{map[string]any{"scope": "user", "installPath": path, "version": "1"}}
		h.userEnabled[key] = true
	}
	h.save()
	l := list(t, claudeplugins.Installed(h.home, nil))
	got := map[string]bool{}
	for _, n := range names(l) {
		got[n] = true
	}
	for _, want := range []string{"discord:access", "imessage:access", "telegram:access", "telegram:configure", "receipts:receipts", "example-skills:skill-creator", "superpowers:brainstorming"} {
		if !got[want] {
			t.Errorf("%s not served; got %v", want, names(l))
		}
	}
	if got["example-skills:claude-api"] || got["claude-api:claude-api"] {
		t.Error("a marketplace plugin that is not installed was served")
	}
	var missing []string
	for _, d := range l.Problems {
		if d.Rule == "missing-path" {
			missing = append(missing, d.Message)
		}
	}
	if len(missing) != 4 || !strings.Contains(strings.Join(missing, " "), "./skills/pdf") {
		t.Errorf("document-skills lists four missing skills; got %v", missing)
	}
}

// Every plugin considered is reported with its state and the reason it is
// not served.
func TestInstalledPackages(t *testing.T) {
	h := newHome(t)
	project, other := t.TempDir(), t.TempDir()
	h.plugin("on@m", "on", true, nil, "a", "b")
	h.plugin("off@m", "off", false, nil, "c")
	h.plugin("unlisted@m", "unlisted", true, nil, "d")
	delete(h.userEnabled, "unlisted@m")
	h.plugin("there@m", "there", true, map[string]any{"scope": "project", "projectPath": other}, "e")
	gone := h.plugin("gone@m", "gone", true, nil, "f")
	h.userEnabled["ghost@m"] = true // enabled, never installed
	h.save()
	os.RemoveAll(gone)
	l := list(t, claudeplugins.Installed(h.home, &claudeplugins.Options{ProjectDirs: []string{project}}))
	var got []string
	for _, p := range l.Packages {
		got = append(got, p.Name+" "+string(p.State))
		if p.State != sources.PackageServed && p.Reason == "" {
			t.Errorf("%s is %s with no reason", p.Name, p.State)
		}
		if p.State == sources.PackageServed && p.Skills != 2 {
			t.Errorf("%s: %d skills, want 2", p.Name, p.Skills)
		}
	}
	want := []string{"gone@m missing", "off@m disabled", "on@m served", "there@m other-project", "unlisted@m disabled", "ghost@m not-installed"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, p := range l.Packages {
		if p.Name == "ghost@m" && strings.Contains(p.Reason, "did you mean") {
			t.Errorf("ghost@m, close to no installed plugin: %s", p.Reason)
		}
	}
}

// An enabledPlugins key close to an installed plugin that nothing enables
// (a typo in a settings file edited by hand) says which was meant.
func TestEnabledButNotInstalledSaysWhatWasMeant(t *testing.T) {
	h := newHome(t)
	h.plugin("document-skills@anthropic-agent-skills", "document-skills", false, nil, "pdf")
	h.plugin("on@m", "on", true, nil, "a")
	h.userEnabled["document-skill@anthropic-agent-skills"] = true
	h.save()
	l := list(t, claudeplugins.Installed(h.home, nil))
	for _, p := range l.Packages {
		if p.Name == "document-skill@anthropic-agent-skills" {
			if want := "did you mean document-skills@anthropic-agent-skills, which is installed?"; p.State != sources.PackageNotInstalled || !strings.Contains(p.Reason, want) {
				t.Errorf("%s: %s, %q; want it not installed, saying %q", p.Name, p.State, p.Reason, want)
			}
			return
		}
	}
	t.Errorf("no package for the mistyped key: %+v", l.Packages)
}

// A settings file that cannot be read is named as the reason a plugin is
// not served, not a settings file that "does not list it": it may.
func TestUnreadableSettingsIsTheReason(t *testing.T) {
	h := newHome(t)
	h.plugin("on@m", "on", true, nil, "a")
	h.save()
	settings := filepath.Join(h.home, ".claude", "settings.json")
	if err := os.WriteFile(settings, []byte(`{"enabledPlugins": {"on@m": true,}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	l := list(t, claudeplugins.Installed(h.home, nil))
	if len(l.Packages) != 1 {
		t.Fatalf("packages: %+v", l.Packages)
	}
	if p := l.Packages[0]; p.State != sources.PackageDisabled || !strings.Contains(p.Reason, settings+" cannot be read") {
		t.Errorf("%s: %s, %q; want the reason to name %s", p.Name, p.State, p.Reason, settings)
	}
}

// A hand-edited settings file with one trailing comma used to drop every
// plugin skill without a word.
func TestMalformedSettingsNameTheLine(t *testing.T) {
	h := newHome(t)
	h.plugin("on@m", "on", true, nil, "a")
	h.save()
	settings := filepath.Join(h.home, ".claude", "settings.json")
	write(t, settings, "{\n  \"enabledPlugins\": {\n    \"on@m\": true,\n  }\n}\n")
	l := list(t, claudeplugins.Installed(h.home, nil))
	if len(l.Problems) != 1 {
		t.Fatalf("problems: %v", l.Problems)
	}
	d := l.Problems[0]
	if d.Path != settings || d.Line != 4 || !strings.Contains(d.Message, "trailing comma") || !strings.Contains(d.Message, "not served until it is fixed") {
		t.Errorf("got %s", d)
	}
	if len(l.Skills) != 0 || l.Packages[0].State != sources.PackageDisabled {
		t.Errorf("skills %v, packages %v", names(l), l.Packages)
	}
}

// An install record that is an empty list, or null, is that plugin's
// problem: it used to stop the whole source, every plugin with it.
func TestEmptyInstallRecord(t *testing.T) {
	for _, rec := range []string{"[]", "null"} {
		h := newHome(t)
		h.plugin("fine@m", "fine", true, nil, "ok")
		h.save()
		installed := claudeplugins.InstalledFile(h.home)
		write(t, installed, `{"version": 2, "plugins": {"gone@m": `+rec+`, "fine@m": [{"scope": "user", "installPath": "`+filepath.Join(h.store, "fine_m")+`"}]}}`)
		writeJSON(t, filepath.Join(h.home, ".claude", "settings.json"), map[string]any{"enabledPlugins": map[string]bool{"gone@m": true, "fine@m": true}})
		l := list(t, claudeplugins.Installed(h.home, nil))
		if diff := cmp.Diff([]string{"fine:ok"}, names(l)); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", rec, diff)
		}
		if diff := cmp.Diff([]string{"error:plugin-json:plugins.gone@m"}, problems(l)); diff != "" {
			t.Errorf("%s: problems (-want +got):\n%s", rec, diff)
		}
		for _, p := range l.Packages {
			if p.Name == "gone@m" && (p.State != sources.PackageInvalid || !strings.Contains(p.Reason, "empty")) {
				t.Errorf("%s: gone@m is %s: %q", rec, p.State, p.Reason)
			}
		}
	}
}

// An installPath that is relative, or a file, is that plugin's error, said
// as such: not a folder looked for where skillmux happens to start, nor
// "not a directory" about a manifest path below a file.
func TestInstallPathOfTheWrongKind(t *testing.T) {
	h := newHome(t)
	h.plugin("fine@m", "fine", true, nil, "ok")
	file := filepath.Join(t.TempDir(), "settings.json")
	write(t, file, "{}")
	h.records["rel@m"] = []any{map[string]any{"scope": "user", "installPath": "plugins/rel"}}
	h.records["file@m"] = []any{map[string]any{"scope": "user", "installPath": file}}
	h.userEnabled["rel@m"], h.userEnabled["file@m"] = true, true
	h.save()
	l := list(t, claudeplugins.Installed(h.home, nil))
	if diff := cmp.Diff([]string{"fine:ok"}, names(l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var msgs []string
	for _, d := range l.Problems {
		msgs = append(msgs, d.Field+": "+d.Message)
	}
	for _, want := range []string{`plugins.rel@m.installPath: "plugins/rel" is not an absolute path`, "plugins.file@m.installPath: " + file + " is a file, not the plugin's folder"} {
		if !slices.ContainsFunc(msgs, func(m string) bool { return strings.HasPrefix(m, want) }) {
			t.Errorf("problems %q; want one beginning %q", msgs, want)
		}
	}
}

// A plugin installed for a project is served when the workspace is
// reached through a link to that project, and the other way round:
// Claude Code records the real path, a shell's working folder may be the
// link.
func TestProjectReachedThroughALink(t *testing.T) {
	base := t.TempDir()
	real, link := filepath.Join(base, "real"), filepath.Join(base, "link")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	for _, c := range []struct{ recorded, workspace string }{{real, link}, {link, real}, {real, real}} {
		h := newHome(t)
		h.plugin("here@m", "here", true, map[string]any{"scope": "project", "projectPath": c.recorded}, "s")
		h.save()
		l := list(t, claudeplugins.Installed(h.home, &claudeplugins.Options{ProjectDirs: []string{c.workspace}}))
		if diff := cmp.Diff([]string{"here:s"}, names(l)); diff != "" {
			t.Errorf("recorded %s, workspace %s (-want +got):\n%s", c.recorded, c.workspace, diff)
		}
	}
}

// A value in enabledPlugins that is not a boolean is that plugin's
// problem: it used to make the whole file unreadable, and every plugin it
// enabled not served.
func TestEnabledPluginsValueNotBoolean(t *testing.T) {
	for value, kind := range map[string]string{`"yes"`: "a string", `null`: "null"} {
		h := newHome(t)
		h.plugin("on@m", "on", true, nil, "a")
		h.plugin("odd@m", "odd", true, nil, "b")
		h.save()
		settings := filepath.Join(h.home, ".claude", "settings.json")
		write(t, settings, `{"enabledPlugins": {"on@m": true, "odd@m": `+value+`}}`)
		l := list(t, claudeplugins.Installed(h.home, nil))
		if diff := cmp.Diff([]string{"on:a"}, names(l)); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", value, diff)
		}
		if len(l.Problems) != 1 {
			t.Fatalf("%s: problems: %v", value, l.Problems)
		}
		if d := l.Problems[0]; d.Path != settings || d.Field != "enabledPlugins.odd@m" || !strings.Contains(d.Message, "must be true or false, not "+kind) {
			t.Errorf("%s: got %s", value, d)
		}
	}
	// A null does not undo another file's true: it is as if not written.
	h := newHome(t)
	project := t.TempDir()
	h.plugin("on@m", "on", true, nil, "a")
	h.save()
	write(t, filepath.Join(project, ".claude", "settings.local.json"), `{"enabledPlugins": {"on@m": null}}`)
	if got := names(list(t, claudeplugins.Installed(h.home, &claudeplugins.Options{ProjectDirs: []string{project}}))); !slices.Equal(got, []string{"on:a"}) {
		t.Errorf("a null in a project's settings: %v, want on:a served", got)
	}
}

// An install record of the wrong shape is said in JSON's words, not in
// Go's ("cannot unmarshal array into Go struct field installedFile...").
func TestInstallRecordOfTheWrongShape(t *testing.T) {
	for file, want := range map[string]string{
		`{"version": 2, "plugins": []}`:   `not what Claude Code reads at column 27: "plugins" must be an object, not an array; no installed plugin is served`,
		`{"version": 2.5, "plugins": {}}`: `not what Claude Code reads at column 15: "version" must be an integer, not 2.5; no installed plugin is served`,
		`{"version": "2", "plugins": {}}`: `not what Claude Code reads at column 15: "version" must be an integer, not a string; no installed plugin is served`,
	} {
		h := newHome(t)
		installed := claudeplugins.InstalledFile(h.home)
		write(t, installed, file+"\n")
		l := list(t, claudeplugins.Installed(h.home, nil))
		if len(l.Problems) != 1 {
			t.Fatalf("%s: problems: %v", file, l.Problems)
		}
		if d := l.Problems[0]; d.Path != installed || d.Line != 1 || !strings.HasPrefix(d.Message, want) {
			t.Errorf("%s: got %s\nwant the message to begin %q", file, d, want)
		}
	}
}

// watch runs src's Watch until the test ends, and returns the channel its
// reports arrive on (at most one waiting).
// listsAfterChange waits, up to timeout, for a change reported on changed
// after which src lists want; it fails the test, saying what was awaited,
// when none comes.
func listsAfterChange(t *testing.T, src sources.Source, changed <-chan struct{}, timeout time.Duration, what string, want []string) {
	t.Helper()
	deadline := time.After(timeout)
	for {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("%s: no change reported after which the listing is %v; it is %v", what, want, names(list(t, src)))
		}
		if cmp.Equal(want, names(list(t, src))) {
			return
		}
	}
}

func watch(t *testing.T, src *claudeplugins.Source) <-chan struct{} {
	t.Helper()
	changed := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		done <- src.Watch(ctx, func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
	return changed
}

// Watch reports a new skill in a plugin's folder, and a plugin enabled in
// Claude Code's settings.
func TestWatch(t *testing.T) {
	h := newHome(t)
	dir := h.plugin("one@m", "one", true, nil, "a")
	h.plugin("two@m", "two", false, nil, "b")
	h.save()
	src := claudeplugins.Installed(h.home, &claudeplugins.Options{Debounce: 20 * time.Millisecond})
	list(t, src)
	changed := watch(t, src)
	// The watch starts in the background: make changes until one shows.
	skill(t, filepath.Join(dir, "skills", "c"), "c")
	listsAfterChange(t, src, changed, 10*time.Second, "a new skill in a plugin", []string{"one:a", "one:c"})
	h.userEnabled["two@m"] = true
	h.save()
	listsAfterChange(t, src, changed, 10*time.Second, "a plugin enabled in the settings", []string{"one:a", "one:c", "two:b"})
}

// An install, and each enable or disable, is reported by the watch of
// the records' folders, not at the next look of a poll (set to an hour
// here), in a home that had no ~/.claude when the watch began too.
func TestWatchRecordsPromptly(t *testing.T) {
	claudeplugins.SetRecordPoll(t, time.Hour)
	h := newHome(t)
	src := claudeplugins.Installed(h.home, &claudeplugins.Options{Debounce: 20 * time.Millisecond})
	list(t, src)
	changed := watch(t, src)
	<-changed // the watches are set
	h.plugin("one@m", "one", true, nil, "a")
	h.save()
	listsAfterChange(t, src, changed, 15*time.Second, "an install in a fresh home", []string{"one:a"})
	for i, want := range [][]string{nil, {"one:a"}, nil} {
		h.userEnabled["one@m"] = want != nil
		h.save()
		listsAfterChange(t, src, changed, 15*time.Second, fmt.Sprintf("change %d of the settings", i+1), want)
	}
}

// A plugin skill's files are listed with it, so that a file that appears
// or goes changes the listing (and clients are told their resource lists
// changed); an unchanged skill is the same Skill from listing to listing.
func TestPluginSkillsListTheirFiles(t *testing.T) {
	h := newHome(t)
	dir := h.plugin("kit@acme", "kit", true, nil, "one")
	h.save()
	src := claudeplugins.Installed(h.home, nil)
	files := func() (*sources.Skill, []string) {
		t.Helper()
		l := list(t, src)
		if len(l.Skills) != 1 {
			t.Fatalf("skills %v", names(l))
		}
		return l.Skills[0], l.Skills[0].FileList
	}
	first, got := files()
	if got == nil || len(got) != 0 {
		t.Errorf("a skill of no other files lists %#v, want an empty list", got)
	}
	write(t, filepath.Join(dir, "skills", "one", "references", "guide.md"), "guide")
	_, got = files()
	if diff := cmp.Diff([]string{"references/guide.md"}, got); diff != "" {
		t.Errorf("a file added (-want +got):\n%s", diff)
	}
	second, _ := files()
	if again, _ := files(); again != second || second == first {
		t.Errorf("the same Skill should come back while nothing changes, and a new one when a file came")
	}
	os.RemoveAll(filepath.Join(dir, "skills", "one", "references"))
	if _, got = files(); len(got) != 0 {
		t.Errorf("a file removed: still lists %v", got)
	}
}

// While the source is watched, a file list is made again when the watch
// reports a change in the skill's folder, and kept otherwise.
func TestPluginSkillsListTheirFilesWhileWatched(t *testing.T) {
	h := newHome(t)
	dir := h.plugin("kit@acme", "kit", true, nil, "one", "two")
	h.save()
	src := claudeplugins.Installed(h.home, &claudeplugins.Options{Debounce: 20 * time.Millisecond})
	list(t, src)
	changed := watch(t, src)
	<-changed // the watches are set
	first := map[string]*sources.Skill{}
	for _, sk := range list(t, src).Skills {
		first[sk.Ref.String()] = sk
	}
	write(t, filepath.Join(dir, "skills", "one", "references", "guide.md"), "guide")
	deadline := time.Now().Add(10 * time.Second)
	for {
		select {
		case <-changed:
		case <-time.After(100 * time.Millisecond):
		}
		l := list(t, src)
		byName := map[string]*sources.Skill{}
		for _, sk := range l.Skills {
			byName[sk.Ref.String()] = sk
		}
		if slices.Equal(byName["kit:one"].FileList, []string{"references/guide.md"}) {
			if byName["kit:two"] != first["kit:two"] {
				t.Error("the skill whose folder did not change was made again")
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the file added is not listed: %v", byName["kit:one"].FileList)
		}
	}
}

// The marketplace files a listing read outside the plugins' folders are
// followed: Claude Code's copy of a marketplace whose entry lists an
// installed plugin's skills, and the marketplace of an install record
// that names a marketplace's folder. A running server served the old
// skill list until the periodic rescan.
func TestWatchMarketplacesReadOutsideThePlugins(t *testing.T) {
	h := newHome(t)
	market := filepath.Join(h.store, "markets", "team")
	entry := func(skills ...string) {
		writeJSON(t, filepath.Join(market, ".claude-plugin", "marketplace.json"), map[string]any{
			"name":    "team",
			"plugins": []any{map[string]any{"name": "ops", "source": "./ops", "strict": false, "skills": skills}},
		})
	}
	entry("./deploy")
	writeJSON(t, filepath.Join(h.home, ".claude", "plugins", "known_marketplaces.json"), map[string]any{
		"team": map[string]any{"source": map[string]any{"source": "github", "repo": "t/team"}, "installLocation": market},
	})
	dir := h.plugin("ops@team", "-", true, nil)
	skill(t, filepath.Join(dir, "deploy"), "deploy")
	skill(t, filepath.Join(dir, "rollback"), "rollback")

	// A marketplace folder installed as it is: its plugins are in
	// folders below it, its marketplace.json beside them.
	kit := filepath.Join(h.store, "kit-market")
	kitMarket := func(skills ...string) {
		writeJSON(t, filepath.Join(kit, ".claude-plugin", "marketplace.json"), map[string]any{
			"name":    "kits",
			"plugins": []any{map[string]any{"name": "kit", "source": "./plugins/kit", "strict": false, "skills": skills}},
		})
	}
	kitMarket("./one")
	skill(t, filepath.Join(kit, "plugins", "kit", "one"), "one")
	skill(t, filepath.Join(kit, "plugins", "kit", "two"), "two")
	h.records["kit@kits"] = []any{map[string]any{"scope": "user", "installPath": kit}}
	h.userEnabled["kit@kits"] = true
	h.save()

	src := claudeplugins.Installed(h.home, &claudeplugins.Options{Debounce: 20 * time.Millisecond})
	if diff := cmp.Diff([]string{"kit:one", "ops:deploy"}, names(list(t, src))); diff != "" {
		t.Fatalf("before (-want +got):\n%s", diff)
	}
	changed := watch(t, src)
	<-changed // the watches are set
	entry("./deploy", "./rollback")
	listsAfterChange(t, src, changed, 10*time.Second, "a skill added to the marketplace entry", []string{"kit:one", "ops:deploy", "ops:rollback"})
	kitMarket("./one", "./two")
	listsAfterChange(t, src, changed, 10*time.Second, "a skill added to the installed marketplace", []string{"kit:one", "kit:two", "ops:deploy", "ops:rollback"})
	entry("./rollback")
	listsAfterChange(t, src, changed, 10*time.Second, "a skill taken off the marketplace entry", []string{"kit:one", "kit:two", "ops:rollback"})
}

// Of two plugin folders whose plugins' names differ only in case, the
// one named first wins, as for names alike: a capital letter does not
// put a plugin first.
func TestDirsOrderWhateverTheCase(t *testing.T) {
	base := t.TempDir()
	for dir, name := range map[string]string{"first": "kit", "second": "Kit"} {
		writeJSON(t, filepath.Join(base, dir, ".claude-plugin", "plugin.json"), map[string]any{"name": name})
		skill(t, filepath.Join(base, dir, "skills", "pdf"), "pdf")
	}
	for _, order := range [][]string{{"first", "second"}, {"second", "first"}} {
		dirs := []string{filepath.Join(base, order[0]), filepath.Join(base, order[1])}
		snap, err := resolver.New([]sources.Source{claudeplugins.Dirs(dirs, nil)}, nil).Reload(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		m, err := snap.Lookup("kit:pdf")
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dirs[0], "skills", "pdf", "SKILL.md"); m.Skill.Path != want {
			t.Errorf("--plugin-dir %s --plugin-dir %s: kit:pdf is %s, want %s", order[0], order[1], m.Skill.Path, want)
		}
	}
}

// Two enabled plugins of one name from two marketplaces: the skills of
// the one sorted second are shadowed, and the listing says so, naming
// both, rather than calling both served.
func TestPluginsOfOneName(t *testing.T) {
	h := newHome(t)
	h.plugin("kit@alpha", "kit", true, nil, "pdf")
	h.plugin("kit@beta", "kit", true, nil, "pdf")
	h.save()
	l := list(t, claudeplugins.Installed(h.home, nil))
	warned := false
	for _, d := range l.Problems {
		if d.Severity == sources.Warning && strings.Contains(d.Message, "kit@alpha and kit@beta are both named \"kit\"") {
			warned = true
		}
	}
	if !warned {
		t.Errorf("no warning names both plugins: %v", l.Problems)
	}
	for _, p := range l.Packages {
		shadowed := strings.Contains(p.Reason, "shadowed by those of kit@alpha")
		if p.Name == "kit@beta" && !shadowed || p.Name == "kit@alpha" && p.Reason != "" {
			t.Errorf("%s: %s, %q", p.Name, p.State, p.Reason)
		}
	}
}

// A plugin whose folder comes after its install record (a record written
// before the copy is done, a plugin cache filled again) is served as soon
// as the folder is, as any change is: its folder is waited for.
func TestWatchAPluginFolderMadeAfterItsRecord(t *testing.T) {
	claudeplugins.SetRecordPoll(t, time.Hour)
	h := newHome(t)
	dir := h.plugin("alpha@m", "alpha", true, nil, "s1")
	h.save()
	moved := dir + ".later"
	if err := os.Rename(dir, moved); err != nil {
		t.Fatal(err)
	}
	src := claudeplugins.Installed(h.home, &claudeplugins.Options{Debounce: 20 * time.Millisecond})
	if got := names(list(t, src)); len(got) != 0 {
		t.Fatalf("served without its folder: %v", got)
	}
	changed := watch(t, src)
	<-changed // the watches are set
	if err := os.Rename(moved, dir); err != nil {
		t.Fatal(err)
	}
	listsAfterChange(t, src, changed, 15*time.Second, "the plugin's folder made", []string{"alpha:s1"})
}

// A plugin updated to a new version folder is watched there, and its old
// folder, which Claude Code leaves behind, is not watched any longer: its
// changes are not reported, and a long session does not pile up watches.
func TestWatchLetsGoOfAnOldVersion(t *testing.T) {
	claudeplugins.SetRecordPoll(t, time.Hour)
	h := newHome(t)
	old := h.plugin("alpha@m", "alpha", true, nil, "s1")
	h.save()
	src := claudeplugins.Installed(h.home, &claudeplugins.Options{Debounce: 20 * time.Millisecond})
	list(t, src)
	changed := watch(t, src)
	<-changed // the watches are set
	newer := filepath.Join(h.store, "alpha-1.1")
	writeJSON(t, filepath.Join(newer, ".claude-plugin", "plugin.json"), map[string]any{"name": "alpha"})
	skill(t, filepath.Join(newer, "skills", "s2"), "s2")
	h.records["alpha@m"] = []any{map[string]any{"scope": "user", "installPath": newer}}
	h.save()
	listsAfterChange(t, src, changed, 15*time.Second, "the plugin updated", []string{"alpha:s2"})
	skill(t, filepath.Join(newer, "skills", "s3"), "s3")
	listsAfterChange(t, src, changed, 15*time.Second, "a skill added to the new version", []string{"alpha:s2", "alpha:s3"})
	// Drain what is pending, then change the old folder alone.
	select {
	case <-changed:
	case <-time.After(200 * time.Millisecond):
	}
	skill(t, filepath.Join(old, "skills", "s9"), "s9")
	select {
	case <-changed:
		t.Error("a change in the old version's folder was reported: it is still watched")
	case <-time.After(time.Second):
	}
}

// A project that is the home folder (Claude Code run in ~) has the user's
// settings for its own: they are read, and a problem in them told, once.
func TestHomeAsProjectReadsItsSettingsOnce(t *testing.T) {
	h := newHome(t)
	h.plugin("on@m", "on", true, nil, "a")
	h.save()
	write(t, filepath.Join(h.home, ".claude", "settings.json"), "{\"enabledPlugins\": {\"on@m\": true,}}")
	l := list(t, claudeplugins.Installed(h.home, &claudeplugins.Options{ProjectDirs: []string{h.home}}))
	if len(l.Problems) != 1 {
		t.Errorf("problems: %v; want the one of the settings, once", l.Problems)
	}
}

// A plugin whose marketplace entry lists its skills (with "strict": false
// the entry is its whole definition) is served with them: Claude Code
// installs the plugin's folder alone, with no manifest, and reads the list
// from its copy of the marketplace, which known_marketplaces.json names.
// Such plugins were served with no skills, without a word.
func TestSkillsListedByTheMarketplaceEntry(t *testing.T) {
	h := newHome(t)
	market := filepath.Join(h.store, "markets", "team")
	writeJSON(t, filepath.Join(market, ".claude-plugin", "marketplace.json"), map[string]any{
		"name": "team",
		"plugins": []any{
			map[string]any{"name": "other", "source": "./other"},
			map[string]any{"name": "ops", "source": "./ops", "strict": false, "skills": []string{"./deploy", "./rollback"}},
		},
	})
	writeJSON(t, filepath.Join(h.home, ".claude", "plugins", "known_marketplaces.json"), map[string]any{
		"team": map[string]any{"source": map[string]any{"source": "github", "repo": "t/team"}, "installLocation": market},
	})
	dir := h.plugin("ops@team", "-", true, nil)
	skill(t, filepath.Join(dir, "deploy"), "deploy")
	skill(t, filepath.Join(dir, "rollback"), "rollback")
	h.save()
	l := list(t, claudeplugins.Installed(h.home, nil))
	if diff := cmp.Diff([]string{"ops:deploy", "ops:rollback"}, names(l)); diff != "" {
		t.Errorf("(-want +got):\n%s\nproblems %v", diff, l.Problems)
	}
}

// An install record whose path ends in a separator is the same folder:
// the skills its manifest lists are inside it.
func TestInstallPathWithATrailingSeparator(t *testing.T) {
	h := newHome(t)
	dir := h.plugin("kit@acme", "kit", true, nil, "one")
	skill(t, filepath.Join(dir, "extra", "two"), "two")
	writeJSON(t, filepath.Join(dir, ".claude-plugin", "plugin.json"), map[string]any{"name": "kit", "skills": []string{"./extra/two"}})
	h.records["kit@acme"] = []any{map[string]any{"scope": "user", "installPath": dir + string(filepath.Separator)}}
	h.save()
	l := list(t, claudeplugins.Installed(h.home, nil))
	if diff := cmp.Diff([]string{"kit:one", "kit:two"}, names(l)); diff != "" || len(l.Problems) != 0 {
		t.Errorf("(-want +got):\n%s\nproblems %v", diff, problems(l))
	}
	if pkgs := l.Packages; len(pkgs) != 1 || pkgs[0].Path != dir {
		t.Errorf("packages %+v, want one at %s", pkgs, dir)
	}
}

// A marketplace entry of the wrong shape is that plugin's problem, named
// by its index and field: it stopped every plugin of the marketplace, as
// "not valid JSON", naming no field. A manifest's skills of the wrong
// type name the field too.
func TestMarketplaceEntryOfTheWrongShape(t *testing.T) {
	m := t.TempDir()
	writeJSON(t, filepath.Join(m, ".claude-plugin", "marketplace.json"), map[string]any{
		"name": "market",
		"plugins": []any{
			map[string]any{"name": "bad", "source": "./bad", "skills": map[string]any{"x": 1}},
			map[string]any{"name": "good", "source": "./good"},
		},
	})
	skill(t, filepath.Join(m, "bad", "skills", "x"), "x")
	skill(t, filepath.Join(m, "good", "skills", "y"), "y")
	p := t.TempDir()
	writeJSON(t, filepath.Join(p, ".claude-plugin", "plugin.json"), map[string]any{"name": "p", "skills": 5})
	l := list(t, claudeplugins.Dirs([]string{m, p}, nil))
	if diff := cmp.Diff([]string{"good:y"}, names(l)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	want := map[string]string{
		"plugins[0]": `plugin "bad": not what Claude Code reads: "skills" must be a path or a list of paths, not an object`,
		"":           `"skills" must be a path or a list of paths, not a number`,
	}
	for _, d := range l.Problems {
		if w, ok := want[d.Field]; ok && strings.Contains(d.Message, w) {
			delete(want, d.Field)
		}
	}
	if len(want) > 0 {
		t.Errorf("not said: %v\nproblems: %v", want, l.Problems)
	}
}

// A byte-order mark, which an editor shows nothing of, and an absolute
// path listed under skills are said as such: they were "invalid character
// 'ï'" and "lists "/etc", which does not exist".
func TestManifestBOMAndAbsolutePath(t *testing.T) {
	p := t.TempDir()
	write(t, filepath.Join(p, ".claude-plugin", "plugin.json"), "\ufeff{\"name\": \"p\"}")
	l := list(t, claudeplugins.Dirs([]string{p}, nil))
	if len(l.Problems) != 1 || !strings.Contains(l.Problems[0].Message, "byte-order mark") {
		t.Errorf("problems: %v", l.Problems)
	}
	write(t, filepath.Join(p, ".claude-plugin", "plugin.json"), `{"name": "p", "skills": ["./x", 5]}`)
	l = list(t, claudeplugins.Dirs([]string{p}, nil))
	if len(l.Problems) != 1 || !strings.Contains(l.Problems[0].Message, `"skills" must be a path or a list of paths, not a list holding something other than a path`) {
		t.Errorf("problems: %v", l.Problems)
	}
	write(t, filepath.Join(p, ".claude-plugin", "plugin.json"), `{"name": "p", "skills": ["/etc"]}`)
	l = list(t, claudeplugins.Dirs([]string{p}, nil))
	if len(l.Problems) != 1 || !strings.Contains(l.Problems[0].Message, `"/etc" is an absolute path; list a path relative to the plugin folder`) {
		t.Errorf("problems: %v", l.Problems)
	}
}

// Below a repository's root, a person's own settings.local.json at the
// root still wins over the settings.json a package commits: every
// project folder's shared settings are read before any local ones.
func TestLocalSettingsWinOverASubfolders(t *testing.T) {
	h := newHome(t)
	h.plugin("a@m", "a", true, nil, "one")
	h.save()
	root := t.TempDir()
	sub := filepath.Join(root, "pkg")
	write(t, filepath.Join(root, ".claude", "settings.local.json"), `{"enabledPlugins": {"a@m": false}}`)
	write(t, filepath.Join(sub, ".claude", "settings.json"), `{"enabledPlugins": {"a@m": true}}`)
	l := list(t, claudeplugins.Installed(h.home, &claudeplugins.Options{ProjectDirs: []string{root, sub}}))
	if len(l.Skills) != 0 {
		t.Errorf("served %v; the root's local settings disable it", names(l))
	}
}
