package search_test

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/skillmux/skillmux/resolver/search"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// TestLiveLogsTheFirstBuild checks that only the index's first build is
// logged at info level, not each update after the goroutine went idle (as
// after every periodic rescan).
func TestLiveLogsTheFirstBuild(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "alpha", "Alpha.", "body\n")
	skills := list(t, dirtree.New(root, nil))
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		l := search.NewLive(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
		defer l.Close()
		for range 3 {
			l.Submit(skills)
			synctest.Wait() // the goroutine is done and has stopped
		}
		if info, all := strings.Count(buf.String(), "level=INFO"), strings.Count(buf.String(), "search index updated"); info != 1 || all != 3 {
			t.Errorf("%d updates logged, %d at info level; want 3 and 1:\n%s", all, info, buf.String())
		}
	})
}
