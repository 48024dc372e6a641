package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// wire drives ServeStdio over pipes with raw JSON lines.
type wire struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
}

func startStdio(t *testing.T) *wire {
	t.Helper()
	srv := server.New(newResolver(t, dirtree.New(skillsDir(t), nil)), nil)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	w.out.Buffer(nil, 1<<20)
	go func() {
		w.done <- srv.ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	t.Cleanup(func() { inW.Close() })
	return w
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

func (w *wire) recv() map[string]any {
	w.t.Helper()
	if !w.out.Scan() {
		w.t.Fatalf("no reply: %v", w.out.Err())
	}
	var m map[string]any
	if err := json.Unmarshal(w.out.Bytes(), &m); err != nil {
		w.t.Fatalf("stdout line is not JSON: %q", w.out.Text())
	}
	return m
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func TestStdioGuard(t *testing.T) {
	w := startStdio(t)
	w.send(`{"jsonrpc": "2.0", "id": 1, "method": "initialize"`) // cut short
	m := w.recv()
	if errCode(m) != -32700 || m["id"] != nil {
		t.Errorf("malformed line: got %v, want -32700 with id null", m)
	}
	if _, has := m["id"]; !has {
		t.Errorf("parse error reply has no id member: %v", m)
	}
	w.send(`{"jsonrpc":"2.0","id":"x","method":42}`)
	if m := w.recv(); errCode(m) != -32600 || m["id"] != "x" {
		t.Errorf("invalid request: got %v, want -32600 for id x", m)
	}
	w.send("   ") // blank lines are ignored
	w.send(initLine)
	m = w.recv()
	res, _ := m["result"].(map[string]any)
	if res == nil || res["protocolVersion"] != "2025-11-25" || !strings.Contains(res["instructions"].(string), "<name>pdf</name>") {
		t.Fatalf("initialize after bad lines: %v", m)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(`not json at all`)
	if m := w.recv(); errCode(m) != -32700 {
		t.Errorf("got %v", m)
	}
	w.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"skill","arguments":{"name":"pdf"}}}`)
	m = w.recv()
	if m["id"] != float64(2) || m["result"] == nil {
		t.Errorf("tool call after bad line: %v", m)
	}
	w.in.Close()
	select {
	case err := <-w.done:
		if err != nil {
			t.Errorf("ServeStdio at end of input: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return at end of input")
	}
}

func TestStdioStopsOnCancel(t *testing.T) {
	srv := server.New(newResolver(t, dirtree.New(skillsDir(t), nil)), nil)
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, inR, io.Discard) }()
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio ignored cancellation")
	}
}

// A client may write its requests and close its end at once, as
// `printf ... | skillmux serve` does: every request is still answered.
func TestStdioAnswersRequestsReadBeforeEndOfInput(t *testing.T) {
	srv := server.New(newResolver(t, dirtree.New(skillsDir(t), nil)), nil)
	in := strings.NewReader(initLine + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"skill","arguments":{"name":"pdf"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n")
	for range 20 {
		var out strings.Builder
		if err := srv.ServeStdio(context.Background(), in, &out); err != nil {
			t.Fatal(err)
		}
		ids := map[float64]bool{}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("bad line %q", line)
			}
			if id, ok := m["id"].(float64); ok && m["error"] == nil {
				ids[id] = true
			}
		}
		if !ids[1] || !ids[2] || !ids[3] {
			t.Fatalf("answered %v of requests 1, 2, 3:\n%s", ids, out.String())
		}
		in.Seek(0, io.SeekStart)
	}
}

func TestStdioBatches(t *testing.T) {
	w := startStdio(t)
	// Batches exist up to protocol 2025-03-26.
	w.send(strings.Replace(initLine, "2025-11-25", "2025-03-26", 1))
	w.recv()
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(`[]`)
	if m := w.recv(); errCode(m) != -32600 || m["id"] != nil {
		t.Errorf("empty batch: %v", m)
	}
	// One invalid member is answered here; the valid one still runs.
	w.send(`[{"jsonrpc":"2.0","id":7,"method":"ping"},3]`)
	var sawError, sawPing bool
	for range 2 {
		if !w.out.Scan() {
			t.Fatal("no reply")
		}
		var batch []map[string]any
		if err := json.Unmarshal(w.out.Bytes(), &batch); err != nil {
			t.Fatalf("batch reply is not an array: %q", w.out.Text())
		}
		for _, m := range batch {
			sawError = sawError || errCode(m) == -32600
			sawPing = sawPing || m["id"] == float64(7)
		}
	}
	if !sawError || !sawPing {
		t.Errorf("error %v, ping %v", sawError, sawPing)
	}
	w.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if m := w.recv(); m["id"] != float64(8) {
		t.Errorf("session did not survive the batches: %v", m)
	}
}

func TestStdioBatchesRefusedInNewerProtocols(t *testing.T) {
	w := startStdio(t)
	w.send(initLine)
	w.recv()
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(`[{"jsonrpc":"2.0","id":7,"method":"ping"},{"jsonrpc":"2.0","id":9,"method":"ping"}]`)
	if !w.out.Scan() {
		t.Fatal("no reply")
	}
	var batch []map[string]any
	if err := json.Unmarshal(w.out.Bytes(), &batch); err != nil || len(batch) != 2 || errCode(batch[0]) != -32600 || batch[1]["id"] != float64(9) {
		t.Errorf("got %s", w.out.Text())
	}
	w.send(`{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	if m := w.recv(); m["id"] != float64(8) {
		t.Errorf("session did not survive the batch: %v", m)
	}
}
