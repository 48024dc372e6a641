package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillmux/skillmux/plugins"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// envTestPlugin makes the test binary a source plugin (testPlugin), when
// a configuration starts it with this variable in its env.
const envTestPlugin = "SKILLMUX_CMD_TEST_PLUGIN"

// envTestPluginWait, set to a path, makes testPlugin wait for a file
// there before its handshake: a plugin slow to start.
const envTestPluginWait = "SKILLMUX_CMD_TEST_PLUGIN_WAIT"

// testPlugin serves one skill as a source plugin, and says so on stderr
// first, as a plugin logs.
func testPlugin() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	if wait := os.Getenv(envTestPluginWait); wait != "" {
		for {
			if _, err := os.Stat(wait); err == nil || ctx.Err() != nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	fmt.Fprintln(os.Stderr, "test plugin: serving one skill")
	src := &sourcetest.Fake{SourceName: "inner", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "One skill."}}}
	if err := plugins.Serve(ctx, src, nil); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// TestListShowsPluginLogs lists a configuration with a source plugin: with
// --log-level, the plugin's start and the lines it writes to its stderr
// are logged on stderr, tagged with its name, as they are under serve;
// without it, nothing is logged; and never on stdout.
func TestListShowsPluginLogs(t *testing.T) {
	work := t.TempDir()
	cfg := filepath.Join(work, "plugin.yaml")
	writeFile(t, cfg, fmt.Sprintf("sources:\n  - type: plugin\n    name: tp\n    command: [%q]\n    env: {%s: \"1\"}\n", os.Args[0], envTestPlugin))
	environ := isolatedEnv(t)
	for _, tc := range []struct {
		level string
		want  []string // in stderr, each a line with plugin=tp
	}{
		{"debug", []string{"test plugin: serving one skill", "source plugin started"}},
		{"info", []string{"test plugin: serving one skill", "source plugin started"}},
		{"", nil},
	} {
		t.Run("log-level "+tc.level, func(t *testing.T) {
			args := []string{"list", "--all", "--no-builtin", "--config", cfg}
			if tc.level != "" {
				args = append(args, "--log-level", tc.level)
			}
			stdout, stderr, err := runIn(t, environ, work, args...)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(stdout, "tp:one") {
				t.Errorf("the plugin's skill is not listed:\n%s", stdout)
			}
			if strings.Contains(stdout, "level=") || strings.Contains(stdout, "test plugin:") {
				t.Errorf("logs on stdout:\n%s", stdout)
			}
			for _, want := range tc.want {
				found := false
				for line := range strings.Lines(stderr) {
					found = found || strings.Contains(line, want) && strings.Contains(line, "plugin=tp")
				}
				if !found {
					t.Errorf("stderr has no line %q tagged plugin=tp:\n%s", want, stderr)
				}
			}
			if tc.want == nil && stderr != "" {
				t.Errorf("logs without --log-level:\n%s", stderr)
			}
		})
	}
}

// A plugin source's skills take its name as their namespace, also when the
// name had to change: a plugin named project is project-2, and serves
// project-2:one, not the built-in project source's project:one. One given
// a namespace of its own keeps it.
func TestRenamedPluginTakesItsNewNamespace(t *testing.T) {
	work := t.TempDir()
	cfg := filepath.Join(work, "plugin.yaml")
	writeFile(t, cfg, fmt.Sprintf("sources:\n  - type: plugin\n    name: project\n    command: [%q]\n    env: {%s: \"1\"}\n  - type: plugin\n    name: user\n    namespace: mine\n    command: [%q]\n    env: {%s: \"1\"}\n", os.Args[0], envTestPlugin, os.Args[0], envTestPlugin))
	stdout, _, err := runIn(t, isolatedEnv(t), work, "list", "--config", cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"project-2:one  project-2", "mine:one       user-2"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("list lacks %q:\n%s", want, stdout)
		}
	}
}
