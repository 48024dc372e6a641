package server

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// jsonLen is the length encoding/json gives a string, and never less
// than the SDK's encoding, which leaves HTML's characters as they are.
func FuzzJSONLen(f *testing.F) {
	for _, s := range []string{"", "plain", "a\"b\\c", "\n\r\t\b\f\x00\x01\x1f\x7f", "<a href=\"x\">&amp;</a>",
		"é 😀 \u2028\u2029", "\xff\xfe", "\xe2\x82", "a\xc3", string([]byte{0xed, 0xa0, 0x80})} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		html, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := jsonLen(s); got != len(html) {
			t.Fatalf("jsonLen(%q) = %d, encoding/json writes %d bytes: %s", s, got, len(html), html)
		}
		var sdk bytes.Buffer
		enc := json.NewEncoder(&sdk)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		if n := len(bytes.TrimSuffix(sdk.Bytes(), []byte("\n"))); jsonLen(s) < n {
			t.Fatalf("jsonLen(%q) = %d, under the %d bytes of the SDK's encoding", s, jsonLen(s), n)
		}
	})
}

// BenchmarkJSONLen measures jsonLen on 1 MB of a SKILL.md's text: a read
// of a file near the largest answer measures about ten times as much.
func BenchmarkJSONLen(b *testing.B) {
	line := "Use this skill when the user asks for a <summary> of \"data\" & more: é.\n"
	s := strings.Repeat(line, (1<<20)/len(line))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		jsonLen(s)
	}
}
