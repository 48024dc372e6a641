package server

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
)

// The tools of the catalog profile, as the skill-catalog servers of the
// ADR-012 kind name them: search before acting, check that a skill exists
// before running a command by hand, cite the skill used (which counts as a
// use for the catalog's order), and ask for suggestions for a task.
const (
	catalogSearchName = "search_skills"
	checkExistsName   = "check_skill_exists"
	citeName          = "cite_skill"
	suggestName       = "suggest_skills"
)

// catalogSearchTool is skills_search under the catalog profile's name.
func (s *Server) catalogSearchTool() *tool {
	t := s.searchTool()
	def := *t.def
	def.Name = catalogSearchName
	t.def = &def
	return t
}

var checkInputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":  map[string]any{"type": "string", "description": "A skill's name, e.g. \"pdf\" or \"example-skills:pdf\"."},
		"query": map[string]any{"type": "string", "description": "Or what you are about to do, e.g. \"open a pull request\": is there a skill for it?"},
	},
	"additionalProperties": false,
}

var checkOutputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"exists":      map[string]any{"type": "boolean"},
		"name":        map[string]any{"type": "string", "description": "The skill's qualified name, when it exists."},
		"description": map[string]any{"type": "string"},
		"location":    map[string]any{"type": "string"},
		"suggestions": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Names close to the one asked for, or the skills a short name could mean."},
		"matches":     searchOutputSchema["properties"].(map[string]any)["hits"],
	},
	"required": []string{"exists"},
}

type checkResult struct {
	Exists      bool                 `json:"exists"`
	Name        string               `json:"name,omitempty"`
	Description string               `json:"description,omitempty"`
	Location    string               `json:"location,omitempty"`
	Suggestions []string             `json:"suggestions,omitempty"`
	Matches     []resolver.SearchHit `json:"matches,omitempty"`
}

func (s *Server) checkExistsTool() *tool {
	return &tool{def: &mcp.Tool{
		Name:  checkExistsName,
		Title: "Check that a skill exists",
		Description: "Check whether a skill exists, by its name (give name) or for what you are about to do (give query), " +
			"before doing it by hand. With a name, the answer says whether it loads and, if not, the closest names; with a query, the best matching skills.",
		InputSchema:  checkInputSchema,
		OutputSchema: checkOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, handle: s.callCheckExists}
}

func (s *Server) callCheckExists(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := parseArgs(req.Params.Arguments, "name", "query")
	if err != nil {
		return nil, err
	}
	if a.has("name") == a.has("query") {
		return nil, badArgument(`give exactly one of the arguments "name" (a skill's name) and "query" (what you are about to do)`)
	}
	var res checkResult
	var text string
	if a.has("name") {
		name, err := a.query("name", `a skill's name, e.g. {"name": "pdf"}`)
		if err != nil {
			return nil, err
		}
		m, err := s.lookup(s.viewOf(req), name)
		var nf *resolver.NotFoundError
		var amb *resolver.AmbiguousError
		switch {
		case err == nil:
			res = checkResult{Exists: true, Name: m.Ref.String(), Description: toolText(m.Skill.Description), Location: m.Skill.Path}
			text = fmt.Sprintf("Skill %s exists: %s", m.Ref, clipText(m.Skill.Description, 200))
		case errors.As(err, &nf):
			res.Suggestions = nf.Suggestions
			text = err.Error()
		case errors.As(err, &amb):
			res.Suggestions = amb.Candidates
			text = err.Error()
		default:
			return nil, err
		}
	} else {
		q, err := a.query("query", `what you are about to do, e.g. {"query": "open a pull request"}`)
		if err != nil {
			return nil, err
		}
		found, err := s.search(ctx, req, resolver.SearchQuery{Text: q, Limit: 3})
		if err != nil {
			return nil, err
		}
		if found == nil {
			return errorResult(s.notReady()), nil
		}
		res = checkResult{Exists: len(found.Hits) > 0, Matches: shownHits(found).Hits}
		text = s.searchSummary(found)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: res}, nil
}

var citeInputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name": map[string]any{"type": "string", "description": "The skill used."},
		"note": map[string]any{"type": "string", "description": "Optional: what it was used for."},
	},
	"required":             []string{"name"},
	"additionalProperties": false,
}

var citeOutputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name": map[string]any{"type": "string"},
		"uses": map[string]any{"type": "integer", "description": "Loads and citations of the skill since the server started."},
	},
	"required": []string{"name", "uses"},
}

type citeResult struct {
	Name string `json:"name"`
	Uses int    `json:"uses"`
}

func (s *Server) citeTool() *tool {
	return &tool{def: &mcp.Tool{
		Name:         citeName,
		Title:        "Cite a skill",
		Description:  "Record that you used a skill. Skills used more come earlier in the catalog.",
		InputSchema:  citeInputSchema,
		OutputSchema: citeOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: false, IdempotentHint: false, OpenWorldHint: new(false)},
	}, handle: s.callCite}
}

func (s *Server) callCite(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := parseArgs(req.Params.Arguments, "name", "note")
	if err != nil {
		return nil, err
	}
	name, err := a.query("name", `the skill used, e.g. {"name": "pdf"}`)
	if err != nil {
		return nil, err
	}
	note, err := a.str("note")
	if err != nil {
		return nil, err
	}
	m, err := s.lookup(s.viewOf(req), name)
	if err != nil {
		return errorResult(err.Error()), nil
	}
	key := m.Skill.Ref.Key()
	s.usage.Record(key)
	s.logger.Debug("skill cited", "name", m.Ref.String(), "note", note)
	res := citeResult{Name: m.Ref.String(), Uses: s.usage.Counts()[key]}
	text := fmt.Sprintf("Recorded a use of %s (%s so far).", res.Name, count(res.Uses, "use"))
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: res}, nil
}

var suggestInputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"task":  map[string]any{"type": "string", "description": "The task at hand, in a sentence."},
		"files": map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "description": "Optional: the files the task touches; their names and extensions count too."},
		"limit": map[string]any{"type": "integer", "minimum": 1, "maximum": resolver.MaxSearchLimit, "default": 5},
	},
	"required":             []string{"task"},
	"additionalProperties": false,
}

func (s *Server) suggestTool() *tool {
	return &tool{def: &mcp.Tool{
		Name:         suggestName,
		Title:        "Suggest skills for a task",
		Description:  "Suggest the skills that fit a task, from its description and the files it touches, best first.",
		InputSchema:  suggestInputSchema,
		OutputSchema: searchOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, handle: s.callSuggest}
}

func (s *Server) callSuggest(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := parseArgs(req.Params.Arguments, "task", "files", "limit")
	if err != nil {
		return nil, err
	}
	task, err := a.query("task", `the task at hand, e.g. {"task": "add a column to the sales report"}`)
	if err != nil {
		return nil, err
	}
	files, err := a.strings("files")
	if err != nil {
		return nil, err
	}
	limit, err := a.intIn("limit", 1, resolver.MaxSearchLimit, 5)
	if err != nil {
		return nil, err
	}
	// A file's name says something of the task ("report.xlsx"); its folders
	// rarely do.
	text := task
	for _, f := range files {
		text += " " + filepath.Base(f) + " " + strings.TrimPrefix(filepath.Ext(f), ".")
	}
	// Words, not the blanks between them, go into the query's bound.
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) > resolver.MaxQueryLength { // the task's first words
		n, i := 0, 0
		for i = range text {
			if n == resolver.MaxQueryLength {
				break
			}
			n++
		}
		text = text[:i]
	}
	res, err := s.search(ctx, req, resolver.SearchQuery{Text: text, Limit: limit})
	if err != nil {
		return nil, err
	}
	if res == nil {
		return errorResult(s.notReady()), nil
	}
	res.Query = task
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s.searchSummary(res)}}, StructuredContent: shownHits(res)}, nil
}
