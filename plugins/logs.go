package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
)

// lineLog is an io.Writer that logs what a plugin writes, a line at a
// time, through skillmux's logger (on skillmux's stderr), tagged with the
// plugin's name and the stream. A JSON line keeps the level and the
// message it gives (log/slog's and hclog's field names), a text line
// starting with a level ("[WARN]", "level=ERROR", "panic:") keeps that
// level, anything else is logged at the level given. Lines are cut at
// maxLine bytes, made valid UTF-8, and past maxLinesPerSecond the rest of
// a second's lines are counted, not logged: a plugin cannot flood the
// log.
type lineLog struct {
	logger *slog.Logger
	level  slog.Level
	fixed  bool // log every line at level, whatever it says

	// mu guards the fields below: the streams are written from several
	// goroutines.
	mu      sync.Mutex
	partial []byte
	window  time.Time
	lines   int
	dropped int
	last    string // the last line that was not blank, cleaned
	panic   string // the first line of a Go panic or fatal error, cleaned
}

// lastLine returns the line that says best why the plugin ended: the
// first line of a panic (the lines after it are its stack), else the last
// line written that was not blank.
func (l *lineLog) lastLine() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.panic != "" {
		return l.panic
	}
	return l.last
}

const (
	maxLine           = 8 << 10
	maxLinesPerSecond = 200
)

func newLineLog(logger *slog.Logger, stream string, level slog.Level) *lineLog {
	return &lineLog{logger: logger.With("stream", stream), level: level}
}

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			// A line with no end yet: its pieces of maxLine bytes are
			// logged as they come, and less than one is held.
			l.partial = append(l.partial, p...)
			rest := l.partial
			for len(rest) >= maxLine {
				l.emit(rest[:maxLine])
				rest = rest[maxLine:]
			}
			l.partial = append(l.partial[:0], rest...)
			if cap(l.partial) > 2*maxLine {
				l.partial = bytes.Clone(l.partial) // let a large write's buffer go
			}
			break
		}
		line := p[:i]
		if len(l.partial) > 0 {
			line = append(l.partial, line...)
			l.partial = l.partial[:0]
		}
		for len(line) > maxLine {
			l.emit(line[:maxLine])
			line = line[maxLine:]
		}
		l.emit(line)
		p = p[i+1:]
	}
	return n, nil
}

// Flush logs a last line that had no line end.
func (l *lineLog) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.partial) > 0 {
		l.emit(l.partial)
		l.partial = nil
	}
}

// emit logs one line; l.mu is held.
func (l *lineLog) emit(line []byte) {
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	l.last = clean(string(bytes.TrimSpace(line)), false)
	if l.panic == "" && (bytes.HasPrefix(line, []byte("panic: ")) || bytes.HasPrefix(line, []byte("fatal error: "))) {
		l.panic = l.last
	}
	now := time.Now()
	if now.Sub(l.window) >= time.Second {
		if l.dropped > 0 {
			l.logger.Warn("the plugin wrote too many lines; some were not logged", "dropped", l.dropped, "limit_per_second", maxLinesPerSecond)
		}
		l.window, l.lines, l.dropped = now, 0, 0
	}
	if l.lines >= maxLinesPerSecond {
		l.dropped++
		return
	}
	l.lines++
	level, msg, attrs := parseLine(line, l.level)
	if l.fixed {
		level = l.level
	}
	l.logger.Log(context.Background(), level, msg, attrs...) // a Write has no context of its caller
}

// parseLine reads the level and message of a log line a plugin wrote.
func parseLine(line []byte, dflt slog.Level) (slog.Level, string, []any) {
	if line[0] == '{' {
		var m map[string]any
		if json.Unmarshal(line, &m) == nil {
			level, ok := levelOf(fmt.Sprint(first(m, "level", "@level")))
			if !ok {
				level = dflt
			}
			msg := fmt.Sprint(first(m, "msg", "@message", "message"))
			var attrs []any
			for k, v := range m {
				switch k {
				case "level", "@level", "msg", "@message", "message", "time", "@timestamp", "timestamp":
					continue
				}
				if len(attrs) < 40 {
					attrs = append(attrs, clean(k, false), clean(fmt.Sprint(v), false))
				}
			}
			return level, clean(msg, false), attrs
		}
	}
	s := clean(string(line), false)
	level := dflt
	for _, p := range []struct {
		prefix string
		level  slog.Level
	}{{"[TRACE]", slog.LevelDebug}, {"[DEBUG]", slog.LevelDebug}, {"[INFO]", slog.LevelInfo}, {"[WARN]", slog.LevelWarn},
		{"[ERROR]", slog.LevelError}, {"WARNING:", slog.LevelWarn}, {"ERROR:", slog.LevelError}, {"panic:", slog.LevelError},
		{"fatal error:", slog.LevelError}, {"Traceback", slog.LevelError}} {
		if strings.HasPrefix(s, p.prefix) {
			return p.level, s, nil
		}
	}
	if i := strings.Index(s, "level="); i >= 0 && (i == 0 || s[i-1] == ' ') {
		word, _, _ := strings.Cut(s[i+len("level="):], " ")
		if lv, ok := levelOf(word); ok {
			level = lv
		}
	}
	return level, s, nil
}

func first(m map[string]any, keys ...string) any {
	for _, k := range keys {
		if v, ok := m[k]; ok {
			return v
		}
	}
	return ""
}

func levelOf(s string) (slog.Level, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "trace", "debug":
		return slog.LevelDebug, true
	case "info":
		return slog.LevelInfo, true
	case "warn", "warning":
		return slog.LevelWarn, true
	case "error", "fatal", "critical":
		return slog.LevelError, true
	}
	return 0, false
}

// goPluginLogger is the logger go-plugin itself logs to: its lines go to
// skillmux's log at debug level (its warnings and errors too: skillmux
// logs what matters of a plugin's life itself, in its own words).
func goPluginLogger(logger *slog.Logger) hclog.Logger {
	level := hclog.Off
	if logger.Enabled(context.Background(), slog.LevelDebug) {
		level = hclog.Trace
	}
	out := newLineLog(logger, "go-plugin", slog.LevelDebug)
	out.fixed = true
	return hclog.New(&hclog.LoggerOptions{
		Name:        "go-plugin",
		Output:      out,
		Level:       level,
		DisableTime: true,
	})
}
