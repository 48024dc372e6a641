package sources

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// LoadOptions says where a skill being loaded belongs.
type LoadOptions struct {
	// Namespace qualifies the skill's name; empty for plain names.
	Namespace string
	// Source and Scope are copied into the Skill.
	Source string
	Scope  Scope
	// Kind is KindSkill (a SKILL.md in its folder) or KindLearned (a flat
	// note, whose name falls back to the file name).
	Kind Kind
	// Convention is copied into the Skill.
	Convention string
}

// Load reads the front matter of the SKILL.md (or learned note) at path and
// returns the skill it describes, with the lenient checks of serving: a
// name that differs from its folder, an over-long description or an unknown
// key is a warning in Skill.Diagnostics. Only a file that cannot be read,
// whose YAML cannot be parsed (or is larger or more complex than
// MaxFrontMatter and MaxValues allow), that has no description or no usable
// name is refused; the error is then a Diagnostic that names the file and
// says why.
//
// Only the front matter is read: the body is read when an agent loads the
// skill. The file is opened without leaving its folder (a symlinked
// SKILL.md must point inside it) and must be a regular file.
func Load(path string, o LoadOptions) (*Skill, error) {
	var c *Cache // none: load every time
	return c.Load(path, o)
}

func newSkill(path string, front []byte, o LoadOptions) (*Skill, error) {
	return judge(front, localLocation(path, o.Kind), o)
}

// Location says where a skill lives when it is not a SKILL.md in a local
// folder: a skill a source plugin serves, say. Load fills one in from the
// file's path; NewSkill takes one from its caller.
type Location struct {
	// Path is the address of the skill's entry file, as Skill.Path and
	// as the path of its diagnostics: "plugin://zipped/pdf/SKILL.md".
	Path string
	// Dir is Skill.Dir, the base directory shown to agents.
	Dir string
	// Folder plays the part of the skill folder's name: the name served
	// when the front matter has none, and the name it is compared with.
	// Empty for learned notes.
	Folder string
	// Files reads the skill's files, relative to the skill.
	Files fs.FS
	// FileList and FileListTruncated are copied into the Skill.
	FileList          []string
	FileListTruncated bool
}

func localLocation(path string, kind Kind) Location {
	dir := filepath.Dir(path)
	loc := Location{Path: path, Dir: dir, Folder: filepath.Base(dir), Files: DirFS(dir)}
	if kind == KindLearned {
		loc.Folder = ""
		loc.Files = noteFS{dir: loc.Files, name: filepath.Base(path)}
	}
	return loc
}

// NewSkill builds a skill from its front matter, the block between the
// two "---" lines of a SKILL.md, for a skill whose files are not a local
// folder. It applies exactly the lenient checks of Load, with the same
// diagnostics (their path is loc.Path): remote skills are judged as local
// ones are. front is copied; CRLF line ends become LF, and a block larger
// than MaxFrontMatter is refused, as ReadFrontMatter refuses one.
func NewSkill(front []byte, loc Location, o LoadOptions) (*Skill, error) {
	if len(front) > MaxFrontMatter {
		return nil, Diagnostic{Severity: Error, Path: loc.Path, Rule: "front-matter",
			Message: fmt.Sprintf("front matter of %d bytes; the limit is %d KiB", len(front), MaxFrontMatter>>10)}
	}
	front = bytes.ReplaceAll(front, []byte("\r\n"), []byte("\n"))
	return judge(front, loc, o)
}

// judge parses front and judges the skill by the summary of its front
// matter.
func judge(front []byte, loc Location, o LoadOptions) (*Skill, error) {
	sum, ok := scanFrontMatter(front)
	if !ok {
		fm, written, err := parseFrontMatter(front)
		if err != nil {
			return nil, yamlDiagnostic(loc.Path, front, err)
		}
		sum = summarize(fm, written)
	}
	return skillOf(front, loc, sum, o)
}

// skillOf judges a skill by the summary of its front matter, with the
// lenient checks of serving.
func skillOf(front []byte, loc Location, sum frontSummary, o LoadOptions) (*Skill, error) {
	if o.Kind == "" {
		o.Kind = KindSkill
	}
	path := loc.Path
	folder := loc.Folder
	fallback := folder
	if o.Kind == KindLearned {
		folder = ""
		fallback = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	c := &checker{path: path}
	desc, ok := c.checkDescription(sum.description)
	if !ok {
		return nil, c.diags[len(c.diags)-1]
	}
	if o.Kind != KindLearned || sum.name.kind != absentValue {
		c.checkName(sum.name, folder)
	}
	c.checkKeys(sum.keys)
	disable := c.checkFlag("disable-model-invocation", sum.disableValue, sum.disableModelInvocation, "the model is shown it")
	userInvocable := c.checkFlag("user-invocable", sum.userValue, sum.userInvocable, "it is a prompt")

	what := "folder"
	if o.Kind == KindLearned {
		what = "file"
	}
	name := strings.TrimSpace(fallback)
	if sum.name.kind == stringValue {
		if s := sum.name.text; UsableName(s) {
			name = strings.TrimSpace(s)
		} else {
			c.add(Warning, "name", "name-unusable", "%q cannot be served as a name: it %s; the skill is served as %q, its %s's name (write the name in lowercase letters, digits and hyphens)", clipValue(s), WhyUnusable(s), fallback, what)
		}
	}
	if !UsableName(name) {
		return nil, Diagnostic{Severity: Error, Path: path, Field: "name", Rule: "name-unusable",
			Message: fmt.Sprintf("no usable name: the %s name %q %s; set `name:` to 1-%d lowercase letters, digits and hyphens", what, fallback, WhyUnusable(fallback), MaxNameLen)}
	}
	return &Skill{
		Ref:                    Ref{Namespace: o.Namespace, Name: name},
		Description:            desc,
		DisableModelInvocation: disable,
		UserInvocable:          userInvocable,
		FrontMatter:            front,
		Path:                   path,
		Dir:                    loc.Dir,
		Source:                 o.Source,
		Scope:                  o.Scope,
		Kind:                   o.Kind,
		Convention:             o.Convention,
		Diagnostics:            c.diags,
		Files:                  loc.Files,
		FileList:               loc.FileList,
		FileListTruncated:      loc.FileListTruncated,
	}, nil
}

// MaxNameBytes bounds a name that can be served, well past the
// specification's 64 characters: a longer one is a mistake or an attack
// on the catalog.
const MaxNameBytes = 256

// UsableName reports whether s (trimmed) can be a skill's name in a Ref, in
// the catalog and in a resource URI, even when it breaks the
// specification's format: valid UTF-8 of at most MaxNameBytes, with no
// control character or line break (a name is one catalog line), no ':'
// (it separates a namespace), no '/' or '\', not "." or "..", and shown
// as it is typed: no invisible formatting character (a bidirectional
// control, a zero-width space) and no white space but single spaces, so
// that the name the catalog shows is the name that loads the skill, and
// two names never look alike.
func UsableName(s string) bool { return WhyUnusable(s) == "" }

// WhyUnusable says why s is not a UsableName, completing "the name ...":
// "holds ':', '/' or '\'". It is "" for a usable name.
func WhyUnusable(s string) string {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "is empty"
	case !utf8.ValidString(s):
		return "is not valid UTF-8"
	case len(s) > MaxNameBytes:
		return fmt.Sprintf("is longer than %d bytes", MaxNameBytes)
	case s == "." || s == "..":
		return "is a relative path"
	case strings.ContainsAny(s, ":/\\"):
		return "holds ':', '/' or '\\'"
	case strings.IndexFunc(s, isBreakOrControl) >= 0:
		return "holds a control character or a line break"
	}
	if i := strings.IndexFunc(s, IsBidiControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return fmt.Sprintf("holds the bidirectional control character U+%04X, which makes it show in another order than it is typed", r)
	}
	if r, ok := hiddenIn(s); ok {
		return fmt.Sprintf("holds U+%04X, which shows nothing of its own there and makes the name look like another", r)
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) && r != ' ' }); i >= 0 {
		r, _ := utf8.DecodeRuneInString(s[i:])
		return fmt.Sprintf("holds the white space U+%04X, which shows as a plain space", r)
	}
	if strings.Contains(s, "  ") {
		return "holds a run of spaces, which shows as one"
	}
	return ""
}

func isBreakOrControl(r rune) bool {
	return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
}

// isInvisible reports whether r shows nothing of its own: a formatting
// character (a zero-width space, a soft hyphen, a direction mark), a
// character Unicode says to ignore when it cannot be shown (a Hangul
// filler, the combining grapheme joiner, a variation selector), or the
// blank braille pattern. The joiners U+200C and U+200D and the variation
// selectors are hiddenIn's to judge: they have their place beside some
// characters.
func isInvisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) ||
		unicode.Is(unicode.Variation_Selector, r) || r == '\u2800'
}

// presents reports whether the variation selector vs, after prev and
// before rest, chooses how a symbol shows, as an emoji's variation
// sequence does: the text or emoji presentation of a symbol that is not
// ASCII (↔️, ‼️, ℹ️ of the letter-like symbols), or of a keycap's digit,
// '#' or '*' (1️⃣). After a letter or a mark (é️, a Han ideograph with an
// ideographic variation selector) it would show the same as without, and
// only make the name look like another.
func presents(prev, vs rune, rest string) bool {
	if vs != '\ufe0e' && vs != '\ufe0f' {
		return false
	}
	if prev >= utf8.RuneSelf {
		letterlike := prev >= 0x2100 && prev <= 0x214f
		return !isInvisible(prev) && (letterlike || !unicode.In(prev, unicode.L, unicode.M))
	}
	next, _ := utf8.DecodeRuneInString(rest)
	return (prev >= '0' && prev <= '9' || prev == '#' || prev == '*') && next == '\u20e3'
}

// hiddenIn returns the first character of s that shows nothing there: an
// invisible one (isInvisible) but for a joiner between two characters
// that are not ASCII (it shapes Persian and Indic words, and joins emoji
// into one) and a variation selector that presents the character before
// it (see presents); or a combining mark that begins s, which has
// nothing to sit on.
func hiddenIn(s string) (rune, bool) {
	if isASCII(s) {
		return 0, false // most names: nothing in ASCII is hidden but controls, which are refused before
	}
	prev := rune(-1)
	for i, r := range s {
		switch {
		case i == 0 && unicode.In(r, unicode.Mn, unicode.Me):
			return r, true
		case r == '\u200c' || r == '\u200d':
			next, n := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			// A variation selector may come before: the emoji it
			// presents is joined.
			shown := func(c rune) bool {
				return c >= utf8.RuneSelf && (!isInvisible(c) || unicode.Is(unicode.Variation_Selector, c))
			}
			if n == 0 || !shown(prev) || !shown(next) {
				return r, true
			}
		case unicode.Is(unicode.Variation_Selector, r):
			if !presents(prev, r, s[i+utf8.RuneLen(r):]) {
				return r, true
			}
		case isInvisible(r):
			return r, true
		}
		prev = r
	}
	return 0, false
}

// clipValue shortens a value echoed in a message.
func clipValue(s string) string { return Clip(s, 80) }

// ClipList is a list of values for a message or a log line: the first
// ten, each clipped to 300 bytes, and how many more.
func ClipList(values []string) []string {
	var out []string
	for i, v := range values {
		if i == 10 {
			return append(out, fmt.Sprintf("and %d more", len(values)-i))
		}
		out = append(out, Clip(v, 300))
	}
	return out
}

// Clip shortens s, a value echoed in a message, to about n bytes, cut
// between characters, saying how long it was: "abc… (90000 bytes)".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:cut], len(s))
}

func frontMatterDiagnostic(path string, err error) Diagnostic {
	d := Diagnostic{Severity: Error, Path: path, Rule: "front-matter"}
	var link linkAsText
	switch {
	case errors.Is(err, errUTF16):
		d.Line = 1
		d.Message = "no front matter that skillmux can read: " + errUTF16.Error()
	case errors.Is(err, errCROnly):
		d.Line = 1
		d.Message = "no front matter that skillmux can read: " + errCROnly.Error()
	case errors.As(err, &link):
		d.Line = 1
		d.Message = "no front matter: " + link.Error()
	case errors.Is(err, ErrNoFrontMatter):
		d.Line = 1
		d.Message = "no front matter: the file must start with a line `---`, then YAML with name and description, then a line `---`"
		if why, ok := errors.AsType[noFrontReason](err); ok {
			d.Message = "no front matter: " + string(why) + "; the file must start with a line `---`, then YAML with name and description, then a line `---`"
		}
	case errors.Is(err, errFrontMatterTooLong):
		d.Message = fmt.Sprintf("front matter is not closed within %d KiB, the most read: shorten it (a long text belongs in the body, after the closing `---`) or add the missing `---`", MaxFrontMatter>>10)
	case errors.Is(err, ErrUnterminated):
		d.Message = "front matter is not closed: add a line `---` after the YAML"
	default:
		d.Rule = "read"
		d.Message = "cannot read: " + unwrapPath(err)
	}
	return d
}

// unwrapPath drops the path and the operation from an *fs.PathError
// message: the Diagnostic carries the path already, and "open:" or
// "stat:" before the reason says nothing to the person who reads it.
func unwrapPath(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
