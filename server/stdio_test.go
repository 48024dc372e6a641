package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
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
		sc.Buffer(nil, 32<<20)
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

func newStdioServer(t testing.TB) *server.Server {
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
// recvAfter sends line and returns the line that answers it.
func (w *wire) recvAfter(line string) string {
	w.t.Helper()
	w.send(line)
	return w.recvLine()
}

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

// gate is a tool whose calls wait, ignoring cancellation as a slow handler
// would, until the test opens the gate named in their "key" argument.
type gate struct {
	// mu guards keys.
	mu   sync.Mutex
	keys map[string]chan struct{} // closed once opened
}

// gateServer is a stdio test server with a gate tool. Cleanup opens every
// gate, so that no handler outlives the test.
func gateServer(t *testing.T) (*server.Server, *gate) {
	t.Helper()
	srv := newStdioServer(t)
	g := &gate{keys: make(map[string]chan struct{})}
	server.AddTool(srv, &mcp.Tool{Name: "gate"}, func(_ context.Context, _ *mcp.CallToolRequest, in struct {
		Key string `json:"key"`
	}) (*mcp.CallToolResult, any, error) {
		<-g.key(in.Key)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "open"}}}, nil, nil
	})
	t.Cleanup(func() {
		g.mu.Lock()
		defer g.mu.Unlock()
		for k := range g.keys {
			g.openLocked(k)
		}
	})
	return srv, g
}

func (g *gate) key(k string) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	c, ok := g.keys[k]
	if !ok {
		c = make(chan struct{})
		g.keys[k] = c
	}
	return c
}

// open lets the calls on k go, those to come as well.
func (g *gate) open(k string) {
	g.key(k)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.openLocked(k)
}

func (g *gate) openLocked(k string) {
	select {
	case <-g.keys[k]:
	default:
		close(g.keys[k])
	}
}

func callGate(id, key string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"gate","arguments":{"key":"` + key + `"}}}`
}

// addSlowTool adds a tool whose calls take the seconds their argument
// says, or until they are cancelled, as a search waiting for its index.
func addSlowTool(srv *server.Server) {
	schema := json.RawMessage(`{"type":"object","properties":{"seconds":{"type":"integer"}}}`)
	server.AddRawTool(srv, &mcp.Tool{Name: "slow", InputSchema: schema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct{ Seconds int }
		json.Unmarshal(req.Params.Arguments, &in)
		select {
		case <-time.After(time.Duration(in.Seconds) * time.Second):
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting: %w", ctx.Err())
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
	})
}

func callSlow(id string, seconds int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"slow","arguments":{"seconds":%d}}}`, id, seconds)
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
	w.send(`{"jsonrpc":"2.0","id":6}`) // neither a request nor an answer
	if m := w.recv(); errCode(m) != -32600 || m["id"] != float64(6) {
		t.Errorf("a message with only an id: got %v, want -32600 for id 6", m)
	}
	for _, line := range []string{`42`, `"ping"`, `null`, `true`} { // valid JSON, not a message
		if got, want := w.recvAfter(line), "the line is "; !strings.Contains(got, want) || !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, "a message is a JSON object") {
			t.Errorf("%s: got %s", line, got)
		}
	}
	if got := w.recvAfter(`{"jsonrpc":"2.0"}`); !strings.Contains(got, `a message needs a \"method\"`) {
		t.Errorf("an empty message: got %s", got)
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

// brokenPipe takes its first line whole and fails every write after it,
// as stdout does once the client closes the pipe it read the line from.
type brokenPipe struct {
	mu   sync.Mutex
	took []byte
}

func (b *brokenPipe) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if bytes.IndexByte(b.took, '\n') >= 0 {
		return 0, syscall.EPIPE
	}
	b.took = append(b.took, p...)
	return len(p), nil
}

// A client that stops reading ends the session at the next answer, and
// ServeStdio says why, so that the server does not log it as the end of
// stdin.
func TestStdioEndsWhenOutputFails(t *testing.T) {
	srv := newStdioServer(t)
	inR, inW := io.Pipe()
	defer inW.Close()
	out := &brokenPipe{}
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(context.Background(), inR, out) }()
	io.WriteString(inW, initLine+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	select {
	case err := <-done:
		if !errors.Is(err, server.ErrOutputFailed) || !errors.Is(err, syscall.EPIPE) {
			t.Errorf("ServeStdio with its output closed = %v, want ErrOutputFailed wrapping EPIPE", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio went on with its output closed")
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	if !bytes.Contains(out.took, []byte(`"serverInfo"`)) {
		t.Errorf("output before it failed = %q, want the handshake's answer", out.took)
	}
}

// However the failed write is seen, by the guard answering a line itself
// or by the SDK, and whatever the client goes on sending, ServeStdio says
// that out failed (not that in ended) and does not wait for answers that
// cannot be written.
func TestStdioOutputFailureIsSaidWhoeverSeesIt(t *testing.T) {
	for _, tt := range []struct {
		name  string
		lines func(i int) string // the client's i-th line, "" for no more
	}{
		{"the guard's own answer", func(i int) string {
			if i > 0 {
				return ""
			}
			return "not json"
		}},
		{"requests sent on and on", func(i int) string {
			switch i {
			case 0:
				return initLine
			case 1:
				return `{"jsonrpc":"2.0","method":"notifications/initialized"}`
			}
			return `{"jsonrpc":"2.0","id":` + strconv.Itoa(i) + `,"method":"ping"}`
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for range 8 {
				srv := newStdioServer(t)
				inR, inW := io.Pipe()
				done := make(chan error, 1)
				go func() { done <- srv.ServeStdio(context.Background(), inR, &brokenPipe{took: []byte("\n")}) }()
				go func() {
					for i := 0; tt.lines(i) != ""; i++ {
						if _, err := io.WriteString(inW, tt.lines(i)+"\n"); err != nil {
							return
						}
					}
				}()
				err := <-done
				inR.Close()
				inW.Close()
				if !errors.Is(err, server.ErrOutputFailed) {
					t.Fatalf("ServeStdio = %v, want ErrOutputFailed", err)
				}
			}
		})
	}
}

// A client may write its requests and close its end at once, as
// `printf ... | skillmux serve` does: every request is still answered,
// malformed lines among them notwithstanding.
func TestStdioAnswersRequestsReadBeforeEndOfInput(t *testing.T) {
	srv := newStdioServer(t)
	in := strings.NewReader(initLine + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"skill","arguments":{"name":"pdf"}}}` + "\n" +
		"not json\n" +
		`{"jsonrpc":"2.0","id":3,"method":"ping"}` + "\n" +
		`[{"jsonrpc":"2.0","id":4,"method":"ping"}]` + "\n" +
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"skill","arguments":{"name":"docx"}}}` + "\n")
	for range 20 {
		var out strings.Builder
		if err := srv.ServeStdio(context.Background(), in, &out); err != nil {
			t.Fatal(err)
		}
		ids := map[float64]bool{}
		for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil && !strings.HasPrefix(line, "[") {
				t.Fatalf("bad line %q", line)
			}
			if id, ok := m["id"].(float64); ok && m["error"] == nil {
				ids[id] = true
			}
		}
		if !ids[1] || !ids[2] || !ids[3] || !ids[5] {
			t.Fatalf("answered %v of requests 1, 2, 3, 5:\n%s", ids, out.String())
		}
		in.Seek(0, io.SeekStart)
	}
}

// The guard's own replies answer requests the SDK never saw: they must not
// count as answers the end of input waits for.
func TestStdioEndOfInputWaitsForTheSDKsAnswers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := gateServer(t)
		w := serve(t, context.Background(), srv)
		w.handshake()
		w.send(callGate("2", "a"))
		w.send("not json")
		w.send(`{"jsonrpc":"2.0","id":"x","method":42}`)
		w.send("[]")
		for range 3 {
			if m := w.recv(); errCode(m) == 0 {
				t.Fatalf("want an error reply, got %v", m)
			}
		}
		w.in.Close()
		synctest.Wait()
		select {
		case <-w.done:
			t.Fatal("ServeStdio returned before the answer to request 2")
		default:
		}
		g.open("a")
		if m := w.recv(); m["id"] != float64(2) || m["result"] == nil {
			t.Errorf("answer to request 2: %v", m)
		}
		if err := w.wait(); err != nil {
			t.Error(err)
		}
	})
}

// Requests read before the end of input are answered however long they
// run, up to what bounds their own work (a search waits seconds for its
// index), and those left unanswered at the end are logged with their ids.
func TestStdioEndOfInputWaitsForRunningRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		logs := &logBuffer{}
		srv := server.New(newResolver(t, dirtree.New(skillsDir(t), nil)), &server.Options{Logger: logs.logger()})
		addSlowTool(srv)
		w := serve(t, context.Background(), srv)
		w.handshake()
		w.send(callSlow("2", 3))
		w.send(callSlow(`"late"`, 3600))
		w.in.Close()
		if m := w.recv(); m["id"] != float64(2) || m["result"] == nil {
			t.Errorf("answer to request 2: %v", m)
		}
		start := time.Now()
		w.wait()
		if waited := time.Since(start); waited > server.WorkTimeout {
			t.Errorf("the end of input waited %v for a request that never ends", waited)
		}
		if got := logs.String(); !strings.Contains(got, `msg="stopping with requests unanswered" count=1 ids=[late]`) {
			t.Errorf("no warning of the unanswered request in the log:\n%s", got)
		}
	})
}

// The SDK (v1.8.0) still hands over an answer to a cancelled request,
// which is not sent. The id stays in use until then, but the request stops
// holding a slot or the end of input, so a session would go on even if an
// SDK never answered.
func TestStdioCancelledRequests(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := gateServer(t)
		w := serve(t, context.Background(), srv)
		w.handshake()
		w.send(callGate(`"a"`, "a"))
		synctest.Wait() // the handler is running: cancelling it now does not stop it
		w.send(cancelled(`"a"`))
		w.send(ping(`"a"`))
		if got, want := w.recvLine(), refusal(`"a"`, "a request with this id is still in progress"); got != want {
			t.Errorf("id of a cancelled request in progress:\n got %s\nwant %s", got, want)
		}
		g.open("a")
		synctest.Wait() // the handler has returned: its result is dropped, the id free
		w.send(ping(`"a"`))
		if m := w.recv(); m["id"] != "a" || m["result"] == nil || len(m["result"].(map[string]any)) != 0 {
			t.Errorf("a ping with the id of the cancelled request, once it ended: %v (want the ping's empty result, not the call's)", m)
		}

		// Handlers that never return stand for an SDK that would not
		// answer cancelled requests.
		for i := range server.MaxInFlight {
			w.send(callGate(fmt.Sprint(i), "stuck"))
			synctest.Wait()
			w.send(cancelled(fmt.Sprint(i)))
		}
		w.send(ping(`"p"`))
		if m := w.recv(); m["id"] != "p" || m["result"] == nil {
			t.Errorf("ping after %d cancelled requests: %v", server.MaxInFlight, m)
		}

		start := time.Now()
		w.in.Close()
		w.wait()
		if waited := time.Since(start); waited >= server.DrainTimeout {
			t.Errorf("the end of input waited %v for cancelled requests", waited)
		}
	})
}

// MCP asks a server not to answer a request the client cancelled: the
// error its cancellation makes is not sent, whether the handler or the SDK
// makes it.
func TestStdioCancelledRequestsGoUnanswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newStdioServer(t)
		addSlowTool(srv)
		w := serve(t, context.Background(), srv)
		w.handshake()
		w.send(callSlow("2", 3600))
		synctest.Wait() // the handler is running
		w.send(cancelled("2"))
		w.send(callSlow("3", 0))
		w.send(cancelled("3")) // most likely before its handler starts
		w.send(ping(`"p"`))
		synctest.Wait()
		w.in.Close()
		w.wait()
		pinged := false
		for line := range w.lines {
			var m map[string]any
			json.Unmarshal([]byte(line), &m)
			switch {
			case m["id"] == "p":
				pinged = true
			case m["id"] == float64(3) && m["result"] != nil:
				// Done before the cancellation: a result may go out.
			default:
				t.Errorf("answered: %s", line)
			}
		}
		if !pinged {
			t.Error("no answer to the ping")
		}
	})
}

// Every result holds the user's own catalog: none is "public", which would
// let an intermediary share it.
func TestStdioCacheScope(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	w := startStdio(t)
	for i, method := range []string{"server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
		w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`, i, method, meta))
		res, _ := w.recv()["result"].(map[string]any)
		if res["cacheScope"] != "private" {
			t.Errorf("%s: cacheScope %v, want private", method, res["cacheScope"])
		}
	}
}

// A client of protocol 2026-07-28 is told that a tool call's or a read's
// result is complete (resultType), as of every other result; an earlier
// one is not.
func TestStdioResultType(t *testing.T) {
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	requests := map[string]string{
		"tools/call":     `"name":"skill","arguments":{"name":"pdf"}`,
		"resources/read": `"uri":"skill://pdf/SKILL.md"`,
	}
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		w := startStdio(t)
		params := func(p string) string { return p + "," + meta }
		if version != "2026-07-28" {
			w.handshake()
			params = func(p string) string { return p }
		}
		id := 10
		for method, p := range requests {
			id++
			w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`, id, method, params(p)))
			res, _ := w.recv()["result"].(map[string]any)
			if res == nil {
				t.Fatalf("%s, %s: no result", version, method)
			}
			want := any("complete")
			if version != "2026-07-28" {
				want = nil
			}
			if res["resultType"] != want {
				t.Errorf("%s, %s: resultType %v, want %v", version, method, res["resultType"], want)
			}
		}
	}
}

// ttlMs and cacheScope come with protocol 2026-07-28: a session that
// speaks an earlier version does not get them.
func TestStdioNoCacheFieldsBefore2026(t *testing.T) {
	w := startStdio(t)
	w.handshake()
	for i, method := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"} {
		w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{"uri":"skill://pdf/SKILL.md"}}`, i+2, method))
		res, _ := w.recv()["result"].(map[string]any)
		if res == nil {
			t.Fatalf("%s: no result", method)
		}
		for _, key := range []string{"ttlMs", "cacheScope"} {
			if v, ok := res[key]; ok {
				t.Errorf("%s: %s %v sent to a 2025-11-25 session", method, key, v)
			}
		}
	}
}

// JSON-RPC asks that an answer carry the request's id exactly. The SDK
// decodes ids through float64, so the guard refuses those it would alter.
func TestStdioIDs(t *testing.T) {
	const rule = "the id must be a string of valid Unicode (no lone surrogate) or an integer between -(2^53-1) and 2^53-1, so that the answer carries it exactly"
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
		{"\"a\xffb\"", refusal("null", rule)}, // not UTF-8: echoed, it would spoil the line
		{`"<&>"`, `{"jsonrpc":"2.0","id":"<&>","result":{}}`},
		{`true`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: the id must be a string or an integer; it is a boolean"}}`},
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

// The SDK drops a request whose id is in use without a word; the guard
// refuses it instead.
func TestStdioIDInUse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := gateServer(t)
		w := serve(t, context.Background(), srv)
		w.handshake()
		w.send(callGate(`"w"`, "w"))
		for range 49 {
			w.send(ping(`"w"`))
		}
		for range 49 {
			if got, want := w.recvLine(), refusal(`"w"`, "a request with this id is still in progress"); got != want {
				t.Fatalf("\n got %s\nwant %s", got, want)
			}
		}
		g.open("w")
		if m := w.recv(); m["id"] != "w" || m["result"] == nil {
			t.Errorf("answer to the first request: %v", m)
		}

		// Fast requests sharing an id: each gets exactly one reply, an
		// answer or a refusal.
		for range 50 {
			w.send(ping("7"))
		}
		for range 50 {
			if m := w.recv(); m["id"] != float64(7) {
				t.Fatalf("reply to ping 7: %v", m)
			}
		}
		w.send(ping("8"))
		if m := w.recv(); m["id"] != float64(8) {
			t.Errorf("extra reply to ping 7 or no answer to ping 8: %v", m)
		}
	})
}

// A client that writes without reading stalls itself: the guard holds the
// request past MaxInFlight and reads no further until an answer is out.
func TestStdioBackPressure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, g := gateServer(t)
		w := serve(t, context.Background(), srv)
		w.handshake()
		for i := range server.MaxInFlight - 1 {
			w.send(callGate(fmt.Sprint(i), "k"))
		}
		// Notifications and answers to the server's requests take no slot.
		for range 10 {
			w.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
			w.send(`{"jsonrpc":"2.0","id":4242,"result":{}}`)
		}
		w.send(callGate(`"last"`, "k"))
		w.send(ping(`"held"`))
		sent := make(chan error, 1)
		go func() {
			_, err := io.WriteString(w.in, ping(`"next"`)+"\n")
			sent <- err
		}()
		synctest.Wait()
		select {
		case <-sent:
			t.Fatalf("the guard read past %d requests in flight", server.MaxInFlight)
		default:
		}

		g.open("k")
		if err := <-sent; err != nil {
			t.Fatal(err)
		}
		answered := map[string]bool{}
		for range server.MaxInFlight + 2 {
			m := w.recv()
			if m["result"] == nil {
				t.Fatalf("got %v", m)
			}
			answered[fmt.Sprint(m["id"])] = true
		}
		if !answered["held"] || !answered["next"] || !answered["last"] || len(answered) != server.MaxInFlight+2 {
			t.Errorf("answered %v", answered)
		}
	})
}

// ServeStdio returns within about a second of a signal or the end of
// input, even when the client reads none of its answers.
func TestStdioShutdownWithUnreadAnswers(t *testing.T) {
	tests := []struct {
		name     string
		requests int
		end      func(cancel context.CancelFunc, in io.Closer)
		within   time.Duration
	}{
		{"signal", 2 * server.MaxInFlight, func(cancel context.CancelFunc, _ io.Closer) { cancel() }, server.CloseTimeout},
		// The end of input is seen once the guard reads it, so before
		// MaxInFlight requests hold it.
		{"end of input", server.MaxInFlight - 4, func(_ context.CancelFunc, in io.Closer) { in.Close() }, server.DrainTimeout + server.CloseTimeout},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newStdioServer(t)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				inR, inW := io.Pipe()
				outR, outW := io.Pipe() // never read
				defer outR.Close()
				defer inW.Close()
				done := make(chan error, 1)
				go func() { done <- srv.ServeStdio(ctx, inR, outW) }()

				written := make(chan struct{})
				go func() {
					defer close(written)
					io.WriteString(inW, initLine+"\n")
					for i := range tt.requests {
						if _, err := io.WriteString(inW, ping(fmt.Sprint(i+2))+"\n"); err != nil {
							return // the test closed the input
						}
					}
				}()
				synctest.Wait()
				start := time.Now()
				tt.end(cancel, inW)
				<-done
				if took := time.Since(start); took > tt.within {
					t.Errorf("ServeStdio took %v to return, want at most %v", took, tt.within)
				}
				inW.Close()
				<-written
			})
		})
	}
}

func TestStdioLongLines(t *testing.T) {
	pad := func(n int) string {
		head, tail := `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"`, `"}}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	w := startStdio(t)
	w.handshake()
	// The answer carries the id the line begins with, so that the client
	// does not wait for an answer to its request for ever.
	w.send(pad(server.MaxLineLength + 1))
	if got, want := w.recvLine(), fmt.Sprintf(`{"jsonrpc":"2.0","id":9,"error":{"code":-32600,"message":"invalid request: the line is longer than %d bytes"}}`, server.MaxLineLength); got != want {
		t.Errorf("too long:\n got %s\nwant %s", got, want)
	}
	// An answer from the client (to the server's roots/list, say) is
	// never answered, too long or not: its id is one of the server's.
	w.send(`{"jsonrpc":"2.0","id":7,"result":{"roots":[{"uri":"file:///` + strings.Repeat("x", server.MaxLineLength) + `"}]}}`)
	w.send(`{"jsonrpc":"2.0","id":8,"result":{"x":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}`)
	// An id after the too long member cannot be told.
	idLast := `{"jsonrpc":"2.0","method":"ping","params":{"pad":"` + strings.Repeat("x", server.MaxLineLength) + `"},"id":10}`
	w.send(idLast)
	if got, want := w.recvLine(), fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: the line is longer than %d bytes"}}`, server.MaxLineLength); got != want {
		t.Errorf("too long, id last:\n got %s\nwant %s", got, want)
	}
	w.send(pad(server.MaxLineLength))
	if got, want := w.recvLine(), `{"jsonrpc":"2.0","id":9,"result":{}}`; got != want {
		t.Errorf("longest line:\n got %s\nwant %s", got, want)
	}
}

// The SDK answers these with code 0 unless told otherwise; the usual
// mistakes of a client's author are answered, besides, with what is wrong
// and what would be right, not the SDK's Go types (want).
func TestStdioErrorCodes(t *testing.T) {
	deep := func(n int) string {
		return `{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":` + strings.Repeat("[", n) + strings.Repeat("]", n) + `}}`
	}
	tests := []struct {
		name  string
		lines []string // the last one is answered with code
		code  float64
		want  string // in the message, when set
	}{
		{"request before initialize", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}, -32600, ""},
		{"tool call before initialize", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"skill","arguments":{"name":"pdf"}}}`}, -32600, ""},
		{"second initialize", []string{initLine, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`}, -32600, ""},
		{"initialize params not an object", []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":5}`}, -32602, ""},
		{"initialize params null", []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":null}`}, -32602, ""},
		{"initialize params of the wrong shape", []string{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":3}}`}, -32602, ""},
		{"initialize without params", []string{`{"jsonrpc":"2.0","id":1,"method":"initialize"}`}, -32602, ""},
		{"resources/read without params", []string{initLine, `{"jsonrpc":"2.0","id":2,"method":"resources/read"}`}, -32602, ""},
		{"prompts/get without params", []string{initLine, `{"jsonrpc":"2.0","id":2,"method":"prompts/get"}`}, -32602, ""},
		{"tools/call with null params", []string{initLine, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":null}`}, -32602, ""},
		{"request before initialize, said", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`}, -32600, "send initialize first"},
		{"tools/call without a name", []string{initLine, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"arguments":{}}}`}, -32602, `tools/call needs "name"`},
		{"an unknown tool", []string{initLine, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Skill","arguments":{}}}`}, -32602, `the tools served are skill`},
		{"a completion of an unknown ref", []string{initLine, `{"jsonrpc":"2.0","id":2,"method":"completion/complete","params":{"ref":{"type":"ref/tool","name":"x"},"argument":{"name":"a","value":""}}}`}, -32602, `ref.type must be "ref/prompt" or "ref/resource", got "ref/tool"`},
		{"a method that is a number", []string{`{"jsonrpc":"2.0","id":2,"method":5}`}, -32600, `"method" must be a string`},
		{"an id that is an object", []string{`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`}, -32600, "the id must be a string or an integer; it is an object"},
		{"nested 2,000 deep", []string{deep(2000)}, -32600, "nested more than 1000 levels deep"},
		{"nested 20,000 deep", []string{deep(20000)}, -32600, "nested more than 1000 levels deep"},
		{"logging/setLevel, which the server does not have", []string{initLine, `{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`}, -32601, "its log goes to stderr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := startStdio(t)
			for _, l := range tt.lines[:len(tt.lines)-1] {
				w.send(l)
				w.recv()
			}
			w.send(tt.lines[len(tt.lines)-1])
			m := w.recv()
			e, _ := m["error"].(map[string]any)
			if msg, _ := e["message"].(string); errCode(m) != tt.code || !strings.Contains(msg, tt.want) || strings.Contains(msg, "interface {}") {
				t.Errorf("got %v, want code %v and %q", m, tt.code, tt.want)
			}
			if m["id"] == nil && !strings.Contains(tt.lines[len(tt.lines)-1], `"id":{`) {
				t.Errorf("got %v, want the request's id", m)
			}
			w.send(ping("99"))
			if m := w.recv(); m["result"] == nil {
				t.Errorf("ping after the error: %v", m)
			}
		})
	}
}

// An answer from the client is never answered, even one the SDK cannot
// read (JSON-RPC answers no answer).
func TestStdioUnreadableAnswerIsDropped(t *testing.T) {
	w := startStdio(t)
	w.send(`{"jsonrpc":"2.0","id":null,"result":{}}`)
	w.send(ping("7"))
	if m := w.recv(); m["id"] != float64(7) || m["result"] == nil {
		t.Errorf("an answer with a null id was answered: %v", m)
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

// A line past MaxLineLength is skipped as it is read, never held whole.
func TestStdioDoesNotHoldLongLines(t *testing.T) {
	const long = 64 << 20
	srv := newStdioServer(t)
	in := io.MultiReader(strings.NewReader(initLine+"\n"), &filler{n: long}, strings.NewReader("\n"+ping("2")+"\n"))
	var out strings.Builder
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := srv.ServeStdio(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > long/4 {
		t.Errorf("allocated %d bytes for a line of %d", n, long)
	}
	if got := out.String(); !strings.Contains(got, "longer than") || !strings.Contains(got, `{"jsonrpc":"2.0","id":2,"result":{}}`) {
		t.Errorf("got %s", got)
	}
}

// filler yields n bytes of 'x' without holding them.
type filler struct{ n int }

func (f *filler) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, io.EOF
	}
	p = p[:min(len(p), f.n)]
	for i := range p {
		p[i] = 'x'
	}
	f.n -= len(p)
	return len(p), nil
}

// A client that asks initialize for 2026-07-28 is answered 2025-11-25, and
// is served as a 2025-11-25 client: a resource not found is -32002.
func TestStdioNegotiatedVersionDecides(t *testing.T) {
	w := startStdio(t)
	w.send(strings.Replace(initLine, "2025-11-25", "2026-07-28", 1))
	m := w.recv()
	if res, _ := m["result"].(map[string]any); res == nil || res["protocolVersion"] != "2025-11-25" {
		t.Fatalf("initialize: %v", m)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"skill://nope/SKILL.md"}}`)
	if m := w.recv(); errCode(m) != -32002 {
		t.Errorf("resources/read of an unknown skill: %v, want -32002", m)
	}
	w.in.Close()
	w.wait()
}

// Params of the wrong shape are -32602 naming the member and the types,
// not the SDK's Go types with the whole params echoed.
func TestStdioParamsOfTheWrongShape(t *testing.T) {
	w := startStdio(t)
	w.send(initLine)
	w.recv()
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":5,"padding":"` + strings.Repeat("x", 1000) + `"}}`)
	m := w.recv()
	msg, _ := m["error"].(map[string]any)["message"].(string)
	if errCode(m) != -32602 || msg != "invalid params for resources/read: uri must be a string, got a number" {
		t.Errorf("got %v", m)
	}
	w.in.Close()
	w.wait()
}

// On stdio a change is announced as soon as the catalog has it, not after
// the SDK's 10 ms batching, and each list_changed goes out once: the
// SDK's own notice, sent later, is kept from the session told already.
func TestStdioListChangedAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "One."}}}
		r, srv := refreshing(t, src)
		w := serve(t, context.Background(), srv)
		w.handshake()
		for i, method := range []string{"tools/list", "prompts/list", "resources/list"} {
			id := fmt.Sprint(i + 2)
			w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method))
			w.until(id)
		}

		src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: "two", Description: "Two."})
		if _, err := r.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // no time passes in the bubble
		want := []string{
			"notifications/prompts/list_changed",
			"notifications/resources/list_changed",
			"notifications/tools/list_changed",
		}
		if got := methods(w.pending()); !slices.Equal(got, want) {
			t.Errorf("sent at once: %q; want %q", got, want)
		}
		time.Sleep(time.Second) // past the SDK's batching
		synctest.Wait()
		if got := methods(w.pending()); len(got) != 0 {
			t.Errorf("sent again later: %q", got)
		}
	})
}

// A client of protocol 2026-07-28 is sent a list_changed only on a
// subscriptions/listen that asked for it, with the listen's id in its
// _meta: none before it listens, and only the kinds it listens to.
func TestStdioListChangedOnlyOnAListen(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
		src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "One."}}}
		r, srv := refreshing(t, src)
		w := serve(t, context.Background(), srv)
		for i, method := range []string{"server/discover", "tools/list", "prompts/list", "resources/list"} {
			w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{%s}}`, i+1, method, meta))
			w.until(fmt.Sprint(i + 1))
		}
		add := func(name string) []string {
			src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: name, Description: "The " + name + " skill."})
			if _, err := r.Reload(context.Background()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Second) // past the SDK's batching
			synctest.Wait()
			return w.pending()
		}
		if got := methods(add("two")); len(got) != 0 {
			t.Errorf("sent with no listen: %q", got)
		}
		w.send(`{"jsonrpc":"2.0","id":"listen-1","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},` + meta + `}}`)
		synctest.Wait()
		w.pending() // the acknowledgement
		for i, method := range []string{"tools/list", "prompts/list"} {
			id := fmt.Sprint(i + 10)
			w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":{%s}}`, id, method, meta))
			w.until(id)
		}
		lines := add("three")
		if got := methods(lines); !slices.Equal(got, []string{"notifications/tools/list_changed"}) {
			t.Errorf("sent on a listen of tools: %q; want tools/list_changed alone", got)
		}
		for _, line := range lines {
			if !strings.Contains(line, `"io.modelcontextprotocol/subscriptionId":"listen-1"`) {
				t.Errorf("not tagged with its listen: %s", line)
			}
		}
	})
}

// pending returns the lines of out that have come and were not read yet.
func (w *wire) pending() []string {
	var lines []string
	for {
		select {
		case line := <-w.lines:
			lines = append(lines, line)
		default:
			return lines
		}
	}
}

// methods returns the methods of the notifications among lines, sorted.
func methods(lines []string) []string {
	var out []string
	for _, line := range lines {
		var m struct{ Method string }
		if err := json.Unmarshal([]byte(line), &m); err == nil && m.Method != "" {
			out = append(out, m.Method)
		}
	}
	slices.Sort(out)
	return out
}

// rawStdio runs srv.ServeStdio on pipes that the test reads and writes
// itself, at its own pace. Closing out after ServeStdio returns shows the
// reader where the server stopped writing.
func rawStdio(t *testing.T, ctx context.Context, srv *server.Server) (in *io.PipeWriter, out *bufio.Reader, done <-chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ch := make(chan error, 1)
	go func() {
		err := srv.ServeStdio(ctx, inR, outW)
		outW.Close()
		ch <- err
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return inW, bufio.NewReaderSize(outR, 4<<10), ch
}

// bigAnswerAsked serves, on raw pipes, a server with a tool whose answer
// is a line of 1 MiB, and asks for it once initialized. The answer is
// then to be read from out.
func bigAnswerAsked(t *testing.T, ctx context.Context) (out *bufio.Reader, done <-chan error) {
	t.Helper()
	srv := newStdioServer(t)
	server.AddRawTool(srv, &mcp.Tool{Name: "big", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 1<<20)}}}, nil
	})
	in, out, done := rawStdio(t, ctx, srv)
	io.WriteString(in, initLine+"\n")
	if _, err := out.ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(in, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}`+"\n")
	return out, done
}

// slowRead reads out to its end, size bytes every pause.
func slowRead(out io.Reader, size int, pause time.Duration) []byte {
	var all []byte
	buf := make([]byte, size)
	for {
		n, err := out.Read(buf)
		all = append(all, buf[:n]...)
		if err != nil {
			return all
		}
		time.Sleep(pause)
	}
}

// oneWholeLine reports whether b is one line of valid JSON, not cut short.
func oneWholeLine(b []byte) bool {
	line, ok := bytes.CutSuffix(b, []byte("\n"))
	return ok && !bytes.Contains(line, []byte("\n")) && json.Valid(line)
}

// A signal while a client is reading a long answer slowly lets the answer
// finish: out is left with whole lines.
func TestStdioSignalFinishesTheLineBeingRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out, done := bigAnswerAsked(t, ctx)
		read := make(chan []byte)
		go func() { read <- slowRead(out, 4<<10, 5*time.Millisecond) }() // 1 MiB in 1.3 s
		time.Sleep(100 * time.Millisecond)
		cancel()
		<-done
		if got := <-read; !oneWholeLine(got) {
			t.Errorf("out holds %d bytes, not one whole answer", len(got))
		}
	})
}

// A signal while a client pauses in the middle of a long answer lets the
// answer finish once the client reads on: half a line would be lost to
// it, and spoil what it reads next.
func TestStdioSignalWaitsForAPausedReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out, done := bigAnswerAsked(t, ctx)
		head := make([]byte, 200<<10)
		if _, err := io.ReadFull(out, head); err != nil {
			t.Fatal(err)
		}
		cancel()
		time.Sleep(time.Second) // reading nothing meanwhile
		rest, _ := io.ReadAll(out)
		<-done
		if got := append(head, rest...); !oneWholeLine(got) {
			t.Errorf("out holds %d bytes, not one whole answer", len(got))
		}
	})
}

// At the end of input, a client that starts reading a while after it
// closed its end still gets every answer.
func TestStdioEndOfInputWaitsForALateReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newStdioServer(t)
		in, out, done := rawStdio(t, context.Background(), srv)
		io.WriteString(in, initLine+"\n")
		if _, err := out.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		const n = 10
		for i := range n {
			io.WriteString(in, ping(fmt.Sprint(i+2))+"\n")
		}
		in.Close()
		time.Sleep(time.Second) // reading nothing meanwhile
		all, _ := io.ReadAll(out)
		<-done
		if lines := strings.Split(strings.TrimSuffix(string(all), "\n"), "\n"); len(lines) != n {
			t.Errorf("%d answers of %d: %q", len(lines), n, lines)
		}
	})
}

// At the end of input, answers already made are written as long as the
// client takes them, past the bound on handlers still running.
func TestStdioEndOfInputWritesToASlowReader(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newStdioServer(t)
		server.AddRawTool(srv, &mcp.Tool{Name: "big", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 1<<20)}}}, nil
		})
		in, out, done := rawStdio(t, context.Background(), srv)
		io.WriteString(in, initLine+"\n")
		if _, err := out.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		const n = 20
		for i := range n {
			io.WriteString(in, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"big","arguments":{}}}`+"\n", i+2))
		}
		in.Close()
		all := slowRead(out, 64<<10, 100*time.Millisecond) // 20 MiB in 33 s
		<-done
		if lines := strings.Split(strings.TrimSuffix(string(all), "\n"), "\n"); len(lines) != n || !oneWholeLine([]byte(lines[n-1]+"\n")) {
			t.Errorf("%d whole answers of %d", len(lines), n)
		}
	})
}

// logging/setLevel is answered by the guard at once, never handed to the
// SDK (which would put its own words in the -32601), even while every
// slot for requests is taken: with its -32601, or, for an id another
// request still holds, as an id in use.
func TestStdioSetLevelAnsweredAtOnce(t *testing.T) {
	setLevel := func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"logging/setLevel","params":{"level":"debug"}}`
	}
	synctest.Test(t, func(t *testing.T) {
		srv, g := gateServer(t)
		w := serve(t, context.Background(), srv)
		w.handshake()
		w.send(callGate(`"x"`, "x"))
		for i := range server.MaxInFlight - 1 {
			w.send(callGate(fmt.Sprint(i), "k"))
		}
		synctest.Wait()
		w.send(setLevel(`"x"`))
		if line := w.recvLine(); !strings.Contains(line, `"id":"x"`) || !strings.Contains(line, "still in progress") {
			t.Errorf("logging/setLevel with an id in use, every slot taken: %s", line)
		}
		w.send(setLevel(`"y"`))
		if line := w.recvLine(); !strings.Contains(line, `"id":"y"`) || !strings.Contains(line, "its log goes to stderr") {
			t.Errorf("logging/setLevel, every slot taken: %s", line)
		}
		g.open("x")
		g.open("k")
	})
}

// modernMeta is the _meta a 2026-07-28 client sends with every request, in
// place of an initialize.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// From protocol 2026-07-28 a client holds a subscriptions/listen request
// open for as long as it wants notifications (the Go SDK's client holds
// one per subscribed resource). Open listens take no slot of MaxInFlight:
// a client with more of them open is still answered (the server read no
// further before, and never saw the cancellations or the end of input
// behind), and the end of input waits for none of them.
func TestOpenListensHoldNoSlot(t *testing.T) {
	logs := &logBuffer{}
	srv := server.New(newResolver(t, dirtree.New(skillsDir(t), nil)), &server.Options{Logger: logs.logger()})
	w := serve(t, context.Background(), srv)
	sendAsync := func(line string) { go io.WriteString(w.in, line+"\n") } // a held line must not hold the test
	for i := range server.MaxInFlight + 1 {
		sendAsync(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{"resourceSubscriptions":["skill://pdf/f%d.md"]},%s}}`, 100+i, i, modernMeta))
		if line := w.recvLine(); !strings.Contains(line, "subscriptions/acknowledged") {
			t.Fatalf("listen %d: %s", i, line)
		}
	}
	sendAsync(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{%s}}`, modernMeta))
	if _, answer := w.until("1"); !strings.Contains(answer, `"result"`) {
		t.Errorf("tools/list after %d open listens: %s", server.MaxInFlight+1, answer)
	}
	// They are bounded all the same; a cancelled one makes room.
	for i := server.MaxInFlight + 1; i < server.MaxOpenListens; i++ {
		w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},%s}}`, 100+i, modernMeta))
		w.recvLine()
	}
	extra := fmt.Sprintf(`{"jsonrpc":"2.0","id":"extra","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},%s}}`, modernMeta)
	if line := w.recvAfter(extra); !strings.Contains(line, `"code":-32600`) || !strings.Contains(line, "subscriptions/listen requests are open already") {
		t.Errorf("listen %d: %s", server.MaxOpenListens+1, line)
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":100}}`)
	if line := w.recvAfter(extra); !strings.Contains(line, "subscriptions/acknowledged") {
		t.Errorf("listen after a cancel: %s", line)
	}
	w.in.Close()
	w.wait()
	if got := logs.String(); strings.Contains(got, "unanswered") {
		t.Errorf("the end of input waited for the open listens:\n%s", got)
	}
}

// A client that stops reading while the catalog keeps changing is sent,
// once it reads again, a few list_changed of each kind, not one per
// change: the notice that could not be written stands for the later ones
// (one more follows it), and they do not pile up as goroutines and lines
// meanwhile. Nothing reads the server's output while it changes, so no
// read-ahead lets one through; the changes come at once and apart.
func TestStdioListChangedToAClientNotReading(t *testing.T) {
	for _, gap := range []time.Duration{0, 30 * time.Millisecond} {
		t.Run(gap.String(), func(t *testing.T) {
			src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "One."}}}
			r, srv := refreshing(t, src)
			inR, inW := io.Pipe()
			outR, outW := io.Pipe()
			done := make(chan error, 1)
			go func() { done <- srv.ServeStdio(context.Background(), inR, outW) }()
			t.Cleanup(func() { inW.Close(); outR.Close(); <-done })
			out := bufio.NewReaderSize(outR, 4<<20)
			// until reads up to the answer to id, and counts the
			// tools/list_changed before it.
			until := func(id string) (changed int) {
				t.Helper()
				for {
					line, err := out.ReadString('\n')
					if err != nil {
						t.Fatal(err)
					}
					if strings.Contains(line, "notifications/tools/list_changed") {
						changed++
					}
					if strings.Contains(line, `"id":`+id+`,`) {
						return changed
					}
				}
			}
			io.WriteString(inW, initLine+"\n")
			until("1")
			io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
			io.WriteString(inW, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`+"\n")
			until("2")
			for i := range 20 { // the client reads nothing meanwhile
				src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: fmt.Sprintf("new%d", i), Description: "New."})
				if _, err := r.Reload(context.Background()); err != nil {
					t.Fatal(err)
				}
				time.Sleep(gap)
			}
			go io.WriteString(inW, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`+"\n")
			changed := until("3")
			// A notice that had not begun its write may follow the
			// answer; another request, a moment later, collects it.
			time.Sleep(200 * time.Millisecond)
			go io.WriteString(inW, `{"jsonrpc":"2.0","id":4,"method":"tools/list"}`+"\n")
			changed += until("4")
			// The notice being written, the one after it, and the
			// SDK's own batched one, which may have been due when
			// made.
			if changed == 0 || changed > 3 {
				t.Errorf("%d tools/list_changed after 20 changes while the client did not read; want a few, not one per change", changed)
			}
		})
	}
}

// What a client sends out of turn (a request before initialize, a second
// initialize, initialized twice) is answered to the client, and the SDK's
// line about it is a warning: it is no error of the server's.
func TestStdioClientsMistakesAreWarnings(t *testing.T) {
	logs := &logBuffer{}
	srv := server.New(newResolver(t, dirtree.New(skillsDir(t), nil)), &server.Options{Logger: logs.logger()})
	w := serve(t, context.Background(), srv)
	w.send(`{"jsonrpc":"2.0","id":7,"method":"tools/list"}`)
	w.until("7")
	w.handshake()
	w.send(initLine)
	w.until("1")
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	w.send(ping("8"))
	w.until("8")
	w.in.Close()
	w.wait()
	out := logs.String()
	for _, want := range []string{"method invalid during initialization", "duplicate initialize request", "duplicate initialized notification"} {
		if !strings.Contains(out, "level=WARN msg=\""+want) {
			t.Errorf("no warning %q in the log:\n%s", want, out)
		}
	}
	if strings.Contains(out, "level=ERROR") {
		t.Errorf("an error in the log:\n%s", out)
	}
}

// A message the SDK cannot decode for its "jsonrpc" member or its id is
// answered with what is wrong in words, not with the decoder's text.
func TestStdioShapeErrorsInWords(t *testing.T) {
	w := startStdio(t)
	for _, tc := range []struct{ line, want string }{
		{`{"jsonrpc":2.0,"id":1,"method":"ping"}`, `invalid request: "jsonrpc" must be the string "2.0"; it is 2.0`},
		{`{"jsonrpc":"1.0","id":2,"method":"ping"}`, `invalid request: "jsonrpc" must be the string "2.0"; it is "1.0"`},
		{`{"jsonrpc":"2.0","id":1e400,"method":"ping"}`, "invalid request: the id must be a string of valid Unicode (no lone surrogate) or an integer between -(2^53-1) and 2^53-1"},
	} {
		m := w.recvAfterMap(tc.line)
		e, _ := m["error"].(map[string]any)
		if msg, _ := e["message"].(string); e["code"] != json.Number("-32600") || !strings.HasPrefix(msg, tc.want) {
			t.Errorf("%s: %v; want -32600 %q", tc.line, m, tc.want)
		}
	}
}

// recvAfterMap sends line and decodes the line that comes back, numbers
// as they are written (an id of 1e400 is no float64).
func (w *wire) recvAfterMap(line string) map[string]any {
	w.t.Helper()
	w.send(line)
	d := json.NewDecoder(strings.NewReader(w.recvLine()))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		w.t.Fatal(err)
	}
	return m
}

// bigSkillCalls serves a skill of 200 kB on real pipes (os.Pipe), which
// the test closes, and returns the server and the lines of a handshake and
// n calls of that skill: answers large enough to fill a pipe a client
// does not read.
func bigSkillCalls(t *testing.T, n int) (srv *server.Server, lines string) {
	t.Helper()
	root := t.TempDir()
	sourcetest.WriteFile(t, filepath.Join(root, "big", "SKILL.md"), "---\nname: big\ndescription: A large skill.\n---\n"+strings.Repeat("x", 200_000)+"\n")
	srv = server.New(newResolver(t, dirtree.New(root, nil)), nil)
	t.Cleanup(func() { srv.Close() })
	lines = initLine + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"
	for i := range n {
		lines += fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"skill","arguments":{"name":"big"}}}`+"\n", i+2)
	}
	return srv, lines
}

// pipes returns two os.Pipe pairs, closed at the end of the test.
func pipes(t *testing.T) (inR, inW, outR, outW *os.File) {
	t.Helper()
	var err error
	if inR, inW, err = os.Pipe(); err != nil {
		t.Fatal(err)
	}
	if outR, outW, err = os.Pipe(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inR.Close(); inW.Close(); outR.Close(); outW.Close() })
	return inR, inW, outR, outW
}

// A client that stops reading its answers with MaxInFlight of them owed,
// then closes its end of the input, does not hold the server for ever:
// the guard, waiting for room, reads no further, and sees that the input
// was closed by looking at the pipe; the end of input then gives up on
// the answers the client does not take.
func TestStdioClientThatHangsUpWithoutReading(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the pipe's hang-up is not looked at here")
	}
	srv, lines := bigSkillCalls(t, server.MaxInFlight+10)
	inR, inW, _, outW := pipes(t) // out never read: the client stopped reading
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(context.Background(), inR, outW) }()
	go func() {
		inW.WriteString(lines) // blocks while the guard reads no further
		inW.Close()
	}()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, server.ErrOutputFailed) {
			t.Errorf("ServeStdio: %v", err)
		}
	case <-time.After(60 * time.Second): // only to report a hang
		t.Fatal("ServeStdio did not return after the client closed its input")
	}
}

// A client that writes all its requests, closes its input at once and
// reads its answers (printf ... | skillmux serve) has every one of them,
// however many: the guard waiting for room is not taken for a hung-up
// client's while the answers are taken.
func TestStdioClientThatClosesItsInputAndReads(t *testing.T) {
	const n = 3 * server.MaxInFlight
	srv, lines := bigSkillCalls(t, n)
	inR, inW, outR, outW := pipes(t)
	if _, err := inW.WriteString(lines); err != nil { // fits in the pipe
		t.Fatal(err)
	}
	inW.Close()
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(context.Background(), inR, outW); outW.Close() }()
	answers := 0
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, 1<<20)
	time.Sleep(time.Second) // a pause, with its input closed and every answer owed
	for sc.Scan() {
		time.Sleep(5 * time.Millisecond) // a client slower than the server
		if strings.Contains(sc.Text(), `"result"`) {
			answers++
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if answers != n+1 {
		t.Errorf("%d answers; want %d (initialize and every call)", answers, n+1)
	}
}

// An answer the client is still reading when the server stops, and gives
// up waiting for it, is said in the log with its id: the client got a
// line cut short, not a clean end.
func TestStdioShutdownCutsAnAnswerShort(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		sourcetest.WriteFiles(t, root, map[string]string{
			"big/SKILL.md":  "---\nname: big\ndescription: A large file.\n---\nbody\n",
			"big/large.txt": strings.Repeat("a line of text\n", 1<<16),
		})
		logs := &logBuffer{}
		srv := server.New(newResolver(t, dirtree.New(root, nil)), &server.Options{Logger: logs.logger()})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		defer outR.Close()
		defer inW.Close()
		done := make(chan error, 1)
		go func() { done <- srv.ServeStdio(ctx, inR, outW) }()
		out := bufio.NewReader(outR)
		io.WriteString(inW, initLine+"\n")
		if line, err := out.ReadString('\n'); err != nil || !strings.Contains(line, `"result"`) {
			t.Fatalf("initialize: %q %v", line, err)
		}
		io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		io.WriteString(inW, `{"jsonrpc":"2.0","id":"slow","method":"resources/read","params":{"uri":"skill://big/large.txt"}}`+"\n")
		if _, err := io.ReadFull(out, make([]byte, 100<<10)); err != nil { // then the client reads no more
			t.Fatal(err)
		}
		cancel()
		<-done
		if got := logs.String(); !strings.Contains(got, `msg="stopping with an answer cut short: the client had not read all of it" id=slow`) {
			t.Errorf("the cut answer is not in the log:\n%s", got)
		}
	})
}
