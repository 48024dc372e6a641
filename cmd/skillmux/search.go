package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillmux/skillmux/config"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/resolver/search"
	"github.com/skillmux/skillmux/sources"
)

// catalogOptions turns the catalog's configuration into the resolver's
// options. The configuration has checked every value already.
func catalogOptions(cfg *config.Config) (*resolver.CatalogOptions, error) {
	vis, err := resolver.NewVisibility(cfg.Catalog.VisibilityMap())
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("invalid configuration: catalog.%w", err)}
	}
	return &resolver.CatalogOptions{Budget: cfg.Catalog.Budget, Pin: cfg.Catalog.Pin, Visibility: vis, Channel: cfg.Catalog.Channel}, nil
}

func newSearchCmd(e *env) *cobra.Command {
	var f catalogFlags
	var q resolver.SearchQuery
	var kind string
	var asJSON bool
	var client string
	cmd := &cobra.Command{
		Use:   "search QUERY",
		Short: "Search the skills by what they do, as the skills_search tool does",
		Long: `Rank the skills the server would serve against QUERY (every argument, joined
with spaces): their names, descriptions and whole SKILL.md bodies, as the
skills_search tool of the MCP server does, with the same results (for a
client that loads some folders itself, give its name with --client, as
for list). Skills hidden by catalog.visibility (off) and those whose front
matter says disable-model-invocation: true are left out, as they are for
the model.

--json prints what the tool returns as structured content.`,
		Example: `  skillmux search --root examples/skills release notes
  skillmux search --root examples/skills "summarize a csv" --limit 3 --json
  skillmux search --client claude-code "fill in a pdf form"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("search needs a QUERY: what the skill should help with; for example: skillmux search fill in a pdf form")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			q.Text = strings.Join(args, " ")
			q.Kind = sources.Kind(kind)
			if q.Limit < 1 || q.Limit > resolver.MaxSearchLimit {
				return usageError("--limit must be an integer from 1 to %d (default %d), got %d; see 'skillmux search --help'", resolver.MaxSearchLimit, resolver.DefaultSearchLimit, q.Limit)
			}
			snap, s, err := loadCatalog(cmd, e, &f, true)
			if err != nil {
				return err
			}
			defer s.Close()
			// The index holds the whole catalog, as the server's does, so
			// that a client's view ranks its skills with the server's
			// scores; the view filters the hits.
			ix := search.NewIndex()
			if _, err := ix.Update(cmd.Context(), snap.IndexedSkills(), nil); err != nil {
				return err
			}
			snap, _, _ = asClient(e, s, snap, client)
			opts, err := catalogOptions(s.cfg)
			if err != nil {
				return err
			}
			if err := q.Check(snap); err != nil {
				var ae *resolver.ArgumentError
				if errors.As(err, &ae) {
					return usageError("%s %s; see 'skillmux search --help'", flagOf(ae.Arg), ae.Message)
				}
				return err
			}
			res := snap.Search(ix, q, opts.Visibility)
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			printHits(e, res)
			return nil
		},
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.IntVar(&q.Limit, "limit", resolver.DefaultSearchLimit, fmt.Sprintf("the most skills to show, 1 to %d", resolver.MaxSearchLimit))
	fl.StringVar(&q.Source, "source", "", "only skills from this source (as skillmux list names them)")
	fl.StringVar(&q.Namespace, "namespace", "", "only skills of this namespace (a plugin's name)")
	fl.StringVar(&kind, "kind", "", "only skills of this kind: skill or learned")
	fl.BoolVar(&asJSON, "json", false, "print JSON, as the tool's structured content")
	fl.StringVar(&client, "client", "", "search what the client with this clientInfo name is served (e.g. claude-code)")
	return cmd
}

// flagOf names an argument of a query as the command line gives it.
func flagOf(arg string) string {
	if arg == "query" {
		return "QUERY"
	}
	return "--" + arg
}

func printHits(e *env, res resolver.SearchResult) {
	if len(res.Hits) == 0 {
		fmt.Fprintf(e.stdout, "No skill matches %q.\n", res.Query)
		return
	}
	for i, h := range res.Hits {
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		fmt.Fprintf(e.stdout, "%s  (%.2f)\n  %s\n  %s\n  %s\n", h.Name, h.Score, clip(escaped(oneLine(h.Description)), 160), escaped(oneLine(h.Excerpt)), escaped(h.Location))
	}
}
