// Package logtest gives tests a log they can read back: a Buffer that
// loggers on any number of goroutines write to.
package logtest

import (
	"bytes"
	"log/slog"
	"sync"
)

// Buffer collects what is written to it. It is safe for concurrent use.
// The zero value is ready to use.
type Buffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write implements io.Writer.
func (b *Buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *Buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Logger returns a logger that writes text lines of level and above to b.
func (b *Buffer) Logger(level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: level}))
}
