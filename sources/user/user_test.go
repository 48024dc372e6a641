package user_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
	"github.com/skillmux/skillmux/sources/user"
)

var write = sourcetest.WriteFile

func skill(name string) string {
	return "---\nname: " + name + "\ndescription: " + name + " skill.\n---\n"
}

func TestUserFolders(t *testing.T) {
	home := t.TempDir()
	write(t, filepath.Join(home, ".claude/skills/pdf/SKILL.md"), skill("pdf"))
	write(t, filepath.Join(home, ".agents/skills/pdf/SKILL.md"), skill("pdf")) // shadowed later by precedence
	write(t, filepath.Join(home, ".agents/skills/standup.md"), "---\ndescription: How our stand-up runs.\n---\n")
	write(t, filepath.Join(home, ".codex/skills/.system/codex-builtin/SKILL.md"), skill("codex-builtin")) // Codex's own
	write(t, filepath.Join(home, ".codex/skills/.curated/codex-mine/SKILL.md"), skill("codex-mine"))
	write(t, filepath.Join(home, ".cursor/skills/cursor-skill/SKILL.md"), skill("cursor-skill"))
	write(t, filepath.Join(home, ".copilot/skills/copilot-skill/SKILL.md"), skill("copilot-skill"))
	admin := t.TempDir()
	write(t, filepath.Join(admin, "admin-skill/SKILL.md"), skill("admin-skill"))
	src := user.New(home, &user.Options{AdminDir: admin})
	l, err := src.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sk := range l.Skills {
		got = append(got, sk.Ref.String()+":"+string(sk.Kind)+":"+string(sk.Scope)+":"+sk.Convention)
	}
	want := []string{
		"pdf:skill:user:~/.claude/skills",
		"pdf:skill:user:~/.agents/skills",
		"standup:learned:user:~/.agents/skills",
		"codex-mine:skill:user:~/.codex/skills",
		"cursor-skill:skill:user:~/.cursor/skills",
		"copilot-skill:skill:user:~/.copilot/skills",
		"admin-skill:skill:user:/etc/codex/skills",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if l.Skills[0].Path != filepath.Join(home, ".claude/skills/pdf/SKILL.md") {
		t.Errorf("~/.claude/skills must come first: %s", l.Skills[0].Path)
	}
	sourcetest.Run(t, src)
}

func TestCodexHome(t *testing.T) {
	home, codex := t.TempDir(), t.TempDir()
	write(t, filepath.Join(codex, "skills/c/SKILL.md"), skill("c"))
	write(t, filepath.Join(home, ".codex/skills/ignored/SKILL.md"), skill("ignored"))
	l, err := user.New(home, &user.Options{CodexHome: codex}).List(context.Background())
	if err != nil || len(l.Skills) != 1 || l.Skills[0].Ref.Name != "c" {
		t.Errorf("got %v %v", l, err)
	}
}

func TestEmptyHomeIsQuiet(t *testing.T) {
	src := user.New(t.TempDir(), &user.Options{AdminDir: filepath.Join(t.TempDir(), "none")})
	l, err := src.List(context.Background())
	if err != nil || len(l.Skills) != 0 || len(l.Problems) != 0 {
		t.Errorf("got %+v %v", l, err)
	}
	sourcetest.Run(t, src)
	var _ sources.Source = user.New("", nil)
}
