package server

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// complete answers completion/complete, by the kind of thing whose
// argument is completed: prompts here (prompts.go); the completion of
// resource templates joins this switch with the resources.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	if req.Params == nil || req.Params.Ref == nil {
		return nil, invalidParams(`missing "ref"`)
	}
	switch req.Params.Ref.Type {
	case "ref/prompt":
		return s.completePrompt(req)
	case "ref/resource":
		return completion(nil), nil // no resource templates yet
	}
	return nil, invalidParams(fmt.Sprintf("cannot complete a %q; use ref/prompt", req.Params.Ref.Type))
}
