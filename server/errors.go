package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

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
// before its handler started. It also rewords the SDK's answer to the
// params of any method that do not decode into its types.
func sdkError(method string, err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		// Params of the wrong shape: say which member, in the protocol's
		// terms, rather than the SDK's Go types and the whole params.
		field := typeErr.Field
		if field == "" {
			field = "params"
		}
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams,
			Message: fmt.Sprintf("invalid params for %s: %s must be %s, got %s", method, preview(field), jsonTypeName(typeErr.Type), valueKind(typeErr.Value))}
	}
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

// jsonTypeName names, as JSON does, the type a Go value of type t decodes
// from.
func jsonTypeName(t reflect.Type) string {
	if t == nil {
		return "a value of another type"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct, reflect.Pointer:
		return "an object"
	}
	return "a value of another type"
}

// valueKind names the JSON type of the value an *json.UnmarshalTypeError
// describes: a word ("number") from encoding/json, or the value's text,
// quoted, from the SDK's decoder.
func valueKind(v string) string {
	if u, err := strconv.Unquote(v); err == nil {
		v = u // the SDK's decoder quotes the text it saw
	}
	switch v = strings.TrimSpace(v); {
	case v == "":
		return "a value of another type"
	case v == "bool" || v[0] == 't' || v[0] == 'f':
		return "a boolean"
	case v == "null" || v[0] == 'n' && !strings.HasPrefix(v, "number"):
		return "null"
	case v == "string" || v[0] == '"':
		return "a string"
	case v == "array" || v[0] == '[':
		return "an array"
	case v == "object" || v[0] == '{':
		return "an object"
	}
	return "a number"
}

// logLevels are the levels of logging/setLevel, as the protocol names them.
var logLevels = []mcp.LoggingLevel{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

// requiredParams refuses, with invalid params, the requests whose params
// decode but miss what the method needs and the SDK lets through: a
// resources/read or (un)subscribe without a uri, which the SDK would
// answer "not found" or accept, and a logging/setLevel with a level the
// protocol does not have, which it would store.
func requiredParams(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		var uri string
		switch p := req.GetParams().(type) {
		case *mcp.SetLoggingLevelParams:
			if p == nil || !slices.Contains(logLevels, p.Level) {
				var got mcp.LoggingLevel
				if p != nil {
					got = p.Level
				}
				return nil, invalidParams(fmt.Sprintf("%s needs a \"level\", one of %s; got %q", method, joinQuoted(logLevels), clipText(string(got), 40)))
			}
			return next(ctx, method, req)
		case *mcp.ReadResourceParams:
			if p != nil {
				uri = p.URI
			}
		case *mcp.SubscribeParams:
			if p != nil {
				uri = p.URI
			}
		case *mcp.UnsubscribeParams:
			if p != nil {
				uri = p.URI
			}
		default:
			return next(ctx, method, req)
		}
		if uri == "" {
			return nil, invalidParams(fmt.Sprintf("%s needs a \"uri\", such as \"skill://pdf/SKILL.md\"", method))
		}
		return next(ctx, method, req)
	}
}

func joinQuoted[S ~string](vs []S) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(string(v))
	}
	return strings.Join(q, ", ")
}
