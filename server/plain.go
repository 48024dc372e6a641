package server

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// plainResults hands the SDK the results of tool calls and reads as plain
// structs, which its encoder writes in one pass over their text.
//
// The SDK's own result types encode themselves (MarshalJSON), and
// encoding/json then checks and compacts what each wrote: a tool call's
// text went through three passes (escaped, then compacted twice), a
// read's through two, and that text is a whole SKILL.md or file. A plain
// struct holding the same fields is encoded once, to the same JSON (the
// same members and values; only '<', '>' and '&' are no longer written as
// \u escapes, which JSON readers take as the same characters).
//
// A result holding anything the plain forms do not (structured content,
// content other than text, annotations, a request for input) is passed on
// as it is. The SDK's own middleware, which marks a result complete for
// the clients of protocol 2026-07-28, runs inside this one and sees its
// own types.
func (s *Server) plainResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.CallToolResult:
			if p := plainCall(r); p != nil {
				p.ResultType = resultTypeOf(req.GetSession())
				return p, nil
			}
		case *mcp.ReadResourceResult:
			if p := plainRead(r); p != nil {
				p.ResultType = resultTypeOf(req.GetSession())
				return p, nil
			}
		}
		return res, nil
	}
}

// resultTypeOf is the resultType the SDK gives a complete tool call or
// read for the session ss, which it keeps in a field of its own result
// types that the plain forms cannot see: "complete" for a client of
// protocol 2026-07-28 or later, nothing for an earlier one. As in the
// SDK, the version is the one the client's initialize asked for, and a
// session without a handshake is taken to be of the latest.
func resultTypeOf(ss mcp.Session) string {
	sss, ok := ss.(*mcp.ServerSession)
	if !ok {
		return ""
	}
	if p := sss.InitializeParams(); p != nil && p.ProtocolVersion < "2026-07-28" {
		return ""
	}
	return "complete"
}

// plainCallResult is a CallToolResult whose content is text alone.
type plainCallResult struct {
	mcp.ResultBase
	Content    []plainText `json:"content"`
	IsError    bool        `json:"isError,omitempty"`
	ResultType string      `json:"resultType,omitempty"`
}

// plainText is a TextContent without annotations or metadata.
type plainText struct {
	Type string `json:"type"` // "text"
	Text string `json:"text"`
}

// plainCall returns r in plain form, or nil when r holds more than that
// form does.
func plainCall(r *mcp.CallToolResult) *plainCallResult {
	if r.StructuredContent != nil || r.InputRequests != nil || r.RequestState != "" || r.NeedsInput() {
		return nil
	}
	p := &plainCallResult{ResultBase: mcp.ResultBase{Meta: r.Meta}, IsError: r.IsError}
	if r.Content != nil {
		p.Content = make([]plainText, len(r.Content))
	}
	for i, c := range r.Content {
		t, ok := c.(*mcp.TextContent)
		if !ok || t == nil || t.Meta != nil || t.Annotations != nil {
			return nil
		}
		p.Content[i] = plainText{Type: "text", Text: t.Text}
	}
	return p
}

// plainReadResult is a ReadResourceResult. Its contents are encoded as
// they are: mcp.ResourceContents has no encoder of its own.
type plainReadResult struct {
	mcp.ResultBase
	mcp.Cacheable
	Contents   []*mcp.ResourceContents `json:"contents"`
	ResultType string                  `json:"resultType,omitempty"`
}

// plainRead returns r in plain form, or nil when r asks for input.
func plainRead(r *mcp.ReadResourceResult) *plainReadResult {
	if r.InputRequests != nil || r.RequestState != "" {
		return nil
	}
	return &plainReadResult{ResultBase: mcp.ResultBase{Meta: r.Meta}, Cacheable: r.Cacheable, Contents: r.Contents}
}
