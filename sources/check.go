package sources

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/skillmux/skillmux/internal/editdist"
)

// Limits from the Agent Skills specification.
const (
	MaxNameLen          = 64
	MaxDescriptionLen   = 1024
	MaxCompatibilityLen = 500
)

// specFields are the front matter keys the Agent Skills specification
// defines.
var specFields = []string{"name", "description", "license", "compatibility", "metadata", "allowed-tools"}

// extensionFields are keys that well-known clients understand although the
// specification does not define them. Serving accepts them silently;
// `skillmux validate` warns about them.
var extensionFields = []string{
	"version", "user-invocable", "argument-hint", "disable-model-invocation",
	"model", "context", "agent", "hooks", "when_to_use", "tools",
}

// ValidName reports whether name is a name as the Agent Skills
// specification writes it: 1 to MaxNameLen lowercase letters, digits and
// single hyphens, not at either end.
func ValidName(name string) bool { return len(name) <= MaxNameLen && validName(name) }

// validName reports whether name has the specification's format:
// lowercase letters, digits and single hyphens, not at either end.
func validName(name string) bool {
	if name == "" || name[0] == '-' || name[len(name)-1] == '-' || strings.Contains(name, "--") {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '-' {
			return false
		}
	}
	return true
}

// checker collects findings about one front matter, at a severity that
// depends on whether we are serving (lenient) or validating (strict).
type checker struct {
	path   string
	strict bool
	diags  []Diagnostic
}

func (c *checker) add(sev Severity, field, rule, format string, args ...any) {
	c.diags = append(c.diags, Diagnostic{Severity: sev, Path: c.path, Field: field, Rule: rule, Message: fmt.Sprintf(format, args...)})
}

// problem is a specification violation: an error when validating, a warning
// when serving.
func (c *checker) problem(field, rule, format string, args ...any) {
	sev := Warning
	if c.strict {
		sev = Error
	}
	c.add(sev, field, rule, format, args...)
}

// checkName checks the name against the specification and the folder name.
// folder is empty for learned notes, which have no folder of their own.
func (c *checker) checkName(v fieldValue, folder string) {
	switch v.kind {
	case absentValue, nullValue:
		c.problem("name", "name-required", "missing; add `name: %s`", suggestName(folder))
		return
	case stringValue:
	default:
		c.problem("name", "name-type", "must be a string, got %s%s", v.typeName(), quoteIt("name", v))
		return
	}
	name := v.text
	switch n := utf8.RuneCountInString(name); {
	case n == 0:
		c.problem("name", "name-required", "is empty; use 1-%d lowercase letters, digits and hyphens", MaxNameLen)
		return
	case n > MaxNameLen:
		c.problem("name", "name-length", "is %d characters; the limit is %d", n, MaxNameLen)
	}
	if !validName(name) {
		c.problem("name", "name-format", "%q must be lowercase letters, digits and single hyphens, not starting or ending with a hyphen (try %q)", name, suggestName(name))
	}
	if folder != "" && name != folder {
		c.problem("name", "name-matches-folder", "%q differs from its folder name %q; rename one so they match", name, folder)
	}
}

// checkDescription returns the description and whether the skill can be
// served at all.
func (c *checker) checkDescription(v fieldValue) (string, bool) {
	var desc string
	switch v.kind {
	case absentValue, nullValue:
		c.add(Error, "description", "description-required", "missing; add a `description:` saying what the skill does and when to use it")
		return "", false
	case stringValue:
		desc = strings.TrimSpace(v.text)
	case boolValue, intValue, floatValue, dateValue:
		desc = v.text
		c.problem("description", "description-type", "should be a string, got %s%s", v.typeName(), quoteIt("description", v))
	default:
		c.add(Error, "description", "description-type", "must be a string, got %s; write what the skill does and when to use it as text", v.typeName())
		return "", false
	}
	if desc == "" {
		c.add(Error, "description", "description-required", "is empty; say what the skill does and when to use it")
		return "", false
	}
	if strings.IndexFunc(desc, shows) < 0 {
		// The catalog would show it empty, as it would "   ".
		c.add(Error, "description", "description-required", "shows nothing: it holds only control or invisible characters (%+q); say what the skill does and when to use it", clipValue(desc))
		return "", false
	}
	if n := utf8.RuneCountInString(desc); n > MaxDescriptionLen {
		c.problem("description", "description-length", "is %d characters; the limit is %d", n, MaxDescriptionLen)
	}
	if strings.IndexFunc(desc, IsBidiControl) >= 0 {
		c.problem("description", "description-bidi", "holds bidirectional control characters (U+202A to U+202E, U+2066 to U+2069), which show text in another order than it is read; the catalog leaves them out")
	}
	return desc, true
}

// shows reports whether r shows on screen: it is not white space, a
// control character or an invisible one (see isInvisible).
func shows(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.IsControl(r) && !isInvisible(r)
}

// quoteIt says how to make the scalar v of field a string, as other
// clients read it: "; quote it: description: \"12\"". It is "" for a
// value that is no scalar.
func quoteIt(field string, v fieldValue) string {
	switch v.kind {
	case boolValue, intValue, floatValue, dateValue:
		return fmt.Sprintf("; quote it: %s: %q", field, v.text)
	}
	return ""
}

// Shown is s as a message or a line of text shows it: quoted, as in Go,
// when it holds a character that would break the line or show it in
// another order (a name may hold a line break), or a byte that is not
// UTF-8, which JSON would turn into U+FFFD, naming another file, or when
// it begins or ends with white space, which a reader would not see.
func Shown(s string) string {
	if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || IsBidiControl(r) }) >= 0 || strings.TrimSpace(s) != s {
		return strconv.Quote(s)
	}
	return s
}

// IsBidiControl reports whether r is a bidirectional embedding, override
// or isolate: characters that make text display in another order than
// the one it is read in. The catalog drops them from what skills say.
func IsBidiControl(r rune) bool {
	return r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}

// strictOnly is a specification violation that clients tolerate in
// practice (a list for allowed-tools, numbers in metadata): an error when
// validating, silence when serving.
func (c *checker) strictOnly(field, rule, format string, args ...any) {
	if c.strict {
		c.add(Error, field, rule, format, args...)
	}
}

// checkFieldTypes checks the types of the optional keys: strict only.
func (c *checker) checkFieldTypes(fm map[string]any) {
	if v, ok := fm["compatibility"]; ok {
		if s, ok := v.(string); !ok {
			c.strictOnly("compatibility", "compatibility-type", "must be a string, got %s", yamlType(v))
		} else if n := utf8.RuneCountInString(s); n > MaxCompatibilityLen || n == 0 {
			c.strictOnly("compatibility", "compatibility-length", "is %d characters; it must be 1-%d", n, MaxCompatibilityLen)
		}
	}
	if v, ok := fm["license"]; ok {
		if _, ok := v.(string); !ok {
			c.strictOnly("license", "license-type", "must be a string, got %s", yamlType(v))
		}
	}
	if v, ok := fm["metadata"]; ok {
		if m, ok := v.(map[string]any); !ok {
			c.strictOnly("metadata", "metadata-type", "must be a map of string keys to string values, got %s", yamlType(v))
		} else {
			for _, k := range sortedKeys(m) {
				if _, ok := m[k].(string); !ok {
					c.strictOnly("metadata."+k, "metadata-type", "must be a string, got %s (quote it)", yamlType(m[k]))
				}
			}
		}
	}
	if v, ok := fm["allowed-tools"]; ok {
		if _, ok := v.(string); !ok {
			c.strictOnly("allowed-tools", "allowed-tools-type", "should be a space-separated string, got %s", yamlType(v))
		}
	}
}

// checkKeys reports the keys outside the specification, sorted: unknown
// ones always, client extensions when strict.
func (c *checker) checkKeys(keys []string) {
	for _, k := range keys {
		switch {
		case slices.Contains(specFields, k):
		case slices.Contains(extensionFields, k):
			if c.strict {
				c.add(Warning, k, "client-extension", "is not in the Agent Skills specification; only some clients understand it")
			}
		default:
			c.problem(k, "unknown-field", "is not a known field; the specification allows %s%s", strings.Join(specFields, ", "), didYouMean(k))
		}
	}
}

func didYouMean(k string) string {
	if best := editdist.Closest(k, append(slices.Clone(specFields), extensionFields...), 2); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// sortedKeys runs once per skill on every scan, so it sizes its slice up
// front rather than collecting from an iterator.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func yamlType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int, int64, uint64:
		return "an integer"
	case float64:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "a map"
	case time.Time:
		return "a date"
	default:
		return "a value of an unusual YAML type"
	}
}

// suggestName turns s into a name that satisfies the specification's
// format.
func suggestName(s string) string {
	var b strings.Builder
	dash := false
	// Accents go (é is e and a combining accent, decomposed), so that
	// "été" suggests "ete", not "t".
	for _, r := range norm.NFD.String(strings.ToLower(s)) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > MaxNameLen {
		out = strings.TrimRight(out[:MaxNameLen], "-")
	}
	if out == "" {
		return "my-skill"
	}
	return out
}

// checkFlag warns, naming the field, when the value v of a boolean field
// is not a YAML boolean: such a value is ignored (a quoted "true" is a
// string, as the specification's YAML reads it), which leaves def;
// otherwise says what that means for the skill.
func (c *checker) checkFlag(field string, v fieldValue, def bool, otherwise string) bool {
	if v.kind != absentValue && v.kind != boolValue {
		c.add(Warning, field, "flag-type", "must be the YAML boolean true or false, unquoted; got %s, which is ignored: %s", describe(v), otherwise)
	}
	return def
}

// describe names a value in a message: a scalar as written, else its type.
func describe(v fieldValue) string {
	switch v.kind {
	case stringValue:
		return fmt.Sprintf("the string %q", clipValue(v.text))
	case intValue, floatValue:
		return v.text
	case dateValue:
		return "the date " + v.text
	}
	return v.typeName()
}
