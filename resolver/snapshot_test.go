package resolver_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

func fake(name, ns string, skills ...string) *sourcetest.Fake {
	f := &sourcetest.Fake{SourceName: name, Namespace: ns}
	for _, s := range skills {
		f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: s, Description: "The " + s + " skill from " + name + "."})
	}
	return f
}

func load(t *testing.T, srcs ...sources.Source) *resolver.Snapshot {
	t.Helper()
	snap, err := resolver.New(srcs, nil).Reload(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func TestLookup(t *testing.T) {
	snap := load(t,
		fake("user", "", "pdf", "docx", "Release-Notes"),
		fake("project", "", "pdf", "csv"),
		fake("discord-src", "discord", "access", "configure"),
		fake("telegram-src", "telegram", "access"),
	)
	tests := []struct {
		name       string
		wantSource string // empty when an error is wanted
		wantErr    error
		wantInErr  []string
	}{
		{"pdf", "user", nil, nil},                     // earlier source wins
		{"PDF", "user", nil, nil},                     // case-insensitive
		{" csv ", "project", nil, nil},                // trimmed
		{"release-notes", "user", nil, nil},           // case-insensitive on the skill's own case
		{"project:pdf", "project", nil, nil},          // the shadowed one, by source
		{"discord:access", "discord-src", nil, nil},   // qualified
		{"Telegram:ACCESS", "telegram-src", nil, nil}, // qualified, any case
		{"configure", "discord-src", nil, nil},        // short name of one plugin skill
		{"access", "", sources.ErrAmbiguous, []string{"discord:access", "telegram:access", "full names"}},
		{"pfd", "", sources.ErrNotFound, []string{`"pfd"`, "pdf"}},
		{"acess", "", sources.ErrNotFound, []string{"discord:access", "telegram:access"}},
		{"slack:access", "", sources.ErrNotFound, []string{"discord:access"}},
		{"zzzzzzzz", "", sources.ErrNotFound, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sk, err := snap.Lookup(tt.name)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Lookup: %v", err)
				}
				if sk.Source != tt.wantSource {
					t.Errorf("got %s from %s, want from %s", sk.Ref, sk.Source, tt.wantSource)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			for _, s := range tt.wantInErr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

func TestShadowing(t *testing.T) {
	snap := load(t,
		fake("first", "", "a", "b"),
		fake("second", "", "a", "c"),
		fake("third", "", "a"),
	)
	var served []string
	for _, sk := range snap.Skills() {
		served = append(served, sk.Ref.String()+"@"+sk.Source)
	}
	if diff := cmp.Diff([]string{"a@first", "b@first", "c@second"}, served); diff != "" {
		t.Errorf("served (-want +got):\n%s", diff)
	}
	var shadowed []string
	for _, sh := range snap.Shadowed() {
		shadowed = append(shadowed, sh.Skill.Source+" by "+sh.By.Source+" as "+sh.Alias.String())
	}
	if diff := cmp.Diff([]string{"second by first as second:a", "third by first as third:a"}, shadowed); diff != "" {
		t.Errorf("shadowed (-want +got):\n%s", diff)
	}
	for _, alias := range []string{"second:a", "third:a"} {
		if sk, err := snap.Lookup(alias); err != nil || sk.Source != strings.Split(alias, ":")[0] {
			t.Errorf("Lookup(%q) = %v, %v", alias, sk, err)
		}
	}
}

func TestShadowingWithinOneSource(t *testing.T) {
	snap := load(t, fake("tree", "", "a", "a", "a"))
	var aliases []string
	for _, sh := range snap.Shadowed() {
		aliases = append(aliases, sh.Alias.String())
		if got, err := snap.Lookup(sh.Alias.String()); err != nil || got != sh.Skill {
			t.Errorf("alias %s does not reach its skill: %v", sh.Alias, err)
		}
	}
	if diff := cmp.Diff([]string{"tree:a", "tree:a~2"}, aliases); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestFailingSourceDoesNotStopOthers(t *testing.T) {
	bad := fake("bad", "", "x")
	bad.Err = errors.New("disk on fire")
	snap := load(t, bad, fake("good", "", "y"), panicking{})
	if snap.Len() != 1 || snap.Skills()[0].Ref.Name != "y" {
		t.Errorf("served %v", snap.Skills())
	}
	if len(snap.Failed()) != 2 || !strings.Contains(snap.Failed()[0].Err.Error(), "disk on fire") || !strings.Contains(snap.Failed()[1].Err.Error(), "panicked") {
		t.Errorf("failed = %v", snap.Failed())
	}
}

type panicking struct{}

func (panicking) Name() string { return "panicking" }
func (panicking) List(context.Context) (*sources.Listing, error) {
	panic("bug in a source")
}

func TestReloadSwapsAndNotifies(t *testing.T) {
	src := fake("s", "", "one")
	r := resolver.New([]sources.Source{src}, nil)
	if r.Snapshot() == nil || r.Snapshot().Len() != 0 {
		t.Fatal("a new resolver must have an empty snapshot")
	}
	var swaps []int
	r.OnSwap(func(old, new *resolver.Snapshot) { swaps = append(swaps, new.Len()) })
	first, _ := r.Reload(context.Background())
	src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: "two", Description: "Two."})
	second, _ := r.Reload(context.Background())
	if first.Len() != 1 || second.Len() != 2 || r.Snapshot() != second {
		t.Errorf("snapshots: %d, %d", first.Len(), second.Len())
	}
	if _, err := first.Lookup("two"); err == nil {
		t.Error("an old snapshot changed")
	}
	if diff := cmp.Diff([]int{1, 2}, swaps); diff != "" {
		t.Errorf("swaps (-want +got):\n%s", diff)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Reload(ctx); err == nil || r.Snapshot() != second {
		t.Errorf("a cancelled reload must keep the old snapshot: err %v", err)
	}
}
