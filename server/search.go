package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/resolver/search"
	"github.com/skillmux/skillmux/sources"
)

// SearchToolName is the name of the ranked search tool.
const SearchToolName = "skills_search"

var searchInputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"query": map[string]any{
			"type":        "string",
			"minLength":   1,
			"maxLength":   resolver.MaxQueryLength,
			"description": "What the skill should help with, in your own words, e.g. \"fill in a PDF form\" or \"debug a failing test\". Names, descriptions and the skills' whole instructions are searched.",
		},
		"limit": map[string]any{
			"type": "integer", "minimum": 1, "maximum": resolver.MaxSearchLimit, "default": resolver.DefaultSearchLimit,
			"description": "The most skills to return.",
		},
		"source":    map[string]any{"type": "string", "description": "Only skills from this source (as skills are listed: user, project, a plugin folder...)."},
		"namespace": map[string]any{"type": "string", "description": "Only skills of this namespace (a plugin's name, the part before ':' in \"plugin:skill\")."},
		"kind":      map[string]any{"type": "string", "enum": []string{string(sources.KindSkill), string(sources.KindLearned)}, "description": "Only skill folders, or only learned notes."},
	},
	"required":             []string{"query"},
	"additionalProperties": false,
}

var searchOutputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"query": map[string]any{"type": "string"},
		"hits": map[string]any{
			"type": "array",
			"items": map[string]any{
				"type": "object",
				"properties": map[string]any{
					"name":        map[string]any{"type": "string", "description": "The name that loads the skill with the skill tool."},
					"description": map[string]any{"type": "string"},
					"location":    map[string]any{"type": "string", "description": "The skill's SKILL.md."},
					"source":      map[string]any{"type": "string"},
					"kind":        map[string]any{"type": "string"},
					"score":       map[string]any{"type": "number", "description": "Relevance; higher is better."},
					"excerpt":     map[string]any{"type": "string", "description": "About 160 characters around the best match."},
				},
				"required": []string{"name", "description", "location", "source", "kind", "score", "excerpt"},
			},
		},
	},
	"required": []string{"query", "hits"},
}

func (s *Server) searchTool() *tool {
	return &tool{def: &mcp.Tool{
		Name:  SearchToolName,
		Title: "Search skills",
		Description: "Find Agent Skills by what they do: a ranked search over every skill's name, description and instructions. " +
			"Use it when no skill in the catalog obviously fits, or to find skills the catalog does not list. Then " + s.howToUse() + ".",
		InputSchema:  searchInputSchema,
		OutputSchema: searchOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, handle: s.callSearch}
}

func (s *Server) callSearch(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := parseArgs(req.Params.Arguments, "query", "limit", "source", "namespace", "kind")
	if err != nil {
		return nil, err
	}
	q, err := searchQuery(a)
	if err != nil {
		return nil, err
	}
	res, err := s.search(ctx, req, q)
	if err != nil {
		return nil, err
	}
	if res == nil {
		return errorResult(s.notReady()), nil
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: s.searchSummary(res)}},
		StructuredContent: shownHits(res),
	}, nil
}

// shownHits is res as a client may show it, as the catalog shows skills:
// descriptions and excerpts on one line without control or
// bidirectional-control characters, locations with them escaped.
func shownHits(res *resolver.SearchResult) *resolver.SearchResult {
	shown := *res
	shown.Hits = slices.Clone(res.Hits)
	for i := range shown.Hits {
		h := &shown.Hits[i]
		h.Description, h.Excerpt, h.Location = toolText(h.Description), resolver.OneLine(h.Excerpt), resolver.EscapeControls(h.Location)
	}
	return &shown
}

// searchQuery reads the arguments of a ranked search.
func searchQuery(a *args) (resolver.SearchQuery, error) {
	var q resolver.SearchQuery
	var err error
	if q.Text, err = a.query("query", `what the skill should help with, e.g. {"query": "fill in a PDF form"}`); err != nil {
		return q, err
	}
	if q.Limit, err = a.intIn("limit", 1, resolver.MaxSearchLimit, resolver.DefaultSearchLimit); err != nil {
		return q, err
	}
	if q.Source, err = a.str("source"); err != nil {
		return q, err
	}
	if q.Namespace, err = a.str("namespace"); err != nil {
		return q, err
	}
	kind, err := a.str("kind")
	q.Kind = sources.Kind(kind)
	return q, err
}

// search runs q on the view of the session that sent req. It returns
// nil, nil when the index is not built yet (see searchIndex.ready).
func (s *Server) search(ctx context.Context, req mcp.Request, q resolver.SearchQuery) (*resolver.SearchResult, error) {
	starting := s.started.pending() // before the view: the start may end after it
	v := s.viewOf(req)
	err := q.Check(v.snap)
	var ae *resolver.ArgumentError
	if starting && errors.As(err, &ae) && (ae.Arg == "source" || ae.Arg == "namespace") {
		// A source or namespace the start is still bringing.
		s.started.wait(ctx, s.index.wait/2)
		v = s.viewOf(req)
		err = q.Check(v.snap)
	}
	if err != nil {
		return nil, argumentError(err)
	}
	ix, err := s.index.ready(ctx)
	if err != nil {
		return nil, err
	}
	if ix == nil {
		return nil, nil
	}
	v = s.viewOf(req) // the catalog the wait may have completed
	res := v.snap.Search(ix, q, s.catalogOpts.Visibility)
	return &res, nil
}

// howToUse says how the model uses a skill found: with the skill tool
// when it is served, else by reading its SKILL.md.
func (s *Server) howToUse() string {
	if s.tools.has(SkillToolName) {
		return "load one with the skill tool"
	}
	return "read one's SKILL.md at its location and follow it"
}

// searchSummary is the text beside the structured result: one line per
// skill, for clients that show the model only text. Without the skill
// tool, each line gives the skill's location.
func (s *Server) searchSummary(res *resolver.SearchResult) string {
	unread := ""
	if n := s.index.live.Unread(); n > 0 {
		unread = fmt.Sprintf("\n(Not among these results yet: %s of source plugins, still being read for the search index; search again in a moment to include them.)", count(n, "skill"))
	}
	if len(res.Hits) == 0 {
		return fmt.Sprintf("No skill matches %q. Try other words, or fewer.", res.Query) + unread
	}
	var b strings.Builder
	located := !s.tools.has(SkillToolName)
	fmt.Fprintf(&b, "%s for %q, best first; %s:", count(len(res.Hits), "skill"), res.Query, s.howToUse())
	for _, h := range res.Hits {
		fmt.Fprintf(&b, "\n- %s (%.2f): %s", h.Name, h.Score, clipText(h.Description, 200))
		if located {
			fmt.Fprintf(&b, " [%s]", resolver.EscapeControls(h.Location))
		}
	}
	return b.String() + unread
}

// clipText puts s on one line, as the catalog does (no control or bidi
// character), and cuts it to about n characters.
func clipText(s string, n int) string {
	s = resolver.OneLine(s)
	if head, more := cutRunes(s, n); more {
		return strings.TrimRight(head, " ,;:.") + "…"
	}
	return s
}

// searchIndex is the server's search index: built in the background from
// the first handshake (see Options.IndexAfter) or the first search on, so
// that it is never on the way of the start, and following each new
// snapshot.
type searchIndex struct {
	live     *search.Live
	wait     time.Duration
	gate     *startGate // the catalog's start, which a search waits for first
	logger   *slog.Logger
	snapshot func() *resolver.Snapshot // the catalog's current one

	// mu guards the fields below, and orders the submissions: each is of
	// the snapshot current when it was made, so the index never goes
	// back to an older one.
	mu      sync.Mutex
	started bool
	last    *resolver.Snapshot // the snapshot submitted last
}

func newSearchIndex(logger *slog.Logger, wait time.Duration, gate *startGate, snapshot func() *resolver.Snapshot) *searchIndex {
	return &searchIndex{live: search.NewLive(logger), wait: wait, gate: gate, logger: logger, snapshot: snapshot}
}

// start starts following the catalog, once.
func (x *searchIndex) start() {
	x.mu.Lock()
	x.started = true
	x.mu.Unlock()
	x.follow()
}

// follow hands the index the catalog's current snapshot, once it has
// started.
func (x *searchIndex) follow() {
	x.mu.Lock()
	defer x.mu.Unlock()
	snap := x.snapshot()
	if !x.started || snap == x.last {
		return
	}
	x.last = snap
	x.live.Submit(snap.IndexedSkills())
}

// ready returns the index once it holds the catalog's current snapshot,
// waiting at most x.wait. If the wait runs out, it returns the index as
// it is, or nil when it has not been built yet.
//
// Just after the start, the catalog lacks what the sources complete in
// the background (the skills nested in others, found by a deferred scan;
// a source plugin slow to give its first listing): until that is done, a
// search waits for it first, for at most half of x.wait (see startGate),
// rather than miss those skills without a word.
func (x *searchIndex) ready(ctx context.Context) (*search.Index, error) {
	x.gate.wait(ctx, x.wait/2)
	if err := ctx.Err(); err != nil {
		return nil, err // and the build, held back until the start is done, is not started
	}
	x.start()
	wctx, cancel := context.WithTimeout(ctx, x.wait)
	defer cancel()
	built, err := x.live.Wait(wctx, x.live.Submitted())
	switch {
	case err == nil:
		return x.live.Index(), nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case built:
		x.logger.Warn("search answered from an index not yet up to date with the catalog", "waited", x.wait)
		return x.live.Index(), nil
	}
	return nil, nil
}

// notReady says why there are no results yet.
func (s *Server) notReady() string {
	done, todo := s.index.live.Progress()
	meanwhile := "the catalog gives each skill's location"
	if s.tools.has(SkillToolName) {
		meanwhile = "the skill tool loads any skill by name"
	}
	return fmt.Sprintf("The search index is still being built (%d of %d skills read). Try again in a few seconds; meanwhile %s.", done, todo, meanwhile)
}

func (x *searchIndex) close() { x.live.Close() }
