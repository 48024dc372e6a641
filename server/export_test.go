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
