package sources_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

func skillNames(t *testing.T, src sources.Source) []string {
	t.Helper()
	l, err := src.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, sk := range l.Skills {
		out = append(out, sk.Ref.String())
	}
	return out
}

func TestConcat(t *testing.T) {
	a := &sourcetest.Fake{SourceName: "x", Skills: []sourcetest.FakeSkill{{Name: "a", Description: "A"}}}
	bad := &sourcetest.Fake{SourceName: "x", Err: errors.New("unreadable")}
	b := &sourcetest.Fake{SourceName: "x", Skills: []sourcetest.FakeSkill{{Name: "b", Description: "B"}}}
	c := sources.Concat("x", a, bad, b)
	if diff := cmp.Diff([]string{"a", "b"}, skillNames(t, c)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	l, _ := c.List(context.Background())
	if len(l.Problems) != 1 || l.Problems[0].Message != "unreadable" {
		t.Errorf("a failing part must be reported: %v", l.Problems)
	}
	sourcetest.Run(t, sources.Concat("x", a, b))
	sourcetest.Run(t, sources.Concat("empty"))
}

// A part that fails after it listed is served as it last listed, with
// the failure: a folder closed for a moment (chmod, a remount) does not
// take its skills away. One that never listed serves nothing.
func TestConcatKeepsAFailingPartsLastListing(t *testing.T) {
	a := &sourcetest.Fake{SourceName: "x", Skills: []sourcetest.FakeSkill{{Name: "a", Description: "A"}}}
	b := &sourcetest.Fake{SourceName: "x", Skills: []sourcetest.FakeSkill{{Name: "b", Description: "B"}}}
	never := &sourcetest.Fake{SourceName: "x", Err: errors.New("never listed")}
	c := sources.Concat("x", a, b, never)
	if diff := cmp.Diff([]string{"a", "b"}, skillNames(t, c)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	b.Err = errors.New("scan: permission denied")
	l, err := c.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got, probs []string
	for _, sk := range l.Skills {
		got = append(got, sk.Ref.String())
	}
	for _, p := range l.Problems {
		probs = append(probs, p.Message)
	}
	if diff := cmp.Diff([]string{"a", "b"}, got); diff != "" {
		t.Errorf("a part failing after it listed (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"scan: permission denied; its last listing is served", "never listed"}, probs); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	b.Err = sources.ErrUnavailable
	if diff := cmp.Diff([]string{"a"}, skillNames(t, c)); diff != "" {
		t.Errorf("a part unavailable serves nothing (-want +got):\n%s", diff)
	}
}

func TestFilter(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "p", Namespace: "plug", Skills: []sourcetest.FakeSkill{
		{Name: "pdf", Description: "d"}, {Name: "docx", Description: "d"}, {Name: "pdf-forms", Description: "d"},
	}}
	tests := []struct {
		include, exclude, want []string
	}{
		{nil, nil, []string{"plug:pdf", "plug:docx", "plug:pdf-forms"}},
		{[]string{"pdf*"}, nil, []string{"plug:pdf", "plug:pdf-forms"}},
		{[]string{"plug:*"}, []string{"*-forms"}, []string{"plug:pdf", "plug:docx"}},
		{nil, []string{"docx"}, []string{"plug:pdf", "plug:pdf-forms"}},
	}
	for _, tt := range tests {
		f := sources.Filter(src, tt.include, tt.exclude)
		if diff := cmp.Diff(tt.want, skillNames(t, f)); diff != "" {
			t.Errorf("include %v exclude %v (-want +got):\n%s", tt.include, tt.exclude, diff)
		}
		sourcetest.Run(t, f)
	}
}

// packaged is a source of one listing, packages included.
type packaged struct{ l sources.Listing }

func (p *packaged) Name() string { return "p" }
func (p *packaged) List(context.Context) (*sources.Listing, error) {
	l := p.l
	return &l, nil
}

// What a source considered serving (a Claude Code plugin, served or not)
// is kept by a filter of its skills, and by a source made of parts: list
// --all shows it.
func TestComposedSourcesKeepPackages(t *testing.T) {
	pkg := sources.Package{Name: "discord@m", Source: "p", State: sources.PackageDisabled, Reason: "not enabled"}
	src := &packaged{sources.Listing{Packages: []sources.Package{pkg}}}
	for name, s := range map[string]sources.Source{"Filter": sources.Filter(src, []string{"x*"}, nil), "Concat": sources.Concat("c", src)} {
		l, err := s.List(context.Background())
		if err != nil || len(l.Packages) != 1 || l.Packages[0] != pkg {
			t.Errorf("%s: %v %+v", name, err, l)
		}
	}
}

// A Watcher's first round is over at its first change, unless it deferred
// it: then when every part that deferred it is done, whatever changed
// before.
func TestSettle(t *testing.T) {
	settles := 0
	ctx, changed := sources.WithSettle(context.Background(), func() { settles++ })
	changed()
	changed()
	if settles != 1 {
		t.Errorf("no deferral: settled %d times at two changes, want once", settles)
	}

	settles = 0
	ctx, changed = sources.WithSettle(context.Background(), func() { settles++ })
	a, b := sources.DeferSettle(ctx), sources.DeferSettle(ctx)
	changed()
	a()
	a()
	if settles != 0 {
		t.Errorf("settled with one deferring part not done")
	}
	b()
	if settles != 1 {
		t.Errorf("settled %d times once both parts were done, want once", settles)
	}
	sources.DeferSettle(context.Background())() // no WithSettle: nothing to tell
}

// Parts watched together settle the whole once every one has: one that
// defers its settling and is done at once does not settle it before
// another, slower to start, has reported.
func TestSettleOfParts(t *testing.T) {
	synctest.Test(t, testSettleOfParts)
}

func testSettleOfParts(t *testing.T) {
	settled := make(chan struct{})
	ctx, changed := sources.WithSettle(context.Background(), func() { close(settled) })
	ctx, cancel := context.WithCancel(ctx)
	fast := &settlingWatcher{Fake: &sourcetest.Fake{SourceName: "fast"}, deferring: true, go_: make(chan struct{})}
	slow := &settlingWatcher{Fake: &sourcetest.Fake{SourceName: "slow"}, go_: make(chan struct{})}
	src := sources.Concat("both", fast, slow)
	done := make(chan error, 1)
	go func() { done <- src.(sources.Watcher).Watch(ctx, changed) }()
	close(fast.go_) // defers, and is done at once
	synctest.Wait()
	select {
	case <-settled:
		t.Fatal("settled while a part had not reported")
	default:
	}
	close(slow.go_) // reports its first change
	synctest.Wait()
	select {
	case <-settled:
	default:
		t.Fatal("not settled once every part had")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// settlingWatcher waits for go_, then either defers its settling and ends
// it at once, or reports a change; then it waits for the end.
type settlingWatcher struct {
	*sourcetest.Fake
	deferring bool
	go_       chan struct{}
}

func (w *settlingWatcher) Watch(ctx context.Context, changed func()) error {
	var settled func()
	if w.deferring {
		settled = sources.DeferSettle(ctx)
	}
	select {
	case <-w.go_:
	case <-ctx.Done():
		return nil
	}
	if w.deferring {
		settled()
	} else {
		changed()
	}
	<-ctx.Done()
	return nil
}
