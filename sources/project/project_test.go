package project_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/internal/logtest"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/project"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

var write = sourcetest.WriteFile

func skill(name string) string {
	return "---\nname: " + name + "\ndescription: " + name + " skill.\n---\n"
}

func TestProjectFolders(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	write(t, filepath.Join(base, ".claude/skills/above-repo/SKILL.md"), skill("above-repo")) // outside: never read
	write(t, filepath.Join(repo, ".claude/skills/root-skill/SKILL.md"), skill("root-skill"))
	write(t, filepath.Join(repo, ".agents/skills/note.md"), "---\ndescription: A learned note.\n---\n")
	write(t, filepath.Join(repo, "skills/shared/SKILL.md"), skill("shared"))
	write(t, filepath.Join(repo, "svc/.claude/skills/svc-skill/SKILL.md"), skill("svc-skill"))
	write(t, filepath.Join(repo, "svc/api/.agents/skills/api-skill/SKILL.md"), skill("api-skill"))
	write(t, filepath.Join(repo, "other/.claude/skills/sibling/SKILL.md"), skill("sibling")) // not on the path up

	src := project.New([]string{filepath.Join(repo, "svc", "api")}, nil)
	l, err := src.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sk := range l.Skills {
		got = append(got, sk.Ref.Name+":"+string(sk.Kind))
	}
	want := []string{"api-skill:skill", "svc-skill:skill", "root-skill:skill", "note:learned", "shared:skill"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("nearest first, up to the repository root (-want +got):\n%s", diff)
	}
	sourcetest.Run(t, src)
}

func TestNoRepository(t *testing.T) {
	ws := t.TempDir()
	write(t, filepath.Join(ws, "skills/a/SKILL.md"), skill("a"))
	write(t, filepath.Join(ws, ".claude/skills/b/SKILL.md"), skill("b"))
	src := project.New([]string{ws}, nil)
	l, err := src.List(context.Background())
	if err != nil || len(l.Skills) != 2 {
		t.Fatalf("got %+v %v", l, err)
	}
	sourcetest.Run(t, src)
	sourcetest.Run(t, project.New(nil, nil))
}

func TestSeveralWorkspaces(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	write(t, filepath.Join(a, ".claude/skills/x/SKILL.md"), skill("x"))
	write(t, filepath.Join(b, ".claude/skills/y/SKILL.md"), skill("y"))
	src := project.New([]string{a, b, a}, nil)
	l, err := src.List(context.Background())
	if err != nil || len(l.Skills) != 2 || l.Skills[0].Ref.Name != "x" || l.Skills[1].Ref.Name != "y" {
		t.Fatalf("got %+v %v", l, err)
	}
}

func TestHomeFoldersAreNotAProject(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".git"), 0o755) // a dotfiles repository
	write(t, filepath.Join(home, ".claude/skills/mine/SKILL.md"), skill("mine"))
	write(t, filepath.Join(home, "code/.claude/skills/proj/SKILL.md"), skill("proj"))
	l, err := project.New([]string{filepath.Join(home, "code"), home}, &project.Options{Home: home}).List(context.Background())
	if err != nil || len(l.Skills) != 1 || l.Skills[0].Ref.Name != "proj" {
		t.Errorf("got %+v %v", l, err)
	}
}

func TestEveryClientsProjectFolders(t *testing.T) {
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	write(t, filepath.Join(repo, ".cursor/skills/cursor-skill/SKILL.md"), skill("cursor-skill"))
	write(t, filepath.Join(repo, ".github/skills/copilot-skill/SKILL.md"), skill("copilot-skill"))
	write(t, filepath.Join(repo, ".claude/skills/claude-skill/SKILL.md"), skill("claude-skill"))
	l, err := project.New([]string{repo}, nil).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sk := range l.Skills {
		got = append(got, sk.Ref.Name+"@"+sk.Convention)
	}
	want := []string{"claude-skill@.claude/skills", "cursor-skill@.cursor/skills", "copilot-skill@.github/skills"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// In a monorepo, Claude Code reads the .claude/skills of sub-folders too.
func TestNestedClaudeSkills(t *testing.T) {
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	write(t, filepath.Join(repo, ".claude/skills/top/SKILL.md"), skill("top"))
	write(t, filepath.Join(repo, "packages/web/.claude/skills/web/SKILL.md"), skill("web"))
	write(t, filepath.Join(repo, "packages/api/.claude/skills/api/SKILL.md"), skill("api"))
	write(t, filepath.Join(repo, "node_modules/dep/.claude/skills/dep/SKILL.md"), skill("dep"))     // a dependency's
	write(t, filepath.Join(repo, ".hidden/x/.claude/skills/hidden/SKILL.md"), skill("hidden"))      // under a dot-folder
	write(t, filepath.Join(repo, "vendor/sub/.git/HEAD"), "ref")                                    // another repository
	write(t, filepath.Join(repo, "vendor/sub/.claude/skills/vendored/SKILL.md"), skill("vendored")) // its skills are its own
	src := project.New([]string{repo}, nil)
	l, err := src.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sk := range l.Skills {
		got = append(got, sk.Ref.Name+"@"+sk.Convention)
	}
	sourcetest.Run(t, src)
	want := []string{"top@.claude/skills", "api@.claude/skills", "web@.claude/skills"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}

	// Outside a repository (the home folder, say) nothing below is searched.
	home := t.TempDir()
	write(t, filepath.Join(home, "src/proj/.claude/skills/proj/SKILL.md"), skill("proj"))
	l, err = project.New([]string{home}, nil).List(context.Background())
	if err != nil || len(l.Skills) != 0 {
		t.Errorf("outside a repository: %v %v", names(l), err)
	}
}

func names(l *sources.Listing) []string {
	var out []string
	for _, sk := range l.Skills {
		out = append(out, sk.Ref.String())
	}
	return out
}

// Nested .claude/skills folders are watched: one made after the start, a
// skill edited, added or removed in one, and the folder holding one moved
// away are each a change at once, not at the next periodic rescan.
func TestWatchNested(t *testing.T) {
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	write(t, filepath.Join(repo, "svc/README.md"), "A service.\n")
	src := project.New([]string{repo}, &project.Options{Trees: dirtree.Options{Debounce: 20 * time.Millisecond}})
	defer src.Close()
	settled := make(chan struct{})
	ctx, onChange := sources.WithSettle(context.Background(), func() { close(settled) })
	ctx, cancel := context.WithCancel(ctx)
	changes := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() {
		done <- src.Watch(ctx, func() {
			onChange()
			select {
			case changes <- struct{}{}:
			default:
			}
		})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Watch: %v", err)
		}
	}()
	hang := time.After(10 * time.Second) // only to report a hang
	select {
	case <-settled: // every watch is set
	case <-hang:
		t.Fatal("Watch did not settle")
	}
	select {
	case <-changes: // the first round's
	default:
	}
	step := func(what, want string, change func()) {
		t.Helper()
		change()
		select {
		case <-changes:
		case <-time.After(10 * time.Second): // only to report a hang
			t.Fatalf("%s: no change reported", what)
		}
		l, err := src.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, sk := range l.Skills {
			got = append(got, sk.Ref.Name+"="+sk.Description)
		}
		if g := strings.Join(got, " "); g != want {
			t.Errorf("%s: listed %q, want %q", what, g, want)
		}
	}
	nested := filepath.Join(repo, "svc/pkg/.claude/skills")
	step("new folder", "a=a skill.", func() { write(t, filepath.Join(nested, "a/SKILL.md"), skill("a")) })
	step("edit", "a=Edited.", func() {
		write(t, filepath.Join(nested, "a/SKILL.md"), "---\nname: a\ndescription: Edited.\n---\n")
	})
	step("add", "a=Edited. b=b skill.", func() { write(t, filepath.Join(nested, "b/SKILL.md"), skill("b")) })
	step("remove", "b=b skill.", func() { must(t, os.RemoveAll(filepath.Join(nested, "a"))) })
	step("move away", "", func() { must(t, os.Rename(filepath.Join(repo, "svc"), filepath.Join(t.TempDir(), "svc"))) })
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A repository with more folders than the nested watcher takes warns at
// no level a person sees by default: the search's own bound says what is
// missed, and such a repository would warn at every start.
func TestWatchNestedLimitIsQuiet(t *testing.T) {
	repo := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(repo, ".git"), 0o755))
	for i := range project.NestedMaxDirs + 100 {
		must(t, os.MkdirAll(filepath.Join(repo, "vendor", fmt.Sprintf("d%03d", i/100), fmt.Sprintf("e%02d", i%100)), 0o755))
	}
	var logs logtest.Buffer
	src := project.New([]string{repo}, &project.Options{Trees: dirtree.Options{Logger: logs.Logger(slog.LevelInfo)}})
	defer src.Close()
	settled := make(chan struct{})
	ctx, onChange := sources.WithSettle(context.Background(), func() { close(settled) })
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- src.Watch(ctx, onChange) }()
	select {
	case <-settled:
	case <-time.After(10 * time.Second): // only to report a hang
		t.Fatal("Watch did not settle")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Watch: %v", err)
	}
	if out := logs.String(); strings.Contains(out, "level=WARN") {
		t.Errorf("warned:\n%s", out)
	}
}

// The skills of the nested .claude/skills folders of a monorepo come
// before those nested in other skills' folders, of any of the project's
// folders: a skill nested in another skill's never takes a name from one
// that is not (see sources.Listing.Nested).
func TestNestedSkillsComeLastInAProject(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	sourcetest.WriteFile(t, filepath.Join(repo, ".claude/skills/outer/SKILL.md"), skill("outer"))
	sourcetest.WriteFile(t, filepath.Join(repo, ".claude/skills/outer/flip/SKILL.md"), skill("flip"))
	sourcetest.WriteFile(t, filepath.Join(repo, "packages/web/.claude/skills/flip/SKILL.md"), skill("flip"))
	src := project.New([]string{repo}, nil)
	l, err := src.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var nested []string
	for _, sk := range l.Skills[len(l.Skills)-l.NestedCount():] {
		nested = append(nested, sk.Path)
	}
	want := filepath.Join(repo, ".claude/skills/outer/flip/SKILL.md")
	if len(nested) != 1 || nested[0] != want {
		t.Errorf("the listing's nested skills are %q; want [%s]", nested, want)
	}
	snap := resolver.Build([]resolver.Input{{Source: "project", Listing: l}})
	if m, err := snap.Lookup("flip"); err != nil || m.Skill.Path == want {
		t.Errorf("flip loads %v (%v); want the one not nested, in packages/web", m.Skill.Path, err)
	}
}
