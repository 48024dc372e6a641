// Package yamlerr puts the errors of the YAML library on the line a
// person has to fix, with a message on one line. Both the SKILL.md parser
// and the configuration loader report YAML errors as file:line: message.
//
// The library's syntax errors name a line, but not always the right one:
// a parser error counts lines from 0, an error on line 1 names no line at
// all, and a scanner error names the line where the enclosing key began,
// which for a stray tab is often lines above it.
package yamlerr

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// parserProblems are the parser's messages; it counts lines from 0.
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"found undefined tag handle":             true,
	"did not find expected node content":     true,
	"did not find expected '-' indicator":    true,
	"did not find expected key":              true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

// positional reports whether msg is one of the scanner's or the parser's,
// which name no line only when the problem is on line 1. Other messages
// (an unknown anchor) name none because the library does not know it.
func positional(msg string) bool {
	if parserProblems[msg] {
		return true
	}
	for _, p := range []string{"found ", "did not find ", "could not find ", "mapping keys ", "mapping values ", "block sequence ", "exceeded max depth"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

var unknownAnchor = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// Locate returns the line (0 when the library does not know it) that
// err, an error of parse(data), is about, and a message on one line that
// starts "not valid YAML: ". Lines count from the top of the file that
// data is taken from: offset is how many lines of it come before data (a
// front matter's opening "---" is one). parse is called again on altered
// copies of data to find a stray tab; it must be the function that gave
// err.
func Locate(data []byte, offset int, err error, parse func([]byte) error) (line int, message string) {
	if te, ok := errors.AsType[*yaml.TypeError](err); ok {
		line, message = decodeProblem(te, offset)
	} else {
		line, message = locate(data, err, parse)
	}
	if line > 0 {
		line += offset
	}
	return line, message
}

// locate is Locate for the errors of reading a document, with lines
// counted from data's first.
func locate(data []byte, err error, parse func([]byte) error) (line int, message string) {
	var e struct {
		Line    int
		Message string
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = err.Error()[len(m[0]):]
	}
	switch {
	case strings.Contains(msg, "tab character") || msg == "found character that cannot start any token":
		if n := tabLine(data, err.Error(), parse); n > 0 {
			e.Line = n
			l := lineOf(data, n)
			indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
			if bytes.IndexByte(indent, '\t') >= 0 {
				e.Message = "not valid YAML: a tab is used for indentation; indent with spaces"
			} else {
				e.Message = "not valid YAML: a tab where YAML allows none; use spaces"
			}
			return e.Line, e.Message
		}
		e.Line = max(line, 1)
	case msg == "did not find expected <document start>":
		e.Line = line + 1
		msg = `content after the end of the document ("..."); a configuration file holds one document`
	case parserProblems[msg]:
		e.Line = line + 1
	case positional(msg):
		e.Line = max(line, 1)
	default:
		e.Line = line
		if m := unknownAnchor.FindStringSubmatch(msg); m != nil {
			e.Line = aliasLine(data, m[1])
			msg = "unknown anchor " + preview(m[1]) + " referenced"
		}
	}
	e.Message = "not valid YAML: " + oneLine(msg)
	return e.Line, e.Message
}

var (
	decodeLine   = regexp.MustCompile(`^line (\d+): (.*)$`)
	duplicateKey = regexp.MustCompile(`^mapping key (".*") already defined at line (\d+)$`)
)

// decodeProblem words the problem of te, the library's errors of decoding
// a document it could read, on the earliest line it names: a map that
// sets a key twice, which YAML forbids, is one. Each problem of te is
// "line N: message", with N counted from data's first line; the message
// names other lines the same way, so offset is added to them here.
func decodeProblem(te *yaml.TypeError, offset int) (line int, message string) {
	msg := strings.Join(te.Errors, "; ")
	for _, p := range te.Errors {
		m := decodeLine.FindStringSubmatch(p)
		if m == nil {
			continue
		}
		if n, _ := strconv.Atoi(m[1]); line == 0 || n < line {
			line, msg = n, m[2]
		}
	}
	if m := duplicateKey.FindStringSubmatch(msg); m != nil {
		key, err := strconv.Unquote(m[1])
		if err != nil {
			key = m[1]
		}
		first, _ := strconv.Atoi(m[2])
		return line, fmt.Sprintf("not valid YAML: the key %s is set twice, here and on line %d; keep one", preview(key), first+offset)
	}
	return line, "not valid YAML: " + oneLine(msg)
}

// oneLine keeps a library message that may echo the input on one line and
// short.
func oneLine(msg string) string {
	if len(msg) > 4*previewLen || strings.ContainsFunc(msg, unicode.IsControl) {
		return preview(msg)
	}
	return msg
}

// previewLen is how many characters of the input a message shows.
const previewLen = 60

// preview renders text from the input for a message: quoted, on one line
// whatever it holds, and, when longer than previewLen characters, cut
// with "…" and followed by its full length.
func preview(s string) string {
	n := 0
	for i := range s {
		if n == previewLen {
			q := strconv.Quote(s[:i])
			return fmt.Sprintf("%s…\" (%d bytes)", q[:len(q)-1], len(s))
		}
		n++
	}
	return strconv.Quote(s)
}

// tabLine returns the line (from 1) of the tab that parse stops at with
// the error text orig, or 0 when no tab is to blame. Blanking every line
// holding a tab from the culprit on changes the error; blanking only lines
// after it does not, since the parser never gets past the culprit. So the
// culprit is the last line from which blanking changes the error, found by
// binary search in a few parses.
func tabLine(data []byte, orig string, parse func([]byte) error) int {
	lines := bytes.SplitAfter(data, []byte("\n"))
	var tabbed []int
	for i, l := range lines {
		if bytes.IndexByte(l, '\t') >= 0 {
			tabbed = append(tabbed, i)
		}
	}
	changes := func(from int) bool {
		var b bytes.Buffer
		b.Grow(len(data))
		next := from
		for i, l := range lines {
			if next < len(tabbed) && tabbed[next] == i {
				next++
				if bytes.HasSuffix(l, []byte("\n")) {
					b.WriteByte('\n') // keep the line, so later lines keep their numbers
				}
				continue
			}
			b.Write(l)
		}
		err := parse(b.Bytes())
		return err == nil || err.Error() != orig
	}
	n := sort.Search(len(tabbed), func(i int) bool { return !changes(i) })
	if n == 0 {
		return 0
	}
	return tabbed[n-1] + 1
}

// lineOf returns line n (from 1) of data, without its line break.
func lineOf(data []byte, n int) []byte {
	for range n - 1 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return nil
		}
		data = data[i+1:]
	}
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		data = data[:i]
	}
	return bytes.TrimSuffix(data, []byte("\r"))
}

// aliasLine returns the first line using the alias *name, or 0.
func aliasLine(data []byte, name string) int {
	alias := "*" + name
	for i, l := range bytes.Split(data, []byte("\n")) {
		for rest := l; ; {
			j := bytes.Index(rest, []byte(alias))
			if j < 0 {
				break
			}
			rest = rest[j+len(alias):]
			if len(rest) == 0 || strings.ContainsRune(" \t\r,]}#", rune(rest[0])) {
				return i + 1
			}
		}
	}
	return 0
}

// BadChar finds the first byte sequence YAML refuses to read, which the
// library reports with no line: text that is not UTF-8, or a control
// character. A file in UTF-16 (it starts with a byte order mark) is left
// to the library.
func BadChar(data []byte) (line int, msg string) {
	if bytes.HasPrefix(data, []byte{0xFE, 0xFF}) || bytes.HasPrefix(data, []byte{0xFF, 0xFE}) {
		return 0, ""
	}
	line = 1
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return line, fmt.Sprintf("not valid YAML: the byte 0x%02X is not UTF-8 text; save the file as UTF-8", data[i])
		case r == '\n':
			line++
		case !yamlPrintable(r):
			return line, fmt.Sprintf("not valid YAML: the character %U is not allowed in YAML; remove it", r)
		}
		i += size
	}
	return 0, ""
}

// yamlPrintable reports whether YAML 1.1 allows r in a stream.
func yamlPrintable(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\r', r == 0x85:
	case r >= 0x20 && r <= 0x7E:
	case r >= 0xA0 && r <= 0xD7FF:
	case r >= 0xE000 && r <= 0xFFFD:
	case r >= 0x10000 && r <= 0x10FFFF:
	default:
		return false
	}
	return true
}
