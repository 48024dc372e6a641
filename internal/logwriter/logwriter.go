// Package logwriter is the writer under the server's logs: it never blocks
// the code that logs. A client that starts skillmux as a subprocess may not
// read its stderr (or read it slowly); once the pipe's buffer is full, a
// plain write would stop whatever goroutine logs, handlers included, until
// the client reads. Lines are queued instead, a bounded number, written by
// one goroutine, and dropped when the queue is full, with a line saying how
// many were lost once the pipe drains.
package logwriter

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// DefaultCapacity is how many lines wait for the pipe before new ones are
// dropped.
const DefaultCapacity = 1024

// Writer queues what it is given and writes it to its destination on its
// own goroutine. Each Write should be one log line, as slog handlers do.
type Writer struct {
	dst   io.Writer
	lines chan []byte
	done  chan struct{} // closed when the writing goroutine has ended

	// mu guards the fields below.
	mu      sync.Mutex
	dropped int
	closed  bool
}

// New returns a Writer to dst that holds at most capacity lines waiting
// (DefaultCapacity when 0 or less). Close stops its goroutine.
func New(dst io.Writer, capacity int) *Writer {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	w := &Writer{dst: dst, lines: make(chan []byte, capacity), done: make(chan struct{})}
	go w.run()
	return w
}

// Write queues a copy of p and returns at once. When the queue is full, or
// the Writer is closed, p is dropped and counted; it never reports an
// error, since a log line that cannot be written must not fail the work
// that logged it.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		w.dropped++
		return len(p), nil
	}
	select {
	case w.lines <- append([]byte(nil), p...):
	default:
		w.dropped++
	}
	return len(p), nil
}

func (w *Writer) run() {
	defer close(w.done)
	for line := range w.lines {
		w.mu.Lock()
		n := w.dropped
		w.dropped = 0
		w.mu.Unlock()
		if n > 0 {
			fmt.Fprintf(w.dst, "skillmux: %d log lines dropped: nothing read them in time\n", n)
		}
		w.dst.Write(line)
	}
}

// Close stops accepting lines and waits, at most timeout, for the queued
// ones to be written; a destination nobody reads would otherwise hold the
// process. It is idempotent.
func (w *Writer) Close(timeout time.Duration) {
	w.mu.Lock()
	if !w.closed {
		w.closed = true
		close(w.lines)
	}
	w.mu.Unlock()
	select {
	case <-w.done:
	case <-time.After(timeout):
	}
}
