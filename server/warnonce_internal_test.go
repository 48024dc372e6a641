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
