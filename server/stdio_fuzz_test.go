package server_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzStdioGuard sends an initialized session one arbitrary line, or a
// batch of copies of it, then a ping: whatever the line, the ping is
// answered and every line out is one JSON value.
func FuzzStdioGuard(f *testing.F) {
	const after = `"ping-after-fuzz"`
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	seeds := []struct {
		line  string
		batch uint8 // copies of line in a batch; 0 sends line as it is
	}{
		// Not JSON, or not one JSON value.
		{"", 0}, {"   ", 0}, {"not json", 0}, {"\x00", 0}, {"\xef\xbb\xbf{}", 0},
		{`{"jsonrpc": "2.0", "id": 1, "method": "initialize"`, 0},
		{`{"jsonrpc":"2.0","id":2,"method":"ping"} {"jsonrpc":"2.0","id":3,"method":"ping"}`, 0},
		{"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\r", 0},
		// JSON, not a message the SDK can take.
		{`5`, 0}, {`"x"`, 0}, {`null`, 0}, {`{}`, 0}, {deep, 0},
		{`{"jsonrpc":"1.0","id":2,"method":"ping"}`, 0},
		{`{"jsonrpc":"2.0","id":"x","method":42}`, 0},
		{`{"jsonrpc":"2.0","result":{}}`, 0},
		{`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"a":` + deep + `}}`, 0},
		// Ids the SDK would not echo exactly, or would drop.
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, 0},
		{`{"jsonrpc":"2.0","id":18446744073709551616,"method":"ping"}`, 0},
		{`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`, 0},
		{`{"jsonrpc":"2.0","id":-0,"method":"ping"}`, 0},
		{`{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, 0},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, 0},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, 0},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, 0},
		{`{"jsonrpc":"2.0","id":"\ud800","method":"ping"}`, 0},
		{"{\"jsonrpc\":\"2.0\",\"id\":\"a\xffb\",\"method\":\"ping\"}", 0},
		{`{"jsonrpc":"2.0","id":1,"id":"x","ID":3,"method":"ping"}`, 0},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":1,"method":"ping"}`, 0},
		// The protocol: initialize again, cancellation, errors, answers.
		{initLine, 0},
		{strings.Replace(initLine, "2025-11-25", "1999-01-01", 1), 0},
		{`{"jsonrpc":"2.0","id":2,"method":"initialize","params":5}`, 0},
		{`{"jsonrpc":"2.0","id":2,"method":"initialize","params":null}`, 0},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 0},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`, 0},
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{}}}`, 0},
		{`{"jsonrpc":"2.0","id":2,"method":"notifications/cancelled","params":{"requestId":2}}`, 0},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"skill","arguments":{"name":"pdf"}}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`, 0},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nope"}}`, 0},
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 0},
		{`{"jsonrpc":"2.0","id":2,"method":"nope"}`, 0},
		{`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"debug"}}`, 0},
		{`{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, 0},
		{`{"jsonrpc":"2.0","id":7,"result":{}}`, 0},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"x"}}`, 0},
		// Batches.
		{`[]`, 0}, {`[1]`, 0}, {`[[]]`, 0}, {`[` + deep + `]`, 0},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, 2}, // duplicate ids
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, 3},
		{`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"s":"<<<<<<<<<<<<<<<<"}}`, 1},
		{`{"jsonrpc":"2.0","id":2,"method":"ping","params":{"a":` + deep + `}}`, 1},
		{strings.Replace(initLine, "2025-11-25", "2025-03-26", 1), 1},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, 4},
	}
	for _, s := range seeds {
		f.Add(s.line, s.batch)
	}
	srv := newStdioServer(f)
	f.Fuzz(func(t *testing.T, line string, batch uint8) {
		if strings.Contains(line, "ping-after-fuzz") {
			t.Skip("the line could answer for the ping")
		}
		if n := int(batch % 8); n > 0 {
			line = "[" + strings.TrimSuffix(strings.Repeat(line+",", n), ",") + "]"
		}
		w := serve(t, context.Background(), srv)
		w.handshake()
		w.send(line)
		w.send(ping(after))
		out, answer := w.until(after)
		if want := `{"jsonrpc":"2.0","id":` + after + `,"result":{}}`; answer != want {
			t.Errorf("ping after the line: got %s, want %s", answer, want)
		}
		w.in.Close()
		if err := w.wait(); err != nil {
			t.Fatal(err)
		}
		for l := range w.lines {
			out = append(out, l)
		}
		for _, l := range out {
			if !json.Valid([]byte(l)) {
				t.Errorf("stdout line is not one JSON value: %q", l)
			}
		}
	})
}
