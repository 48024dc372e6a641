package server

import (
	"context"
	"fmt"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sessionInstructions puts the current catalog into each handshake's
// instructions, so a client that connects after the catalog changed sees
// the new one. It covers both handshakes: initialize and, for clients of
// protocol 2026-07-28, server/discover.
func (s *Server) sessionInstructions(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.InitializeResult:
			r.Instructions = s.current().instrs
		case *mcp.DiscoverResult:
			r.Instructions = s.current().instrs
		}
		return res, nil
	}
}

// recoverPanics turns a panic in any handler into a -32603 error for that
// request; the SDK alone would let it kill the process.
func (s *Server) recoverPanics(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				s.logger.Error("handler panicked", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error in %s: %v", method, p)}
			}
		}()
		return next(ctx, method, req)
	}
}
