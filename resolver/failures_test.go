package resolver_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/internal/logtest"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// logLines collects what a logger writes, at every level, as JSON lines.
type logLines struct{ logtest.Buffer }

func (l *logLines) logger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// about returns "LEVEL msg: err" for each line about the failure or
// recovery of a source, in order.
func (l *logLines) about(t *testing.T) []string {
	t.Helper()
	var out []string
	for line := range strings.Lines(l.String()) {
		var rec struct{ Level, Msg, Err string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		if !strings.HasPrefix(rec.Msg, "source failed") && !strings.HasPrefix(rec.Msg, "source recovered") {
			continue
		}
		s := rec.Level + " " + rec.Msg
		if rec.Err != "" {
			s += ": " + rec.Err
		}
		out = append(out, s)
	}
	return out
}

// TestFailuresAreLoggedWhenTheyChange checks that a failing source is
// logged when it starts failing, when its error changes and once when it
// recovers, and that the same failure found again by the next reloads is
// logged at debug level only.
func TestFailuresAreLoggedWhenTheyChange(t *testing.T) {
	gone := errors.New("the disk went away")
	other := errors.New("permission denied")
	down := fmt.Errorf("plugin down: %w", sources.ErrUnavailable)
	hung := fmt.Errorf("plugin has not answered List yet: %w", sources.ErrUnavailable)
	const (
		notServed = "source failed; its skills are not served: "
		stale     = "source failed; serving its last good listing: "
		recovered = "INFO source recovered; its skills are served"
	)
	tests := []struct {
		name string
		errs []error // what each reload's List returns, in order
		want []string
	}{
		{"the same failure", []error{gone, gone, gone},
			[]string{"ERROR " + notServed + gone.Error(), "DEBUG " + notServed + gone.Error(), "DEBUG " + notServed + gone.Error()}},
		{"another failure", []error{gone, other, other},
			[]string{"ERROR " + notServed + gone.Error(), "ERROR " + notServed + other.Error(), "DEBUG " + notServed + other.Error()}},
		{"recovery", []error{gone, gone, nil, nil, gone},
			[]string{"ERROR " + notServed + gone.Error(), "DEBUG " + notServed + gone.Error(), recovered, "ERROR " + stale + gone.Error()}},
		{"a stale listing", []error{nil, gone, gone, nil},
			[]string{"ERROR " + stale + gone.Error(), "DEBUG " + stale + gone.Error(), recovered}},
		{"unavailable", []error{nil, down, down, nil},
			[]string{"WARN " + notServed + down.Error(), "DEBUG " + notServed + down.Error(), recovered}},
		// A plugin that hangs says so in other words at each step (timed
		// out, restarted, still starting): the first is the warning.
		{"unavailable in other words", []error{down, hung, down, hung},
			[]string{"WARN " + notServed + down.Error(), "DEBUG " + notServed + hung.Error(), "DEBUG " + notServed + down.Error(), "DEBUG " + notServed + hung.Error()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			logs := &logLines{}
			src := fake("flaky", "", "one")
			r := resolver.New([]sources.Source{src, fake("steady", "", "two")}, &resolver.Options{Logger: logs.logger()})
			for _, err := range tt.errs {
				src.Err = err
				if _, err := r.Reload(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			if diff := cmp.Diff(tt.want, logs.about(t)); diff != "" {
				t.Errorf("log (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRescansDoNotRepeatAFailure checks that the periodic rescans of Run
// log a source that keeps failing the same way once at error level.
func TestRescansDoNotRepeatAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &logLines{}
		bad := newWatched("bad")
		bad.set(func(f *sourcetest.Fake) { f.Err = errors.New("unreadable") })
		r := resolver.New([]sources.Source{bad, newWatched("good", "one")}, &resolver.Options{Logger: logs.logger()})
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			r.Run(ctx, &resolver.RunOptions{Interval: time.Second})
		}()
		time.Sleep(10 * time.Second)
		synctest.Wait()
		cancel()
		<-done
		var errorLines []string
		for _, l := range logs.about(t) {
			if !strings.HasPrefix(l, "DEBUG ") {
				errorLines = append(errorLines, l)
			}
		}
		want := []string{"ERROR source failed; its skills are not served: unreadable"}
		if diff := cmp.Diff(want, errorLines); diff != "" {
			t.Errorf("log above debug level after 10 rescans (-want +got):\n%s", diff)
		}
		if n := bad.lists.Load(); n < 10 {
			t.Errorf("the failing source was listed %d times; want one per rescan at least", n)
		}
	})
}
