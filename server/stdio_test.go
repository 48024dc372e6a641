package server_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// wire drives ServeStdio over pipes with raw JSON lines.
type wire struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string // the lines of out, in order; closed when out ends
	done  chan error

	waitOnce sync.Once
	err      error
}

// serve runs srv.ServeStdio on pipes. A goroutine reads out as it comes,
// so the server never waits for the test to read; the test's cleanup ends
// the input and waits for ServeStdio.
func serve(t *testing.T, ctx context.Context, srv *server.Server) *wire {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, lines: make(chan string, 4096), done: make(chan error, 1)}
	go func() {
		w.done <- srv.ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 4<<20)
		for sc.Scan() {
			w.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		w.wait()
		for range w.lines {
		}
	})
	return w
}

func startStdio(t *testing.T) *wire {
	t.Helper()
	return serve(t, context.Background(), newStdioServer(t))
}

func newStdioServer(t *testing.T) *server.Server {
	t.Helper()
	return server.New(newResolver(t, dirtree.New(skillsDir(t), nil)), nil)
}

// wait waits for ServeStdio to return and gives its error.
func (w *wire) wait() error {
	w.waitOnce.Do(func() { w.err = <-w.done })
	return w.err
}

func (w *wire) send(line string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, line+"\n"); err != nil {
		w.t.Fatal(err)
	}
}

// recvLine returns the next line of out as it came.
func (w *wire) recvLine() string {
	w.t.Helper()
	select {
	case line, ok := <-w.lines:
		if !ok {
			w.t.Fatal("no reply: out ended")
		}
		return line
	case <-time.After(10 * time.Second): // only to report a hang
		w.t.Fatal("no reply")
		return ""
	}
}

func (w *wire) recv() map[string]any {
	w.t.Helper()
	line := w.recvLine()
	var m map[string]any
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		w.t.Fatalf("stdout line is not a JSON object: %q", line)
	}
	return m
}

// handshake initializes the session.
func (w *wire) handshake() {
	w.t.Helper()
	w.send(initLine)
	if m := w.recv(); m["result"] == nil {
		w.t.Fatalf("initialize: %v", m)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// until returns the lines of out before the answer to the request with
// the raw id, and that answer.
func (w *wire) until(id string) (before []string, answer string) {
	w.t.Helper()
	for {
		line := w.recvLine()
		var m struct{ ID json.RawMessage }
		json.Unmarshal([]byte(line), &m)
		if string(m.ID) == id && !strings.HasPrefix(line, "[") {
			return before, line
		}
		before = append(before, line)
	}
}

func errCode(m map[string]any) float64 {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(float64)
	return c
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

func ping(id string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`
}

func cancelled(id string) string {
	return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `}}`
}

// refusal is the guard's -32600 reply to a request with the raw id.
func refusal(id, msg string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32600,"message":"invalid request: ` + msg + `"}}`
}

func TestStdioGuard(t *testing.T) {
	w := startStdio(t)
	w.send(`{"jsonrpc": "2.0", "id": 1, "method": "initialize"`) // cut short
	if got, want := w.recvLine(), `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the line is not valid JSON"}}`; got != want {
		t.Errorf("malformed line:\n got %s\nwant %s", got, want)
	}
	w.send(`{"jsonrpc":"2.0","id":"x","method":42}`)
	if m := w.recv(); errCode(m) != -32600 || m["id"] != "x" {
		t.Errorf("invalid request: got %v, want -32600 for id x", m)
	}
	w.send("   ") // blank lines are ignored
	w.send(initLine)
	m := w.recv()
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
	if err := w.wait(); err != nil {
		t.Errorf("ServeStdio at end of input: %v", err)
	}
}

func TestStdioStopsOnCancel(t *testing.T) {
	srv := newStdioServer(t)
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
	srv := newStdioServer(t)
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

// JSON-RPC asks that an answer carry the request's id exactly. The SDK
// decodes ids through float64, so the guard refuses those it would alter.
func TestStdioIDs(t *testing.T) {
	const rule = "the id must be a string or an integer between -(2^53-1) and 2^53-1, so that the answer carries it exactly"
	tests := []struct {
		id   string // as sent
		want string // the reply
	}{
		{`0`, `{"jsonrpc":"2.0","id":0,"result":{}}`},
		{`-7`, `{"jsonrpc":"2.0","id":-7,"result":{}}`},
		{`9007199254740991`, `{"jsonrpc":"2.0","id":9007199254740991,"result":{}}`},
		{`-9007199254740991`, `{"jsonrpc":"2.0","id":-9007199254740991,"result":{}}`},
		{`"x"`, `{"jsonrpc":"2.0","id":"x","result":{}}`},
		{`""`, `{"jsonrpc":"2.0","id":"","result":{}}`},
		{`"\u0041<é>"`, `{"jsonrpc":"2.0","id":"A<é>","result":{}}`}, // the same string
		{`1.5`, refusal(`1.5`, rule)},
		{`1.0`, refusal(`1.0`, rule)},
		{`1e2`, refusal(`1e2`, rule)},
		{`-0`, refusal(`-0`, rule)},
		{`9007199254740992`, refusal(`9007199254740992`, rule)},
		{`9007199254740993`, refusal(`9007199254740993`, rule)},
		{`18446744073709551616`, refusal(`18446744073709551616`, rule)},
		{`-9223372036854775809`, refusal(`-9223372036854775809`, rule)},
		{`null`, refusal(`null`, rule)},
		{`"\ud800"`, refusal(`"\ud800"`, rule)},
		{"\"a\xffb\"", refusal("\"a\xffb\"", rule)},
		{`"<&>"`, `{"jsonrpc":"2.0","id":"<&>","result":{}}`},
		{`true`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: parse error: invalid ID type bool"}}`},
	}
	w := startStdio(t)
	w.handshake()
	for _, tt := range tests {
		w.send(ping(tt.id))
		if got := w.recvLine(); got != tt.want {
			t.Errorf("id %s:\n got %s\nwant %s", tt.id, got, tt.want)
		}
	}
}

// Batches are refused whole, in one reply line, whatever came before: the
// SDK saw none of them, so none can end the session.
func TestStdioBatches(t *testing.T) {
	const no = "batches are not supported; send one message per line"
	deep := strings.Repeat("[", 1000) + strings.Repeat("]", 1000)
	tests := []struct {
		name, batch string
		want        []string // the reply lines
	}{
		{"empty", `[]`, []string{refusal("null", no)}},
		{"not messages", `[1,[],{"foo":"boo"}]`, []string{"[" + refusal("null", no) + "," + refusal("null", no) + "," + refusal("null", no) + "]"}},
		{"a request and junk", `[{"jsonrpc":"2.0","id":7,"method":"ping"},3]`, []string{"[" + refusal("7", no) + "," + refusal("null", no) + "]"}},
		{"duplicate ids", `[` + ping("1") + `,` + ping("1") + `]`, []string{"[" + refusal("1", no) + "," + refusal("1", no) + "]"}},
		{"notifications only", `[{"jsonrpc":"2.0","method":"notifications/initialized"},` + cancelled("1") + `]`, nil},
		{"answers only", `[{"jsonrpc":"2.0","id":5,"result":{}}]`, nil},
		{"mixed", `[{"jsonrpc":"2.0","method":"notifications/initialized"},` + ping(`"b"`) + `,{"jsonrpc":"2.0","id":3,"result":{}}]`, []string{"[" + refusal(`"b"`, no) + "]"}},
		{"ids as sent", `[` + ping("1.5") + `,` + ping("null") + `,` + ping(`"\u0041"`) + `,` + ping("18446744073709551616") + `]`,
			[]string{"[" + refusal("1.5", no) + "," + refusal("null", no) + "," + refusal(`"\u0041"`, no) + "," + refusal("18446744073709551616", no) + "]"}},
		{"a member nested 1,000 deep", `[{"jsonrpc":"2.0","id":"deep","method":"ping","params":{"a":` + deep + `}},` + deep + `]`,
			[]string{"[" + refusal(`"deep"`, no) + "," + refusal("null", no) + "]"}},
		{"a member that grows when encoded", `[{"jsonrpc":"2.0","id":"<&>","method":"ping","params":{"s":"` + strings.Repeat("<", 200_000) + `"}}]`,
			[]string{"[" + refusal(`"<&>"`, no) + "]"}},
	}
	initAt := func(version string) string { return strings.Replace(initLine, "2025-11-25", version, 1) }
	setups := []struct {
		name  string
		lines []string // each answered with one line
	}{
		{"before initialize", nil},
		{"at 2025-03-26", []string{initAt("2025-03-26")}},
		{"at 2025-11-25", []string{initLine}},
		{"after an unknown version", []string{initAt("1999-01-01")}},
		{"after a refused second initialize", []string{initAt("2025-03-26"), strings.Replace(initAt("2025-06-18"), `"id":1`, `"id":2`, 1)}},
	}
	for _, s := range setups {
		t.Run(s.name, func(t *testing.T) {
			w := startStdio(t)
			for _, l := range s.lines {
				w.send(l)
				w.recv()
			}
			for i, tt := range tests {
				after := fmt.Sprintf(`"after %d"`, i)
				w.send(tt.batch)
				w.send(ping(after))
				got, _ := w.until(after)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("%s: reply lines (-want +got):\n%s", tt.name, diff)
				}
			}
		})
	}
}
