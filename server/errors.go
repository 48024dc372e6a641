package server

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK (v1.8.0) sends a plain Go error as JSON-RPC code 0, which tells a
// client nothing. Two places give such errors a code: codedErrors, a
// receiving middleware, for the errors of the method handlers on every
// transport; and sdkError, on the stdio transport, for the few the SDK
// makes before any middleware runs.

// codedErrors gives a code to a plain error from a method handler.
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

// sdkError gives a code to a plain error the SDK answers a request with
// before the middleware runs. In v1.8.0 there are three: a request other
// than initialize or ping before initialize; initialize params that do not
// decode (missing, null, or of the wrong shape); and a request cancelled
// before its handler started.
func sdkError(method string, err error) error {
	if hasCode(err) {
		return err
	}
	code := int64(jsonrpc.CodeInvalidRequest) // a request before initialize
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		code = jsonrpc.CodeInternalError // as codedErrors would code it
	case method == "initialize":
		code = jsonrpc.CodeInvalidParams
	}
	return &jsonrpc.Error{Code: code, Message: err.Error()}
}

// hasCode reports whether err carries a JSON-RPC code the SDK will send.
func hasCode(err error) bool {
	var coded *jsonrpc.Error
	return errors.As(err, &coded)
}
