package sources

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/skillmux/skillmux/internal/yamlerr"
)

// MaxFrontMatter bounds the front matter of one file, in bytes: how much
// of a file is read while looking for the closing "---" line, so that a
// SKILL.md without one cannot make a scan read a huge file, and what a
// skill may keep of it. Real front matter is a few hundred bytes.
const MaxFrontMatter = 64 << 10

// MaxEntrySize bounds a SKILL.md (or a learned note): loading a skill
// returns it whole, and clients refuse answers of much more. A larger one
// is refused when it is listed, so that the model is never offered a
// skill that cannot be loaded.
const MaxEntrySize = 8 << 20

// Oversized is the diagnostic of an entry file of size bytes at path,
// and true, when that is more than MaxEntrySize: the skill is not served.
func Oversized(path string, size int64) (Diagnostic, bool) {
	if size <= MaxEntrySize {
		return Diagnostic{}, false
	}
	return Diagnostic{Severity: Error, Path: path, Rule: "size", Message: fmt.Sprintf(
		"is %.1f MiB; a %s over %d MiB is not served, as clients refuse answers that large: move the bulk into files beside it (references/) that it names",
		float64(size)/(1<<20), filepath.Base(path), MaxEntrySize>>20)}, true
}

// errFrontMatterTooLong is why a front matter with no end within
// MaxFrontMatter is refused: it may have one further on.
var errFrontMatterTooLong = fmt.Errorf("no closing line within %d KiB", MaxFrontMatter>>10)

// MaxValues bounds how many YAML values (scalars, lists and maps, every
// alias counted as the values it expands to) one front matter may hold.
// A few hundred bytes of anchors and aliases can expand to millions of
// values; a file past the bound is refused before anything is expanded.
const MaxValues = 10_000

// ErrTooComplex means a front matter holds more than MaxValues values once
// its aliases are expanded.
var ErrTooComplex = fmt.Errorf("front matter holds more than %d YAML values once aliases are expanded", MaxValues)

var bom = []byte("\xef\xbb\xbf")

// readers recycles the buffers of ReadFrontMatter: a scan reads thousands
// of files, and a fresh 4 kB buffer for each is most of its garbage.
var readers = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, 4096) }}

// scratches recycles the buffers in which ReadFrontMatter gathers a block.
var scratches = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// ReadFrontMatter reads from r only as far as the end of the front matter:
// the block between a first line that is exactly "---" (after an optional
// UTF-8 BOM, with an optional CR and trailing blanks) and the next such
// line. It returns the block without its delimiters, with CRLF turned into
// LF. The body is never read, so scanning a large catalog stays cheap.
func ReadFrontMatter(r io.Reader) ([]byte, error) {
	br := readers.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() {
		br.Reset(nil)
		readers.Put(br)
	}()
	first, err := br.ReadSlice('\n')
	if err != nil && err != io.EOF && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err
	}
	first = bytes.TrimPrefix(first, bom)
	if !isDelimiter(first) {
		whole := err == io.EOF
		if err == nil {
			first = bytes.Clone(first) // a part of br's buffer, which Peek may fill again
			_, perr := br.Peek(1)
			whole = perr == io.EOF // one line, and its line end
		}
		return nil, noFrontMatter(first, whole)
	}
	// The block is gathered in a recycled buffer and copied out once, at
	// its size: a skill keeps its front matter, and appending would leave
	// up to twice the room in every one of ten thousand.
	scratch := scratches.Get().(*[]byte)
	defer scratches.Put(scratch)
	out := (*scratch)[:0]
	defer func() { *scratch = out[:0] }()
	for {
		line, err := br.ReadSlice('\n')
		if isDelimiter(line) {
			return bytes.Clone(out), nil
		}
		if bytes.HasSuffix(line, []byte("\r\n")) {
			line = append(line[:len(line)-2:len(line)-2], '\n')
		}
		out = append(out, line...)
		if len(out) > MaxFrontMatter {
			return nil, fmt.Errorf("%w: %w", ErrUnterminated, errFrontMatterTooLong)
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
		case err == io.EOF:
			return nil, ErrUnterminated
		default:
			return nil, err
		}
	}
}

// errUTF16 and errCROnly say why a file that starts with "---" as an
// editor shows it has no front matter as skillmux reads it; they come
// wrapped with ErrNoFrontMatter.
var (
	errUTF16  = errors.New("the file is UTF-16; save it as UTF-8")
	errCROnly = errors.New("its lines end with a carriage return (CR) alone; save it with LF (or CRLF) line ends")
)

// noFrontReason is why a file has no front matter, when its first line
// tells: said before what the file must start with.
type noFrontReason string

func (r noFrontReason) Error() string { return string(r) }

const (
	errEmpty      noFrontReason = "the file is empty"
	errNotText    noFrontReason = "the file holds NUL bytes: it is not UTF-8 text (it may be UTF-16 without a byte-order mark, or not text at all); save it as UTF-8"
	errNotUTF8    noFrontReason = "its first line is not UTF-8 text (another encoding, such as Latin-1?); save the file as UTF-8"
	errBlankFirst noFrontReason = "its first line is blank, and the line `---` must be the very first"
	errTOML       noFrontReason = "it starts with `+++`, TOML front matter, which Agent Skills do not use: write YAML between lines `---`"
)

// linkAsText is the reason for a file that holds nothing but a path, as a
// symbolic link does: a link stored as a plain file, by a checkout with
// git's core.symlinks off (on Windows, by default) or a copy that did not
// keep links.
type linkAsText string

func (l linkAsText) Error() string {
	return fmt.Sprintf("the file holds only the path %q, as a symbolic link does: it is a link stored as a plain file (a checkout with git's core.symlinks off, or a copy that did not keep links); make it a link again, or put the file it names in its place", Clip(string(l), 200))
}

// noFrontMatter is ErrNoFrontMatter for a file whose first line is first
// (the whole file when whole), with the reason when the file looks like
// front matter in an encoding or with line ends that skillmux does not
// read, or like a link stored as text.
func noFrontMatter(first []byte, whole bool) error {
	switch {
	case bytes.HasPrefix(first, []byte("\xff\xfe")), bytes.HasPrefix(first, []byte("\xfe\xff")):
		return fmt.Errorf("%w: %w", ErrNoFrontMatter, errUTF16)
	case whole && looksLikePath(bytes.TrimRight(first, "\r\n")):
		return fmt.Errorf("%w: %w", ErrNoFrontMatter, linkAsText(bytes.TrimRight(first, "\r\n")))
	}
	// "---", then a CR that is not the end of the line: the whole file
	// is one line to a reader that splits lines at LF.
	if i := bytes.IndexByte(first, '\r'); i >= 0 && isDelimiter(first[:i]) {
		return fmt.Errorf("%w: %w", ErrNoFrontMatter, errCROnly)
	}
	line := bytes.TrimRight(first, "\r\n")
	var why noFrontReason
	switch {
	case len(bytes.TrimSpace(first)) == 0 && whole:
		why = errEmpty
	case bytes.IndexByte(first, 0) >= 0:
		why = errNotText
	case !utf8.Valid(line) && len(line) < 4096:
		why = errNotUTF8
	case len(bytes.TrimSpace(line)) == 0 && len(first) > 0:
		why = errBlankFirst
	case string(bytes.TrimSpace(line)) == "+++":
		why = errTOML
	default:
		return ErrNoFrontMatter
	}
	return fmt.Errorf("%w: %w", ErrNoFrontMatter, why)
}

// looksLikePath reports whether b is a path and nothing else: one line of
// UTF-8, no blanks or control characters, at least one '/' (or '\\').
func looksLikePath(b []byte) bool {
	if len(b) == 0 || len(b) > 4096 || !utf8.Valid(b) || !bytes.ContainsAny(b, `/\`) {
		return false
	}
	return !bytes.ContainsFunc(b, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) })
}

// SplitFrontMatter splits a whole SKILL.md into its front matter (as
// ReadFrontMatter returns it) and its body.
func SplitFrontMatter(data []byte) (front, body []byte, err error) {
	data = bytes.TrimPrefix(data, bom)
	first, rest := cutLine(data)
	if !isDelimiter(first) {
		return nil, data, ErrNoFrontMatter
	}
	start := rest
	for len(rest) > 0 {
		line, next := cutLine(rest)
		if isDelimiter(line) {
			front = start[:len(start)-len(rest)]
			return bytes.ReplaceAll(front, []byte("\r\n"), []byte("\n")), next, nil
		}
		rest = next
	}
	return nil, nil, ErrUnterminated
}

func cutLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i+1], b[i+1:]
	}
	return b, nil
}

func isDelimiter(line []byte) bool {
	return string(bytes.TrimRight(line, " \t\r\n")) == "---"
}

// ParseFrontMatter parses a front matter block into a map. Nested maps get
// string keys so the result can be encoded as JSON.
//
// Real files often carry an unquoted ": " inside a plain value
// ("description: Use when: you need X"), which YAML rejects; such a block is
// parsed a second time with those values quoted, and the second answer is
// taken only if it parses.
func ParseFrontMatter(front []byte) (map[string]any, error) {
	m, _, err := parseFrontMatter(front)
	return m, err
}

// parseFrontMatter is ParseFrontMatter, which also returns the text, as
// written, of each top-level value that YAML reads as a scalar other than
// a string (see unmarshalMap).
func parseFrontMatter(front []byte) (map[string]any, map[string]string, error) {
	m, written, err := unmarshalMap(front)
	if err == nil {
		return m, written, nil
	}
	if fixed, ok := quoteColonValues(front); ok {
		if m2, written2, err2 := unmarshalMap(fixed); err2 == nil {
			return m2, written2, nil
		}
	}
	return nil, nil, err
}

// errNotMap is why a front matter that is valid YAML but not a map of
// keys to values is refused; its text names what it is instead.
type errNotMap struct{ what string }

func (e errNotMap) Error() string {
	return fmt.Sprintf("front matter is %s, not a map of keys to values: write one `key: value` line per field, such as `name: pdf` and `description: ...`", e.what)
}

// unmarshalMap parses front with the YAML library, within MaxValues. It
// also returns the text, as written, of each top-level value that YAML
// reads as a boolean, a number or a date, which the library decodes into
// a value that prints otherwise ("2.10" as 2.1, "0123" as 83, "2024-01-02"
// as a time.Time): a skill is served with the text it was written with.
func unmarshalMap(front []byte) (map[string]any, map[string]string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		return nil, nil, err
	}
	if !withinValues(&doc, MaxValues) {
		return nil, nil, ErrTooComplex
	}
	if err := plainKeys(&doc, 0); err != nil {
		return nil, nil, err
	}
	var v any
	if err := doc.Decode(&v); err != nil {
		return nil, nil, err
	}
	switch v := normalize(v).(type) {
	case nil:
		return map[string]any{}, nil, nil
	case map[string]any:
		return v, scalarsAsWritten(&doc), nil
	default:
		return nil, nil, errNotMap{what: yamlType(v)}
	}
}

// errKey is why a front matter with a key that is a list or a map is
// refused: such a key is valid YAML, but no map of names to values holds
// it.
type errKey struct {
	line int    // in the front matter, from 1
	what string // "a list" or "a map"
}

func (e errKey) Error() string {
	return fmt.Sprintf("a key must be a plain word, got %s; write `key: value` with a name such as `version` as the key", e.what)
}

// plainKeys checks that every key of the mappings in n is a scalar
// (errKey otherwise), and makes a null key ("~:", "null:") the string it
// is written as, as a reader of the file sees it, rather than one the
// decoder would print as "<nil>". withinValues has bounded the tree.
func plainKeys(n *yaml.Node, depth int) error {
	if depth > maxDepth {
		return nil // the decoder refuses it
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			switch k.Kind {
			case yaml.SequenceNode:
				return errKey{line: k.Line, what: "a list"}
			case yaml.MappingNode:
				return errKey{line: k.Line, what: "a map"}
			case yaml.ScalarNode:
				if k.ShortTag() == "!!null" {
					k.Tag = "!!str"
				}
			}
		}
	}
	for _, c := range n.Content {
		if err := plainKeys(c, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// scalarsAsWritten returns the top-level values of doc that YAML reads as
// booleans, numbers or dates, as written, by key.
func scalarsAsWritten(doc *yaml.Node) map[string]string {
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		return nil
	}
	var written map[string]string
	pairs := doc.Content[0].Content
	for i := 0; i+1 < len(pairs); i += 2 {
		v := pairs[i+1]
		if v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		if v.Kind != yaml.ScalarNode {
			continue
		}
		switch v.ShortTag() {
		case "!!bool", "!!int", "!!float", "!!timestamp":
			if written == nil {
				written = map[string]string{}
			}
			written[pairs[i].Value] = v.Value
		}
	}
	return written
}

// withinValues reports whether the node tree n expands to at most limit
// values, counting each alias as the values of its anchor, without
// expanding anything: the size of each anchored node is computed once.
func withinValues(n *yaml.Node, limit int) bool {
	sizes := map[*yaml.Node]int{} // -1 while being counted: an alias to it is a cycle
	var size func(n *yaml.Node) int
	size = func(n *yaml.Node) int {
		if s, ok := sizes[n]; ok {
			if s < 0 {
				return limit + 1
			}
			return s
		}
		sizes[n] = -1
		total := 1
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			total = size(n.Alias)
		}
		for _, c := range n.Content {
			if total > limit {
				break
			}
			total += size(c)
		}
		sizes[n] = total
		return total
	}
	return size(n) <= limit
}

// normalize turns map[any]any (YAML allows non-string keys) into
// map[string]any, recursively.
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			v[k] = normalize(e)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, e := range v {
			m[fmt.Sprint(k)] = normalize(e)
		}
		return m
	case []any:
		for i, e := range v {
			v[i] = normalize(e)
		}
		return v
	}
	return v
}

// topLevelPlain matches a top-level "key: value" line whose value is a plain
// (unquoted, not block, not flow) scalar.
var topLevelPlain = regexp.MustCompile(`^([A-Za-z0-9_-]+):[ \t]+([^'"|>\[{&*!#%@` + "`" + `\s].*)$`)

func quoteColonValues(front []byte) ([]byte, bool) {
	lines := strings.Split(string(front), "\n")
	changed := false
	for i, line := range lines {
		m := topLevelPlain.FindStringSubmatch(line)
		if m == nil || !strings.Contains(m[2], ": ") {
			continue
		}
		val := strings.TrimRight(m[2], " \t")
		lines[i] = m[1] + ": '" + strings.ReplaceAll(val, "'", "''") + "'"
		changed = true
	}
	return []byte(strings.Join(lines, "\n")), changed
}

// yamlDiagnostic turns an error of ParseFrontMatter into a Diagnostic
// whose line counts from the top of the file (the opening "---" is line
// 1).
func yamlDiagnostic(path string, front []byte, err error) Diagnostic {
	d := Diagnostic{Severity: Error, Path: path, Rule: "yaml"}
	if errors.Is(err, ErrTooComplex) {
		d.Rule = "yaml-too-complex"
		d.Message = err.Error() + "; the skill is skipped (write the values out rather than through anchors and aliases)"
		return d
	}
	var key errKey
	if errors.As(err, &key) {
		d.Line = key.line + 1
		d.Message = "front matter is not a map of names to values: " + err.Error()
		return d
	}
	var notMap errNotMap
	if errors.As(err, &notMap) {
		d.Line = firstContentLine(front)
		d.Message = err.Error()
		return d
	}
	line, msg := yamlerr.Locate(front, 1, err, func(b []byte) error { _, _, err := unmarshalMap(b); return err })
	if line == 0 {
		if l, m := yamlerr.BadChar(front); l > 0 {
			line, msg = l+1, m
		}
	}
	d.Line = line
	d.Message = "front matter is " + msg
	return d
}

// firstContentLine is the line, counted from the top of the file, of the
// first line of front that is neither blank nor a comment; 0 when none is.
func firstContentLine(front []byte) int {
	for i, line := range strings.Split(string(front), "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			return i + 2
		}
	}
	return 0
}
