package server_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources/dirtree"
)

func BenchmarkRenderSkill(b *testing.B) {
	dir := b.TempDir()
	skillgen.Generate(dir, 10, nil)
	l, _ := dirtree.New(dir, nil).List(context.Background())
	sk := l.Skills[3]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := server.RenderSkill(sk); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncodeResult(b *testing.B) {
	dir := b.TempDir()
	skillgen.Generate(dir, 10, nil)
	l, _ := dirtree.New(dir, nil).List(context.Background())
	blocks, _ := server.RenderSkill(l.Skills[3])
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: blocks[0]}, &mcp.TextContent{Text: blocks[1]}}}
	b.ReportAllocs()
	for b.Loop() {
		json.Marshal(res)
	}
}
