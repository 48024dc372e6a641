package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainTimeout bounds how long the end of input waits for the answers to
// requests already read.
const drainTimeout = 700 * time.Millisecond

// MaxLineLength bounds one inbound JSON-RPC line; a longer line is answered
// with an error and skipped.
const MaxLineLength = 16 << 20

// maxExactID is the largest integer id the SDK echoes exactly: it decodes
// ids through float64, so v1.8.0 answers 9007199254740993 (2^53+1) as
// 9007199254740992, 2^64 as -2^63 and 1.5 as 1. 2^53-1 is also the bound
// I-JSON (RFC 7493) sets for interoperable integers.
const maxExactID = 1<<53 - 1

// ServeStdio serves one session over newline-delimited JSON-RPC on in and
// out (stdin and stdout in production) until in ends or ctx is done.
//
// It stands between the wire and the SDK, which would end the whole session
// on one malformed line and alters some ids silently: each line is checked
// first, a line that is not JSON is answered with -32700, a batch, a line
// that is not a JSON-RPC message or a request whose id the SDK would not
// echo exactly with -32600, and the session goes on. The SDK and this guard share one writer
// that emits whole lines under a lock, so replies never interleave.
//
// Reading in cannot be interrupted: when ctx ends, ServeStdio returns and
// leaves the reading goroutine blocked until in yields or the process exits.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	w := &lineWriter{w: out, answered: make(chan struct{}, 1)}
	pr, pw := io.Pipe()
	session, err := s.mcp.Connect(ctx, &mcp.IOTransport{Reader: pr, Writer: w}, nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	g := &guard{logger: s.logger}
	go func() { done <- g.pump(in, pw, w) }()

	select {
	case err := <-done:
		// End of input. The SDK would drop the answers to requests still
		// running when it sees the end, so wait for them first (a client
		// may write its requests and close at once), but not for long:
		// the process must end promptly.
		w.drain(ctx, drainTimeout)
		pw.Close()
		session.Wait()
		return err
	case <-ctx.Done():
		pw.Close()
		session.Close()
		session.Wait()
		return nil
	}
}

// guard checks each input line before the SDK sees it. Only the pump
// goroutine uses it.
type guard struct {
	logger *slog.Logger
}

// pump copies well-formed lines from in to the SDK's pipe and answers the
// others itself. It returns nil at the end of in.
func (g *guard) pump(in io.Reader, pipe *io.PipeWriter, w *lineWriter) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		if err := g.forward(line, tooLong, pipe, w); err != nil {
			return nil // the session has ended
		}
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
	}
}

// forward hands one line to the SDK, or answers it here when the SDK must
// not see it. It fails only when the session has ended.
func (g *guard) forward(line []byte, tooLong bool, pipe *io.PipeWriter, w *lineWriter) error {
	if len(line) == 0 && !tooLong {
		return nil
	}
	t := g.triage(line, tooLong)
	if t.reply != nil {
		w.writeMessage(t.reply)
	}
	if t.pass == nil {
		return nil
	}
	w.pending.Add(int64(t.calls))
	_, err := pipe.Write(append(t.pass, '\n'))
	return err
}

// triaged is what to do with one input line: answer it here, or pass it
// to the SDK.
type triaged struct {
	reply any    // an error reply, or a list of them for a batch
	pass  []byte // what the SDK may see
	calls int    // 1 when pass is a request that expects an answer
}

// triage checks a line before the SDK sees it: the SDK ends the whole
// session on a line it cannot decode.
func (g *guard) triage(line []byte, tooLong bool) triaged {
	switch {
	case tooLong:
		g.logger.Warn("input line too long; answered with an error", "limit", MaxLineLength)
		return triaged{reply: newErrorReply(nil, jsonrpc.CodeInvalidRequest, "request line longer than 16 MiB")}
	case !json.Valid(line):
		g.logger.Warn("malformed JSON on stdin; answered with -32700", "line", preview(line))
		return triaged{reply: newErrorReply(nil, jsonrpc.CodeParseError, "parse error: the line is not valid JSON")}
	case line[0] == '[':
		return g.refuseBatch(line)
	}
	reply, call := g.check(line)
	if reply != nil {
		return triaged{reply: reply}
	}
	return triaged{pass: line, calls: call}
}

// refuseBatch answers a batch without passing any of it to the SDK. The
// SDK takes batches only in protocol versions before 2025-06-18 (which
// dropped them; no MCP client sends one) and ends the session on several
// kinds, so every member that expects an answer, or is not a valid
// message, gets -32600, all in one array as JSON-RPC asks.
func (g *guard) refuseBatch(line []byte) triaged {
	var members []json.RawMessage
	json.Unmarshal(line, &members) // cannot fail: the line is a JSON array
	g.logger.Warn("JSON-RPC batch refused", "members", len(members), "line", preview(line))
	const refused = "invalid request: batches are not supported; send one message per line"
	if len(members) == 0 {
		return triaged{reply: newErrorReply(nil, jsonrpc.CodeInvalidRequest, refused)}
	}
	var replies []*errorReply
	for _, m := range members {
		if msg, err := decode(m); err != nil || msg.req != nil && msg.id != nil {
			replies = append(replies, newErrorReply(replyID(msg.id), jsonrpc.CodeInvalidRequest, refused))
		}
	}
	if len(replies) == 0 {
		return triaged{} // only notifications and answers: nothing to reply
	}
	return triaged{reply: replies}
}

// readLine reads one line without its line break, trimmed of surrounding
// blanks. A line over MaxLineLength is consumed and reported as tooLong.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			buf = append(buf, chunk...)
			if len(buf) > MaxLineLength {
				tooLong, buf = true, nil
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSpace(buf), tooLong, err
	}
}

// check returns the error reply for a message the SDK must not see, or
// nil and 1 when the message is a request that expects an answer (0 for a
// notification or a response).
func (g *guard) check(line []byte) (*errorReply, int) {
	msg, err := decode(line)
	switch {
	case err != nil:
		g.logger.Warn("invalid JSON-RPC message on stdin; answered with -32600", "err", err, "line", preview(line))
		return newErrorReply(replyID(msg.id), jsonrpc.CodeInvalidRequest, "invalid request: "+preview(err.Error())), 0
	case msg.req == nil || msg.id == nil:
		return nil, 0
	case !exactID(msg.id):
		g.logger.Warn("request id refused; answered with -32600", "id", preview(msg.id))
		return newErrorReply(replyID(msg.id), jsonrpc.CodeInvalidRequest,
			"invalid request: the id must be a string or an integer between -(2^53-1) and 2^53-1, so that the answer carries it exactly"), 0
	}
	return nil, 1
}

// inbound is one message as the guard sees it.
type inbound struct {
	req *jsonrpc.Request // nil for an answer to a server request
	id  json.RawMessage  // the "id" member as sent, nil if absent
}

// decode reads a message with the SDK's own decoder, so that the guard
// refuses exactly what would end the session. The id comes back as sent,
// even when the message is refused.
func decode(raw []byte) (inbound, error) {
	msg := inbound{id: member(raw, "id")}
	m, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return msg, err
	}
	msg.req, _ = m.(*jsonrpc.Request)
	return msg, nil
}

// member returns the member key of a JSON object as sent, nil when it is
// absent or raw is not an object. Keys match exactly, as in the SDK's
// decoder (a struct field would also match "ID"), and the last of
// repeated keys wins in both.
func member(raw []byte, key string) json.RawMessage {
	var members map[string]json.RawMessage
	json.Unmarshal(raw, &members)
	return members[key]
}

// exactID reports whether the SDK answers a request with id exactly as
// sent: a string that decodes without U+FFFD (the SDK puts it in place of
// invalid UTF-8 and lone surrogates, so an id holding it may not come back
// the same; a literal U+FFFD is refused too), or an integer written as
// JSON writes it, within ±maxExactID. A null id would make the request a
// notification that is never answered.
func exactID(id json.RawMessage) bool {
	if id[0] == '"' {
		var s string
		return json.Unmarshal(id, &s) == nil && !strings.ContainsRune(s, utf8.RuneError)
	}
	n, err := strconv.ParseInt(string(id), 10, 64)
	return err == nil && -maxExactID <= n && n <= maxExactID && strconv.FormatInt(n, 10) == string(id)
}

// replyID is the id an error reply carries: the bytes the client sent when
// its id is a string or a number, null when there is none to tell, as
// JSON-RPC asks.
func replyID(id json.RawMessage) json.RawMessage {
	if len(id) > 0 && (id[0] == '"' || id[0] == '-' || '0' <= id[0] && id[0] <= '9') {
		return id
	}
	return nil
}

// errorReply is a JSON-RPC error response made by the guard. Its id is the
// client's own bytes, never a number decoded and encoded again; a nil id
// encodes as null, which the SDK's encoder would leave out.
type errorReply struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   *jsonrpc.Error  `json:"error"`
}

func newErrorReply(id json.RawMessage, code int64, msg string) *errorReply {
	return &errorReply{JSONRPC: "2.0", ID: id, Error: &jsonrpc.Error{Code: code, Message: msg}}
}

func preview[T ~string | ~[]byte](s T) string {
	if len(s) > 80 {
		return string(s[:80]) + "…"
	}
	return string(s)
}

// lineWriter is the one writer of the protocol stream: each Write carries
// whole lines (the SDK writes one message per call), and the lock keeps
// the SDK's replies and the guard's from interleaving.
type lineWriter struct {
	// mu guards w.
	mu sync.Mutex
	w  io.Writer

	// pending counts the requests handed to the SDK and not answered yet.
	pending atomic.Int64
	// answered is signalled (without blocking) after each answer.
	answered chan struct{}
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	if isResponse(p) {
		l.pending.Add(-1)
		select {
		case l.answered <- struct{}{}:
		default:
		}
	}
	return n, err
}

// drain waits until every request handed to the SDK has been answered,
// at most for timeout.
func (l *lineWriter) drain(ctx context.Context, timeout time.Duration) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for l.pending.Load() > 0 {
		select {
		case <-l.answered:
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// isResponse reports whether a message answers a request: it has an id
// and a result or an error, and no method. Only the head of the message
// is read, however long the result.
func isResponse(line []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	hasID := false
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return false
		}
		switch t {
		case "method":
			return false
		case "result", "error":
			return hasID
		case "id":
			hasID = true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false
		}
	}
	return false
}

// Close is a no-op: stdout outlives the session.
func (l *lineWriter) Close() error { return nil }

func (l *lineWriter) writeMessage(msg any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep the client's id bytes as they came
	if enc.Encode(msg) == nil {
		l.Write(buf.Bytes())
	}
}
