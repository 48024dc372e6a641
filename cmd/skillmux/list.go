package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
	"golang.org/x/term"
	"golang.org/x/text/width"

	"github.com/skillmux/skillmux/internal/editdist"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
)

// listedSkill is one skill in `skillmux list --json`.
type listedSkill struct {
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Location    string        `json:"location"`
	Source      string        `json:"source"`
	Scope       sources.Scope `json:"scope"`
	Kind        sources.Kind  `json:"kind"`
	Convention  string        `json:"convention,omitempty"`
	// Catalog says how the model is offered the skill when not in full:
	// "name-only" or "off" (catalog.visibility), or "user-invoked" (its
	// front matter says disable-model-invocation: true).
	Catalog  string               `json:"catalog,omitempty"`
	Warnings []sources.Diagnostic `json:"warnings,omitempty"`
}

// catalogTags explains, after the table, the tags of listedSkill.Catalog.
var catalogTags = map[string]string{
	"name-only":    "in the catalog by name only, without its description (catalog.visibility)",
	"off":          "not in the catalog, search or skills_list, nor a prompt (catalog.visibility); loaded by its exact name",
	"user-invoked": "its front matter says disable-model-invocation: true: not in the catalog or search; the user loads it",
}

// offered is how vis, and the skill's own front matter, offer sk to the
// model: "" when in full (see listedSkill.Catalog).
func offered(sk *sources.Skill, vis *resolver.Visibility) string {
	switch shown := vis.Of(sk.Ref); {
	case shown == resolver.ShownOff:
		return shown.String()
	case sk.DisableModelInvocation:
		return "user-invoked"
	case shown != resolver.ShownOn:
		return shown.String()
	}
	return ""
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
	Plugins  []sources.Package    `json:"plugins,omitempty"`
	// Client and LeftOut say whose view this is (--client) and which
	// folders it leaves out.
	Client  string   `json:"client,omitempty"`
	LeftOut []string `json:"leftOut,omitempty"`
	// LookedIn are the places each source reads, with --all: where
	// skillmux looked, for one that finds nothing.
	LookedIn []place `json:"lookedIn,omitempty"`
}

// place is a folder (or file) a source reads, and whether it is there.
type place struct {
	Source string `json:"source"`
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
}

// placesOf returns the places srcs read, each once, in their order.
func placesOf(srcs []sources.Source) []place {
	var out []place
	seen := map[string]bool{}
	for _, src := range srcs {
		for _, p := range sources.Places(src) {
			if seen[p] {
				continue
			}
			seen[p] = true
			_, err := os.Stat(p)
			out = append(out, place{Source: src.Name(), Path: p, Exists: err == nil})
		}
	}
	return out
}

type failedSource struct {
	Source string `json:"source"`
	Error  string `json:"error"`
}

func listed(sk *sources.Skill) listedSkill {
	return listedSkill{Name: sk.Ref.String(), Description: sk.Description, Location: sk.Path, Source: sk.Source, Scope: sk.Scope, Kind: sk.Kind, Convention: sk.Convention, Warnings: sk.Diagnostics}
}

// buildListing describes snap, each skill with how vis offers it.
// Skipped files, source warnings and failed sources are always in it; all
// adds the shadowed skills, the warnings of served skills and every
// plugin considered.
func buildListing(snap *resolver.Snapshot, all bool, vis *resolver.Visibility) listing {
	l := listing{Skills: []listedSkill{}}
	for _, sk := range snap.Skills() {
		ls := listed(sk)
		ls.Catalog = offered(sk, vis)
		if d, ok := server.PromptWarning(sk); ok {
			ls.Warnings = append(slices.Clip(ls.Warnings), d)
		}
		if !all {
			ls.Warnings = nil
		}
		l.Skills = append(l.Skills, ls)
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
	if !all {
		return l
	}
	for _, sh := range snap.Shadowed() {
		ls := listed(sh.Skill)
		if sh.Skill.DisableModelInvocation {
			// The only tag of its own: visibility rules are for the
			// names served.
			ls.Catalog = "user-invoked"
		}
		l.Shadowed = append(l.Shadowed, shadowedSkill{listedSkill: ls, ShadowedBy: sh.By.Path, ReachAs: sh.Alias.String()})
	}
	l.Plugins = snap.Packages()
	return l
}

// leftOutPlugins marks the plugins served none of whose skills the
// client's view lists (it loads them itself) as left out for it.
func leftOutPlugins(plugins []sources.Package, skills []listedSkill, client string) []sources.Package {
	out := slices.Clone(plugins)
	for i, p := range out {
		if p.State != sources.PackageServed || p.Skills == 0 {
			continue
		}
		if !slices.ContainsFunc(skills, func(s listedSkill) bool {
			return s.Source == p.Source && strings.HasPrefix(s.Name, p.Namespace+":")
		}) {
			out[i].State = sources.PackageLeftOut
			out[i].Reason = fmt.Sprintf("served, but not to %s, which loads it itself", client)
		}
	}
	return out
}

func newListCmd(e *env) *cobra.Command {
	var f catalogFlags
	var asJSON, all bool
	var client string
	cmd := &cobra.Command{
		Use:   "list [DIR...]",
		Short: "List the skills the server would serve",
		Long: `List the catalog as the server sees it: each skill's qualified name, source,
description and location. Folders given as arguments are served as with
--root, as serve takes them: a serve command line, with list in place of
serve, lists what it serves. Files that were skipped and folders that are
missing are reported on stderr first. A skill the model is not offered in
full is tagged: [name-only] and [off] by catalog.visibility, [user-invoked]
by disable-model-invocation: true in its front matter.

--all adds the skills hidden by another of the same name (and the name that
still reaches them), every warning, every Claude Code plugin considered
with whether it is served and why not, and the folder each source starts
from, each that is not there marked.

--client NAME shows the catalog as the client that announces itself with
that clientInfo name sees it: without the skill folders it loads itself
(claude-code, codex-mcp-client, cursor-vscode, github-copilot-developer,
gemini-cli-mcp-client; see the README).`,
		Example: `  skillmux list --root examples/skills
  skillmux list ~/skills ~/team-skills
  skillmux list --all
  skillmux list --client claude-code
  skillmux list --all --json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			f.roots = append(args, f.roots...) // as serve takes them
			text := !asJSON
			snap, s, err := loadCatalog(cmd, e, &f, !(all && text))
			if err != nil {
				return err
			}
			defer s.Close()
			var l listing
			snap, l.Client, l.LeftOut = asClient(e, s, snap, client)
			opts, err := catalogOptions(s.cfg)
			if err != nil {
				return err
			}
			view := buildListing(snap, all, opts.Visibility)
			view.Client, view.LeftOut = l.Client, l.LeftOut
			if all {
				view.LookedIn = placesOf(s.res.Sources())
			}
			if l.Client != "" {
				view.Plugins = leftOutPlugins(view.Plugins, view.Skills, l.Client)
			}
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(view)
			}
			printListing(e, view, all, s.hints)
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().BoolVar(&all, "all", false, "also show shadowed skills, every warning, every Claude Code plugin considered and the folders looked in")
	cmd.Flags().StringVar(&client, "client", "", "show what the client with this clientInfo name is served (e.g. claude-code)")
	return cmd
}

// asClient is snap as the client named client is served it (--client):
// without the folders it loads itself, which it names (title) with their
// conventions. Any other client, or none, is served all of snap; a name
// that is not one of those clients is warned of, with the nearest.
func asClient(e *env, s *setup, snap *resolver.Snapshot, client string) (view *resolver.Snapshot, title string, leftOut []string) {
	if client == "" {
		return snap, "", nil
	}
	title, conventions := server.NativeFolders(client)
	if conventions == nil {
		// Any other client is served everything, and so is a misspelt
		// name: say so, lest a typo pass for a check.
		names := server.NativeClientNames()
		hint := ""
		best := editdist.Closest(strings.ToLower(client), names, max(2, len(client)/3))
		if i := slices.IndexFunc(names, func(n string) bool { return strings.HasPrefix(n, strings.ToLower(client)) }); best == "" && i >= 0 {
			best = names[i] // "claude" for claude-code
		}
		if best != "" {
			hint = fmt.Sprintf(" (did you mean %q?)", best)
		}
		fmt.Fprintf(e.stderr, "warning: --client %q is not a client whose own folders are left out%s, so it is served the full catalog; those clients are %s\n", client, hint, strings.Join(names, ", "))
	}
	if includeNative(s.cfg) || conventions == nil {
		return snap, "", nil
	}
	return snap.Excluding(conventions), title, conventions
}

// printListing prints the table, sized to the terminal, and with all the
// sections that explain it: every problem once, here rather than on
// stderr.
func printListing(e *env, l listing, all bool, hints map[string]string) {
	if l.Client != "" {
		fmt.Fprintf(e.stdout, "As %s sees it: left out, since it loads them itself: %s\n\n", l.Client, strings.Join(l.LeftOut, ", "))
	}
	printTable(e.stdout, l.Skills, terminalWidth(e))
	fmt.Fprintf(e.stdout, "\n%s\n", plural(len(l.Skills), "skill"))
	used := map[string]bool{}
	for _, s := range l.Skills {
		used[s.Catalog] = s.Catalog != ""
	}
	for _, s := range l.Shadowed {
		used[s.Catalog] = s.Catalog != ""
	}
	for _, tag := range slices.Sorted(maps.Keys(catalogTags)) {
		if used[tag] {
			fmt.Fprintf(e.stdout, "[%s]: %s\n", tag, catalogTags[tag])
		}
	}
	if !all {
		return
	}
	if len(l.Shadowed) > 0 {
		fmt.Fprintf(e.stdout, "\nShadowed (served under another skill of the same name):\n")
		for _, s := range l.Shadowed {
			tag := ""
			if s.Catalog != "" {
				tag = " [" + s.Catalog + "]"
			}
			fmt.Fprintf(e.stdout, "  %s%s  %s\n    shadowed by %s; reach it as %q\n", escaped(s.Name), tag, escaped(s.Location), escaped(s.ShadowedBy), s.ReachAs)
		}
	}
	if len(l.Skipped) > 0 {
		fmt.Fprintf(e.stdout, "\nSkipped:\n")
		for _, d := range l.Skipped {
			fmt.Fprintf(e.stdout, "  %s\n", sentence(d, hints))
		}
	}
	// The sources' warnings may be about what is not served (a plugin's
	// missing folder); the skills' own are about skills that are.
	if len(l.Warnings) > 0 {
		fmt.Fprintf(e.stdout, "\nWarnings:\n")
		for _, d := range l.Warnings {
			fmt.Fprintf(e.stdout, "  %s\n", sentence(d, hints))
		}
	}
	var warnings []sources.Diagnostic
	for _, s := range l.Skills {
		warnings = append(warnings, s.Warnings...)
	}
	if len(warnings) > 0 {
		fmt.Fprintf(e.stdout, "\nWarnings about skills served:\n")
		for _, d := range warnings {
			fmt.Fprintf(e.stdout, "  %s\n", sentence(d, hints))
		}
	}
	for _, fs := range l.Failed {
		fmt.Fprintf(e.stdout, "\nSource %s failed: %s\n", fs.Source, fs.Error)
	}
	if len(l.LookedIn) > 0 {
		fmt.Fprintf(e.stdout, "\nLooked in:\n")
		var rows [][]string
		for _, p := range l.LookedIn {
			there := ""
			if !p.Exists {
				there = "(does not exist)"
			}
			rows = append(rows, []string{"  " + escaped(p.Path), p.Source, there})
		}
		printColumns(e.stdout, rows, 2)
	}
	if len(l.Plugins) > 0 {
		fmt.Fprintf(e.stdout, "\nClaude Code plugins considered:\n")
		var rows [][]string
		for _, p := range l.Plugins {
			what := plural(p.Skills, "skill")
			switch {
			case p.State != sources.PackageServed:
				what = p.Reason
			case p.Reason != "":
				what += "; " + p.Reason
			}
			rows = append(rows, []string{"  " + escaped(p.Name), string(p.State), escaped(what)})
		}
		printColumns(e.stdout, rows, 2)
	}
}

// terminalWidth is the width of the terminal stdout writes to, or 0 when
// it is not a terminal.
func terminalWidth(e *env) int {
	f, ok := e.stdout.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return w
}

// printTable prints NAME, SOURCE, DESCRIPTION and LOCATION, in columns
// as wide as a terminal shows their text (a CJK character takes two, an
// accent that combines takes none). In a terminal of width columns the
// description is cut to fit, and the location is left out when it would
// leave the description too little room (list --json has it); elsewhere
// descriptions are cut at 60 columns.
func printTable(w io.Writer, skills []listedSkill, width int) {
	const gap, minDesc = 2, 24
	nameW, srcW, locW := len("NAME"), len("SOURCE"), len("LOCATION")
	skills = slices.Clone(skills)
	for i, s := range skills {
		s.Name, s.Source, s.Description, s.Location = escaped(s.Name), escaped(s.Source), escaped(oneLine(s.Description)), escaped(s.Location)
		if s.Catalog != "" {
			s.Description = "[" + s.Catalog + "] " + s.Description
		}
		skills[i] = s
		nameW = max(nameW, columns(s.Name))
		srcW = max(srcW, columns(s.Source))
		locW = max(locW, columns(s.Location))
	}
	descW, withLoc := 60, true
	if width > 0 {
		descW = width - nameW - srcW - locW - 3*gap
		if descW < minDesc {
			withLoc = false
			descW = max(minDesc, width-nameW-srcW-2*gap)
		}
	}
	rows := [][]string{{"NAME", "SOURCE", "DESCRIPTION", "LOCATION"}}
	for _, s := range skills {
		rows = append(rows, []string{s.Name, s.Source, clip(s.Description, descW), s.Location})
	}
	if !withLoc {
		for i := range rows {
			rows[i] = rows[i][:3]
		}
	}
	printColumns(w, rows, gap)
}

// printColumns prints rows in columns as wide as their widest cell shows
// in a terminal (see columns), gap spaces apart; the last cell of a row
// is not padded.
func printColumns(w io.Writer, rows [][]string, gap int) {
	var widths []int
	for _, row := range rows {
		for i, cell := range row[:len(row)-1] {
			if i == len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], columns(cell))
		}
	}
	var b strings.Builder
	for _, row := range rows {
		b.Reset()
		for i, cell := range row {
			b.WriteString(cell)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-columns(cell)+gap))
			}
		}
		fmt.Fprintln(w, b.String())
	}
}

// columns is how many columns of a terminal s takes: two for a wide or
// full-width character (CJK, most emoji), none for a mark that combines
// with the one before it, one for any other.
func columns(s string) int {
	n := 0
	for _, r := range s {
		n += runeColumns(r)
	}
	return n
}

func runeColumns(r rune) int {
	switch {
	case unicode.In(r, unicode.Mn, unicode.Me) || r == '\u200d':
		return 0
	case r >= 0x1f000 && r <= 0x1faff: // emoji and pictographs: wide in terminals
		return 2
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// oneLine collapses white space, line breaks included.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// escaped writes the control characters and the invisible formatting
// ones of s (an escape sequence, a bidirectional override) as Go escapes,
// as the warnings quote values: a skill's text reaches the terminal as
// what it says, never as what it would make the terminal do. The joiners
// U+200C and U+200D, which join emoji, are kept. A byte that is not UTF-8
// (a file name can hold any) is written as \xff: raw, it would reach the
// terminal as garbage, and text/tabwriter took 0xff for its escape
// character, which would undo the table's columns.
func escaped(s string) string {
	hidden := func(r rune) bool {
		return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d'
	}
	if strings.IndexFunc(s, hidden) < 0 && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case hidden(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// clip shortens s to n columns (see columns) on one line, marking the cut
// with "…".
func clip(s string, n int) string {
	s = oneLine(s)
	if columns(s) <= n {
		return s
	}
	used := 0
	for i, r := range s {
		if used+runeColumns(r) > n-1 {
			return s[:i] + "…"
		}
		used += runeColumns(r)
	}
	return s
}
