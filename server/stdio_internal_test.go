package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestResultLineAsEncodeMessage checks that the line written for a result
// is the one the SDK's encoder writes, byte for byte, and that every other
// message goes through that encoder.
func TestResultLineAsEncodeMessage(t *testing.T) {
	result := func(v any) json.RawMessage {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	ids := []any{float64(0), float64(7), float64(-42), float64(1<<53 - 1), "", "a", `<&>"\ é 🙂`}
	results := []json.RawMessage{
		result(map[string]any{}),
		result(map[string]any{"content": []any{map[string]any{"type": "text", "text": "# Title\n\n<b>bold</b> & \"quoted\"\t\u2028 é"}}}),
		result([]int{1, 2}),
	}
	for _, raw := range ids {
		id, err := jsonrpc.MakeID(raw)
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range results {
			msg := &jsonrpc.Response{ID: id, Result: res}
			got, ok := resultLine(msg)
			if !ok {
				t.Fatalf("resultLine(id %v) took the encoder's way", raw)
			}
			want, err := jsonrpc.EncodeMessage(msg)
			if err != nil {
				t.Fatal(err)
			}
			if want = append(want, '\n'); !bytes.Equal(got, want) {
				t.Errorf("id %v:\n got %s\nwant %s", raw, got, want)
			}
		}
	}

	id, _ := jsonrpc.MakeID(float64(1))
	for name, msg := range map[string]jsonrpc.Message{
		"an error":          &jsonrpc.Response{ID: id, Error: errors.New("no")},
		"no result":         &jsonrpc.Response{ID: id},
		"a result of lines": &jsonrpc.Response{ID: id, Result: json.RawMessage("{\n}")},
		"a request":         &jsonrpc.Request{ID: id, Method: "roots/list"},
	} {
		if _, ok := resultLine(msg); ok {
			t.Errorf("%s: written without the encoder", name)
		}
	}
}

// plainSeeds are lines of the shapes clients send, and of those that look
// like them and are not plain.
var plainSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"a-1","method":"ping","params":{}}`,
	`{"method":"tools/call","params":{"name":"skill","arguments":{"name":"pdf"}},"jsonrpc":"2.0","id":9007199254740991}`,
	`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	`{"jsonrpc":"2.0","id":-3,"method":"x","params":[1,2]}`,
	`{"jsonrpc":"2.0","id":"","method":""}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":null}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":5}`,
	`{"jsonrpc":"2.0","id":1.0,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":"\u0061","method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"p\u0069ng"}`,
	`{"jsonrpc":"2.0","id":1,"method":"pïng"}`,
	`{"jsonrpc":"2.0","id":1,"Method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"id":"x","method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/list"}`,
	`{"jsonrpc":"2.0","id":1,"result":{}}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","extra":true}`,
	`{"jsonrpc":"2.0 ","id":1,"method":"ping"}`,
	`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}`,
}

// TestPlainRequestAsTheSDK checks that the requests made without the SDK's
// decoder are the ones it makes, and that the lines clients send take that
// way.
func TestPlainRequestAsTheSDK(t *testing.T) {
	for _, line := range plainSeeds {
		checkPlainRequest(t, []byte(line))
	}
	for _, line := range plainSeeds[:5] {
		if plainRequest([]byte(line), members([]byte(line))) == nil {
			t.Errorf("%s: read by the SDK's decoder, want the plain way", line)
		}
	}
}

// FuzzPlainRequest checks plainRequest against the SDK's decoder on
// arbitrary lines.
func FuzzPlainRequest(f *testing.F) {
	for _, line := range plainSeeds {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		checkPlainRequest(t, []byte(line))
	})
}

// checkPlainRequest fails when plainRequest makes a request of line that
// differs from the SDK decoder's.
func checkPlainRequest(t *testing.T, line []byte) {
	t.Helper()
	if !json.Valid(line) {
		return // the guard answers such lines itself
	}
	got := plainRequest(line, members(line))
	if got == nil {
		return
	}
	m, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		t.Fatalf("%s: made %+v; the SDK's decoder fails: %v", line, got, err)
	}
	want, ok := m.(*jsonrpc.Request)
	if !ok || got.ID != want.ID || got.Method != want.Method || !bytes.Equal(got.Params, want.Params) {
		t.Fatalf("%s:\nmade       %+v\nthe SDK's: %+v", line, got, m)
	}
}

// BenchmarkDecode decodes a tools/call line as the guard does, and as the
// SDK's decoder alone would: what plainRequest saves a request.
//
//	go test -run '^$' -bench Decode -benchmem ./server/
func BenchmarkDecode(b *testing.B) {
	line := []byte(`{"jsonrpc":"2.0","id":123,"method":"tools/call","params":{"name":"skill","arguments":{"name":"pdf-processing-00042"}}}`)
	b.Run("guard", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			decode(line)
		}
	})
	b.Run("sdk", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			members(line)
			jsonrpc.DecodeMessage(line)
		}
	})
}
