package server_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// benchClient serves 1,000 generated skills to an in-memory client.
func benchClient(b *testing.B) (*mcp.ClientSession, []*sources.Skill) {
	b.Helper()
	dir := b.TempDir()
	if err := skillgen.Generate(dir, 1000, nil); err != nil {
		b.Fatal(err)
	}
	r := resolver.New([]sources.Source{dirtree.New(dir, nil)}, nil)
	snap, err := r.Reload(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.New(r, nil).Connect(context.Background(), st)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs, snap.Skills()
}

// BenchmarkSkillCall and BenchmarkPing are round trips through the SDK on
// both sides, over its in-memory transport; the end-to-end harness in
// internal/e2ebench measures the binary over a real pipe.
func BenchmarkSkillCall(b *testing.B) {
	cs, skills := benchClient(b)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		name := skills[i%len(skills)].Ref.String()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "skill", Arguments: map[string]any{"name": name}})
		if err != nil || res.IsError {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkPing(b *testing.B) {
	cs, _ := benchClient(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := cs.Ping(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderSkill is the server's own work for one skill call: read
// the SKILL.md and list the other files.
func BenchmarkRenderSkill(b *testing.B) {
	dir := b.TempDir()
	if err := skillgen.Generate(dir, 10, nil); err != nil {
		b.Fatal(err)
	}
	l, err := dirtree.New(dir, nil).List(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	m := resolver.Match{Ref: l.Skills[3].Ref, Skill: l.Skills[3]}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := server.RenderSkill(m, nil); err != nil {
			b.Fatal(err)
		}
	}
}
