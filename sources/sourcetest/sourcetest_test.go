package sourcetest_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// recorder is a testing.TB that keeps the failures Run reports, so that a
// test can check Run fails a Source that breaks the contract.
type recorder struct {
	testing.TB
	failures []string
}

func (r *recorder) Error(args ...any) { r.failures = append(r.failures, fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); runtime.Goexit() }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); runtime.Goexit() }

// runRecorded runs the suite on src and returns what it reported.
func runRecorded(t *testing.T, src sources.Source) []string {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sourcetest.Run(r, src)
	}()
	<-done
	return r.failures
}

// ctxSource lists one good skill, and answers a context that is done as
// done says.
type ctxSource struct {
	sourcetest.Fake
	done func(ctx context.Context, l *sources.Listing) (*sources.Listing, error)
}

func (s *ctxSource) List(ctx context.Context) (*sources.Listing, error) {
	l, err := s.Fake.List(context.Background())
	if err != nil || ctx.Err() == nil {
		return l, err
	}
	return s.done(ctx, l)
}

func TestRunChecksCancellation(t *testing.T) {
	good := sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "a", Description: "A."}}}
	if got := runRecorded(t, &good); len(got) != 0 {
		t.Fatalf("a Source that keeps the contract failed: %q", got)
	}
	for _, tt := range []struct {
		name string
		done func(context.Context, *sources.Listing) (*sources.Listing, error)
		want string
	}{
		{"ignores the context",
			func(_ context.Context, l *sources.Listing) (*sources.Listing, error) { return l, nil },
			"returned error <nil>"},
		{"a listing with the error",
			func(ctx context.Context, l *sources.Listing) (*sources.Listing, error) { return l, ctx.Err() },
			"returned a Listing of 1 skills"},
		{"an error that does not wrap the context's",
			func(context.Context, *sources.Listing) (*sources.Listing, error) { return nil, errors.New("stopped") },
			"want one that wraps context canceled"},
		{"wrapped with %w",
			func(ctx context.Context, _ *sources.Listing) (*sources.Listing, error) {
				return nil, fmt.Errorf("scan: %w", ctx.Err())
			},
			""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := runRecorded(t, &ctxSource{Fake: good, done: tt.done})
			switch {
			case tt.want == "" && len(got) != 0:
				t.Errorf("Run failed a Source that keeps the contract: %q", got)
			case tt.want != "" && !strings.Contains(strings.Join(got, "\n"), tt.want):
				t.Errorf("Run reported %q; want a failure saying %q", got, tt.want)
			}
		})
	}
}
