//go:build unix

package claudeplugins_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/claudeplugins"
)

// TestSpecialFilesAreNotRead checks that a settings file, install records
// or a manifest that is a FIFO or a device (a cloned repository's
// .claude/settings.json linked to /dev/zero or /dev/stdin) is refused as
// such: it used to block the listing, or read until memory ran out.
func TestSpecialFilesAreNotRead(t *testing.T) {
	fifo := func(t *testing.T, path string) {
		os.Remove(path)
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skip("no FIFO here:", err)
		}
	}
	zero := func(t *testing.T, path string) {
		if _, err := os.Stat("/dev/zero"); err != nil {
			t.Skip("no /dev/zero here")
		}
		os.Remove(path)
		if err := os.Symlink("/dev/zero", path); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name    string
		special func(t *testing.T, path string)
		file    func(h *fakeHome, project, plugin string) string
		served  []string // what is served all the same
	}{
		{"user settings, a FIFO", fifo, func(h *fakeHome, _, _ string) string { return filepath.Join(h.home, ".claude", "settings.json") }, nil},
		{"install records, a FIFO", fifo, func(h *fakeHome, _, _ string) string { return claudeplugins.InstalledFile(h.home) }, nil},
		{"project settings, a link to /dev/zero", zero, func(_ *fakeHome, project, _ string) string {
			return filepath.Join(project, ".claude", "settings.json")
		}, []string{"on:a"}},
		{"a plugin's manifest, a FIFO", fifo, func(_ *fakeHome, _, plugin string) string {
			return filepath.Join(plugin, ".claude-plugin", "plugin.json")
		}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHome(t)
			plugin := h.plugin("on@m", "on", true, nil, "a")
			h.save()
			project := t.TempDir()
			write(t, filepath.Join(project, ".claude", "settings.json"), `{}`)
			file := c.file(h, project, plugin)
			c.special(t, file)
			listed := make(chan *sources.Listing, 1)
			go func() {
				l, err := claudeplugins.Installed(h.home, &claudeplugins.Options{ProjectDirs: []string{project}}).List(context.Background())
				if err != nil {
					t.Error(err)
				}
				listed <- l
			}()
			var l *sources.Listing
			select {
			case l = <-listed:
			case <-time.After(20 * time.Second): // a hang, not a slow machine
				t.Fatalf("the listing did not end with %s", c.name)
			}
			if l == nil {
				return
			}
			if got := names(l); strings.Join(got, ",") != strings.Join(c.served, ",") {
				t.Errorf("served %v, want %v", got, c.served)
			}
			said := false
			for _, d := range l.Problems {
				said = said || d.Path == file && strings.Contains(d.Message, "not a regular file") && !strings.Contains(d.Message, file)
			}
			for _, p := range l.Packages {
				said = said || strings.Contains(p.Reason, "not a regular file")
			}
			if !said {
				t.Errorf("nothing says %s is not a regular file: problems %v, packages %+v", file, l.Problems, l.Packages)
			}
		})
	}
}

// Inside a plugin, a SKILL.md that is a link to nothing and a skill.md
// written in other letter cases are said, as in a folder of skills (they
// were left out without a word); and a SKILL.md linked to another skill's
// file, which is refused, does not take the place of that skill reached
// through a link to its folder.
func TestPluginSkillsThatAreNotFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "tools")
	writeJSON(t, filepath.Join(p, ".claude-plugin", "plugin.json"), map[string]any{"name": "tools", "skills": []string{"./shared-fmt", "./listed-dangling", "./listed-lower"}})
	write(t, filepath.Join(p, "listed-lower", "skill.md"), "---\nname: listed-lower\ndescription: x\n---\n")
	skill(t, filepath.Join(p, "skills", "good"), "good")
	write(t, filepath.Join(p, "skills", "lower", "skill.md"), "---\nname: lower\ndescription: x\n---\n")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(p, "skills", "dangling"), 0o755))
	must(os.Symlink(filepath.Join(p, "nowhere.md"), filepath.Join(p, "skills", "dangling", "SKILL.md")))
	skill(t, filepath.Join(p, "shared", "fmt"), "fmt")
	must(os.MkdirAll(filepath.Join(p, "skills", "a-fmt"), 0o755))
	must(os.Symlink(filepath.Join(p, "shared", "fmt", "SKILL.md"), filepath.Join(p, "skills", "a-fmt", "SKILL.md")))
	must(os.Symlink(filepath.Join(p, "shared", "fmt"), filepath.Join(p, "shared-fmt")))
	must(os.MkdirAll(filepath.Join(p, "listed-dangling"), 0o755))
	must(os.Symlink(filepath.Join(p, "nowhere.md"), filepath.Join(p, "listed-dangling", "SKILL.md")))
	l := list(t, claudeplugins.Dirs([]string{p}, nil))
	if got := strings.Join(names(l), ","); got != "tools:fmt,tools:good" {
		t.Errorf("served %s, want tools:fmt,tools:good; problems %v", got, l.Problems)
	}
	said := map[string]bool{}
	for _, d := range l.Problems {
		switch {
		case strings.HasSuffix(d.Path, "/skills/lower/skill.md") && strings.Contains(d.Message, "must be named SKILL.md"):
			said["lower"] = true
		case strings.HasSuffix(d.Path, "/skills/dangling/SKILL.md") && strings.Contains(d.Message, "which does not exist"):
			said["dangling"] = true
		case strings.HasSuffix(d.Path, "/skills/a-fmt/SKILL.md"):
			said["a-fmt"] = true
		case strings.HasSuffix(d.Path, "/listed-dangling/SKILL.md") && strings.Contains(d.Message, "which does not exist"):
			said["listed-dangling"] = true
		case strings.HasSuffix(d.Path, "/listed-lower/skill.md") && strings.Contains(d.Message, "must be named SKILL.md"):
			said["listed-lower"] = true
		}
	}
	if len(said) != 5 {
		t.Errorf("said %v of lower, dangling, a-fmt, listed-dangling and listed-lower: %v", said, l.Problems)
	}
}
