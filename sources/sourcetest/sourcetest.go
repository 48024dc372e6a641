// Package sourcetest holds the conformance suite that every
// sources.Source implementation runs, as testing/fstest.TestFS does for file
// systems, and an in-memory Source for tests of the packages above.
package sourcetest

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/skillmux/skillmux/sources"
)

// Run checks that src keeps the Source contract. It lists src twice and
// expects the same skills in the same order (precedence must not depend on
// scheduling), and checks every skill: a usable name, a description, its
// source's name, an absolute location, readable entry file, valid kind and
// scope, and diagnostics that name a file. It also checks that List
// honours a context that is already done: called with a cancelled context
// (and with one past its deadline), List returns promptly a nil Listing
// and an error that wraps ctx.Err(), so errors.Is(err, context.Canceled)
// (or context.DeadlineExceeded) holds; one that has not returned within
// ten seconds is reported as a hang.
func Run(t testing.TB, src sources.Source) {
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
	// Every Skill is immutable once returned: keep copies to compare.
	before := make([]sources.Skill, len(first.Skills))
	for i, sk := range first.Skills {
		before[i] = *sk
	}
	second, err := src.List(ctx)
	if err != nil {
		t.Fatalf("%s: second List: %v", src.Name(), err)
	}
	if a, b := refs(first), refs(second); strings.Join(a, ",") != strings.Join(b, ",") {
		t.Errorf("%s: two listings differ:\n%v\n%v", src.Name(), a, b)
	}
	for i, sk := range first.Skills {
		if !sameSkill(before[i], *sk) {
			t.Errorf("%s: a second List changed the Skill %s the first returned; return a new *Skill instead", src.Name(), sk.Ref)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	checkDone(t, src, cancelled, "a cancelled context", context.Canceled)
	expired, cancel := context.WithDeadline(ctx, time.Unix(0, 0))
	defer cancel()
	checkDone(t, src, expired, "a context past its deadline", context.DeadlineExceeded)
}

// hangTimeout bounds the wait for a List called with a context that is
// already done. It only tells a hang from an answer: such a List should
// return before doing any work.
const hangTimeout = 10 * time.Second

// checkDone calls List with ctx, which is already done with want, and
// checks the answer.
func checkDone(t testing.TB, src sources.Source, ctx context.Context, what string, want error) {
	t.Helper()
	type answer struct {
		l   *sources.Listing
		err error
	}
	done := make(chan answer, 1)
	go func() {
		l, err := src.List(ctx)
		done <- answer{l, err}
	}()
	select {
	case a := <-done:
		if !errors.Is(a.err, want) {
			t.Errorf("%s: List with %s returned error %v, want one that wraps %v", src.Name(), what, a.err, want)
		}
		if a.l != nil {
			t.Errorf("%s: List with %s returned a Listing of %d skills; want nil with the error", src.Name(), what, len(a.l.Skills))
		}
	case <-time.After(hangTimeout):
		t.Errorf("%s: List with %s has not returned after %v", src.Name(), what, hangTimeout)
	}
}

func refs(l *sources.Listing) []string {
	var out []string
	for _, sk := range l.Skills {
		out = append(out, sk.Ref.String()+"@"+sk.Path)
	}
	return out
}

func checkSkill(t testing.TB, src sources.Source, sk *sources.Skill) {
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
	case sources.ScopeUser, sources.ScopeProject, sources.ScopePlugin, sources.ScopeRoot, sources.ScopeSourcePlugin:
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

// sameSkill compares two Skill values field by field, but for the file
// system, which need not be comparable.
func sameSkill(a, b sources.Skill) bool {
	return a.Ref == b.Ref && a.Description == b.Description && string(a.FrontMatter) == string(b.FrontMatter) &&
		a.Path == b.Path && a.Dir == b.Dir && a.Source == b.Source && a.Scope == b.Scope && a.Kind == b.Kind &&
		a.Convention == b.Convention && len(a.Diagnostics) == len(b.Diagnostics) &&
		slices.Equal(a.FileList, b.FileList) && a.FileListTruncated == b.FileListTruncated
}
