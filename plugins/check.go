package plugins

import (
	"io/fs"
	"strings"
	"unicode"
	"unicode/utf8"
)

// validPath reports whether p can be a file of a skill: a slash-separated
// relative path in fs.ValidPath's sense (no "." or ".." element, no
// leading or trailing slash), valid UTF-8 without control characters or
// backslashes, of at most MaxIDBytes. Such a path cannot leave the skill.
func validPath(p string) bool {
	return p != "." && len(p) <= MaxIDBytes && fs.ValidPath(p) && !strings.ContainsRune(p, '\\') &&
		strings.IndexFunc(p, unicode.IsControl) < 0
}

// validID reports whether id can name a skill within a plugin: what
// validPath allows, with a last element that is neither empty nor
// holding a colon.
func validID(id string) bool {
	return validPath(id) && !strings.Contains(id, ":")
}

// clean makes a string a plugin sent fit for a log line or a message:
// valid UTF-8 (invalid bytes become U+FFFD), without control characters
// (but for newlines and tabs when multiline), at most maxText bytes.
func clean(s string, multiline bool) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		s = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) && !(multiline && (r == '\n' || r == '\t')) {
				return ' '
			}
			return r
		}, s)
	}
	if len(s) > maxText {
		cut := maxText
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
