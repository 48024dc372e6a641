package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/internal/jsonkind"
)

// Limits of ServeStdio.
const (
	// MaxLineLength bounds one inbound line, in bytes without its "\n". A
	// longer line is answered with -32600 and skipped without being held in
	// memory. The largest messages a client sends this server (tool calls,
	// the answer to roots/list) are far smaller; with MaxInFlight it bounds
	// the input one session holds to 64 MiB.
	MaxLineLength = 1 << 20

	// MaxInFlight bounds the requests handed to the SDK and not answered
	// yet. While that many are outstanding, ServeStdio holds the next
	// request and reads no further, so a client that writes without reading
	// stalls itself instead of making the server buffer without bound.
	// Notifications and answers to the server's own requests do not count:
	// nothing answers them. Nor do the subscriptions/listen requests of
	// protocol 2026-07-28, which a client holds open for as long as it
	// wants notifications (see maxOpenListens); no other handler waits for
	// the client.
	MaxInFlight = 64
)

// maxOpenListens bounds the subscriptions/listen requests a session holds
// open at once; a client that opens one per subscribed resource (as the
// Go SDK's does) may subscribe to that many. Past it, a listen is refused
// with -32600.
const maxOpenListens = 1024

// listenMethod is the request a 2026-07-28 client holds open to be sent
// notifications: it is answered only when the client cancels it, or the
// session ends.
const listenMethod = "subscriptions/listen"

const (
	// drainTimeout bounds how long the end of input waits while out takes
	// nothing: a client that has stopped reading would otherwise hold the
	// server for ever. A client reading slowly, or a while after it closed
	// its end, keeps the wait going.
	drainTimeout = 2 * time.Second
	// workTimeout bounds how long the end of input waits for requests
	// already read that are still running (Server.workTimeout: longer
	// with an Options.SearchWait above DefaultSearchWait). It is above the
	// longest a handler waits by itself by default: a search for its
	// index, a source plugin for its answer (10 s unless configured; a
	// plugin configured to take longer is cut short).
	workTimeout = DefaultSearchWait + 5*time.Second
	// closeTimeout bounds each of the two waits of ServeStdio's end: for
	// the SDK's session, then for the writer; a line that out has begun
	// to take is waited for while out takes some of it every drainTimeout
	// (up to Server.workTimeout), so that out is left with whole lines.
	closeTimeout = 300 * time.Millisecond
	// writeChunk is the most the writer hands out at once, so that it
	// sees a slow reader's progress through a long line.
	writeChunk = 64 << 10
)

// maxExactID is the largest integer id the SDK echoes exactly: it decodes
// ids through float64, so v1.8.0 answers 9007199254740993 (2^53+1) as
// 9007199254740992, 2^64 as -2^63 and 1.5 as 1. 2^53-1 is also the bound
// I-JSON (RFC 7493) sets for interoperable integers.
const maxExactID = 1<<53 - 1

// ServeStdio serves one session over newline-delimited JSON-RPC on in and
// out (stdin and stdout in production) until in ends or ctx is done.
//
// It stands between the wire and the SDK, which would end the whole session
// on one malformed line and drops or alters some requests silently. Each
// line is checked first: a line that is not JSON is answered with -32700;
// a batch, a message the SDK cannot decode, a request whose id the SDK
// would not echo exactly or whose id is still in use are answered with
// -32600; the session goes on. The SDK gets the others as the guard
// decoded them (see stdioConn). The SDK and the guard share one writer
// that emits whole lines, so replies never interleave.
//
// ServeStdio returns within about a second of ctx, or a few seconds while
// the client is still reading a long answer. At the end of in it first
// answers the requests already read (a client may write its requests and
// close at once): it waits up to workTimeout for their handlers, and for
// the answers made as long as out takes them, but no more than
// drainTimeout once out has taken nothing that long; with nothing in
// flight it returns at once. Then writing stops: a line that out is
// taking is finished while out keeps taking it, and one out has not taken
// by then is abandoned with the goroutine writing it; the read of in,
// which cannot be interrupted, is left blocked; both end with the
// process, or when out or in unblock.
// Requests left unanswered are logged, with their ids. The end of in is
// seen when the guard reads it: behind MaxInFlight unanswered requests,
// only as their answers are read.
//
// It returns nil at the end of in or of ctx, the error reading in gave,
// or one that wraps ErrOutputFailed when the session ended because out
// failed.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	calls := newCalls()
	w := newLineWriter(out)
	conn := newStdioConn(w, calls)
	session, err := s.mcp.Connect(ctx, stdioTransport{conn}, nil)
	if err != nil {
		w.Close()
		return err
	}
	s.mu.Lock()
	s.sessionLocked(session).direct = conn
	s.mu.Unlock()
	ended := make(chan struct{}) // closed when the SDK's session is over
	go func() {
		session.Wait()
		close(ended)
	}()
	if f, ok := in.(*os.File); ok {
		// A client that closed its input and has taken nothing of its
		// answers for a while is gone (see calls.waitRoom).
		calls.gone = func() bool { return w.blocked() >= drainTimeout && hungUp(f) }
	}
	g := &guard{logger: s.logger, calls: calls, sdk: conn, out: w}
	read := make(chan error, 1) // buffered: the pump may outlive ServeStdio
	go func() { read <- g.pump(in) }()

	select {
	case err = <-read:
		// End of input, or the pump found the session over (its own
		// reply, or its delivery to an SDK that stopped, failed). The
		// SDK drops the answers to requests still running once it sees
		// the end, so wait for them first, unless it is over already.
		calls.drain(ctx, w, ended, drainTimeout, s.workTimeout())
	case <-ctx.Done():
	case <-ended:
		// The SDK ended the session: writing to out failed.
	}
	// Whichever the pump or the SDK saw first, a failed write to out is
	// why the session ended, not the end of in.
	if werr := w.failed(); werr != nil {
		err = fmt.Errorf("%w: %w", ErrOutputFailed, werr)
	}
	// The pump stops waiting for room; lines not yet on out fail, so no
	// handler stays blocked on a client that does not read; the SDK sees
	// the end of its input, cancels what still runs and closes.
	calls.stop()
	w.Close()
	conn.endInput()
	timeout := time.NewTimer(closeTimeout)
	defer timeout.Stop()
	select {
	case <-ended:
	case <-timeout.C:
	}
	w.finish(closeTimeout, drainTimeout, s.workTimeout())
	// Told once the lines being written are out or abandoned: an answer
	// the client was still taking is not among them, and is told apart.
	if line := w.cut(); line != nil {
		s.logger.Warn("stopping with an answer cut short: the client had not read all of it", "id", lineID(line), "bytes", len(line))
	}
	if ids := calls.unanswered(); len(ids) > 0 {
		s.logger.Warn("stopping with requests unanswered", "count", len(ids), "ids", ids)
	}
	return err
}

// ErrOutputFailed is returned by ServeStdio when the session ended because
// out failed: the client closed the pipe it reads answers from (EPIPE), or
// its stdout is otherwise broken.
var ErrOutputFailed = errors.New("writing to the client failed")

// workTimeout is how long the end of input waits for handlers still
// running: workTimeout, or more when searches may wait longer for their
// index.
func (s *Server) workTimeout() time.Duration {
	return max(workTimeout, s.index.wait+drainTimeout)
}

// guard checks each input line before the SDK sees it. Only the pump
// goroutine uses it.
type guard struct {
	logger *slog.Logger
	calls  *calls
	sdk    *stdioConn // the SDK's input
	out    io.Writer  // the session's lineWriter
}

// pump copies checked lines from in to the SDK and answers the others
// itself. It returns nil at the end of in or once the session is over.
func (g *guard) pump(in io.Reader) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		if len(line) > 0 || tooLong {
			if g.handle(line, tooLong) != nil {
				return nil // the session is over
			}
		}
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return err
		}
	}
}

// readLine reads one line without its line break, trimmed of surrounding
// blanks. A line over MaxLineLength is consumed, and reported as tooLong
// with only its first headLength bytes kept, where its id usually is.
func readLine(r *bufio.Reader) (line []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			buf = append(buf, chunk...)
			if len(bytes.TrimSuffix(buf, []byte("\n"))) > MaxLineLength {
				tooLong, buf = true, bytes.Clone(buf[:headLength]) // the rest is let go
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSpace(buf), tooLong, err
	}
}

// handle answers a line the SDK must not see, or passes it on. It fails
// only when the session is over.
func (g *guard) handle(line []byte, tooLong bool) error {
	switch {
	case tooLong:
		return g.refuseUnread(line, "longer than "+strconv.Itoa(MaxLineLength)+" bytes",
			fmt.Sprintf("invalid request: the line is longer than %d bytes", MaxLineLength))
	case !json.Valid(line):
		if nestingDepth(line) > maxNesting {
			// Valid JSON, perhaps, that Go's decoder will not go into.
			return g.refuseUnread(line, "nested too deep", tooDeep)
		}
		g.logger.Warn("malformed JSON on stdin; answered with -32700", "line", preview(line))
		return g.reply(newErrorReply(nil, jsonrpc.CodeParseError, "parse error: the line is not valid JSON"))
	case line[0] == '[':
		return g.refuseBatch(line)
	case line[0] != '{':
		g.logger.Warn("JSON-RPC message that is not an object on stdin; answered with -32600", "line", preview(line))
		return g.reply(newErrorReply(nil, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf(`invalid request: a message is a JSON object, such as {"jsonrpc": "2.0", "id": 1, "method": "ping"}; the line is %s`, jsonkind.Of(line))))
	}

	msg, err := decode(line)
	// What the message says it is, looked at when the SDK did not take it
	// for a request.
	var request, answer bool
	if err != nil || msg.req == nil {
		m := msg.members
		request, answer = m["method"] != nil, m["result"] != nil || m["error"] != nil
	}
	switch {
	case err != nil && !request && answer:
		// An answer the SDK cannot read, such as one with a null id: an
		// answer is never answered, in JSON-RPC.
		g.logger.Warn("invalid answer from the client dropped", "err", err, "line", preview(line))
		return nil
	case (err != nil || msg.req == nil) && !request && !answer:
		// Neither a request nor an answer, whatever else is wrong with
		// it: the SDK would drop it, and the client wait for an answer
		// for ever.
		g.logger.Warn("message with neither a method nor a result; answered with -32600", "line", preview(line))
		return g.reply(newErrorReply(replyID(msg.id), jsonrpc.CodeInvalidRequest,
			`invalid request: a message needs a "method" (a request) or a "result" or "error" (an answer)`))
	case err != nil:
		g.logger.Warn("invalid JSON-RPC message on stdin; answered with -32600", "err", err, "line", preview(line))
		why := "invalid request: " + preview(err.Error())
		if shape := messageShape(line, msg.members); shape != "" {
			why = shape
		}
		return g.reply(newErrorReply(replyID(msg.id), jsonrpc.CodeInvalidRequest, why))
	case msg.req == nil:
		// An answer to one of the server's own requests.
	case msg.id == nil:
		if msg.req.Method == "notifications/cancelled" {
			g.cancel(msg.req.Params)
		}
	default: // a request, which the SDK will answer
		if !exactID(msg.id) {
			g.logger.Warn("request id refused; answered with -32600", "id", preview(msg.id))
			return g.reply(newErrorReply(replyID(msg.id), jsonrpc.CodeInvalidRequest, inexactID))
		}
		if why, ok := methodNotServed(msg.req.Method); ok {
			// Answered here, never by the SDK, which answers every -32601
			// with words of its own.
			if g.calls.pendingID(msg.req.ID) {
				return g.reply(newErrorReply(msg.id, jsonrpc.CodeInvalidRequest, idInUse))
			}
			return g.reply(newErrorReply(msg.id, jsonrpc.CodeMethodNotFound, why))
		}
		// Hold this line, and read no further, while the SDK owes
		// MaxInFlight answers.
		if !g.calls.waitRoom() {
			return errClosed
		}
		switch g.calls.add(msg.req.ID, msg.req.Method) {
		case addedDup:
			g.logger.Warn("request id still in use; answered with -32600", "id", preview(msg.id))
			return g.reply(newErrorReply(msg.id, jsonrpc.CodeInvalidRequest, idInUse))
		case addedTooManyListens:
			g.logger.Warn("too many subscriptions/listen requests open; answered with -32600", "id", preview(msg.id), "open", maxOpenListens)
			return g.reply(newErrorReply(msg.id, jsonrpc.CodeInvalidRequest, fmt.Sprintf(
				"invalid request: %d subscriptions/listen requests are open already; cancel one, or listen to several resources in one request", maxOpenListens)))
		}
	}
	return g.sdk.deliver(msg.msg)
}

// idInUse is the answer to a request whose id another still holds.
const idInUse = "invalid request: a request with this id is still in progress"

// cancel stops counting the request a notifications/cancelled names,
// which it reads as the SDK does; the SDK itself cancels the request.
func (g *guard) cancel(params json.RawMessage) {
	var v any
	if json.Unmarshal(member(params, "requestId"), &v) != nil {
		return
	}
	if id, err := jsonrpc.MakeID(v); err == nil {
		g.calls.cancel(id)
	}
}

// refuseBatch answers a batch without passing any of it to the SDK. The
// SDK takes batches only in protocol versions before 2025-06-18 (which
// dropped them; no MCP client sends one) and ends the session on several
// kinds, so every member that expects an answer, or is not a valid
// message, gets -32600, all in one array as JSON-RPC asks.
func (g *guard) refuseBatch(line []byte) error {
	var members []json.RawMessage
	json.Unmarshal(line, &members) // cannot fail: the line is a JSON array
	g.logger.Warn("JSON-RPC batch refused", "members", len(members), "line", preview(line))
	const refused = "invalid request: batches are not supported; send one message per line"
	if len(members) == 0 {
		return g.reply(newErrorReply(nil, jsonrpc.CodeInvalidRequest, refused))
	}
	var replies []*errorReply
	for _, m := range members {
		if msg, err := decode(m); err != nil || msg.req != nil && msg.id != nil {
			replies = append(replies, newErrorReply(replyID(msg.id), jsonrpc.CodeInvalidRequest, refused))
		}
	}
	if len(replies) == 0 {
		return nil // only notifications and answers: nothing to reply
	}
	return g.reply(replies)
}

// reply writes the guard's own answer as one line.
func (g *guard) reply(v any) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // keep the client's id bytes as they came
	if err := enc.Encode(v); err != nil {
		g.logger.Error("encoding a reply", "err", err)
		return nil
	}
	_, err := g.out.Write(buf.Bytes())
	return err
}

// inbound is one message as the guard sees it.
type inbound struct {
	msg     jsonrpc.Message            // as the SDK reads it
	req     *jsonrpc.Request           // msg when it is a request; nil for an answer to a server request
	members map[string]json.RawMessage // the members as sent, read once for all the guard asks
	id      json.RawMessage            // the "id" member as sent, nil if absent
}

// decode reads a message as the SDK's own decoder would (a request in the
// shape clients send is made without it, as plainRequest says): the guard
// refuses what that decoder cannot read, and the SDK is handed what it
// reads. The id comes back as sent, even when the message is refused.
func decode(raw []byte) (inbound, error) {
	ms := members(raw)
	msg := inbound{members: ms, id: ms["id"]}
	if req := plainRequest(raw, ms); req != nil {
		msg.msg, msg.req = req, req
		return msg, nil
	}
	m, err := jsonrpc.DecodeMessage(raw)
	if err != nil {
		return msg, err
	}
	msg.msg = m
	msg.req, _ = m.(*jsonrpc.Request)
	return msg, nil
}

// plainRequest is the request the SDK's decoder makes of raw, whose
// members are ms, when raw is in the shape clients send: "jsonrpc": "2.0",
// a method name and a string id of printable ASCII without escapes, an
// integer id the SDK echoes exactly or none, params that are an object or
// an array or none, and nothing else. For any other message it returns
// nil, and the SDK's decoder reads it; that decoder takes two passes and
// two buffers of 32 KiB for every message (20 µs and 67 kB a line,
// against 2.5 µs and 0.9 kB: BenchmarkDecode).
func plainRequest(raw []byte, ms map[string]json.RawMessage) *jsonrpc.Request {
	if len(ms) > 4 || string(ms["jsonrpc"]) != `"2.0"` {
		return nil
	}
	req := &jsonrpc.Request{}
	for k, v := range ms {
		switch k {
		case "jsonrpc":
		case "method":
			name, ok := plainString(v)
			if !ok {
				return nil
			}
			req.Method = name
		case "id":
			id, ok := plainID(v)
			if !ok {
				return nil
			}
			req.ID = id
		case "params":
			if v[0] != '{' && v[0] != '[' {
				return nil
			}
			req.Params = v
		default:
			return nil
		}
	}
	if ms["method"] == nil || len(raw) > 2*maxNesting && nestingDepth(raw) > maxNesting {
		return nil
	}
	return req
}

// plainString is the content of the JSON string v when it holds only
// printable ASCII and no escape, which every decoder reads alike.
func plainString(v json.RawMessage) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	s := v[1 : len(v)-1]
	for _, c := range s {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return "", false
		}
	}
	return string(s), true
}

// plainID is the id v as the SDK reads it, when v is a plain string or an
// integer the SDK echoes exactly (see exactID).
func plainID(v json.RawMessage) (jsonrpc.ID, bool) {
	if s, ok := plainString(v); ok {
		id, err := jsonrpc.MakeID(s)
		return id, err == nil
	}
	if v[0] == '"' || !exactID(v) {
		return jsonrpc.ID{}, false
	}
	n, _ := strconv.ParseInt(string(v), 10, 64) // exactID parsed it
	id, err := jsonrpc.MakeID(float64(n))       // as the SDK's decoder reads numbers
	return id, err == nil
}

// maxNesting is how deep the SDK's decoder goes into a message.
const maxNesting = 1000

// tooDeep answers a message nested deeper than maxNesting.
var tooDeep = fmt.Sprintf("invalid request: the message is nested more than %d levels deep, the most that is read", maxNesting)

// messageShape says, in the protocol's terms, what is wrong with a
// request the SDK cannot decode (line, whose members are given), when it
// is one of the usual mistakes; "" otherwise.
func messageShape(line []byte, members map[string]json.RawMessage) string {
	if nestingDepth(line) > maxNesting {
		return tooDeep
	}
	if m := members["method"]; m != nil && m[0] != '"' {
		return fmt.Sprintf(`invalid request: "method" must be a string, such as "ping"; it is %s`, jsonkind.Of(m))
	}
	if id := members["id"]; id != nil && (id[0] == '{' || id[0] == '[' || id[0] == 't' || id[0] == 'f') {
		return fmt.Sprintf("invalid request: the id must be a string or an integer; it is %s", jsonkind.Of(id))
	}
	if id := members["id"]; id != nil && (id[0] == '-' || '0' <= id[0] && id[0] <= '9') && !exactID(id) {
		return inexactID
	}
	if v := members["jsonrpc"]; v != nil && string(v) != `"2.0"` {
		return fmt.Sprintf(`invalid request: "jsonrpc" must be the string "2.0"; it is %s`, preview(v))
	}
	return ""
}

// inexactID is the answer to a request whose id its answer could not
// carry exactly.
const inexactID = "invalid request: the id must be a string of valid Unicode (no lone surrogate) or an integer between -(2^53-1) and 2^53-1, so that the answer carries it exactly"

// nestingDepth returns how deep the arrays and objects of the JSON text
// b go, strings skipped.
func nestingDepth(b []byte) int {
	depth, most, inString := 0, 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString && c == '\\':
			i++
		case inString:
			inString = c != '"'
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			most = max(most, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return most
}

// member returns the member key of a JSON object as sent, nil when it is
// absent or raw is not an object. Keys match exactly, as in the SDK's
// decoder (a struct field would also match "ID"), and the last of
// repeated keys wins in both.
func member(raw []byte, key string) json.RawMessage { return members(raw)[key] }

// members returns the members of a JSON object as sent, nil when raw is
// not an object.
func members(raw []byte) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	json.Unmarshal(raw, &m)
	return m
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

// refuseUnread answers a message that cannot be read whole (what says
// why) with -32600 and msg, under its id when leadingID finds it; an
// answer from the client is dropped, as JSON-RPC answers no answer.
func (g *guard) refuseUnread(line []byte, what, msg string) error {
	id, answer := leadingID(line)
	if answer {
		g.logger.Warn("answer from the client "+what+"; dropped", "line", preview(line))
		return nil
	}
	g.logger.Warn("JSON-RPC message "+what+"; answered with -32600", "line", preview(line))
	return g.reply(newErrorReply(id, jsonrpc.CodeInvalidRequest, msg))
}

// headLength is how much of a line over MaxLineLength is kept to find its
// id in (see leadingID).
const headLength = 4 << 10

// leadingID returns the id of a request that cannot be read whole (too
// long, or nested too deep), when its members before the trouble are a
// usable id and its method: clients write "jsonrpc", "id" and "method"
// before "params", so that the answer reaches the request that waits for
// it, rather than going to null while the client waits for ever. answer
// is true when the message is the client's answer to a request of the
// server's (a "result" or an "error" member), which is never answered.
func leadingID(b []byte) (id json.RawMessage, answer bool) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var method bool
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		if key == "result" || key == "error" {
			return nil, true
		}
		method = method || key == "method"
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			break // cut, or too deep: what follows cannot be told
		}
		if key == "id" && len(v) > 0 && v[0] != 'n' && exactID(v) {
			id = v
		}
	}
	if !method {
		return nil, false
	}
	return replyID(id), false
}

// replyID is the id an error reply carries: the bytes the client sent when
// its id is a string or a number, null when there is none to tell, as
// JSON-RPC asks; null too for a string that is not UTF-8, which would make
// the reply a line that strict JSON readers refuse whole.
func replyID(id json.RawMessage) json.RawMessage {
	if len(id) > 0 && (id[0] == '"' && utf8.Valid(id) || id[0] == '-' || '0' <= id[0] && id[0] <= '9') {
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

// calls tracks the requests handed to the SDK until their answers are
// written: it lets the guard refuse an id still in use (the SDK would drop
// the second request without a word), stop reading while MaxInFlight
// answers are owed, and wait for them at the end of input. Only the SDK's
// answers end a call; the guard's own replies are to requests the SDK
// never saw.
type calls struct {
	// mu guards the fields below.
	mu      sync.Mutex
	pending map[jsonrpc.ID]call // by id, until the SDK answers
	writing map[jsonrpc.ID]int  // owed answers the SDK is writing, by id
	owed    int                 // answers not written yet, cancelled requests and open listens aside
	listens int                 // subscriptions/listen requests open, not cancelled
	changed chan struct{}       // closed and replaced when owed drops, and on stop
	stopped bool
	// gone, when set, reports whether the client has gone: closed its
	// input and stopped taking its answers. Set before the guard starts.
	gone func() bool
}

// call is one pending request.
type call struct {
	method    string
	cancelled bool
	// listen marks a subscriptions/listen request while it is open: it
	// is counted in listens, not owed, until its answer is made.
	listen bool
}

// added says what calls.add did.
type added int

const (
	addedOK             added = iota
	addedDup                  // a request with this id is pending
	addedTooManyListens       // maxOpenListens are open
)

func newCalls() *calls {
	return &calls{pending: make(map[jsonrpc.ID]call), writing: make(map[jsonrpc.ID]int), changed: make(chan struct{})}
}

// add records a request to hand to the SDK, unless a request with this
// id is still pending, or it is one listen too many.
func (c *calls) add(id jsonrpc.ID, method string) added {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.pending[id]; dup {
		return addedDup
	}
	if method == listenMethod {
		if c.listens >= maxOpenListens {
			return addedTooManyListens
		}
		c.pending[id] = call{method: method, listen: true}
		c.listens++
		return addedOK
	}
	c.pending[id] = call{method: method}
	c.owed++
	return addedOK
}

// pendingID reports whether a request with this id is pending.
func (c *calls) pendingID(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.pending[id]
	return ok
}

// cancel notes that the client gave up on a request. The SDK (v1.8.0)
// still hands over an answer, which is dropped; were it not to, the call
// would stay pending forever. So a cancelled call stops holding a slot or
// the drain at once and keeps only its id until then, which MCP forbids
// a client to use again anyway.
func (c *calls) cancel(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.pending[id]; ok && !p.cancelled {
		p.cancelled = true
		if p.listen {
			p.listen = false
			c.listens--
		} else {
			c.owed--
		}
		c.pending[id] = p
		c.wake()
	}
}

// answering frees the id of a request the SDK is about to answer: the SDK
// has forgotten it already, and the client may use it again as soon as it
// reads the answer. It gives the request's method, whether the client
// cancelled it, and whether its answer is owed, in which case written must
// follow.
func (c *calls) answering(id jsonrpc.ID) (method string, cancelled, owed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p, ok := c.pending[id]
	delete(c.pending, id)
	owed = ok && !p.cancelled
	if p.listen {
		// Its answer is made (the session is ending, say): owed as any
		// other from now on.
		c.listens--
		c.owed++
	}
	if owed {
		c.writing[id]++
	}
	return p.method, p.cancelled, owed
}

// written counts an owed answer out once it is written (or abandoned).
func (c *calls) written(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writing[id]--; c.writing[id] == 0 {
		delete(c.writing, id)
	}
	c.owed--
	c.wake()
}

// unanswered gives the ids of the requests whose answers are owed, as
// the client sent them.
func (c *calls) unanswered() []any {
	c.mu.Lock()
	defer c.mu.Unlock()
	var ids []any
	for id, p := range c.pending {
		if !p.cancelled && !p.listen {
			ids = append(ids, id.Raw())
		}
	}
	for id, k := range c.writing {
		for range k {
			ids = append(ids, id.Raw())
		}
	}
	return ids
}

// wake wakes waitRoom and drain. c.mu is held.
func (c *calls) wake() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// waitRoom blocks while MaxInFlight answers are owed. It reports false
// once stop is called, or when the client is seen to have gone meanwhile
// (gone, looked at every hangUpEvery while it waits): a client that closed
// its input and stopped reading its answers would otherwise hold the
// server for ever, its end of input never read, as the guard reads no
// further. What it sent after is not read. A client that wrote its
// requests, closed its input and reads its answers (printf ... |
// skillmux serve) has them all.
func (c *calls) waitRoom() bool {
	for {
		c.mu.Lock()
		stopped, full, changed := c.stopped, c.owed >= MaxInFlight, c.changed
		c.mu.Unlock()
		if stopped || !full {
			return !stopped
		}
		select {
		case <-changed:
		case <-time.After(hangUpEvery):
			if c.gone != nil && c.gone() {
				return false
			}
		}
	}
}

// hangUpEvery is how often waitRoom looks whether the client has gone.
const hangUpEvery = 250 * time.Millisecond

// drain waits until no answer is owed: for handlers still running, at
// most work in all; for answers made, as long as out takes them; and no
// more than grace once out has taken nothing that long: only a client
// that stopped reading holds a line so long, and every answer still to
// come would wait behind it. It returns at once when out failed or the
// SDK's session ended (ended is closed): no answer will come then.
func (c *calls) drain(ctx context.Context, w *lineWriter, ended <-chan struct{}, grace, work time.Duration) {
	deadline := time.Now().Add(work)
	for {
		c.mu.Lock()
		idle, changed, writing := c.owed == 0 || c.stopped, c.changed, len(c.writing) > 0
		c.mu.Unlock()
		if idle || w.failed() != nil || isDone(ended) {
			return // nothing owed, or nothing more will be answered
		}
		left := time.Until(deadline)
		if left <= 0 && writing {
			left = grace // a client reading slowly gets what is made
		}
		wait := min(left, grace-w.blocked())
		if wait <= 0 {
			return
		}
		timer := time.NewTimer(wait)
		select {
		case <-changed:
		case <-timer.C:
		case <-ctx.Done():
		case <-ended:
		}
		timer.Stop()
		if ctx.Err() != nil {
			return
		}
	}
}

// isDone reports whether ch is closed.
func isDone(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// stop wakes waitRoom and drain for good.
func (c *calls) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	c.wake()
}

// stdioTransport hands the SDK a session's stdioConn.
type stdioTransport struct{ conn *stdioConn }

var _ mcp.Transport = stdioTransport{}

func (t stdioTransport) Connect(context.Context) (mcp.Connection, error) { return t.conn, nil }

// stdioConn is the SDK's connection in a stdio session. The guard hands it
// each message it has checked, as decoded for the check, so that a line is
// decoded once: the SDK's own stdio connection would decode it again,
// with three more passes of its decoder. The SDK's messages go out as
// lines through the session's lineWriter.
//
// On the way out, it ends a call when the SDK has written its answer,
// drops the answer to a request the client cancelled, and gives a
// JSON-RPC code to the errors the SDK makes before the
// receiving middleware runs (see sdkError). It does not take part in the
// SDK's batch bookkeeping, which learns the negotiated version through an
// unexported method; no batch reaches the SDK here, so nothing is lost.
type stdioConn struct {
	in    chan jsonrpc.Message // the guard's messages, each taken by Read
	out   *lineWriter
	calls *calls

	eof       chan struct{} // closed at the end of input
	eofOnce   sync.Once
	closed    chan struct{} // closed by Close
	closeOnce sync.Once
}

var _ mcp.Connection = (*stdioConn)(nil)

func newStdioConn(out *lineWriter, calls *calls) *stdioConn {
	return &stdioConn{in: make(chan jsonrpc.Message), out: out, calls: calls, eof: make(chan struct{}), closed: make(chan struct{})}
}

// deliver hands msg to the SDK's Read. It fails once the input has ended
// or the connection is closed.
func (c *stdioConn) deliver(msg jsonrpc.Message) error {
	select {
	case c.in <- msg:
		// Let the SDK's reader, woken on this P, run now: the guard
		// goes back to reading stdin, a system call that keeps the P
		// until the runtime takes it back, which, while the start's
		// work holds the other Ps, took 100 µs more per request.
		runtime.Gosched()
		return nil
	case <-c.eof:
		return errClosed
	case <-c.closed:
		return errClosed
	}
}

// endInput makes Read report the end of input, once every message
// delivered has been read.
func (c *stdioConn) endInput() { c.eofOnce.Do(func() { close(c.eof) }) }

func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case msg := <-c.in:
		return msg, nil
	case <-c.eof:
		return nil, io.EOF
	case <-c.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Close ends the session's input and output: the guard's next message and
// every line not yet on out fail.
func (c *stdioConn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		c.out.Close()
	})
	return nil
}

func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		if err := ctx.Err(); err != nil {
			return err
		}
		return c.writeLine(msg)
	}
	// The call ends here, written or not.
	method, cancelled, owed := c.calls.answering(resp.ID)
	if owed {
		defer c.calls.written(resp.ID)
	}
	if cancelled {
		// MCP asks a server not to answer a request the client has
		// cancelled: the client has given up on this id, and a result
		// made all the same (a handler that finished its read) would
		// only cost the writing and the reading of it.
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if resp.Error != nil {
		coded := *resp
		coded.Error = sdkError(method, resp.Error)
		msg = &coded
	}
	line, err := encodeLine(msg)
	if err != nil {
		return err
	}
	if len(line) > maxMessage {
		// An answer the handler did not bound (a skill call on a
		// SKILL.md of 8 MiB of line breaks): the client would drop the
		// connection, not just the answer.
		if line, err = encodeLine(tooLongAnswer(resp.ID, method, len(line))); err != nil {
			return err
		}
	}
	_, err = c.out.Write(line)
	return err
}

// tooLongAnswer answers the request id, of the given method, in place of
// an answer of n bytes, too long to send.
func tooLongAnswer(id jsonrpc.ID, method string, n int) *jsonrpc.Response {
	msg := fmt.Sprintf("the answer to this %s is not sent: it makes %s", method, tooLong(n))
	if method == "tools/call" {
		res, err := json.Marshal(errorResult(msg))
		if err == nil {
			return &jsonrpc.Response{ID: id, Result: res}
		}
	}
	return &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}}
}

// writeLine writes msg as one line.
func (c *stdioConn) writeLine(msg jsonrpc.Message) error {
	line, err := encodeLine(msg)
	if err != nil {
		return err
	}
	_, err = c.out.Write(line)
	return err
}

// encodeLine is msg as one line.
func encodeLine(msg jsonrpc.Message) ([]byte, error) {
	if line, ok := resultLine(msg); ok {
		return line, nil
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return nil, fmt.Errorf("encoding a message: %w", err)
	}
	return append(data, '\n'), nil
}

// resultLine writes a result the SDK has encoded already into a line
// byte for byte as jsonrpc.EncodeMessage would, without the encoder's pass
// over the result, which would only check and copy it again: the answer
// to a skill call is most of a SKILL.md. It relies on the result being
// compact, valid JSON, as the SDK makes every result (jsonrpc2.NewResponse
// encodes it with encoding/json); a result with a line break, which would
// break the framing, is left to the encoder all the same. It reports false
// for every other message.
func resultLine(msg jsonrpc.Message) ([]byte, bool) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.Error != nil || len(resp.Result) == 0 || bytes.IndexByte(resp.Result, '\n') >= 0 {
		return nil, false
	}
	const head, mid = `{"jsonrpc":"2.0","id":`, `,"result":`
	var id []byte
	switch v := resp.ID.Raw().(type) {
	case int64:
		id = strconv.AppendInt(make([]byte, 0, 20), v, 10)
	case string:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false) // as EncodeMessage
		if enc.Encode(v) != nil {
			return nil, false
		}
		id = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	default:
		return nil, false
	}
	line := make([]byte, 0, len(head)+len(id)+len(mid)+len(resp.Result)+2)
	line = append(line, head...)
	line = append(line, id...)
	line = append(line, mid...)
	line = append(line, resp.Result...)
	return append(line, '}', '\n'), true
}

// errClosed fails the work of a session that is shutting down: its writes
// and the wait for room.
var errClosed = errors.New("stdio session closed")

// lineWriter is the one writer of out. Its goroutine writes one line at a
// time, so the SDK's messages and the guard's replies never interleave.
// Close fails every write that out has not taken, so no handler stays
// blocked on a client that does not read; a line out is still taking is
// abandoned with the goroutine.
type lineWriter struct {
	err       atomic.Pointer[error]  // the first error out gave, if any
	busy      atomic.Int64           // when out last took part of the current line (or was handed it), in Unix ns; 0 between lines
	begun     atomic.Bool            // out has taken part of the current line
	current   atomic.Pointer[[]byte] // the line being written, whole
	lines     chan line
	closed    chan struct{}
	closeOnce sync.Once
	done      chan struct{} // closed when the goroutine has returned
}

// line is one Write handed to the goroutine.
type line struct {
	data    []byte
	written chan error // buffered: the goroutine never waits for a writer that gave up
}

var _ io.WriteCloser = (*lineWriter)(nil)

func newLineWriter(out io.Writer) *lineWriter {
	w := &lineWriter{lines: make(chan line), closed: make(chan struct{}), done: make(chan struct{})}
	go w.run(out)
	return w
}

func (w *lineWriter) run(out io.Writer) {
	defer close(w.done)
	for {
		select {
		case l := <-w.lines:
			select {
			case <-w.closed: // both were ready: nothing starts after Close
				l.written <- errClosed
				return
			default:
			}
			l.written <- w.write(out, l.data)
		case <-w.closed:
			return
		}
	}
}

// write writes one line, in chunks, noting the time of each one's
// progress. A line begun is written whole, Close or not: out is never
// left with half a line by the server's choice.
func (w *lineWriter) write(out io.Writer, data []byte) error {
	defer w.busy.Store(0)
	w.begun.Store(false)
	whole := data
	w.current.Store(&whole)
	defer w.current.Store(nil)
	for len(data) > 0 {
		w.busy.Store(time.Now().UnixNano())
		n, err := out.Write(data[:min(len(data), writeChunk)])
		if n > 0 {
			w.begun.Store(true)
		}
		if err != nil {
			w.err.CompareAndSwap(nil, &err)
			return err
		}
		data = data[n:]
	}
	return nil
}

// cut returns the line out was still taking when finish gave up on it,
// begun but not ended, or nil.
func (w *lineWriter) cut() []byte {
	select {
	case <-w.done:
		return nil
	default:
	}
	if p := w.current.Load(); p != nil && w.begun.Load() {
		return *p
	}
	return nil
}

// lineID is the id of the message line, or nil.
func lineID(line []byte) any {
	var id any
	dec := json.NewDecoder(bytes.NewReader(members(line)["id"]))
	dec.UseNumber()
	dec.Decode(&id)
	return id
}

// failed returns the first error out gave, or nil.
func (w *lineWriter) failed() error {
	if err := w.err.Load(); err != nil {
		return *err
	}
	return nil
}

// blocked says how long out has taken nothing of the current line, 0
// between lines.
func (w *lineWriter) blocked() time.Duration {
	if since := w.busy.Load(); since != 0 {
		return time.Since(time.Unix(0, since))
	}
	return 0
}

// finish waits, after Close, for the goroutine to end: up to wait; and,
// when out has taken part of the line being written, which abandoning it
// would leave cut short, until out has taken nothing for stall, up to
// most in all.
func (w *lineWriter) finish(wait, stall, most time.Duration) {
	deadline := time.Now().Add(most)
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-timer.C:
		}
		limit := wait
		if w.begun.Load() {
			limit = stall
		}
		blocked := w.blocked()
		if blocked == 0 || blocked >= limit || time.Now().After(deadline) {
			return
		}
		timer.Reset(min(limit-blocked, wait))
	}
}

// Write writes p, whole lines, to out. An abandoned line keeps p; the SDK
// and the guard never reuse a buffer they have written.
func (w *lineWriter) Write(p []byte) (int, error) {
	l := line{data: p, written: make(chan error, 1)}
	select {
	case w.lines <- l:
	case <-w.closed:
		return 0, errClosed
	}
	select {
	case err := <-l.written:
		if err != nil {
			return 0, err
		}
		return len(p), nil
	case <-w.closed:
		return 0, errClosed
	}
}

// Close stops the writer; out itself stays open. The SDK closes it with
// the session, and ServeStdio at shutdown.
func (w *lineWriter) Close() error {
	w.closeOnce.Do(func() { close(w.closed) })
	return nil
}
