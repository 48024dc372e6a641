package server

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sameJSON fails t unless a and b encode to the same JSON value.
func sameJSON(t *testing.T, name string, a, b any) {
	t.Helper()
	decoded := func(v any) any {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var out any
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return out
	}
	if da, db := decoded(a), decoded(b); !reflect.DeepEqual(da, db) {
		t.Errorf("%s: the plain form encodes to\n%v\nthe SDK's to\n%v", name, db, da)
	}
}

func TestPlainCallEncodesAsTheSDKDoes(t *testing.T) {
	failed := &mcp.CallToolResult{}
	failed.SetError(errors.New("no skill named \"x\""))
	for name, r := range map[string]*mcp.CallToolResult{
		"text":          {Content: []mcp.Content{&mcp.TextContent{Text: "# PDF\n\n<b>bold</b> & \u2028 \"quoted\"\x00"}}},
		"empty text":    {Content: []mcp.Content{&mcp.TextContent{}}},
		"no content":    {Content: []mcp.Content{}},
		"nil content":   {},
		"two texts":     {Content: []mcp.Content{&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}}},
		"error":         failed,
		"with metadata": {Meta: mcp.Meta{"k": "v"}, Content: []mcp.Content{&mcp.TextContent{Text: "a"}}},
	} {
		p := plainCall(r)
		if p == nil {
			t.Errorf("%s: no plain form", name)
			continue
		}
		sameJSON(t, name, r, p)
	}
}

func TestPlainCallLeavesRicherResults(t *testing.T) {
	for name, r := range map[string]*mcp.CallToolResult{
		"structured":    {Content: []mcp.Content{&mcp.TextContent{Text: "a"}}, StructuredContent: map[string]any{"a": 1}},
		"image":         {Content: []mcp.Content{&mcp.ImageContent{Data: []byte{1}, MIMEType: "image/png"}}},
		"annotated":     {Content: []mcp.Content{&mcp.TextContent{Text: "a", Annotations: &mcp.Annotations{Priority: 1}}}},
		"text metadata": {Content: []mcp.Content{&mcp.TextContent{Text: "a", Meta: mcp.Meta{"k": "v"}}}},
		"input":         {RequestState: "s"},
		"nil text":      {Content: []mcp.Content{(*mcp.TextContent)(nil)}},
	} {
		if p := plainCall(r); p != nil {
			t.Errorf("%s: a plain form, which would lose part of it: %+v", name, p)
		}
	}
}

func TestPlainReadEncodesAsTheSDKDoes(t *testing.T) {
	for name, r := range map[string]*mcp.ReadResourceResult{
		"text": {Contents: []*mcp.ResourceContents{{URI: "skill://a/SKILL.md", MIMEType: "text/markdown", Text: "# A <b> & c"}},
			Cacheable: mcp.Cacheable{TTLMs: readTTL, CacheScope: cacheScope}},
		"blob":      {Contents: []*mcp.ResourceContents{{URI: "skill://a/x.bin", MIMEType: "application/octet-stream", Blob: []byte{0, 1, 2}}}},
		"empty":     {Contents: []*mcp.ResourceContents{{URI: "skill://a/empty.txt", MIMEType: "text/plain"}}},
		"metadata":  {Meta: mcp.Meta{"k": "v"}, Contents: []*mcp.ResourceContents{{URI: "skill://a/b", Meta: mcp.Meta{"x": 1.0}}}},
		"no cache":  {Contents: []*mcp.ResourceContents{}},
		"nil slice": {},
	} {
		p := plainRead(r)
		if p == nil {
			t.Errorf("%s: no plain form", name)
			continue
		}
		sameJSON(t, name, r, p)
	}
	if p := plainRead(&mcp.ReadResourceResult{RequestState: "s"}); p != nil {
		t.Errorf("a read asking for input has a plain form, which would lose it: %+v", p)
	}
}
