package main

import (
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
