package logwriter_test

import (
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/skillmux/skillmux/internal/logwriter"
)

// A destination nobody reads never blocks a Write; once it drains, the
// lines written and a count of those dropped come out.
func TestWriteNeverBlocks(t *testing.T) {
	r, pw := io.Pipe()
	w := logwriter.New(pw, 4)
	for i := range 100 { // the pipe is not read: only the queue takes lines
		w.Write([]byte("line " + string(rune('a'+i%26)) + "\n"))
	}
	var mu sync.Mutex
	var got bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := r.Read(buf)
			mu.Lock()
			got.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	// Once the queue has drained, a new line goes through, after the count
	// of those dropped.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		mu.Lock()
		n := strings.Count(got.String(), "line ")
		mu.Unlock()
		if n >= 4 || time.Now().After(deadline) {
			break
		}
	}
	w.Write([]byte("after\n"))
	w.Close(10 * time.Second)
	pw.Close()
	<-read
	out := got.String()
	if !strings.Contains(out, "log lines dropped") || !strings.HasSuffix(out, "after\n") {
		t.Errorf("output:\n%s", out)
	}
	if n := strings.Count(out, "line "); n != 4 && n != 5 {
		t.Errorf("%d lines written; the queue holds 4 (and the one being written)", n)
	}
}

// Close gives up on a destination nobody reads.
func TestCloseIsBounded(t *testing.T) {
	_, pw := io.Pipe()
	w := logwriter.New(pw, 4)
	w.Write([]byte("stuck\n"))
	done := make(chan struct{})
	go func() {
		w.Close(10 * time.Millisecond)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close waited for a destination nobody reads")
	}
	w.Close(0) // idempotent
}
