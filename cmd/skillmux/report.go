package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

// sentence renders a diagnostic for a person, on one line: what happened
// to which file, and what to do.
//
//	warning: /home/me/skills: folder does not exist; no skills served from it
//	skipped: /repo/.claude/skills/x/SKILL.md:3: front matter is not valid YAML: ...
func sentence(d sources.Diagnostic, hints map[string]string) string {
	var b strings.Builder
	if d.Severity == sources.Error {
		b.WriteString("skipped: ")
	} else {
		b.WriteString("warning: ")
	}
	b.WriteString(escaped(d.Path))
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
	}
	b.WriteString(": ")
	if d.Field != "" {
		b.WriteString(escaped(d.Field))
		b.WriteString(": ")
	}
	// A message may quote what a file holds (a plugin's name in Claude
	// Code's records), which reaches the terminal as text, never as what
	// it would make the terminal do.
	b.WriteString(escaped(d.Message))
	if h := hints[d.Path]; h != "" {
		b.WriteString(" (")
		b.WriteString(h)
		b.WriteString(")")
	}
	return b.String()
}

// reportProblems prints on w, once each, what went wrong while reading the
// sources: files skipped, folders missing, sources that failed. Warnings
// about single served skills are left to `list --all`.
func reportProblems(w io.Writer, snap *resolver.Snapshot, hints map[string]string) {
	for _, d := range snap.Problems() {
		fmt.Fprintln(w, sentence(d, hints))
	}
	for _, f := range snap.Failed() {
		fmt.Fprintf(w, "error: source %s failed, its skills are not served: %v\n", f.Source, f.Err)
	}
}

// relativeHints says, for each folder given as a relative path, where it
// was looked for: a client starts the server in a folder of its own
// choosing, so a relative path rarely means what its author meant.
func relativeHints(given []string, workdir string) map[string]string {
	hints := map[string]string{}
	for _, g := range given {
		if g != "" && !filepath.IsAbs(g) && !strings.HasPrefix(g, "~") {
			hints[absFrom(workdir, g)] = fmt.Sprintf("%q was taken relative to the working folder %s; give an absolute path", g, workdir)
		}
	}
	return hints
}

// plural writes "1 skill", "2 skills".
func plural(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}
