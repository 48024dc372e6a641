package server_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
)

func newResolverB(b *testing.B, srcs ...sources.Source) *resolver.Resolver {
	r := resolver.New(srcs, nil)
	if _, err := r.Reload(context.Background()); err != nil {
		b.Fatal(err)
	}
	return r
}

func connectB(b *testing.B, srv *server.Server) *mcp.ClientSession {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "b", Version: "1"}, nil).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

func callParams(name string) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: "skill", Arguments: map[string]any{"name": name}}
}
