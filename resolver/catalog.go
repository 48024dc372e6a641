package resolver

import (
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/skillmux/skillmux/sources"
)

// DefaultBudget is the size, in UTF-16 code units as JavaScript clients
// count them, under which the tool description and the instructions are
// kept: Claude Code cuts both at 2048.
const DefaultBudget = 2048

// minDescription is the shortest a description is cut to before the
// catalog falls back to names only.
const minDescription = 40

// ToolHeader opens the description of the skill tool.
const ToolHeader = "Load a skill by name to get specialized instructions."

// InstructionsPreamble opens the server instructions.
const InstructionsPreamble = "This server provides Agent Skills: folders of instructions, scripts and references for specialized tasks. " +
	"When a task matches a skill's description, load the skill with the skill tool (argument name) before you start, and follow it. " +
	"Paths in a skill are relative to its base directory."

// ToolDescription returns the skill tool's description: ToolHeader, a blank
// line, "Available skills:" and one line "- <name>: <description>" per
// skill, within budget (see fitCatalog for how it shrinks).
func (s *Snapshot) ToolDescription(budget int) string {
	f := catalogFormat{
		head:  ToolHeader + "\n\nAvailable skills:",
		empty: "\n(none found)",
		entry: func(b *strings.Builder, sk *sources.Skill, desc string, namesOnly bool) {
			b.WriteString("\n- ")
			b.WriteString(sk.Ref.String())
			if !namesOnly {
				b.WriteString(": ")
				b.WriteString(desc)
			}
		},
		footer: func(n int) string {
			return fmt.Sprintf("\n(%d more not listed; call this tool with any skill name)", n)
		},
	}
	return fitCatalog(s.skills, budget, f)
}

// Instructions returns the server instructions: InstructionsPreamble and
// an <available_skills> block giving each skill's name, description and
// SKILL.md location, within budget.
func (s *Snapshot) Instructions(budget int) string {
	f := catalogFormat{
		head:  InstructionsPreamble + "\n\n<available_skills>",
		empty: "",
		tail:  "\n</available_skills>",
		entry: func(b *strings.Builder, sk *sources.Skill, desc string, namesOnly bool) {
			b.WriteString("\n<skill><name>")
			xmlEscape(b, sk.Ref.String())
			b.WriteString("</name>")
			if !namesOnly {
				b.WriteString("<description>")
				xmlEscape(b, desc)
				b.WriteString("</description><location>")
				xmlEscape(b, sk.Path)
				b.WriteString("</location>")
			}
			b.WriteString("</skill>")
		},
		footer: func(n int) string {
			return fmt.Sprintf("\n%d more skills are not listed; load any of them by name with the skill tool.", n)
		},
	}
	return fitCatalog(s.skills, budget, f)
}

type catalogFormat struct {
	head, empty, tail string
	entry             func(b *strings.Builder, sk *sources.Skill, desc string, namesOnly bool)
	footer            func(omitted int) string
}

// fitCatalog renders the catalog in the first of these forms that fits the
// budget: every description whole; every description cut to the same
// longest length that fits (at least minDescription); names only; as many
// names as fit, followed by how many were left out.
func fitCatalog(skills []*sources.Skill, budget int, f catalogFormat) string {
	if budget <= 0 {
		budget = DefaultBudget
	}
	// Descriptions are flattened on first use: for a large catalog only
	// the entries that fit the budget are ever looked at.
	descs := lazyDescs{skills: skills, flat: make([]string, len(skills)), done: make([]bool, len(skills))}
	const whole = int(^uint(0) >> 1)
	render := func(limit int, namesOnly bool, n int) string {
		var b strings.Builder
		b.WriteString(f.head)
		if len(skills) == 0 {
			b.WriteString(f.empty)
		}
		for i := range n {
			f.entry(&b, skills[i], cutUnits(descs.get(i), limit), namesOnly)
		}
		b.WriteString(f.tail)
		if n < len(skills) {
			b.WriteString(f.footer(len(skills) - n))
		}
		return b.String()
	}
	fits := func(limit int, namesOnly bool) bool {
		return size(skills, &descs, limit, namesOnly, f, budget) <= budget
	}
	switch {
	case fits(whole, false):
		return render(whole, false, len(skills))
	case fits(minDescription, false):
		// Few enough skills to fit: find the longest cut that does.
		lo, hi := minDescription, 0 // lo fits, hi does not
		for i := range skills {
			hi = max(hi, units(descs.get(i)))
		}
		for hi-lo > 1 {
			mid := (lo + hi) / 2
			if fits(mid, false) {
				lo = mid
			} else {
				hi = mid
			}
		}
		return render(lo, false, len(skills))
	case fits(0, true):
		return render(0, true, len(skills))
	}
	// Names only, as many as fit with room for the footer.
	used := units(f.head) + units(f.tail) + units(f.footer(len(skills)))
	n := 0
	var b strings.Builder
	for ; n < len(skills); n++ {
		b.Reset()
		f.entry(&b, skills[n], "", true)
		if used+units(b.String()) > budget {
			break
		}
		used += units(b.String())
	}
	return render(0, true, n)
}

// size is the length in units of the whole catalog with descriptions cut
// to limit, computed without keeping it. It stops counting once past
// budget, so checking a form against a catalog of any size costs about
// the budget, not the catalog.
func size(skills []*sources.Skill, descs *lazyDescs, limit int, namesOnly bool, f catalogFormat, budget int) int {
	var b strings.Builder
	total := units(f.head) + units(f.tail)
	if len(skills) == 0 {
		total += units(f.empty)
	}
	for i, sk := range skills {
		if total > budget {
			break
		}
		b.Reset()
		f.entry(&b, sk, cutUnits(descs.get(i), limit), namesOnly)
		total += units(b.String())
	}
	return total
}

// lazyDescs flattens descriptions to one line on first use.
type lazyDescs struct {
	skills []*sources.Skill
	flat   []string
	done   []bool
}

func (d *lazyDescs) get(i int) string {
	if !d.done[i] {
		d.flat[i], d.done[i] = oneLine(d.skills[i].Description), true
	}
	return d.flat[i]
}

// oneLine collapses runs of white space, line breaks included, to one
// space, so a block-scalar description fits a catalog line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// units counts UTF-16 code units, the length JavaScript clients measure.
func units(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// cutUnits shortens s to at most limit units, ending with an ellipsis when
// anything was cut.
func cutUnits(s string, limit int) string {
	if units(s) <= limit {
		return s
	}
	if limit <= 1 {
		return ""
	}
	n := 0
	for i, r := range s {
		n += utf16.RuneLen(r)
		if n > limit-1 {
			return strings.TrimRight(s[:i], " ,;:.") + "…"
		}
	}
	return s
}

func xmlEscape(b *strings.Builder, s string) {
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		switch r {
		case '&':
			b.WriteString("&amp;")
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		default:
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
}
