package resolver_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

// TestUnavailableSourceLeaves checks that a source whose List fails with
// sources.ErrUnavailable stops being served, unlike one that fails
// otherwise, and comes back when it answers again.
func TestUnavailableSourceLeaves(t *testing.T) {
	ctx := context.Background()
	down := fake("down", "p", "a")
	other := fake("other", "", "b")
	r := resolver.New([]sources.Source{down, other}, nil)
	if _, err := r.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	has := func(name string) bool { _, err := r.Snapshot().Lookup(name); return err == nil }
	if !has("p:a") || !has("b") {
		t.Fatal("first reload: skills missing")
	}

	down.Err = errors.New("flaky")
	r.Reload(ctx)
	if !has("p:a") {
		t.Error("a failing source lost its last good listing")
	}

	down.Err = fmt.Errorf("plugin down for 1m: %w", sources.ErrUnavailable)
	r.Reload(ctx)
	if has("p:a") || !has("b") {
		t.Errorf("unavailable source: p:a served %v, b served %v; want false, true", has("p:a"), has("b"))
	}
	if f := r.Snapshot().Failed(); len(f) != 1 || f[0].Stale {
		t.Errorf("Failed() = %+v; want the source, not stale", f)
	}

	down.Err = nil
	r.Reload(ctx)
	if !has("p:a") {
		t.Error("the source answered again, but its skills did not come back")
	}
}

// TestRefreshOfOthersKeepsFailures checks that a refresh that lists only
// other sources leaves a failing source as its last listing left it: an
// unavailable one still not served, and each failure still reported.
func TestRefreshOfOthersKeepsFailures(t *testing.T) {
	ctx := context.Background()
	down := fake("down", "p", "a")
	flaky := fake("flaky", "q", "c")
	other := fake("other", "", "b")
	r := resolver.New([]sources.Source{down, flaky, other}, nil)
	if _, err := r.Reload(ctx); err != nil {
		t.Fatal(err)
	}
	down.Err = fmt.Errorf("plugin down for 1m: %w", sources.ErrUnavailable)
	flaky.Err = errors.New("flaky")
	if _, err := r.Reload(ctx); err != nil {
		t.Fatal(err)
	}

	other.Skills = append(other.Skills, fake("other", "", "d").Skills...)
	r.MarkChanged(other)
	snap, err := r.Refresh(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sk := range snap.Skills() {
		names = append(names, sk.Ref.String())
	}
	if diff := cmp.Diff([]string{"b", "d", "q:c"}, names); diff != "" {
		t.Errorf("served after a refresh of another source (-want +got):\n%s", diff)
	}
	var failed []string
	for _, f := range snap.Failed() {
		failed = append(failed, fmt.Sprintf("%s stale=%v: %v", f.Source, f.Stale, f.Err))
	}
	want := []string{"down stale=false: plugin down for 1m: source unavailable", "flaky stale=true: flaky"}
	if diff := cmp.Diff(want, failed); diff != "" {
		t.Errorf("failures after a refresh of another source (-want +got):\n%s", diff)
	}
}

// A name in the namespace of a source whose listing failed, with none of
// its skills served, is not found because of it, and the answer says so
// rather than suggest other skills; one served still, from its last good
// listing, is found as usual.
func TestNotFoundInAFailedSource(t *testing.T) {
	ctx := context.Background()
	down := fake("pdfs", "pdfs", "fill")
	other := fake("other", "", "fill-forms")
	r := resolver.New([]sources.Source{down, other}, nil)
	down.Err = fmt.Errorf("the plugin could not start: %w", sources.ErrUnavailable)
	r.Reload(ctx)
	_, err := r.Snapshot().Lookup("pdfs:fill")
	var nf *resolver.NotFoundError
	if !errors.As(err, &nf) || nf.Failed == nil || len(nf.Suggestions) != 0 {
		t.Fatalf("Lookup of a failed source's skill: %#v; want its failure, and no suggestion", err)
	}
	if want := `no skill named "pdfs:fill"; the source pdfs serves no skill now: the plugin could not start`; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("the answer:\n%s\nwant it to begin with\n%s", err, want)
	}
	if _, err := r.Snapshot().Lookup("fill-forms"); err != nil {
		t.Errorf("another source's skill: %v", err)
	}

	down.Err = nil
	r.Reload(ctx)
	down.Err = errors.New("flaky") // the last good listing is served
	r.Reload(ctx)
	if _, err := r.Snapshot().Lookup("pdfs:nothing"); !errors.As(err, &nf) || nf.Failed != nil {
		t.Errorf("a name the stale listing lacks: %v; want it not found as usual", err)
	}
}
