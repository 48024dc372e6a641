package sources

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestScanGenerated checks the scanner against the YAML library on front
// matter built at random from the shapes of real files, with the tricky
// characters of each scalar style: a complement to FuzzScanFrontMatter,
// whose mutations of raw bytes rarely build a well-formed block scalar or
// a multi-line quoted string under a key the scanner decodes.
func TestScanGenerated(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	rng := rand.New(rand.NewPCG(1, 2))
	sure := 0
	for range n {
		g := &shapeGen{rng: rng}
		front := g.doc()
		if _, ok := agreeWithYAML(t, front); ok {
			sure++
		}
	}
	// The generator aims at shapes the scanner reads; if most fell back,
	// the test would prove little.
	if sure < n/3 {
		t.Errorf("sure of %d of %d generated front matters", sure, n)
	}
}

// shapeGen writes random front matter.
type shapeGen struct {
	rng *rand.Rand
	b   strings.Builder
}

func (g *shapeGen) pick(s ...string) string { return s[g.rng.IntN(len(s))] }
func (g *shapeGen) chance(n int) bool       { return g.rng.IntN(n) == 0 }

func (g *shapeGen) doc() string {
	keys := []string{"name", "description", "user-invocable", "disable-model-invocation", "metadata", "tools", "x"}
	g.rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for _, k := range keys[:1+g.rng.IntN(len(keys))] {
		g.filler(0)
		g.b.WriteString(k + ":")
		g.value(0, 2)
	}
	return g.b.String()
}

// filler writes, sometimes, an empty line or a comment line.
func (g *shapeGen) filler(indent int) {
	switch g.rng.IntN(8) {
	case 0:
		g.b.WriteString(strings.Repeat(" ", g.rng.IntN(indent+3)) + "\n")
	case 1:
		g.b.WriteString(strings.Repeat(" ", g.rng.IntN(indent+3)) + "# c\n")
	}
}

// value writes a value after "key:" whose key is at column indent.
func (g *shapeGen) value(indent, depth int) {
	in := indent + 1 + g.rng.IntN(3)
	pad := strings.Repeat(" ", in)
	switch g.rng.IntN(10) {
	case 0: // empty, perhaps with a comment
		g.b.WriteString(g.pick("", " ", " # c") + "\n")
	case 1, 2:
		g.b.WriteString(" " + g.plain(in) + g.pick("", " ", " # c") + "\n")
	case 3:
		g.b.WriteString(" " + g.quoted('\'', in) + g.pick("", " # c") + "\n")
	case 4:
		g.b.WriteString(" " + g.quoted('"', in) + g.pick("", " # c") + "\n")
	case 5:
		g.blockScalar(indent)
	case 6:
		g.b.WriteString(" " + g.flow(in, depth) + "\n")
	case 7: // a scalar on the next line
		g.b.WriteString("\n" + pad + g.pick(g.plain(in), g.quoted('"', in), g.quoted('\'', in)) + "\n")
	case 8: // a block sequence, perhaps at the key's own column
		if g.chance(2) {
			in, pad = indent, strings.Repeat(" ", indent)
		}
		g.b.WriteString("\n")
		for range 1 + g.rng.IntN(3) {
			g.filler(in)
			g.b.WriteString(pad + "-")
			if depth > 0 && g.chance(3) {
				g.b.WriteString(" k:")
				g.value(in+2, depth-1)
			} else {
				g.b.WriteString(" " + g.pick(g.plain(in+2), g.quoted('"', in+2), g.flow(in+2, depth)) + "\n")
			}
		}
	case 9: // a block mapping
		g.b.WriteString("\n")
		if depth == 0 {
			g.b.WriteString(pad + "k: v\n")
			return
		}
		for range 1 + g.rng.IntN(3) {
			g.filler(in)
			g.b.WriteString(pad + g.pick("a", "b", "c", "'a'", `"b"`, "'c d'") + ":")
			g.value(in, depth-1)
		}
	}
}

// text returns a few characters that matter to YAML's scalar styles.
func (g *shapeGen) text(n int) string {
	var b strings.Builder
	for range n {
		b.WriteString(g.pick("a", "b", "Z", " ", "  ", "#", ":", ": ", " #", "-", "'", "''", `"`, `\`, "\\n", "\\x41", "\\u00e9", "\\e", "\\ ", "\\\"", "é", "0", "1", ".", "e", "x", "~", "[", "]", "{", "}", ",", "?", "|", ">", "!", "&", "*", "%", "@", "_", "+"))
	}
	return b.String()
}

// lineBreak returns a line break inside a multi-line scalar whose lines
// are indented by indent, perhaps with empty lines and odd indentation.
func (g *shapeGen) lineBreak(indent int) string {
	s := g.pick("", " ", "  ") + "\n"
	for g.chance(3) {
		s += strings.Repeat(" ", g.rng.IntN(indent+2)) + "\n"
	}
	return s + strings.Repeat(" ", max(0, indent+g.rng.IntN(3)-1))
}

func (g *shapeGen) plain(indent int) string {
	s := g.pick("word", "true", "False", "~", "null", "0x1F", "017", "08", "1e3", ".5", ".inf", "-.Inf", "1_000", "yes", "12 rules", "2001-12-14", "<<", "a:b", "C#")
	for g.chance(2) {
		if g.chance(2) {
			s += g.lineBreak(indent)
		} else {
			s += " "
		}
		s += g.pick("more", "words", "- x", "#y", "a: b", "q'", "z\"", "[x]", g.text(2))
	}
	return s
}

func (g *shapeGen) quoted(q byte, indent int) string {
	s := string(q)
	for range g.rng.IntN(4) {
		t := g.text(1 + g.rng.IntN(3))
		if q == '\'' {
			t = strings.ReplaceAll(strings.ReplaceAll(t, "''", "'"), "'", "''")
		} else if g.chance(2) {
			t = strings.ReplaceAll(strings.ReplaceAll(t, `\`, `\\`), `"`, `\"`)
		}
		s += t
		if g.chance(3) {
			if q == '"' && g.chance(3) {
				s += `\`
			}
			s += g.lineBreak(indent)
		}
	}
	return s + string(q)
}

func (g *shapeGen) blockScalar(indent int) {
	header := g.pick("|", ">") + g.pick("", "-", "+", "1", "2", "-1", "2+", "+3") + g.pick("", " ", " # c")
	g.b.WriteString(" " + header + "\n")
	in := indent + 1 + g.rng.IntN(3)
	for range g.rng.IntN(5) {
		switch g.rng.IntN(5) {
		case 0:
			g.b.WriteString(strings.Repeat(" ", g.rng.IntN(in+3)) + "\n")
		case 1:
			g.b.WriteString(strings.Repeat(" ", in+1+g.rng.IntN(2)) + g.text(2) + "\n")
		default:
			g.b.WriteString(strings.Repeat(" ", in) + g.text(1+g.rng.IntN(4)) + "\n")
		}
	}
}

func (g *shapeGen) flow(indent, depth int) string {
	open, end := "[", "]"
	isMap := g.chance(3)
	if isMap {
		open, end = "{", "}"
	}
	s := open
	for i := range g.rng.IntN(4) {
		if i > 0 {
			s += ","
			if g.chance(4) {
				s += "\n" + strings.Repeat(" ", indent+g.rng.IntN(2))
			} else {
				s += " "
			}
		}
		if isMap {
			s += g.pick("a", "b", `"c"`, "'d'") + ": "
		}
		switch {
		case depth > 0 && g.chance(4):
			s += g.flow(indent, depth-1)
		case g.chance(3):
			s += g.quoted(g.pick(`"`, "'")[0], indent)
		default:
			s += g.pick("Read", "Bash(git:*)", "a b", "1", "true", "x:y", "-z", g.text(2))
		}
	}
	if g.chance(5) {
		s += ","
	}
	return s + end
}
