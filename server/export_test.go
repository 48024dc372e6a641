package server

import "github.com/modelcontextprotocol/go-sdk/mcp"

// AddTool adds a tool to s, for tests that need a handler they control.
func AddTool[In, Out any](s *Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	mcp.AddTool(s.mcp, t, h)
}

// Shutdown bounds of ServeStdio, for the tests that time it.
const (
	DrainTimeout = drainTimeout
	CloseTimeout = closeTimeout
)

// IndexProgress is the search index's progress: skills read, skills to
// read (0, 0 before its first build starts).
func (s *Server) IndexProgress() (done, todo int) { return s.index.live.Progress() }
