package server

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
)

// The tools of the earlier Rust `sk mcp-server`, exactly as it defined
// them, for the sk profile. Their names hold a dot, which Claude Desktop,
// Codex and Cursor refuse: choosing them is warned about (tools.go).
const (
	skListName   = "skills.list"
	skSearchName = "skills.search"
)

// skListTool is skills_list under sk's name: the same input, the same
// output.
func (s *Server) skListTool() *tool { return s.listToolNamed(skListName) }

var skSearchInputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"query": map[string]any{
			"type":        "string",
			"description": "Keywords to match (all whitespace-separated tokens must be present)",
			"minLength":   1,
			"maxLength":   resolver.MaxQueryLength,
		},
		"limit": map[string]any{
			"type":        "integer",
			"description": "Maximum number of hits",
			"minimum":     1,
			"maximum":     resolver.MaxSearchLimit,
			"default":     resolver.DefaultSearchLimit,
		},
	},
	"required":             []string{"query"},
	"additionalProperties": false,
}

var skSearchOutputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"query": map[string]any{"type": "string"},
		"limit": map[string]any{"type": "integer"},
		"total": map[string]any{"type": "integer", "description": "Every skill that matched, before the limit."},
		"results": map[string]any{
			"type": "array",
			"items": map[string]any{
				"type": "object",
				"properties": func() map[string]any {
					p := map[string]any{
						"score":   map[string]any{"type": "integer", "description": "The number of tokens matched."},
						"excerpt": map[string]any{"type": "string", "description": "About 160 characters around the first match."},
					}
					for k, v := range listedSchema {
						if k != "body" {
							p[k] = v
						}
					}
					return p
				}(),
				"required": []string{"installName", "meta", "skillPath", "skillFile", "score", "excerpt"},
			},
		},
	},
	"required": []string{"query", "limit", "total", "results"},
}

// skHit is one result of skills.search: the metadata of skills.list, the
// score and the excerpt.
type skHit struct {
	listed
	Score   int    `json:"score"`
	Excerpt string `json:"excerpt"`
}

type skSearchResult struct {
	Query   string  `json:"query"`
	Limit   int     `json:"limit"`
	Total   int     `json:"total"`
	Results []skHit `json:"results"`
}

func (s *Server) skSearchTool() *tool {
	return &tool{def: &mcp.Tool{
		Name:  skSearchName,
		Title: "Search skills (keywords)",
		Description: "Keyword search across each skill's install name, metadata and SKILL.md body: every whitespace-separated token must occur " +
			"(lower case); hits are scored by the number of tokens matched, with an excerpt around the first match.",
		InputSchema:  skSearchInputSchema,
		OutputSchema: skSearchOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, handle: s.callSkSearch}
}

// callSkSearch reads the current snapshot, which live refresh keeps no
// older than the last change on disk, and every body now.
func (s *Server) callSkSearch(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := parseArgs(req.Params.Arguments, "query", "limit")
	if err != nil {
		return nil, err
	}
	query, err := a.query("query", `keywords that must all occur, e.g. {"query": "pdf form"}`)
	if err != nil {
		return nil, err
	}
	if n := utf8.RuneCountInString(query); n > resolver.MaxQueryLength {
		return nil, badArgument(fmt.Sprintf("argument %q is %d characters long; a query is at most %d: give a few keywords", "query", n, resolver.MaxQueryLength))
	}
	limit, err := a.intIn("limit", 1, resolver.MaxSearchLimit, resolver.DefaultSearchLimit)
	if err != nil {
		return nil, err
	}
	v := s.viewOf(req)
	matches, err := v.snap.SearchSubstrings(ctx, query, s.catalogOpts.Visibility)
	if err != nil {
		return nil, argumentError(err)
	}
	// Every hit matched every token: they score the same, in name order.
	res := skSearchResult{Query: query, Limit: limit, Total: len(matches), Results: []skHit{}}
	for _, m := range matches[:min(limit, len(matches))] {
		res.Results = append(res.Results, skHit{listed: listedOf(m.Skill), Score: m.Score, Excerpt: m.Excerpt})
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s match %q", count(res.Total, "skill"), query)
	if res.Total > len(res.Results) {
		fmt.Fprintf(&b, " (showing %d)", len(res.Results))
	}
	b.WriteString(".")
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}, StructuredContent: res}, nil
}
