package sources

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode/utf8"
)

// Paths inside a skill folder come from outside: a resource URI, a tool's
// argument. CheckPath holds each to rules that keep it a plain path below
// the folder, and the folder itself is read through os.Root (DirFS), which
// refuses anything that leaves its real path, symlinks included. The rules
// are checked first so that a refusal names the rule, and so that nothing
// that breaks one ever reaches the file system.

// Bounds of a path inside a skill folder.
const (
	// MaxPathBytes bounds a whole path, in bytes.
	MaxPathBytes = 1024
	// MaxSegmentBytes bounds one file or folder name, as most file
	// systems do.
	MaxSegmentBytes = 255
)

// PathRule names a rule a path inside a skill folder must keep.
type PathRule string

// The rules of CheckPath, and RuleOutside, which the file system decides.
const (
	RuleNUL         PathRule = "nul-byte"             // no NUL byte
	RuleBackslash   PathRule = "backslash"            // '/' separates, '\' is refused
	RuleAbsolute    PathRule = "absolute"             // relative to the skill folder
	RuleParent      PathRule = "parent-segment"       // no ".."
	RuleDot         PathRule = "dot-segment"          // no "." (write the path without it)
	RuleEmpty       PathRule = "empty-segment"        // no "//"
	RuleEncoded     PathRule = "encoded-separator"    // in a URI: no %2f, %5c, and no %2e%2e or %2e as a whole segment
	RuleTooLong     PathRule = "too-long"             // MaxPathBytes, MaxSegmentBytes
	RuleOutside     PathRule = "outside-skill"        // a symlink leads out of the skill folder
	RuleNotAllowed  PathRule = "not-allowed"          // outside the folders a configuration allows
	RuleControl     PathRule = "control-character"    // in a URI: a raw control character
	RuleRaw         PathRule = "raw-character"        // in a URI: a character RFC 3986 does not allow unencoded
	RuleBadEncoding PathRule = "bad-percent-encoding" // in a URI: '%' not followed by two hex digits
	RuleNotUTF8     PathRule = "not-utf8"             // a name is UTF-8 text
)

var ruleText = map[PathRule]string{
	RuleNUL:         "a path may not hold a NUL byte",
	RuleBackslash:   `a path may not hold '\'; separate folders with '/'`,
	RuleAbsolute:    "a path is relative to the skill folder and may not start with '/'",
	RuleParent:      `".." may not appear in a path: every path stays inside the skill folder`,
	RuleDot:         `"." may not appear in a path; write the path without it`,
	RuleEmpty:       "a path may not hold an empty segment (\"//\") or end with '/'",
	RuleEncoded:     `a URI may not hold an encoded separator or dot segment (%2f, %5c, %2e%2e)`,
	RuleTooLong:     fmt.Sprintf("a path is at most %d bytes, and each name in it at most %d", MaxPathBytes, MaxSegmentBytes),
	RuleOutside:     "the path leads out of the skill folder (through a symlink); only files inside it are served",
	RuleNotAllowed:  "the configuration (resources.allow_dirs) does not serve this part of the skill folder",
	RuleControl:     "a URI may not hold a raw control character; percent-encode it",
	RuleRaw:         "a URI holds only letters, digits, -._~ and the reserved characters of RFC 3986 as they are; percent-encode the others (a space is %20)",
	RuleBadEncoding: "'%' must be followed by two hexadecimal digits",
	RuleNotUTF8:     "a path is UTF-8 text (in a URI, each byte of a character percent-encoded); a file whose name is not UTF-8 is not served",
}

// ErrBadPath is matched (errors.Is) by every *PathError.
var ErrBadPath = errors.New("path refused")

// PathError says that a path inside a skill folder was refused, and by
// which rule. Its message names the rule and never says anything about
// what lies outside the folder.
type PathError struct {
	Path string
	Rule PathRule
}

func (e *PathError) Error() string {
	return fmt.Sprintf("path %s refused (rule %s): %s", quoteClipped(e.Path), e.Rule, ruleText[e.Rule])
}

// Unwrap returns ErrBadPath.
func (e *PathError) Unwrap() error { return ErrBadPath }

// quoteClipped quotes s for a message, cut to a readable length.
func quoteClipped(s string) string { return fmt.Sprintf("%q", clipValue(s)) }

// CheckPath reports, as a *PathError, the first rule the slash-separated
// path p breaks, or nil when p is a plain path below a skill folder: not
// empty, relative, of names that are not "." or "..", UTF-8, with no NUL
// byte, no backslash, within MaxPathBytes and MaxSegmentBytes. p is a file's
// name as it is on disk: a URI's path is decoded once before it gets
// here (resolver.ParseURI refuses an encoded separator or dot segment
// there), and a '%' in p is the name's own, so that "x%2Fy.md" names the
// file of that name in the folder, which no file system decodes further.
func CheckPath(p string) error {
	fail := func(r PathRule) error { return &PathError{Path: p, Rule: r} }
	switch {
	case p == "":
		return fail(RuleEmpty)
	case len(p) > MaxPathBytes:
		return fail(RuleTooLong)
	case strings.IndexByte(p, 0) >= 0:
		return fail(RuleNUL)
	case strings.IndexByte(p, '\\') >= 0:
		return fail(RuleBackslash)
	case !utf8.ValidString(p):
		return fail(RuleNotUTF8)
	case p[0] == '/':
		return fail(RuleAbsolute)
	}
	for seg := range strings.SplitSeq(p, "/") {
		if r := checkSegment(seg); r != "" {
			return fail(r)
		}
	}
	return nil
}

// checkSegment returns the rule one name of a path breaks, or "".
func checkSegment(seg string) PathRule {
	switch {
	case seg == "":
		return RuleEmpty
	case seg == "..":
		return RuleParent
	case seg == ".":
		return RuleDot
	case len(seg) > MaxSegmentBytes:
		return RuleTooLong
	}
	return ""
}

// Confine turns the error of a read through a skill folder's os.Root
// that a symlink leading out of the folder caused into a *PathError with
// RuleOutside, whether or not the target exists, so that a refusal says
// the same for every outside path. Other errors are returned as they are.
func Confine(name string, err error) error {
	if err == nil {
		return nil
	}
	if escapes(err) {
		return &PathError{Path: name, Rule: RuleOutside}
	}
	return err
}

// escapes reports whether err is os.Root's refusal of a path that leaves
// the folder.
func escapes(err error) bool {
	for e := err; e != nil; e = errors.Unwrap(e) {
		// os.Root's error for a path that escapes is not exported.
		if e.Error() == "path escapes from parent" {
			return true
		}
	}
	return false
}

// IsNotExist reports whether err says a file does not exist (and was not
// refused for leaving the folder).
func IsNotExist(err error) bool {
	var pe *PathError
	return errors.Is(err, fs.ErrNotExist) && !errors.As(err, &pe)
}
