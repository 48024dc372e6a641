package server

import (
	"bytes"
	"encoding/json"
	"errors"
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
