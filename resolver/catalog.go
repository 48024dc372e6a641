package resolver

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
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

// InstructionsPreamble opens the server instructions. It is one short
// line because some clients show only the start of the instructions
// (Codex about the first 250 characters): the skills' names come next.
const InstructionsPreamble = "Agent Skills: before a task that matches a skill below, load it with the skill tool (argument name) and follow it."

// headLength is how much of the instructions the shortest-sighted client
// shows (Codex: about 250 characters); the preamble and a line of skill
// names fit in it.
const headLength = 250

// ToolDescription returns the skill tool's description: ToolHeader, a blank
// line, "Available skills:" and one line "- <name>: <description>" per
// skill, within budget (see fitCatalog for how it shrinks).
func (s *Snapshot) ToolDescription(budget int) string {
	f := catalogFormat{
		head:  ToolHeader + "\n\nAvailable skills:",
		empty: "\n(none found)",
		entry: func(b *strings.Builder, sk *sources.Skill, desc string, namesOnly bool) {
			b.WriteString("\n- ")
			b.WriteString(oneLine(sk.Ref.String()))
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
		head:  InstructionsPreamble + "\n" + namesLine(s.skills, headLength-units(InstructionsPreamble)-1) + "\n\n<available_skills>",
		empty: "",
		tail:  "\n</available_skills>",
		entry: func(b *strings.Builder, sk *sources.Skill, desc string, namesOnly bool) {
			b.WriteString("\n<skill><name>")
			xmlEscape(b, oneLine(sk.Ref.String()))
			b.WriteString("</name>")
			if !namesOnly {
				b.WriteString("<description>")
				xmlEscape(b, desc)
				b.WriteString("</description><location>")
				xmlEscape(b, escapeControls(sk.Path))
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

// namesLine lists the skills' names in at most room units: "Skills: a, b
// and 12 more." It leads the instructions so that a client that shows only
// their start still shows what is there.
func namesLine(skills []*sources.Skill, room int) string {
	if len(skills) == 0 {
		return "No skills are available yet."
	}
	var b strings.Builder
	b.WriteString("Skills: ")
	for i, sk := range skills {
		name := oneLine(sk.Ref.String())
		rest := ""
		if more := len(skills) - i - 1; more > 0 {
			rest = fmt.Sprintf(" and %d more.", more)
		}
		sep := ", "
		if i == 0 {
			sep = ""
		}
		if units(b.String())+units(sep)+units(name)+units(rest) > room && i > 0 {
			fmt.Fprintf(&b, " and %d more.", len(skills)-i)
			return b.String()
		}
		b.WriteString(sep)
		b.WriteString(name)
	}
	b.WriteString(".")
	return b.String()
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
// space and drops other control characters, so that a block-scalar
// description fits a catalog line and no text from a skill can start a
// line of its own in the catalog (and pass for an entry).
func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, s)
}

// escapeControls writes control characters in s (in a path, say) as Go
// escapes, keeping it on one line and still telling what it holds.
func escapeControls(s string) string {
	if strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

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
