package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/config"
)

// The catalog's and the tools' keys: pins, visibility (patterns with dots
// and colons stay whole), channel, profile, enable, disable.
func TestCatalogAndTools(t *testing.T) {
	f := newFixture(t)
	c, err := f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Catalog.Channel != config.ChannelBoth || c.Tools.Profile != "default" || c.Catalog.Visibility != nil {
		t.Errorf("defaults: %+v %+v", c.Catalog, c.Tools)
	}
	f.userFile(t, "catalog:\n  visibility:\n    noisy: off\n")
	write(t, filepath.Join(f.repo, config.WorkspaceFileName), `catalog:
  pin: ["release-*", "team:deploy"]
  visibility:
    "example-skills:*": name-only
    my.plugin:access: off
    pdf: on
  channel: tool
tools:
  profile: sk
  enable: [skill]
  disable: [skills.search]
`)
	c, err = f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := config.Catalog{
		Budget: 2048,
		Pin:    []string{"release-*", "team:deploy"},
		// The workspace's rules replace the user's, as lists do.
		Visibility: []config.VisibilityRule{{"example-skills:*", "name-only"}, {"my.plugin:access", "off"}, {"pdf", "on"}},
		Channel:    config.ChannelTool,
	}
	if diff := cmp.Diff(want, c.Catalog); diff != "" {
		t.Errorf("catalog (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(config.Tools{Profile: "sk", Enable: []string{"skill"}, Disable: []string{"skills.search"}}, c.Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	d := c.Describe()
	for _, line := range []string{"example-skills:*: name-only", "my.plugin:access: off", "channel: tool", "profile: sk", "enable: [skill]"} {
		if !strings.Contains(d, line) {
			t.Errorf("Describe lacks %q:\n%s", line, d)
		}
	}
	c, err = f.load(t, []string{"SKILLMUX_TOOLS__PROFILE=catalog", "SKILLMUX_CATALOG__CHANNEL=instructions"})
	if err != nil || c.Tools.Profile != "catalog" || c.Catalog.Channel != config.ChannelInstructions {
		t.Errorf("from the environment: %+v %+v %v", c.Tools, c.Catalog, err)
	}
}

// Every wrong value is named with its file, line and key, and the values
// that would be right.
func TestCatalogAndToolsErrors(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.repo, config.WorkspaceFileName), `catalog:
  pin: ["[a-"]
  visibility:
    pdf: hidden
    "[x": off
    ok: [on]
  channel: everywhere
tools:
  profile: skill-jak
  enable: [skills_serch]
  disable: skill
`)
	_, err := f.load(t, nil)
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{
		`.skillmux.yaml:2: catalog.pin[0]: "[a-" is not a valid pattern`,
		`.skillmux.yaml:4: catalog.visibility.pdf: "hidden" is not a visibility; use on, name-only or off`,
		`.skillmux.yaml:5: catalog.visibility.[x: "[x" is not a valid pattern`,
		`.skillmux.yaml:6: catalog.visibility.ok: must be a string, got a list`,
		`.skillmux.yaml:7: catalog.channel: "everywhere" is not a channel; use both, tool or instructions`,
		`.skillmux.yaml:9: tools.profile: "skill-jak" is not a tool profile (did you mean "skill-jack"?); use all, catalog, default, sk, skill-jack or skills-mcp`,
		`.skillmux.yaml:10: tools.enable[0]: "skills_serch" is not a tool (did you mean "skills_search"?)`,
		`.skillmux.yaml:11: tools.disable: must be a list of strings`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks\n%s\nin\n%v", want, err)
		}
	}
	_, err = f.load(t, []string{"SKILLMUX_TOOLS__PROFILE=nope"})
	if err == nil || !strings.Contains(err.Error(), `SKILLMUX_TOOLS__PROFILE: tools.profile: "nope" is not a tool profile`) {
		t.Errorf("environment: %v", err)
	}
}

// A variable set empty, as a shell script may leave one, is unset, even
// one that would be refused set (a list, a misspelled name).
func TestEmptyVariableIsUnset(t *testing.T) {
	c, err := newFixture(t).load(t, []string{"SKILLMUX_TOOLS__PROFILE=", "SKILLMUX_CATALOG__BUDGET= ", "SKILLMUX_TRUST=", "SKILLMUX_SOURCES=", "SKILLMUX_LOG_LEVEL="})
	if err != nil || c.Tools.Profile != "default" || c.Catalog.Budget != 2048 {
		t.Fatalf("%v: profile %q, budget %d", err, c.Tools.Profile, c.Catalog.Budget)
	}
}
