package resolver

import (
	"fmt"
	"path"
	"slices"
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

// Values of CatalogOptions.Channel: where the catalog goes.
const (
	ChannelBoth         = "both"         // the skill tool's description and the instructions
	ChannelTool         = "tool"         // the skill tool's description only
	ChannelInstructions = "instructions" // the instructions only
)

// Channels lists the values of CatalogOptions.Channel.
var Channels = []string{ChannelBoth, ChannelTool, ChannelInstructions}

// CatalogOptions says what the catalog shows, in which order, and where.
// A nil *CatalogOptions means the defaults.
//
// The catalog is filled, within Budget, in this order of precedence:
// pinned skills (Pin), then the project's, the user's, those of the
// folders named on the command line or in the configuration (roots) and
// of source plugins, and those of Claude Code plugins; within each group the most used first (Usage), then by
// qualified name. Roots come after the user's own folders because they are
// often large shared collections, and before plugins because the person
// named them. Skills not offered to the model (Visibility off,
// disable-model-invocation) are left out and not counted.
type CatalogOptions struct {
	// Budget bounds each text, in UTF-16 code units; default
	// DefaultBudget.
	Budget int
	// Pin lists patterns (path.Match, without regard to case) of qualified
	// names whose skills come first.
	Pin []string
	// Visibility says how each skill is shown; nil shows every one.
	Visibility *Visibility
	// Usage orders each group, most used first; nil orders by name.
	Usage Usage
	// Channel is ChannelBoth (default), ChannelTool or
	// ChannelInstructions: the catalog goes to the skill tool's
	// description, to the instructions, or to both. The other text says
	// where the catalog is.
	Channel string
	// SearchTool is the tool that finds skills, which the closing line
	// points to when not every skill is listed; "" when the client has
	// none (the line then says to load any skill by name).
	SearchTool string
	// Unlisted says, naming only tools the client is served, how to
	// reach the skills the instructions do not list: it completes "12
	// more skills are not listed; ", as in "find them with
	// skills_search". Default: find them with SearchTool, or, without
	// one, load any of them by name with the skill tool.
	Unlisted string
	// Preamble replaces InstructionsPreamble, for a tool surface without
	// the skill tool.
	Preamble string
}

func (o *CatalogOptions) withDefaults() CatalogOptions {
	var c CatalogOptions
	if o != nil {
		c = *o
	}
	if c.Budget <= 0 {
		c.Budget = DefaultBudget
	}
	if c.Channel == "" {
		c.Channel = ChannelBoth
	}
	if c.Preamble == "" {
		c.Preamble = InstructionsPreamble
	}
	return c
}

// ToolDescription returns the skill tool's description: ToolHeader, a blank
// line, "Available skills:" and one line "- <name>: <description>" per
// skill, filled within the budget (see fill), or, when the catalog goes
// to the instructions only, a line that says so.
func (s *Snapshot) ToolDescription(opts *CatalogOptions) string {
	o := opts.withDefaults()
	if o.Channel == ChannelInstructions {
		text := ToolHeader + "\n\nThe server's instructions list the available skills"
		if more := "; " + o.SearchTool + " finds any skill by what it does"; o.SearchTool != "" && units(text+more+".") <= o.Budget {
			text += more
		}
		return text + "."
	}
	footer := func(n int) string {
		if o.SearchTool != "" {
			return fmt.Sprintf("\n(%d more not shown; find them with %s)", n, o.SearchTool)
		}
		return fmt.Sprintf("\n(%d more not shown; call this tool with any skill name)", n)
	}
	f := catalogFormat{
		head:  ToolHeader + "\n\nAvailable skills:",
		empty: "\n(none found)",
		entry: func(b *strings.Builder, sk *sources.Skill, desc string, withDesc bool) {
			b.WriteString("\n- ")
			b.WriteString(oneLine(sk.Ref.String()))
			if withDesc {
				b.WriteString(": ")
				b.WriteString(desc)
			}
		},
		footer: footer,
	}
	return s.byUse(&o, func(order *ordered) (string, bool) { return fill(order, o.Budget, f) })
}

// Instructions returns the server instructions: the preamble, a line of
// the skills' names (which some clients show alone), and an
// <available_skills> block giving each skill's name, description and
// SKILL.md location, filled within the budget; or, when the catalog goes
// to the skill tool only, a short text that says so.
func (s *Snapshot) Instructions(opts *CatalogOptions) string {
	o := opts.withDefaults()
	if o.Channel == ChannelTool {
		text := "Agent Skills: the skill tool's description lists the available skills; before a task that matches one, load it with the skill tool (argument name) and follow it."
		if more := " " + o.SearchTool + " finds any skill by what it does."; o.SearchTool != "" && units(text+more) <= o.Budget {
			text += more
		}
		return text
	}
	return s.byUse(&o, func(order *ordered) (string, bool) { return o.instructions(order) })
}

// instructions renders the instructions' catalog in order.
func (o *CatalogOptions) instructions(order *ordered) (string, bool) {
	footer := func(n int) string {
		return fmt.Sprintf("\n%d more skills are not listed; %s.", n, o.unlisted())
	}
	// The line of names fits in what the shortest-sighted client shows,
	// and leaves most of a small budget to the catalog.
	head := o.Preamble
	if room := min(headLength-units(o.Preamble), o.Budget/2-units(o.Preamble)) - 1; room >= minNamesLine {
		if line := namesLine(order, room); line != "" {
			head += "\n" + line
		}
	}
	f := catalogFormat{
		head: head + "\n\n<available_skills>",
		tail: "\n</available_skills>",
		entry: func(b *strings.Builder, sk *sources.Skill, desc string, withDesc bool) {
			b.WriteString("\n<skill><name>")
			xmlEscape(b, oneLine(sk.Ref.String()))
			b.WriteString("</name>")
			if withDesc {
				b.WriteString("<description>")
				xmlEscape(b, desc)
				b.WriteString("</description><location>")
				xmlEscape(b, EscapeControls(sk.Path))
				b.WriteString("</location>")
			}
			b.WriteString("</skill>")
		},
		footer: footer,
	}
	if units(f.head)+units(f.tail)+units(f.footer(order.Len())) > o.Budget {
		// Too small a budget for the block: the preamble and the names,
		// or, when not even one name fits, how many skills there are and
		// how to reach them.
		text := o.Preamble
		room := o.Budget - units(text) - 1
		line := namesLine(order, room)
		if line == "" {
			line = fmt.Sprintf("Skills: %d, not named here; %s.", order.Len(), o.unlisted())
		}
		if units(line) <= room {
			text += "\n" + line
		}
		return text, false
	}
	return fill(order, o.Budget, f)
}

// unlisted is Unlisted or its default.
func (o *CatalogOptions) unlisted() string {
	switch {
	case o.Unlisted != "":
		return o.Unlisted
	case o.SearchTool != "":
		return "find them with " + o.SearchTool
	}
	return "load any of them by name with the skill tool"
}

// minNamesLine is the least room worth a line of names.
const minNamesLine = 40

// namesLine lists the skills' names in at most room units: "Skills: a, b
// and 12 more." It leads the instructions so that a client that shows only
// their start still shows what is there. A name is never cut, since a cut
// name loads nothing: namesLine is "" when not even the first fits.
func namesLine(entries *ordered, room int) string {
	if entries.Len() == 0 {
		if line := "No skills are available yet."; units(line) <= room {
			return line
		}
		return ""
	}
	var b strings.Builder
	b.WriteString("Skills: ")
	for i := range entries.Len() {
		name := oneLine(entries.At(i).skill.Ref.String())
		rest := "."
		if more := entries.Len() - i - 1; more > 0 {
			rest = fmt.Sprintf(" and %d more.", more)
		}
		sep := ", "
		if i == 0 {
			sep = ""
		}
		if units(b.String())+units(sep)+units(name)+units(rest) > room {
			if i == 0 {
				return ""
			}
			fmt.Fprintf(&b, " and %d more.", entries.Len()-i)
			return b.String()
		}
		b.WriteString(sep)
		b.WriteString(name)
	}
	b.WriteString(".")
	return b.String()
}

// catalogEntry is a skill the catalog may list.
type catalogEntry struct {
	skill    *sources.Skill
	nameOnly bool // its visibility is name-only
}

// Groups of the catalog's order.
const (
	groupPinned = iota
	groupProject
	groupUser
	groupRoot
	groupPlugin
	numGroups
)

func groupOf(sc sources.Scope) int {
	switch sc {
	case sources.ScopeProject:
		return groupProject
	case sources.ScopeUser:
		return groupUser
	case sources.ScopePlugin:
		return groupPlugin
	}
	return groupRoot
}

// catalogOrder returns the skills offered to the model in the catalog's
// order of precedence (see CatalogOptions), made as far as it is read: a
// catalog of ten thousand skills shows a few dozen, and is rendered at
// every start. One pass over the snapshot gives each skill its group; the
// skills of a group keep the snapshot's order by name, but for those with
// a use count, which come first, most used first.
func (s *Snapshot) catalogOrder(o *CatalogOptions) *ordered {
	pins := make([]string, len(o.Pin))
	for i, p := range o.Pin {
		pins[i] = sources.NameKey(p)
	}
	var counts map[string]int
	if o.Usage != nil {
		counts = o.Usage.Counts()
	}
	od := &ordered{skills: s.skills, vis: o.Visibility, group: make([]uint8, len(s.skills))}
	for i, sk := range s.skills {
		if sk.DisableModelInvocation || o.Visibility.ofKey(s.keys[i]) == ShownOff {
			od.group[i] = notOffered
			continue
		}
		od.n++
		g := groupOf(sk.Scope)
		key := s.keys[i]
		if len(pins) > 0 {
			for _, p := range pins {
				if ok, _ := path.Match(p, key); ok {
					g = groupPinned
					break
				}
			}
		}
		if len(counts) > 0 && counts[key] > 0 {
			od.used[g] = append(od.used[g], i)
			g += usedGroup // taken by the used list, not the scan
		}
		od.group[i] = uint8(g)
	}
	for g := range od.used {
		slices.SortStableFunc(od.used[g], func(a, b int) int {
			return counts[s.keys[b]] - counts[s.keys[a]]
		})
	}
	return od
}

// Marks in ordered.group besides the group itself.
const (
	notOffered = 255
	usedGroup  = 16 // added to the group of a skill with a use count
)

// ordered is the catalog's order, made as it is read.
type ordered struct {
	skills []*sources.Skill
	vis    *Visibility
	group  []uint8          // each skill's group, or a mark
	used   [numGroups][]int // per group, the skills with a use count, most used first
	n      int              // skills offered

	made []catalogEntry // the order so far
	g    int            // the group being made
	next int            // in it: the next used skill, then the next skill to scan
	scan bool           // the used ones of g are done; scanning
}

// Len is the number of skills offered.
func (od *ordered) Len() int { return od.n }

// At returns the i-th skill of the order; i < Len.
func (od *ordered) At(i int) catalogEntry {
	for len(od.made) <= i {
		od.advance()
	}
	return od.made[i]
}

// advance appends the next skill of the order.
func (od *ordered) advance() {
	for {
		if !od.scan {
			if od.next < len(od.used[od.g]) {
				od.emit(od.used[od.g][od.next])
				od.next++
				return
			}
			od.scan, od.next = true, 0
		}
		for ; od.next < len(od.skills); od.next++ {
			if int(od.group[od.next]) == od.g {
				od.emit(od.next)
				od.next++
				return
			}
		}
		od.g, od.next, od.scan = od.g+1, 0, false
	}
}

func (od *ordered) emit(i int) {
	sk := od.skills[i]
	od.made = append(od.made, catalogEntry{skill: sk, nameOnly: od.vis.Of(sk.Ref) == ShownNameOnly})
}

type catalogFormat struct {
	head, empty, tail string
	entry             func(b *strings.Builder, sk *sources.Skill, desc string, withDesc bool)
	footer            func(omitted int) string
}

// Limits of the fill.
const (
	// minDescription is the shortest a description is cut to; shorter
	// than that, the name alone says as much.
	minDescription = 40
	// cutTarget is the length a description is cut to once whole ones no
	// longer fit: about a sentence, so that several skills keep one.
	cutTarget = 120
)

// fill renders entries, in their order, within budget, filling it rather
// than degrading every entry at once:
//
//  1. names: every entry's name when all of them fit; otherwise as many as
//     fit in three quarters of the budget, and a closing line that counts
//     the rest and says where to find them;
//  2. whole descriptions, in order, while they fit in what is left (a
//     description longer than an eighth of the budget is cut to that, as
//     below, and the next is tried whole);
//  3. from the first that does not fit on, descriptions cut to a clean
//     cut (the end of a sentence or clause, else of a word, never inside
//     one) of at most cutTarget units and at least minDescription;
//  4. the names of more entries, if room is left.
//
// Entries whose visibility is name-only never get a description.
func fill(entries *ordered, budget int, f catalogFormat) (text string, whole bool) {
	var scratch strings.Builder
	measure := func(e catalogEntry, desc string, withDesc bool) int {
		scratch.Reset()
		f.entry(&scratch, e.skill, desc, withDesc)
		return units(scratch.String())
	}
	render := func(descs []string, shown int) string {
		var b strings.Builder
		b.WriteString(f.head)
		if entries.Len() == 0 {
			b.WriteString(f.empty)
		}
		for i := range shown {
			f.entry(&b, entries.At(i).skill, descs[i], descs[i] != "")
		}
		b.WriteString(f.tail)
		if shown < entries.Len() {
			b.WriteString(f.footer(entries.Len() - shown))
		}
		return b.String()
	}
	n := entries.Len()
	avail := budget - units(f.head) - units(f.tail)
	if n == 0 {
		return render(nil, 0), true
	}
	footerCost := func(shown int) int {
		if shown == n {
			return 0
		}
		return units(f.footer(n - shown))
	}

	// 1. Names.
	var nameCost []int
	sum, shown := 0, 0
	for shown < n {
		c := measure(entries.At(shown), "", false)
		if sum+c > avail {
			break
		}
		nameCost = append(nameCost, c)
		sum += c
		shown++
	}
	if shown < n {
		limit := avail - budget/4
		for shown > 0 && sum+footerCost(shown) > limit {
			shown--
			sum -= nameCost[shown]
		}
	}
	slack := avail - sum - footerCost(shown)

	// 2 and 3. Descriptions.
	descs := make([]string, shown)
	uncut := true // no description was cut yet
	for i := range shown {
		e := entries.At(i)
		d := oneLine(e.skill.Description)
		if e.nameOnly || d == "" || slack <= 0 {
			continue
		}
		extra := func(desc string) int { return measure(e, desc, true) - nameCost[i] }
		over := extra("")
		room := min(slack-over, cutTarget)
		if uncut {
			longest := longestDescription(d, budget)
			if units(d) <= longest {
				if c := extra(d); c <= slack {
					descs[i], slack = d, slack-c
					continue
				}
				uncut = false
			} else {
				// A long description is cut even here, to an eighth of
				// the budget (a sentence or two says when to use it), and
				// never past the specification's 1,024 characters, as
				// every list cuts it.
				room = min(slack-over, longest)
			}
		}
		for room >= minDescription {
			cut, ok := cleanCut(d, room)
			if !ok {
				break
			}
			if c := extra(cut); c <= slack {
				descs[i], slack = cut, slack-c
				break
			} else {
				room -= c - slack // escaping made it longer: try shorter
			}
		}
	}

	// 4. More names.
	for shown < n {
		c := measure(entries.At(shown), "", false)
		grow := c + footerCost(shown+1) - footerCost(shown)
		if grow > slack {
			break
		}
		slack -= grow
		shown++
		descs = append(descs, "")
	}
	// Whole: every skill shows, each description as fully as this budget
	// ever shows it, whatever the order (cut only to its longest).
	whole = shown == n
	for i := 0; whole && i < shown; i++ {
		e := entries.At(i)
		d := oneLine(e.skill.Description)
		whole = e.nameOnly || descs[i] == d
		if !whole && descs[i] != "" {
			cut, _ := cleanCut(d, longestDescription(d, budget))
			whole = descs[i] == cut
		}
	}
	return render(descs, shown), whole
}

// longestDescription is the most of the description d (one line) that a
// catalog of the budget shows, wherever it stands: an eighth of the
// budget (a sentence or two says when to use a skill), and never past the
// specification's 1,024 characters, as every list cuts it.
func longestDescription(d string, budget int) int {
	longest := budget / 8
	if n := utf8.RuneCountInString(d); n > sources.MaxDescriptionLen {
		// The specification's bound counts characters, this one UTF-16
		// units: the units of its first 1,024.
		longest = min(longest, units(d[:runeOffset(d, sources.MaxDescriptionLen)]))
	}
	return longest
}

// byUse renders the catalog with render in the order of o, unless o
// orders by use and the whole catalog shows in the order by name: every
// skill and every description, the order then tells a model nothing, and a
// load would change the text, and send every client a tools/list_changed,
// at the next refresh for nothing. A catalog of more skills than a
// quarter of the budget never shows whole ("\n- x" is four units).
func (s *Snapshot) byUse(o *CatalogOptions, render func(*ordered) (string, bool)) string {
	order := s.catalogOrder(o)
	if order.byUse() && order.Len() <= o.Budget/4 {
		plain := *o
		plain.Usage = nil
		if text, whole := render(s.catalogOrder(&plain)); whole {
			return text
		}
	}
	text, _ := render(order)
	return text
}

// byUse reports whether a use count moved a skill in the order.
func (od *ordered) byUse() bool {
	for _, used := range od.used {
		if len(used) > 0 {
			return true
		}
	}
	return false
}

// cleanCut shortens s to at most limit units at a clean cut, marked with
// an ellipsis: at the end of its last sentence that fits, when that keeps
// at least half the room, else of its last clause, else of its last word;
// never inside a word, and never shorter than minDescription. s itself is
// returned when it fits; ok is false when no cut is long enough.
func cleanCut(s string, limit int) (cut string, ok bool) {
	if units(s) <= limit {
		return s, true
	}
	room := limit - 1 // the ellipsis
	sentence, clause, word := -1, -1, -1
	n := 0
	for i, r := range s {
		if n > room {
			break
		}
		size := utf8.RuneLen(r)
		next, _ := utf8.DecodeRuneInString(s[i+size:])
		fits := n+utf16.RuneLen(r) <= room // a cut after r keeps r
		switch {
		case !fits:
		case r == '。' || r == '！' || r == '？':
			sentence = i + size
		case (r == '.' || r == '!' || r == '?') && next == ' ':
			sentence = i + size
		case r == '，' || r == '、' || r == '；':
			clause = i + size
		case (r == ',' || r == ';' || r == ':') && next == ' ':
			clause = i + size
		}
		if r == ' ' { // a cut before the space keeps what came before
			if next == '—' || next == '–' || next == '-' || next == '(' {
				clause = max(clause, i)
			}
			word = i
		}
		n += utf16.RuneLen(r)
	}
	minLen := func(at int) bool { return at > 0 && units(s[:at]) >= minDescription }
	var at int
	switch {
	case sentence > 0 && minLen(sentence) && units(s[:sentence]) >= room/2:
		at = sentence
	case clause > 0 && minLen(clause):
		at = clause
	case sentence > 0 && minLen(sentence):
		at = sentence
	case word > 0 && minLen(word):
		at = word
	default:
		return "", false
	}
	return strings.TrimRight(s[:at], " ,;:.!?—–-(，、；。") + "…", true
}

// runeOffset is the byte offset in s of its n-th character, len(s) when
// it has no more.
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// oneLine collapses runs of white space, line breaks included, to one
// space and drops other control characters and the bidirectional
// controls, so that a block-scalar description fits a catalog line and no
// text from a skill can start a line of its own in the catalog (and pass
// for an entry) or show in another order than it reads.
func oneLine(s string) string {
	if plainLine(s) {
		return s // most descriptions, at every catalog built
	}
	return collapseLine(s)
}

// OneLine is a skill's text (a description, a name) as the catalog shows
// it: on one line, with no control or bidirectional-control character.
func OneLine(s string) string { return oneLine(s) }

// collapseLine is oneLine for any text.
func collapseLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if strings.IndexFunc(s, dropped) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if dropped(r) {
			return -1
		}
		return r
	}, s)
}

// plainLine reports whether oneLine would return s unchanged, answering
// for the common case only: no white space but one space between words,
// and no character oneLine drops. Other text goes the long way, whatever
// its answer.
func plainLine(s string) bool {
	if s == "" || s[0] == ' ' || s[len(s)-1] == ' ' {
		return s == ""
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ':
			if s[i+1] == ' ' { // s does not end with a space
				return false
			}
		case c < ' ' || c == 0x7f:
			return false
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) || dropped(r) {
				return false
			}
			i += n
			continue
		}
		i++
	}
	return true
}

func dropped(r rune) bool { return unicode.IsControl(r) || sources.IsBidiControl(r) }

// EscapeControls writes the control and bidirectional-control characters
// of s (a path, say) as Go escapes, keeping it on one line, in the order
// it reads, and still telling what it holds: as the catalog shows a
// skill's location.
func EscapeControls(s string) string {
	if strings.IndexFunc(s, dropped) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if dropped(r) {
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
