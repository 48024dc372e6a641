package server

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// codedErrors gives a JSON-RPC code to a plain error from a method
// handler: the SDK (v1.8.0) sends a plain Go error as code 0, which tells
// a client nothing.
func (s *Server) codedErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err == nil || hasCode(err) {
			return res, err
		}
		code := int64(jsonrpc.CodeInternalError)
		if method == "initialize" {
			// The SDK's plain error here refuses a second initialize.
			code = jsonrpc.CodeInvalidRequest
		}
		return nil, &jsonrpc.Error{Code: code, Message: err.Error()}
	}
}

// hasCode reports whether err carries a JSON-RPC code the SDK will send.
func hasCode(err error) bool {
	var coded *jsonrpc.Error
	return errors.As(err, &coded)
}
