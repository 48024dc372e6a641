package config_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/config"
)

func TestPluginSource(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.repo, ".skillmux.yaml"), `sources:
  - type: plugin
    name: zipped
    command: [./bin/zipped, --dir, ~/bundles]
    env: {TOKEN: "abc", LEVEL: "debug"}
    timeout: 2s
  - type: plugin
    name: Team.Registry
    namespace: ""
    command: [python3, plugin.py]
    grace: 0
`)
	c, err := f.load(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := c.Sources
	want := []config.Source{
		{Type: "plugin", Name: "zipped", Namespace: "zipped", Command: []string{filepath.Join(f.repo, "bin", "zipped"), "--dir", "~/bundles"},
			Env: map[string]string{"TOKEN": "abc", "LEVEL": "debug"}, Timeout: 2 * time.Second, Grace: config.DefaultPluginGrace},
		{Type: "plugin", Name: "Team.Registry", Namespace: "", Command: []string{"python3", "plugin.py"},
			Timeout: config.DefaultPluginTimeout, Grace: 0},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sources (-want +got):\n%s", diff)
	}
	if d := c.Describe(); !strings.Contains(d, "# env: [LEVEL, TOKEN] (values not shown)") || strings.Contains(d, "abc") {
		t.Errorf("Describe shows the environment's values or not its keys:\n%s", d)
	}
}

func TestPluginSourceErrors(t *testing.T) {
	f := newFixture(t)
	write(t, filepath.Join(f.repo, ".skillmux.yaml"), `sources:
  - type: plugin
    command: [x]
  - type: plugin
    name: p2
  - type: plugin
    name: p3
    command: []
    path: /x
    env: {1BAD: "x", PORT: 8080}
    timeout: 1ms
    grace: forever
  - type: plugin
    name: UPPER
    command: [x]
  - type: dir
    path: /x
    command: [x]
    namespace: ""
`)
	_, err := f.load(t, nil)
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range []string{
		":2: sources[0].name: a plugin source needs a name",
		":4: sources[1].command: a plugin source needs command",
		":8: sources[2].command: must name the program to run",
		":9: sources[2].path: a plugin source takes no path",
		`:10: sources[2].env.1BAD: "1BAD" is not an environment variable name`,
		":10: sources[2].env.PORT: must be a string, got \"8080\" (quote it)",
		":11: sources[2].timeout: \"1ms\" is out of range",
		":12: sources[2].grace: \"forever\" is not a duration",
		":14: sources[3].name: \"UPPER\" qualifies the plugin's skills",
		":18: sources[4].command: only plugin sources take command",
		":19: sources[4].namespace: must not be empty",
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error lacks %q:\n%v", w, err)
		}
	}
}
