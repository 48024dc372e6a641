package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/internal/jsonkind"
	"github.com/skillmux/skillmux/resolver"
)

// args are a tool call's arguments, checked against the names the tool
// takes. Every getter's error is an *argumentProblem, naming the argument
// and what would be right.
type args struct {
	m map[string]json.RawMessage
}

// parseArgs decodes raw, an object, refusing a key not in allowed.
func parseArgs(raw json.RawMessage, allowed ...string) (*args, error) {
	a := &args{m: map[string]json.RawMessage{}}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &a.m); err != nil {
			return nil, badArgument("arguments must be an object")
		}
	}
	var unknown []string
	for k := range a.m {
		if !slices.Contains(allowed, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		slices.Sort(unknown)
		return nil, badArgument(fmt.Sprintf("unknown argument %q; this tool takes %s", clipURI(unknown[0]), quoted(allowed)))
	}
	return a, nil
}

func quoted(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// has reports whether the argument is given and not null.
func (a *args) has(name string) bool {
	v, ok := a.m[name]
	return ok && strings.TrimSpace(string(v)) != "null"
}

// str returns a string argument; "" when absent.
func (a *args) str(name string) (string, error) {
	if !a.has(name) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(a.m[name], &s); err != nil {
		return "", badArgument(fmt.Sprintf("argument %q must be a string, got %s", name, jsonkind.Of(a.m[name])))
	}
	return s, nil
}

// query returns a required, non-blank string argument.
func (a *args) query(name, example string) (string, error) {
	if !a.has(name) {
		return "", badArgument(fmt.Sprintf("missing required argument %q (%s)", name, example))
	}
	s, err := a.str(name)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", badArgument(fmt.Sprintf("argument %q must not be empty or only white space (%s)", name, example))
	}
	return s, nil
}

// intIn returns an integer argument within [lo, hi], or def when absent.
// A number with no fraction counts as an integer (10.0); a string does
// not.
func (a *args) intIn(name string, lo, hi, def int) (int, error) {
	if !a.has(name) {
		return def, nil
	}
	bad := badArgument(fmt.Sprintf("argument %q must be an integer from %d to %d (default %d), got %s", name, lo, hi, def, strings.TrimSpace(string(a.m[name]))))
	var f float64
	if err := json.Unmarshal(a.m[name], &f); err != nil {
		bad = badArgument(fmt.Sprintf("argument %q must be an integer from %d to %d (default %d), got %s", name, lo, hi, def, jsonkind.Of(a.m[name])))
		return 0, bad
	}
	if f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, bad
	}
	return int(f), nil
}

// boolean returns a boolean argument; false when absent.
func (a *args) boolean(name string) (bool, error) {
	if !a.has(name) {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(a.m[name], &b); err != nil {
		return false, badArgument(fmt.Sprintf("argument %q must be true or false, got %s", name, jsonkind.Of(a.m[name])))
	}
	return b, nil
}

// strings returns a list of strings; nil when absent.
func (a *args) strings(name string) ([]string, error) {
	if !a.has(name) {
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(a.m[name], &items); err != nil {
		return nil, badArgument(fmt.Sprintf("argument %q must be a list of strings, got %s", name, jsonkind.Of(a.m[name])))
	}
	out := make([]string, len(items))
	for i, item := range items {
		if err := json.Unmarshal(item, &out[i]); err != nil || jsonkind.Of(item) != "a string" {
			return nil, badArgument(fmt.Sprintf("argument %q must be a list of strings, and its item %d is %s", name, i, jsonkind.Of(item)))
		}
	}
	return out, nil
}

// argumentError maps a resolver.ArgumentError to an *argumentProblem and
// leaves other errors as they are.
func argumentError(err error) error {
	if ae, ok := errors.AsType[*resolver.ArgumentError](err); ok {
		return badArgument(ae.Error())
	}
	return err
}

// argumentProblem is a tool's argument that is not what the tool takes.
// It is answered as the tool's result, with isError, not as a JSON-RPC
// error: the model wrote the arguments, and a client shows it a tool's
// error to correct its call, where a protocol error often ends as a
// generic failure (the 2025-11-25 specification counts input validation
// among tool execution errors). A call the protocol cannot take (no tool
// named, a tool not served) stays a JSON-RPC error.
type argumentProblem struct{ msg string }

func (e *argumentProblem) Error() string { return "invalid arguments: " + e.msg }

func badArgument(msg string) error { return &argumentProblem{msg} }

// toolErrors answers h's argument problems as tool results with isError.
func toolErrors(h mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := h(ctx, req)
		if ap, ok := errors.AsType[*argumentProblem](err); ok {
			return errorResult(ap.Error()), nil
		}
		return res, err
	}
}

func invalidParams(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "invalid params: " + msg}
}
