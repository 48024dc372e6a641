package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainTimeout bounds how long the end of input waits for the answers to
// requests already read.
const drainTimeout = 700 * time.Millisecond

// MaxLineLength bounds one inbound JSON-RPC line; a longer line is answered
// with an error and skipped.
const MaxLineLength = 16 << 20

// ServeStdio serves one session over newline-delimited JSON-RPC on in and
// out (stdin and stdout in production) until in ends or ctx is done.
//
// It stands between the wire and the SDK, which would end the whole session
// on one malformed line: each line is checked first, a line that is not
// JSON is answered with -32700 and one that is not a JSON-RPC message with
// -32600, and the session goes on. The SDK and this guard share one writer
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
	go func() { done <- s.pump(in, pw, w) }()

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

// pump copies well-formed lines from in to the SDK's pipe and answers the
// others itself. It returns nil at the end of in.
func (s *Server) pump(in io.Reader, pipe *io.PipeWriter, w *lineWriter) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r)
		if err := s.forward(line, tooLong, pipe, w); err != nil {
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
func (s *Server) forward(line []byte, tooLong bool, pipe *io.PipeWriter, w *lineWriter) error {
	if len(line) == 0 && !tooLong {
		return nil
	}
	reply, call := s.check(line, tooLong)
	if reply != nil {
		w.writeMessage(reply)
		return nil
	}
	if call {
		w.pending.Add(1)
	}
	_, err := pipe.Write(append(line, '\n'))
	return err
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

// check returns the error reply for a line the SDK must not see, or nil
// and whether the line is a request that expects an answer.
func (s *Server) check(line []byte, tooLong bool) (*errorReply, bool) {
	switch {
	case tooLong:
		s.logger.Warn("input line too long; answered with an error", "limit", MaxLineLength)
		return newErrorReply(nil, jsonrpc.CodeInvalidRequest, "request line longer than 16 MiB"), false
	case !json.Valid(line):
		s.logger.Warn("malformed JSON on stdin; answered with -32700", "line", preview(line))
		return newErrorReply(nil, jsonrpc.CodeParseError, "parse error: the line is not valid JSON"), false
	case line[0] == '[':
		return nil, false // a batch: the SDK answers it
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		s.logger.Warn("invalid JSON-RPC message on stdin; answered with -32600", "err", err, "line", preview(line))
		return newErrorReply(idOf(line), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error()), false
	}
	req, ok := msg.(*jsonrpc.Request)
	return nil, ok && req.IsCall()
}

// idOf recovers the id of a message that failed to decode, so the error
// reply can be matched to its request when possible.
func idOf(line []byte) any {
	var m struct {
		ID any `json:"id"`
	}
	if json.Unmarshal(line, &m) == nil {
		switch m.ID.(type) {
		case string, float64:
			return m.ID
		}
	}
	return nil
}

// errorReply is a JSON-RPC error response. It is encoded here rather than
// by the SDK because a reply to a request whose id is unknown must carry
// "id": null, which the SDK's encoder leaves out.
type errorReply struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      any            `json:"id"`
	Error   *jsonrpc.Error `json:"error"`
}

func newErrorReply(id any, code int64, msg string) *errorReply {
	return &errorReply{JSONRPC: "2.0", ID: id, Error: &jsonrpc.Error{Code: code, Message: msg}}
}

func preview(line []byte) string {
	if len(line) > 80 {
		return string(line[:80]) + "…"
	}
	return string(line)
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

// isResponse reports whether a line the SDK writes answers a request: it
// has an id and a result or an error, and no method. Only the head of the
// line is read, however long the result.
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

func (l *lineWriter) writeMessage(msg *errorReply) {
	data, err := json.Marshal(msg)
	if err != nil {
		return
	}
	l.Write(append(data, '\n'))
}
