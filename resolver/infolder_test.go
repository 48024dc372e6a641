package resolver_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// A name that reaches no skill, but names the folder of one that its front
// matter names otherwise (the commonest hand-written mistake, or a folder
// renamed), says which skill the folder holds; and a folder whose
// SKILL.md is written in other letter cases says so, as the warning the
// model never sees does.
func TestLookupSaysWhatAFolderHolds(t *testing.T) {
	dir := t.TempDir()
	sourcetest.WriteFile(t, filepath.Join(dir, "pdf-forms", "SKILL.md"), "---\nname: fill-pdf\ndescription: Fill PDF forms.\n---\n")
	sourcetest.WriteFile(t, filepath.Join(dir, "lower", "skill.md"), "---\nname: lower\ndescription: Lower.\n---\n")
	snap := load(t, dirtree.New(dir, nil))
	for name, want := range map[string]string{
		"pdf-forms": `no skill named "pdf-forms"; the folder pdf-forms holds the skill "fill-pdf", as its front matter names it: load it by that name`,
		"lower":     `no skill named "lower"; ` + filepath.Join(dir, "lower", "skill.md") + ` was not loaded: found skill.md; the file must be named SKILL.md, in capitals, for its folder to be a skill`,
		// Another namespace's folder is not what was meant.
		"tool:pdf-forms": `no skill named "tool:pdf-forms"`,
	} {
		_, err := snap.Lookup(name)
		if !errors.Is(err, sources.ErrNotFound) || err.Error() != want {
			t.Errorf("Lookup(%q) = %v\nwant %s", name, err, want)
		}
	}
	if _, err := snap.Lookup("fill-pdf"); err != nil {
		t.Errorf("the skill itself: %v", err)
	}
}

// A folder two sources reach (a --root that is also the project's
// folder) has its problems told once: every line was printed twice.
func TestProblemsOfAFolderReachedTwiceToldOnce(t *testing.T) {
	dir := t.TempDir()
	sourcetest.WriteFile(t, filepath.Join(dir, "broken", "SKILL.md"), "---\nname: broken\n---\n")
	snap := load(t, dirtree.New(dir, &dirtree.Options{Name: "one"}), dirtree.New(dir, &dirtree.Options{Name: "two"}))
	if n := len(snap.Problems()); n != 1 {
		t.Errorf("%d problems, want the broken SKILL.md's once: %v", n, snap.Problems())
	}
}

// A skill of a plugin that is installed but not served (disabled, its
// folder gone) is said to be so, and no other plugin's skill of the same
// name is offered in its place: a model that followed "did you mean
// discord:access?" for telegram:access loaded another plugin's skill.
func TestLookupOfAnUnservedPluginSaysWhy(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "claude-plugins", Namespace: "discord",
		Skills: []sourcetest.FakeSkill{{Name: "access", Description: "Discord access."}},
		Packages: []sources.Package{
			{Name: "discord@m", Source: "claude-plugins", Namespace: "discord", State: sources.PackageServed, Skills: 1},
			{Name: "telegram@m", Source: "claude-plugins", State: sources.PackageDisabled, Reason: "enabledPlugins in Claude Code's settings does not list it"},
		}}
	snap := load(t, src)
	_, err := snap.Lookup("telegram:access")
	want := `no skill named "telegram:access"; the plugin telegram@m is disabled: enabledPlugins in Claude Code's settings does not list it`
	if !errors.Is(err, sources.ErrNotFound) || err.Error() != want {
		t.Errorf("Lookup(telegram:access) = %v\nwant %s", err, want)
	}
	if _, err := snap.Lookup("discord:acces"); err == nil || !strings.Contains(err.Error(), "did you mean discord:access?") {
		t.Errorf("a served plugin's typo: %v", err)
	}
	// A namespace a folder serves is served, whatever plugin of its name
	// is disabled: its names are suggested.
	folder := &sourcetest.Fake{SourceName: "team", Namespace: "telegram", Skills: []sourcetest.FakeSkill{{Name: "other", Description: "Other."}}}
	snap = load(t, src, folder)
	if _, err := snap.Lookup("telegram:othr"); err == nil || !strings.Contains(err.Error(), "did you mean telegram:other?") {
		t.Errorf("a namespace a folder serves: %v", err)
	}
	// The state is said in words.
	src.Packages[1].State, src.Packages[1].Reason = sources.PackageNotInstalled, "it has no install record"
	if _, err := load(t, src).Lookup("telegram:access"); err == nil || !strings.Contains(err.Error(), "the plugin telegram@m is enabled but not installed: it has no install record") {
		t.Errorf("not installed: %v", err)
	}
}
