package server_test

import (
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// tsMaxLine is what a client of the TypeScript SDK takes before a line's
// end: past it, the client closes the connection.
const tsMaxLine = 10 << 20

// Files within resources.max_file_size whose answers, as JSON, are longer
// than a client takes in one line are refused with what to do, one by one;
// the session goes on, and no line written is longer than a client takes.
func TestAnswersFitOneMessage(t *testing.T) {
	root := t.TempDir()
	binary := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i * 7)
		}
		return string(b)
	}
	sourcetest.WriteFiles(t, root, map[string]string{
		"big/SKILL.md":           "---\nname: big\ndescription: Large files.\n---\nbody\n",
		"big/assets/large.bin":   binary(7_900_000),                 // 10.5 MB as base64
		"big/notes/lines.txt":    strings.Repeat("\n", 5_500_000),   // 11 MB as JSON
		"big/notes/controls.txt": strings.Repeat("\x01", 2_000_000), // 12 MB as JSON
		"fits/SKILL.md":          "---\nname: fits\ndescription: A large file that fits.\n---\nbody\n",
		"fits/assets/ok.bin":     binary(7_300_000), // 9.7 MB as base64
		"blank/SKILL.md":         "---\nname: blank\ndescription: A SKILL.md of line breaks.\n---\n" + strings.Repeat("\n", 6_000_000),
	})

	w := serve(t, t.Context(), server.New(newResolver(t, dirtree.New(root, nil)), nil))
	w.handshake()
	call := func(id, method, params string) map[string]any {
		t.Helper()
		w.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `","params":` + params + `}`)
		_, line := w.until(id)
		if len(line) >= tsMaxLine-64<<10 {
			t.Fatalf("%s %s: an answer line of %d bytes", method, params, len(line))
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	refused := func(m map[string]any, want ...string) {
		t.Helper()
		e, _ := m["error"].(map[string]any)
		msg, _ := e["message"].(string)
		if msg == "" {
			t.Fatalf("not refused: %.300v", m)
		}
		for _, s := range want {
			if !strings.Contains(msg, s) {
				t.Errorf("message %q does not say %q", msg, s)
			}
		}
	}
	for _, file := range []string{"assets/large.bin", "notes/lines.txt", "notes/controls.txt"} {
		m := call("2", "resources/read", `{"uri":"skill://big/`+file+`"}`)
		refused(m, "skill://big/"+file+" is not served", "MiB of JSON", "read it from "+filepath.Join(root, "big", filepath.FromSlash(file)))
		if m := call("3", "ping", `{}`); m["result"] == nil {
			t.Fatalf("ping after the refusal: %v", m)
		}
	}
	refused(call("4", "resources/read", `{"uri":"skill://big/notes/"}`), "skill://big/notes/ is not served whole", "one by one")

	m := call("5", "resources/read", `{"uri":"skill://fits/assets/ok.bin"}`)
	var read struct {
		Result struct{ Contents []struct{ Blob string } }
	}
	b, _ := json.Marshal(m)
	json.Unmarshal(b, &read)
	if len(read.Result.Contents) != 1 {
		t.Fatalf("ok.bin: %.300v", m)
	}
	if data, err := base64.StdEncoding.DecodeString(read.Result.Contents[0].Blob); err != nil || len(data) != 7_300_000 {
		t.Errorf("ok.bin: %d bytes, %v", len(data), err)
	}

	toolError := func(m map[string]any, want ...string) {
		t.Helper()
		res, _ := m["result"].(map[string]any)
		if res["isError"] != true {
			t.Fatalf("not a tool error: %.300v", m)
		}
		text := res["content"].([]any)[0].(map[string]any)["text"].(string)
		for _, s := range want {
			if !strings.Contains(text, s) {
				t.Errorf("tool error %q does not say %q", text, s)
			}
		}
	}
	toolError(call("6", "tools/call", `{"name":"skill_resource","arguments":{"skill":"big","path":"assets/large.bin"}}`),
		"assets/large.bin of skill big is not served", "read it from "+filepath.Join(root, "big", "assets", "large.bin"))
	toolError(call("7", "tools/call", `{"name":"skill","arguments":{"name":"blank"}}`),
		"skill blank is not sent", "read it from "+filepath.Join(root, "blank", "SKILL.md"))
	// An answer no handler bounds is replaced by an error as it is written.
	refused(call("8", "prompts/get", `{"name":"blank"}`), "the answer to this prompts/get is not sent", "clients of the TypeScript SDK")
	if m := call("9", "ping", `{}`); m["result"] == nil {
		t.Fatalf("ping at the end: %v", m)
	}
}
