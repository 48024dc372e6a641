// Package yamlerr turns the errors of the YAML library into a line number
// and a message, for diagnostics of the form file:line: message. Both the
// SKILL.md parser and the configuration loader report YAML errors, and
// both need the library's quirks handled the same way.
package yamlerr

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

var linePrefix = regexp.MustCompile(`^yaml: line (\d+): `)

// Split returns the 1-based line of doc that err is about (0 when the
// error names none) and the message without its "yaml: line N:" prefix.
//
// The library reports a tab that breaks indentation on the line before
// the tab; the line returned is the one holding the tab, and the message
// says what to do.
func Split(err error, doc []byte) (line int, msg string) {
	msg = err.Error()
	if m := linePrefix.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	if strings.Contains(msg, "tab character") {
		if tab := firstTabIndent(doc, line); tab > 0 {
			line = tab
		}
		msg = "a tab is used for indentation; indent with spaces"
	}
	return line, msg
}

// firstTabIndent returns the first line, from line from on, whose
// indentation holds a tab, or 0.
func firstTabIndent(doc []byte, from int) int {
	for n := 1; len(doc) > 0; n++ {
		var l []byte
		l, doc, _ = bytes.Cut(doc, []byte("\n"))
		if n < from {
			continue
		}
		indent := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
		if bytes.IndexByte(indent, '\t') >= 0 {
			return n
		}
	}
	return 0
}
