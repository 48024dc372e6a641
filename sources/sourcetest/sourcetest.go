// Package sourcetest holds the conformance suite that every
// sources.Source implementation runs, as testing/fstest.TestFS does for file
// systems, and an in-memory Source for tests of the packages above.
package sourcetest

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillmux/skillmux/sources"
)

// Run checks that src keeps the Source contract. It lists src twice and
// expects the same skills in the same order (precedence must not depend on
// scheduling), and checks every skill: a usable name, a description, its
// source's name, an absolute location, readable entry file, valid kind and
// scope, and diagnostics that name a file. It also checks that List honours
// a cancelled context by returning promptly.
func Run(t *testing.T, src sources.Source) {
	t.Helper()
	ctx := context.Background()
	first, err := src.List(ctx)
	if err != nil {
		t.Fatalf("%s: List: %v", src.Name(), err)
	}
	if first == nil {
		t.Fatalf("%s: List returned a nil Listing and no error", src.Name())
	}
	if src.Name() == "" {
		t.Error("Name() is empty")
	}
	for _, sk := range first.Skills {
		checkSkill(t, src, sk)
	}
	for _, d := range first.Problems {
		if d.Path == "" || d.Message == "" {
			t.Errorf("%s: problem %+v names no file or says nothing", src.Name(), d)
		}
	}
	second, err := src.List(ctx)
	if err != nil {
		t.Fatalf("%s: second List: %v", src.Name(), err)
	}
	if a, b := refs(first), refs(second); strings.Join(a, ",") != strings.Join(b, ",") {
		t.Errorf("%s: two listings differ:\n%v\n%v", src.Name(), a, b)
	}
	if len(first.Skills) > 0 && len(second.Skills) > 0 && first.Skills[0] == second.Skills[0] {
		t.Errorf("%s: List returned the same *Skill twice; return fresh values", src.Name())
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if l, err := src.List(cctx); err == nil && l != nil && len(l.Skills) > len(first.Skills) {
		t.Errorf("%s: List with a cancelled context returned more skills than before", src.Name())
	}
}

func refs(l *sources.Listing) []string {
	var out []string
	for _, sk := range l.Skills {
		out = append(out, sk.Ref.String()+"@"+sk.Path)
	}
	return out
}

func checkSkill(t *testing.T, src sources.Source, sk *sources.Skill) {
	t.Helper()
	id := src.Name() + ": " + sk.Ref.String()
	if sk.Ref.Name == "" || strings.ContainsAny(sk.Ref.Name, ":/\\\n") {
		t.Errorf("%s: unusable name %q", id, sk.Ref.Name)
	}
	if strings.TrimSpace(sk.Description) == "" {
		t.Errorf("%s: empty description", id)
	}
	if sk.Source != src.Name() {
		t.Errorf("%s: Source = %q, want %q", id, sk.Source, src.Name())
	}
	if !filepath.IsAbs(sk.Path) && !strings.Contains(sk.Path, "://") {
		t.Errorf("%s: Path %q is neither absolute nor an address", id, sk.Path)
	}
	switch sk.Kind {
	case sources.KindSkill, sources.KindLearned:
	default:
		t.Errorf("%s: Kind %q", id, sk.Kind)
	}
	switch sk.Scope {
	case sources.ScopeUser, sources.ScopeProject, sources.ScopePlugin, sources.ScopeRoot:
	default:
		t.Errorf("%s: Scope %q", id, sk.Scope)
	}
	if fm, err := sk.Fields(); err != nil {
		t.Errorf("%s: front matter does not parse: %v", id, err)
	} else {
		if fm["description"] == nil {
			t.Errorf("%s: front matter has no description", id)
		}
		// The invocation flags are YAML booleans; anything else leaves
		// the defaults (false, true).
		if want := fm["disable-model-invocation"] == true; sk.DisableModelInvocation != want {
			t.Errorf("%s: DisableModelInvocation = %v, want %v", id, sk.DisableModelInvocation, want)
		}
		if want := fm["user-invocable"] != false; sk.UserInvocable != want {
			t.Errorf("%s: UserInvocable = %v, want %v", id, sk.UserInvocable, want)
		}
	}
	if sk.Files == nil {
		t.Errorf("%s: Files is nil", id)
	} else if _, err := fs.ReadFile(sk.Files, sk.EntryFile()); err != nil {
		t.Errorf("%s: cannot read %s: %v", id, sk.EntryFile(), err)
	}
	for _, d := range sk.Diagnostics {
		if d.Path == "" || d.Message == "" {
			t.Errorf("%s: diagnostic %+v names no file or says nothing", id, d)
		}
	}
}
