package plugins

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

// A line with no end, written in large pieces, is logged in pieces of
// maxLine bytes as it comes: what is held of it stays under a line, however
// much the plugin writes.
func TestLineLogHoldsAtMostALine(t *testing.T) {
	logs := &logBuffer{}
	l := newLineLog(logs.Logger(slog.LevelDebug), "stderr", slog.LevelInfo)
	chunk := bytes.Repeat([]byte("L"), 1<<20)
	for range 8 {
		l.Write(chunk)
		if n := len(l.partial); n >= maxLine {
			t.Fatalf("%d bytes held after a write of 1 MiB with no line end; want under %d", n, maxLine)
		}
	}
	if !strings.Contains(logs.String(), strings.Repeat("L", 100)) {
		t.Errorf("the pieces were not logged:\n%.300s", logs.String())
	}
}
