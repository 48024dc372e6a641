package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
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
		if method == "tools/call" {
			if unknown := s.unknownTool(err); unknown != nil {
				return nil, unknown
			}
		}
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

// unknownTool rewords the SDK's answer to a call of a tool it does not
// serve (`unknown tool "Skill"`) to say which it serves, or that the call
// names none; nil for any other error.
func (s *Server) unknownTool(err error) error {
	var coded *jsonrpc.Error
	if !errors.As(err, &coded) || coded.Code != jsonrpc.CodeInvalidParams {
		return nil
	}
	quoted, ok := strings.CutPrefix(coded.Message, "unknown tool ")
	if !ok {
		return nil
	}
	name, uerr := strconv.Unquote(quoted)
	if uerr != nil {
		return nil
	}
	served := strings.Join(s.tools.served, ", ")
	if name == "" {
		return invalidParams(fmt.Sprintf(`tools/call needs "name", the tool to call, such as {"name": "skill", "arguments": {"name": "pdf"}}; the tools served are %s`, served))
	}
	msg := fmt.Sprintf("unknown tool %s: the tools served are %s", preview(strconv.Quote(name)), served)
	for _, t := range s.tools.served {
		if strings.EqualFold(t, name) {
			msg += fmt.Sprintf(" (names are case-sensitive: %q)", t)
		}
	}
	return invalidParams(msg)
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
	if coded := (*jsonrpc.Error)(nil); errors.As(err, &coded) && coded.Code == jsonrpc.CodeInvalidRequest && strings.HasSuffix(err.Error(), `missing required "params"`) {
		// The request is well formed; what it lacks is its params.
		return invalidParams(missingParams(method))
	}
	if method == "completion/complete" {
		// A ref of a type the SDK does not know.
		if _, typ, ok := strings.Cut(err.Error(), "unrecognized content type "); ok {
			return invalidParams(fmt.Sprintf(`completion/complete: ref.type must be "ref/prompt" or "ref/resource", got %s`, preview(typ)))
		}
	}
	if hasCode(err) {
		return err
	}
	if strings.HasSuffix(err.Error(), "is invalid during session initialization") {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
			Message: fmt.Sprintf("%s before the handshake: send initialize first, then notifications/initialized", preview(method))}
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

// missingParams says what a request of method without params lacks.
func missingParams(method string) string {
	what := map[string]string{
		"initialize":            `{"protocolVersion": ..., "capabilities": {}, "clientInfo": {...}}`,
		"tools/call":            `{"name": "skill", "arguments": {"name": "pdf"}}`,
		"prompts/get":           `{"name": "pdf"}`,
		"resources/read":        `{"uri": "skill://pdf/SKILL.md"}`,
		"resources/subscribe":   `{"uri": "skill://pdf/SKILL.md"}`,
		"resources/unsubscribe": `{"uri": "skill://pdf/SKILL.md"}`,
		"completion/complete":   `{"ref": {"type": "ref/prompt", "name": "pdf"}, "argument": {"name": "arguments", "value": ""}}`,
	}[method]
	if what == "" {
		return fmt.Sprintf("%s needs params (a JSON object); the request has none", method)
	}
	return fmt.Sprintf("%s needs params, such as %s; the request has none", method, what)
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

// methodNotServed is the answer to a method the server does not have though a
// client may well ask for it, and whether method is one. Over stdio the
// guard gives it (the SDK would put its own words in place of these).
func methodNotServed(method string) (string, bool) {
	if method == "logging/setLevel" {
		return fmt.Sprintf("method not found: %q: this server sends no log messages (it declares no logging capability); its log goes to stderr", method), true
	}
	return "", false
}

// requiredParams refuses the requests whose params decode but miss what
// the method needs, which the SDK lets through: a resources/read or
// (un)subscribe without a uri, which it would answer "not found" or
// accept. It also answers logging/setLevel as a method this server does
// not have: it declares no logging capability and sends no log messages
// (its log goes to stderr), where the SDK would accept any level. And it
// words the SDK's refusal of a tools/list cursor as the server's other
// lists word theirs (the SDK says only "invalid params").
func requiredParams(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if why, ok := methodNotServed(method); ok {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: why}
		}
		var uri string
		switch p := req.GetParams().(type) {
		case *mcp.ListToolsParams:
			res, err := next(ctx, method, req)
			if err != nil && p != nil && p.Cursor != "" && ctx.Err() == nil {
				return nil, invalidParams(fmt.Sprintf("the cursor is not one %s gave: pass a nextCursor as it came, or none for the first page", method))
			}
			return res, err
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
