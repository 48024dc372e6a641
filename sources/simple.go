package sources

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// parseSimple parses the common shape of front matter, one "key: value"
// per line with plain single-line string values, without the YAML library,
// which costs tens of microseconds and kilobytes per file: most of the
// start-up time of a large catalog. It accepts only input whose YAML
// meaning is certain, and reports false for anything else (quotes, block
// scalars, lists, nesting, comments, values that YAML would read as a
// number, a boolean or null, duplicate keys), which then goes to the YAML
// library. FuzzParseSimple checks that both always agree.
func parseSimple(front []byte) (map[string]any, bool) {
	m := make(map[string]any, 4)
	for len(front) > 0 {
		var line []byte
		line, front, _ = bytes.Cut(front, []byte("\n"))
		key, val, ok := bytes.Cut(line, []byte(": "))
		if !ok || !simpleKey(key) {
			return nil, false
		}
		v := strings.TrimRight(string(val), " ")
		if !simpleValue(v) {
			return nil, false
		}
		k := string(key)
		if _, dup := m[k]; dup {
			return nil, false
		}
		m[k] = v
	}
	return m, len(m) > 0
}

func simpleKey(k []byte) bool {
	if len(k) == 0 || len(k) > 128 || !isLetter(k[0]) { // YAML caps implicit keys at 1024
		return false
	}
	for _, c := range k {
		if !isLetter(c) && !(c >= '0' && c <= '9') && c != '-' && c != '_' {
			return false
		}
	}
	return true
}

// simpleValue reports whether v, a plain scalar, is certainly a string in
// YAML: it starts with a letter, is not a word YAML resolves to a boolean
// or null, and holds nothing that starts a comment, a mapping or a
// continuation.
func simpleValue(v string) bool {
	if v == "" || !isLetter(v[0]) || strings.HasSuffix(v, ":") ||
		strings.Contains(v, ": ") || strings.Contains(v, " #") || strings.ContainsAny(v, "\t\r") {
		return false
	}
	if !utf8.ValidString(v) {
		return false
	}
	for _, r := range v {
		// Only YAML's printable characters, and none it reads as a line
		// break (NEL, LS, PS) or a byte order mark.
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029 || r == 0xfeff || r >= 0xfffe && r <= 0xffff {
			return false
		}
	}
	switch strings.ToLower(v) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
		return false
	}
	return true
}

func isLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }
