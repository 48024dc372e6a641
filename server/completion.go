package server

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// complete answers completion/complete, by the kind of thing whose
// argument is completed: prompts (prompts.go) and resource templates
// (complete.go).
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	if req.Params == nil || req.Params.Ref == nil {
		return nil, invalidParams(`missing "ref"`)
	}
	switch req.Params.Ref.Type {
	case "ref/prompt":
		return s.completePrompt(req)
	case "ref/resource":
		return s.completeResource(ctx, req)
	}
	return nil, invalidParams(fmt.Sprintf("cannot complete a %q; use ref/prompt or ref/resource", req.Params.Ref.Type))
}
