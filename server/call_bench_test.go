package server_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// BenchmarkSkillCall and BenchmarkPing measure one round trip over the
// SDK's in-memory transport: the difference is the server's own work.
func benchSession(b *testing.B) (*server.Server, string) {
	dir := b.TempDir()
	if err := skillgen.Generate(dir, 1000, nil); err != nil {
		b.Fatal(err)
	}
	t := &testing.T{}
	_ = t
	return nil, dir
}

func BenchmarkSkillCall(b *testing.B) {
	_, dir := benchSession(b)
	r := newResolverB(b, dirtree.New(dir, nil))
	cs := connectB(b, server.New(r, nil))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		res, err := cs.CallTool(context.Background(), callParams(fmt.Sprintf("skill-%05d", i%1000)))
		if err != nil || res.IsError {
			b.Fatal(err)
		}
		i++
	}
}

func BenchmarkPing(b *testing.B) {
	_, dir := benchSession(b)
	cs := connectB(b, server.New(newResolverB(b, dirtree.New(dir, nil)), nil))
	b.ReportAllocs()
	for b.Loop() {
		if err := cs.Ping(context.Background(), nil); err != nil {
			b.Fatal(err)
		}
	}
}
