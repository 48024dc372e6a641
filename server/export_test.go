package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AddTool adds a tool to s, for tests that need a handler they control.
func AddTool[In, Out any](s *Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	mcp.AddTool(s.mcp, t, h)
}

// AddRawTool adds a tool as the server's own are added: the errors of h
// are answered as JSON-RPC errors.
func AddRawTool(s *Server, t *mcp.Tool, h mcp.ToolHandler) {
	s.mcp.AddTool(t, h)
}

// Shutdown bounds of ServeStdio, for the tests that time it.
const (
	DrainTimeout = drainTimeout
	WorkTimeout  = workTimeout
	CloseTimeout = closeTimeout
)

// MaxOpenListens bounds the subscriptions/listen requests open at once.
const MaxOpenListens = maxOpenListens

// IndexProgress is the search index's progress: skills read, skills to
// read (0, 0 before its first build starts).
func (s *Server) IndexProgress() (done, todo int) { return s.index.live.Progress() }

// OnRead has f told the size of each read that takes its share of the
// budget of file content reads; f must be safe for concurrent use.
func (s *Server) OnRead(f func(n int64)) { s.reads.taken = f }

// HoldReads takes the whole budget of file content reads, small reads'
// included, as reads in flight would; the function returned gives it back.
func (s *Server) HoldReads() func() {
	release, _ := s.reads.acquire(context.Background(), s.reads.size)
	if err := s.reads.small.Acquire(context.Background(), smallBudget); err != nil {
		panic(err)
	}
	return func() {
		release()
		s.reads.small.Release(smallBudget)
	}
}

// OnRefreshTaken makes Refresh call f once it has taken its snapshot.
func (s *Server) OnRefreshTaken(f func()) { s.refreshTaken = f }
