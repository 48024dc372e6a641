package skillgen

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/skillmux/skillmux/sources"
)

// This file rewrites a SKILL.md for Replicate: the name value and the end
// of the description are found with the YAML library's node positions, and
// the file is cut there, so that every other byte (quoting, block scalars,
// comments, CRLF, the body) is kept.

// template is a SKILL.md with holes for the name and the description's
// variation: text[0], hole 0, text[1], hole 1, ..., text[len(holes)].
type template struct {
	text  []string
	holes []hole
	quote string // the name's quotes
}

type hole int

const (
	nameHole hole = iota // the name value, quotes included
	descHole             // where the description's variation goes
)

func (t *template) render(name, desc string) []byte {
	size := len(name) + len(desc) + 2
	for _, s := range t.text {
		size += len(s)
	}
	b := make([]byte, 0, size)
	b = append(b, t.text[0]...)
	for i, h := range t.holes {
		switch h {
		case nameHole:
			b = append(b, t.quote...)
			b = append(b, name...)
			b = append(b, t.quote...)
		case descHole:
			b = append(b, desc...)
		}
		b = append(b, t.text[i+1]...)
	}
	return b
}

// parseTemplate finds, in a SKILL.md, the name value and the end of the
// description value, and returns the file cut there, with the name.
func parseTemplate(data []byte) (*template, string, error) {
	_, body, err := sources.SplitFrontMatter(data)
	if err != nil {
		return nil, "", err
	}
	// The front matter as written (SplitFrontMatter's copy has CRLF turned
	// into LF): between the opening line and the closing one.
	open := bytes.IndexByte(data, '\n') + 1
	rest := data[open : len(data)-len(body)]
	closing := bytes.LastIndexByte(bytes.TrimSuffix(rest, []byte("\n")), '\n') + 1
	front := rest[:closing]

	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		return nil, "", err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, "", errors.New("front matter is not a mapping")
	}
	m := doc.Content[0]
	lines := lineStarts(front)
	type cut struct {
		from, to int // bytes of front replaced by the hole
		hole     hole
	}
	var cuts []cut
	var name, quote string
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, v := m.Content[i], m.Content[i+1]
		next := len(lines) + 1 // the line the next key starts on
		if i+2 < len(m.Content) {
			next = m.Content[i+2].Line
		}
		switch key.Value {
		case "name":
			from, to, q, err := nameSpan(front, lines, v)
			if err != nil {
				return nil, "", fmt.Errorf("name: %w", err)
			}
			cuts = append(cuts, cut{from, to, nameHole})
			name, quote = v.Value, q
		case "description":
			at, err := descriptionEnd(front, lines, v, next)
			if err != nil {
				return nil, "", fmt.Errorf("description: %w", err)
			}
			cuts = append(cuts, cut{at, at, descHole})
		}
	}
	if len(cuts) == 2 && cuts[1].from < cuts[0].from {
		cuts[0], cuts[1] = cuts[1], cuts[0]
	}
	t := &template{quote: quote}
	prev := 0
	for _, c := range cuts {
		t.text = append(t.text, string(data[prev:open+c.from]))
		t.holes = append(t.holes, c.hole)
		prev = open + c.to
	}
	t.text = append(t.text, string(data[prev:]))
	return t, name, nil
}

// lineStarts returns the offset of each line of b.
func lineStarts(b []byte) []int {
	starts := []int{0}
	for i, c := range b {
		if c == '\n' && i+1 < len(b) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// offset turns a node's line and column (from 1, in characters) into a
// byte offset.
func offset(b []byte, lines []int, line, col int) int {
	at := lines[line-1]
	for range col - 1 {
		_, size := utf8.DecodeRune(b[at:])
		at += size
	}
	return at
}

// lineEnd returns the offset of the line break (or the end) of the line
// holding at.
func lineEnd(b []byte, at int) int {
	if i := bytes.IndexByte(b[at:], '\n'); i >= 0 {
		at += i
	} else {
		at = len(b)
	}
	if at > 0 && b[at-1] == '\r' {
		at--
	}
	return at
}

// plainEnd returns the end of a plain scalar's text on the line from at:
// before a comment and trailing blanks.
func plainEnd(b []byte, at int) int {
	end := lineEnd(b, at)
	if i := bytes.Index(b[at:end], []byte(" #")); i >= 0 {
		end = at + i
	}
	if i := bytes.Index(b[at:end], []byte("\t#")); i >= 0 {
		end = at + i
	}
	return at + len(bytes.TrimRight(b[at:end], " \t"))
}

// quotedEnd returns the offset just past the closing quote of the quoted
// scalar that starts at at.
func quotedEnd(b []byte, at int) (int, error) {
	q := b[at]
	for i := at + 1; i < len(b); i++ {
		switch {
		case q == '"' && b[i] == '\\':
			i++
		case b[i] == q && q == '\'' && i+1 < len(b) && b[i+1] == '\'':
			i++
		case b[i] == q:
			return i + 1, nil
		}
	}
	return 0, errors.New("unterminated quoted value")
}

// nameSpan returns the bytes of the name value, quotes included, and its
// quote character.
func nameSpan(b []byte, lines []int, v *yaml.Node) (from, to int, quote string, err error) {
	if v.Kind != yaml.ScalarNode {
		return 0, 0, "", errors.New("not a string")
	}
	from = offset(b, lines, v.Line, v.Column)
	switch v.Style {
	case 0:
		to = plainEnd(b, from)
		if string(b[from:to]) != v.Value {
			return 0, 0, "", errors.New("a plain value over several lines")
		}
		return from, to, "", nil
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		to, err = quotedEnd(b, from)
		return from, to, string(b[from]), err
	}
	return 0, 0, "", fmt.Errorf("style %d not handled", v.Style)
}

// descriptionEnd returns where, in the description value v, text can be
// added at the end of the value: before the closing quote, after the last
// word of a plain value (which may run over several lines), or at the end
// of a block scalar's last line. next is the line the following key starts
// on.
func descriptionEnd(b []byte, lines []int, v *yaml.Node, next int) (int, error) {
	if v.Kind != yaml.ScalarNode {
		return 0, errors.New("not a string")
	}
	start := offset(b, lines, v.Line, v.Column)
	switch v.Style {
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		end, err := quotedEnd(b, start)
		return end - 1, err
	case 0:
		// The last line before the next key that is neither blank nor a
		// comment ends the value.
		at := plainEnd(b, start)
		for l := v.Line + 1; l < next && l <= len(lines); l++ {
			line := bytes.TrimSpace(b[lines[l-1]:lineEnd(b, lines[l-1])])
			if len(line) > 0 && line[0] != '#' {
				at = plainEnd(b, lines[l-1])
			}
		}
		return at, nil
	case yaml.LiteralStyle, yaml.FoldedStyle:
		// Content lines are those indented at least as much as the first
		// one; a less indented line is a comment after the value.
		indent, at := -1, -1
		for l := v.Line + 1; l < next && l <= len(lines); l++ {
			s, e := lines[l-1], lineEnd(b, lines[l-1])
			text := b[s:e]
			if len(bytes.TrimSpace(text)) == 0 {
				continue
			}
			n := len(text) - len(bytes.TrimLeft(text, " "))
			if indent < 0 {
				indent = n
			}
			if n >= indent {
				at = e
			}
		}
		if at < 0 {
			return 0, errors.New("empty block scalar")
		}
		return at, nil
	}
	return 0, fmt.Errorf("style %d not handled", v.Style)
}

// check renders a copy of the original SKILL.md and makes sure it says
// what the original says but for the name and the description's
// variation: the same keys in the same order, the same values.
func (t *template) check(orig []byte, name, desc string) error {
	want, err := frontMap(orig)
	if err != nil {
		return err
	}
	got, err := frontMap(t.render(name, desc))
	if err != nil {
		return fmt.Errorf("the rewritten front matter does not parse: %w", err)
	}
	if !reflect.DeepEqual(got.keys, want.keys) {
		return fmt.Errorf("rewritten keys %v, want %v", got.keys, want.keys)
	}
	for i, k := range want.keys {
		g, w := got.values[i], want.values[i]
		switch k {
		case "name":
			w = name
		case "description":
			s, _ := g.(string)
			if !strings.Contains(s, desc) {
				return fmt.Errorf("rewritten description %q lacks %q", s, desc)
			}
			g = strings.Replace(s, desc, "", 1)
		}
		if !reflect.DeepEqual(g, w) {
			return fmt.Errorf("%s: rewritten as %#v, want %#v", k, g, w)
		}
	}
	return nil
}

type frontValues struct {
	keys   []string
	values []any
}

func frontMap(data []byte) (*frontValues, error) {
	front, _, err := sources.SplitFrontMatter(data)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errors.New("front matter is not a mapping")
	}
	m := doc.Content[0]
	fv := &frontValues{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		var v any
		if err := m.Content[i+1].Decode(&v); err != nil {
			return nil, err
		}
		fv.keys = append(fv.keys, m.Content[i].Value)
		fv.values = append(fv.values, v)
	}
	return fv, nil
}
