package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/config"
	"github.com/skillmux/skillmux/plugins"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/server"
)

// The configuration checks profile and tool names, visibility values and
// channels against lists of its own; they must be the server's and the
// resolver's.
func TestConfigKnowsTheTools(t *testing.T) {
	if diff := cmp.Diff(server.Profiles(), config.ToolProfiles); diff != "" {
		t.Errorf("profiles: server (-) and config (+) differ:\n%s", diff)
	}
	if diff := cmp.Diff(server.ToolNames(), config.ToolNames); diff != "" {
		t.Errorf("tool names: server (-) and config (+) differ:\n%s", diff)
	}
	if diff := cmp.Diff(config.VisibilityValues, resolver.VisibilityValues()); diff != "" {
		t.Errorf("visibility values (-config +resolver):\n%s", diff)
	}
	if diff := cmp.Diff(config.Channels, resolver.Channels); diff != "" {
		t.Errorf("channels (-config +resolver):\n%s", diff)
	}
	if config.DefaultPluginTimeout != plugins.DefaultTimeout || config.DefaultPluginGrace != plugins.DefaultGrace {
		t.Errorf("plugin defaults: config says timeout %v, grace %v; plugins says %v, %v",
			config.DefaultPluginTimeout, config.DefaultPluginGrace, plugins.DefaultTimeout, plugins.DefaultGrace)
	}
}

// TestServeHelpAgreesWithTheReadme: serve --help names every skill folder
// of the README's table of built-in sources, and the default profile's
// tools in the README's order.
func TestServeHelpAgreesWithTheReadme(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	help, _, err := runCLI(t, "", "serve", "--help")
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(help), " ")
	for _, row := range []string{"| `user` |", "| `project` |", "| `default` |"} {
		i := strings.Index(string(readme), row)
		if i < 0 {
			t.Fatalf("the README has no row %q", row)
		}
		line, _, _ := strings.Cut(string(readme[i+len(row):]), "\n")
		var names []string
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(line, -1) {
			names = append(names, m[1])
		}
		if row == "| `default` |" {
			if want := "default: " + strings.Join(names, ", "); !strings.Contains(flat, want) {
				t.Errorf("serve --help lacks %q:\n%s", want, help)
			}
			continue
		}
		for _, n := range names {
			if !strings.Contains(flat, n) {
				t.Errorf("serve --help does not name %s, which the README's %s row does:\n%s", n, row, help)
			}
		}
	}
}
