package server

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/skillmux/skillmux/internal/logtest"
	"github.com/skillmux/skillmux/resolver"
)

// warnOnce logs each warning once, and at most maxWarned of them, then one
// line that says the rest are not: past the bound it cleared its memory,
// and each listing of more skills to warn about warned of every one again.
func TestWarnOnceIsBounded(t *testing.T) {
	var logs logtest.Buffer
	s := New(staticCatalog{resolver.Build(nil)}, &Options{Logger: logs.Logger(slog.LevelInfo)})
	defer s.Close()
	for range 3 { // three listings
		for i := range maxWarned + 500 {
			key := fmt.Sprint(i)
			s.warnOnce(key, "left out", "skill", key)
		}
	}
	if n := strings.Count(logs.String(), "level=WARN"); n != maxWarned+1 {
		t.Errorf("%d warnings logged; want %d and one that says the rest are not", n, maxWarned+1)
	}
}

// staticCatalog serves one snapshot.
type staticCatalog struct{ snap *resolver.Snapshot }

func (c staticCatalog) Snapshot() *resolver.Snapshot { return c.snap }

// The SDK's info lines (one a session step, a subscription, a
// notification sent) are logged at debug level; its warnings stay.
func TestSDKInfoLinesAreDebug(t *testing.T) {
	var logs logtest.Buffer
	l := slog.New(quieter{logs.Logger(slog.LevelInfo).Handler()})
	l.Info("resource updated notification sent")
	l.Warn("a warning of the SDK's")
	if out := logs.String(); strings.Contains(out, "notification sent") || !strings.Contains(out, "level=WARN") {
		t.Errorf("at info level:\n%s", out)
	}
	var debug logtest.Buffer
	slog.New(quieter{debug.Logger(slog.LevelDebug).Handler()}).Info("session initialized")
	if !strings.Contains(debug.String(), `level=DEBUG msg="session initialized"`) {
		t.Errorf("at debug level:\n%s", debug.String())
	}
}
