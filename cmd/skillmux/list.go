package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

// listedSkill is one skill in `skillmux list --json`.
type listedSkill struct {
	Name        string               `json:"name"`
	Description string               `json:"description"`
	Location    string               `json:"location"`
	Source      string               `json:"source"`
	Scope       sources.Scope        `json:"scope"`
	Kind        sources.Kind         `json:"kind"`
	Warnings    []sources.Diagnostic `json:"warnings,omitempty"`
}

type shadowedSkill struct {
	listedSkill
	ShadowedBy string `json:"shadowedBy"`
	ReachAs    string `json:"reachAs"`
}

type listing struct {
	Skills   []listedSkill        `json:"skills"`
	Shadowed []shadowedSkill      `json:"shadowed,omitempty"`
	Skipped  []sources.Diagnostic `json:"skipped,omitempty"`
	Warnings []sources.Diagnostic `json:"warnings,omitempty"`
	Failed   []failedSource       `json:"failedSources,omitempty"`
}

type failedSource struct {
	Source string `json:"source"`
	Error  string `json:"error"`
}

func listed(sk *sources.Skill) listedSkill {
	return listedSkill{Name: sk.Ref.String(), Description: sk.Description, Location: sk.Path, Source: sk.Source, Scope: sk.Scope, Kind: sk.Kind, Warnings: sk.Diagnostics}
}

func buildListing(snap *resolver.Snapshot, all bool) listing {
	l := listing{Skills: []listedSkill{}}
	for _, sk := range snap.Skills() {
		ls := listed(sk)
		if !all {
			ls.Warnings = nil
		}
		l.Skills = append(l.Skills, ls)
	}
	if !all {
		return l
	}
	for _, sh := range snap.Shadowed() {
		l.Shadowed = append(l.Shadowed, shadowedSkill{listedSkill: listed(sh.Skill), ShadowedBy: sh.By.Path, ReachAs: sh.Alias.String()})
	}
	for _, d := range snap.Problems() {
		if d.Severity == sources.Error {
			l.Skipped = append(l.Skipped, d)
		} else {
			l.Warnings = append(l.Warnings, d)
		}
	}
	for _, f := range snap.Failed() {
		l.Failed = append(l.Failed, failedSource{Source: f.Source, Error: f.Err.Error()})
	}
	return l
}

func newListCmd(e *env) *cobra.Command {
	var f catalogFlags
	var asJSON, all bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the skills the server would serve",
		Long: `List the catalog as the server sees it: each skill's qualified name,
description, location and source. --all adds the skills hidden by another of
the same name (and the name that still reaches them), the files that were
skipped with the reason, and every warning.`,
		Example: `  skillmux list --root examples/skills
  skillmux list --all --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			snap, err := loadCatalog(cmd, e, &f)
			if err != nil {
				return err
			}
			l := buildListing(snap, all)
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(l)
			}
			printListing(e, l)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&all, "all", false, "also show shadowed and skipped skills and warnings")
	return cmd
}

func printListing(e *env, l listing) {
	tw := tabwriter.NewWriter(e.stdout, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tDESCRIPTION\tSOURCE\tLOCATION")
	for _, s := range l.Skills {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.Name, clip(s.Description, 60), s.Source, s.Location)
	}
	tw.Flush()
	fmt.Fprintf(e.stdout, "\n%d skills\n", len(l.Skills))
	if len(l.Shadowed) > 0 {
		fmt.Fprintf(e.stdout, "\nShadowed (served under another skill of the same name):\n")
		for _, s := range l.Shadowed {
			fmt.Fprintf(e.stdout, "  %s  %s\n    shadowed by %s; reach it as %q\n", s.Name, s.Location, s.ShadowedBy, s.ReachAs)
		}
	}
	if len(l.Skipped) > 0 {
		fmt.Fprintf(e.stdout, "\nSkipped:\n")
		for _, d := range l.Skipped {
			fmt.Fprintf(e.stdout, "  %s\n", d)
		}
	}
	var warnings []sources.Diagnostic
	warnings = append(warnings, l.Warnings...)
	for _, s := range l.Skills {
		warnings = append(warnings, s.Warnings...)
	}
	if len(warnings) > 0 {
		fmt.Fprintf(e.stdout, "\nWarnings (the skills are served):\n")
		for _, d := range warnings {
			fmt.Fprintf(e.stdout, "  %s\n", d)
		}
	}
	for _, fs := range l.Failed {
		fmt.Fprintf(e.stdout, "\nSource %s failed: %s\n", fs.Source, fs.Error)
	}
}

// oneLine collapses white space, line breaks included.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip shortens s to n runes on one line.
func clip(s string, n int) string {
	r := []rune(oneLine(s))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}
