package sources

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// scanFrontMatter reads the summary of a front matter (see frontSummary)
// straight from its bytes, without the YAML library, which costs tens of
// microseconds and kilobytes per file: most of the start-up time of a
// large catalog.
//
// It reads the block YAML that SKILL.md files are written in: a mapping of
// plain or quoted keys; values that are plain scalars (over several lines
// too), single- and double-quoted scalars (escapes, line folding), literal
// and folded block scalars (chomping and indentation indicators), block
// sequences and mappings nested to any depth, flow sequences, flow
// mappings (except as the name or the description), and comments. It
// decodes the name, the description and the two flags exactly as yaml.v3
// does, plain scalars resolved to booleans, numbers and null by yaml.v3's
// rules; other values are only checked and skipped.
//
// It reports false, "not sure", for anything whose YAML meaning it cannot
// be certain of: anchors, aliases, tags, complex keys, merge keys,
// timestamps, duplicate keys, tabs, document markers, byte order marks and
// other unusual characters, keys outside a plain alphabet, comments inside
// flow collections, lines of a flow collection or of a quoted scalar not
// indented past their parent, too many keys or too deep a nesting, and
// everything YAML rejects. The caller then asks the YAML library. When it
// reports true, the YAML library (unmarshalMap) accepts the front matter
// and yields the same summary: FuzzScanFrontMatter checks this.
//
// The strings of the summary may share front's memory: front must not
// change after.
func scanFrontMatter(front []byte) (frontSummary, bool) { return scanFront(front, nil) }

// scanFront is scanFrontMatter, which also passes every top-level key and
// its value to every, when not nil, for tests to compare: plain scalars
// whose resolution it is not sure of are left out.
func scanFront(front []byte, every func(key string, v fieldValue)) (frontSummary, bool) {
	sum := frontSummary{userInvocable: true}
	if !printable(front) {
		return sum, false
	}
	s := frontScanner{src: front, every: every}
	switch ind := s.toContent(); {
	case ind < 0: // nothing but blank lines and comments: an empty map
		return sum, true
	case ind > 0:
		return sum, false
	}
	if !s.blockMap(0, &sum) {
		return sum, false
	}
	s.values += 2 // the document and its mapping
	if s.values > MaxValues {
		return sum, false
	}
	slices.Sort(sum.keys)
	return sum, true
}

// Bounds of the scanner: past them it is not sure, and the YAML library
// decides. Real front matter stays far inside them.
const (
	scanMaxDepth  = 32  // nested collections
	scanMaxKeys   = 64  // keys of one mapping, compared pairwise for duplicates
	scanMaxKeyLen = 128 // bytes of one key (YAML caps implicit keys at 1024)
)

// place says where a node starts, which decides what it may be.
type place uint8

const (
	afterKey  place = iota // on its key's line: a scalar or a flow collection
	afterDash              // after "- ": a mapping too
	ownLine                // first on its line: a sequence too
)

// frontScanner reads one front matter. Its methods report false when they
// are not sure; those that read a node start at its first byte and stop at
// the start of the line after it.
type frontScanner struct {
	src       []byte
	pos       int    // offset of the next byte to read
	lineStart int    // offset of the start of pos's line
	values    int    // YAML values met so far, for MaxValues
	depth     int    // collections being read
	keys      []span // keys of the nested mappings being read, innermost last
	flowMaps  int    // flow mappings read so far
	plainText []byte // the text of the last plain scalar read, unresolved
	plainSrc  bool   // plainText is a part of src, not of buf
	buf       []byte // scratch for decoding scalars
	every     func(key string, v fieldValue)
}

// span is the text of a key, src[from:to], and whether it was quoted.
type span struct {
	from, to int
	quoted   bool
}

func (s *frontScanner) enter() bool { s.depth++; return s.depth <= scanMaxDepth }
func (s *frontScanner) leave()      { s.depth-- }

// blankAt reports whether src[i] is a space, a line break or the end.
func (s *frontScanner) blankAt(i int) bool {
	return i >= len(s.src) || s.src[i] == ' ' || s.src[i] == '\n'
}

// dashAt reports whether a block sequence entry ("-" and a blank) starts
// at src[i].
func (s *frontScanner) dashAt(i int) bool {
	return i < len(s.src) && s.src[i] == '-' && s.blankAt(i+1)
}

func (s *frontScanner) skipSpaces() {
	for s.pos < len(s.src) && s.src[s.pos] == ' ' {
		s.pos++
	}
}

// skipLine moves to the start of the next line.
func (s *frontScanner) skipLine() {
	if i := bytes.IndexByte(s.src[s.pos:], '\n'); i >= 0 {
		s.pos += i + 1
	} else {
		s.pos = len(s.src)
	}
	s.lineStart = s.pos
}

// endLine accepts the rest of the line when it holds only spaces and
// perhaps a comment, and moves to the start of the next line.
func (s *frontScanner) endLine() bool {
	i := s.pos
	for i < len(s.src) && s.src[i] == ' ' {
		i++
	}
	if i < len(s.src) && s.src[i] != '\n' && (s.src[i] != '#' || i == s.pos) {
		return false
	}
	s.pos = i
	s.skipLine()
	return true
}

// toContent moves from the start of a line past empty lines and comment
// lines, to the start of the next line that holds something else, and
// returns its indentation; -1 at the end of the input.
func (s *frontScanner) toContent() int {
	for s.pos < len(s.src) {
		s.lineStart = s.pos
		i := s.pos
		for i < len(s.src) && s.src[i] == ' ' {
			i++
		}
		if i < len(s.src) && s.src[i] != '\n' && s.src[i] != '#' {
			return i - s.pos
		}
		s.pos = i
		s.skipLine()
	}
	return -1
}

// blockMap reads a block mapping whose keys are at column indent, from its
// first key. sum is non-nil for the top-level mapping, whose keys and
// fields it records.
func (s *frontScanner) blockMap(indent int, sum *frontSummary) bool {
	if !s.enter() {
		return false
	}
	defer s.leave()
	mark := len(s.keys)
	defer func() { s.keys = s.keys[:mark] }()
	for {
		k, ok := s.key()
		if !ok || sum == nil && !s.newKey(mark, k) { // topEntry checks top-level keys
			return false
		}
		s.values += 2
		if sum == nil {
			if _, ok := s.value(indent, false); !ok {
				return false
			}
		} else if !s.topEntry(k, sum) {
			return false
		}
		switch ind := s.toContent(); {
		case ind < indent:
			return true
		case ind > indent:
			return false
		default:
			s.pos += ind
		}
	}
}

// topEntry reads the value of the top-level key k and records what the
// summary needs.
func (s *frontScanner) topEntry(k span, sum *frontSummary) bool {
	text := s.src[k.from:k.to]
	if len(sum.keys) >= scanMaxKeys {
		return false
	}
	for _, o := range sum.keys {
		if o == string(text) {
			return false // YAML refuses duplicates
		}
	}
	name := knownKey(text)
	if name == "" {
		if !k.quoted {
			// A plain key must be a string for the YAML library to
			// give the same map.
			if v, ok := resolvePlain(text, true); !ok || v.kind != stringValue {
				return false
			}
		}
		name = view(text)
	}
	if sum.keys == nil {
		sum.keys = make([]string, 0, 8)
	}
	sum.keys = append(sum.keys, name)
	field := false
	switch name {
	case "name", "description", "disable-model-invocation", "user-invocable":
		field = true
	}
	if !field && s.every == nil {
		_, ok := s.value(0, false)
		return ok
	}
	flowMaps := s.flowMaps
	v, ok := s.value(0, true)
	if !ok {
		return false
	}
	sure := true
	if v.kind == plainValue {
		v, sure = resolvePlain(s.plainText, s.plainSrc)
	}
	if s.every != nil && sure {
		s.every(name, v)
	}
	if !field {
		return true
	}
	if !sure || s.flowMaps != flowMaps && (name == "name" || name == "description") {
		return false
	}
	switch name {
	case "name":
		sum.name = v
	case "description":
		sum.description = v
	case "disable-model-invocation":
		sum.disableModelInvocation = v.kind == boolValue && isTrue(v.text)
		sum.disableValue = v
	case "user-invocable":
		sum.userInvocable = v.kind != boolValue || isTrue(v.text)
		sum.userValue = v
	}
	return true
}

// isTrue reports whether s, the text of a YAML boolean, is true.
func isTrue(s string) bool { return s[0] == 't' || s[0] == 'T' }

// knownKey returns the key as the constant string of a field the
// specification or a client defines, so that reading it allocates
// nothing; "" for any other key.
func knownKey(k []byte) string {
	switch string(k) {
	case "name":
		return "name"
	case "description":
		return "description"
	case "license":
		return "license"
	case "compatibility":
		return "compatibility"
	case "metadata":
		return "metadata"
	case "allowed-tools":
		return "allowed-tools"
	case "version":
		return "version"
	case "user-invocable":
		return "user-invocable"
	case "argument-hint":
		return "argument-hint"
	case "disable-model-invocation":
		return "disable-model-invocation"
	case "model":
		return "model"
	case "context":
		return "context"
	case "agent":
		return "agent"
	case "hooks":
		return "hooks"
	case "when_to_use":
		return "when_to_use"
	case "tools":
		return "tools"
	}
	return ""
}

// key reads a mapping key and the ':' after it, which must be followed by
// a blank. A key is plain, of letters, digits and "_-./" starting with a
// letter, a digit or '_', or quoted on one line without escapes.
func (s *frontScanner) key() (span, bool) {
	var k span
	switch c := s.src[s.pos]; {
	case c == '"' || c == '\'':
		i := s.pos + 1
		for i < len(s.src) && s.src[i] != c {
			if s.src[i] == '\n' || s.src[i] == '\\' {
				return k, false
			}
			i++
		}
		if i == len(s.src) || c == '\'' && i+1 < len(s.src) && s.src[i+1] == '\'' {
			return k, false
		}
		k = span{s.pos + 1, i, true}
		s.pos = i + 1
	case isKeyStart(c):
		i := s.pos + 1
		for i < len(s.src) && (isKeyStart(s.src[i]) || s.src[i] == '-' || s.src[i] == '.' || s.src[i] == '/') {
			i++
		}
		k = span{s.pos, i, false}
		s.pos = i
	default:
		return k, false
	}
	if k.to-k.from > scanMaxKeyLen || s.pos >= len(s.src) || s.src[s.pos] != ':' || !s.blankAt(s.pos+1) {
		return k, false
	}
	s.pos++
	return k, true
}

func isKeyStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// newKey records k among the keys of the mapping whose keys start at
// s.keys[mark], unless it is already there: YAML refuses duplicates.
func (s *frontScanner) newKey(mark int, k span) bool {
	if len(s.keys)-mark >= scanMaxKeys {
		return false
	}
	text := s.src[k.from:k.to]
	for _, o := range s.keys[mark:] {
		if bytes.Equal(s.src[o.from:o.to], text) {
			return false
		}
	}
	s.keys = append(s.keys, k)
	return true
}

// value reads the value of a block mapping entry whose key is at column
// parent, from just after the ':'.
func (s *frontScanner) value(parent int, want bool) (fieldValue, bool) {
	if !s.endLine() {
		s.skipSpaces()
		return s.node(parent, afterKey, want)
	}
	switch ind := s.toContent(); {
	case ind > parent:
		s.pos += ind
		return s.node(parent, ownLine, want)
	case ind == parent && s.dashAt(s.pos+ind):
		s.pos += ind
		return fieldValue{kind: listValue}, s.blockSeq(parent)
	}
	return fieldValue{kind: nullValue}, true
}

// node reads a value inside a block collection at column parent. When want
// is true, it decodes a scalar: a quoted or block scalar into the value, a
// plain one (of kind plainValue) into plainText, for the caller to
// resolve; otherwise the value is checked and skipped, and its text is
// left empty.
func (s *frontScanner) node(parent int, at place, want bool) (fieldValue, bool) {
	col := s.pos - s.lineStart
	switch c := s.src[s.pos]; c {
	case '"', '\'':
		if at != afterKey && s.quotedKeyAhead() {
			return fieldValue{kind: mapValue}, s.blockMap(col, nil)
		}
		v, ok := s.quoted(parent, want)
		return v, ok && s.endLine()
	case '|', '>':
		return s.blockScalar(parent, c == '|', want)
	case '[':
		return fieldValue{kind: listValue}, s.flow(parent) && s.endLine()
	case '{':
		return fieldValue{kind: mapValue}, s.flow(parent) && s.endLine()
	case '-', '?', ':':
		if s.blankAt(s.pos + 1) {
			if c == '-' && at == ownLine {
				return fieldValue{kind: listValue}, s.blockSeq(col)
			}
			return fieldValue{}, false
		}
	case ',', ']', '}', '#', '&', '*', '!', '%', '@', '`':
		return fieldValue{}, false
	}
	if at != afterKey && s.plainKeyAhead() {
		return fieldValue{kind: mapValue}, s.blockMap(col, nil)
	}
	return s.plain(parent, want)
}

// plainKeyAhead reports whether the plain scalar at pos ends on its line
// with ':' and a blank, which makes it a mapping key.
func (s *frontScanner) plainKeyAhead() bool {
	for i := s.pos; i < len(s.src); i++ {
		switch s.src[i] {
		case '\n':
			return false
		case ':':
			if s.blankAt(i + 1) {
				return true
			}
		case '#':
			if s.src[i-1] == ' ' {
				return false
			}
		}
	}
	return false
}

// quotedKeyAhead reports whether the quoted scalar at pos closes on its
// line and is followed by ':', which makes it a mapping key.
func (s *frontScanner) quotedKeyAhead() bool {
	q := s.src[s.pos]
	for i := s.pos + 1; i < len(s.src) && s.src[i] != '\n'; i++ {
		switch c := s.src[i]; {
		case c == '\\' && q == '"':
			i++ // the escaped byte, unless it is a line break
			if i < len(s.src) && s.src[i] == '\n' {
				return false
			}
		case c == q && q == '\'' && i+1 < len(s.src) && s.src[i+1] == '\'':
			i++
		case c == q:
			for i++; i < len(s.src) && s.src[i] == ' '; i++ {
			}
			return i < len(s.src) && s.src[i] == ':'
		}
	}
	return false
}

// blockSeq reads a block sequence whose "- " are at column indent, from
// its first "-".
func (s *frontScanner) blockSeq(indent int) bool {
	if !s.enter() {
		return false
	}
	defer s.leave()
	for {
		s.values++
		s.pos++ // the '-'
		if s.endLine() {
			if ind := s.toContent(); ind > indent {
				s.pos += ind
				if _, ok := s.node(indent, ownLine, false); !ok {
					return false
				}
			}
		} else {
			s.skipSpaces()
			if _, ok := s.node(indent, afterDash, false); !ok {
				return false
			}
		}
		ind := s.toContent()
		if ind != indent {
			return ind < indent
		}
		if !s.dashAt(s.pos + ind) {
			return true // the caller decides what the line is
		}
		s.pos += ind
	}
}

// plain reads a plain scalar in a block collection at column parent:
// lines indented past parent continue it, folded as YAML does. When want
// is true, it leaves the text in plainText, for the caller to resolve.
func (s *frontScanner) plain(parent int, want bool) (fieldValue, bool) {
	out := s.buf[:0]
	first, firstEnd := s.pos, s.pos
	multi := false
	for {
		start, end := s.pos, s.pos
		comment := false
	line:
		for s.pos < len(s.src) {
			switch s.src[s.pos] {
			case '\n':
				break line
			case ' ':
				s.pos++
				if s.pos < len(s.src) && s.src[s.pos] == '#' {
					comment = true
					break line
				}
			case ':':
				if s.blankAt(s.pos + 1) {
					return fieldValue{}, false // a mapping value where none may be
				}
				s.pos++
				end = s.pos
			default:
				s.pos++
				end = s.pos
			}
		}
		if multi {
			out = append(out, s.src[start:end]...)
		} else {
			firstEnd = end
		}
		if comment || s.pos == len(s.src) {
			s.skipLine()
			break
		}
		// A line indented past parent, after empty lines, continues the
		// scalar, unless it is a comment.
		i, breaks := s.pos+1, 0
		j := i
		for {
			for j < len(s.src) && s.src[j] == ' ' {
				j++
			}
			if j < len(s.src) && s.src[j] == '\n' {
				breaks++
				i = j + 1
				j = i
				continue
			}
			break
		}
		if j == len(s.src) || j-i <= parent || s.src[j] == '#' {
			s.skipLine()
			break
		}
		if want {
			if !multi {
				out = append(out, s.src[first:firstEnd]...)
			}
			if breaks == 0 {
				out = append(out, ' ')
			}
			for range breaks {
				out = append(out, '\n')
			}
		}
		multi = true
		s.pos, s.lineStart = j, i
	}
	if !want {
		return fieldValue{}, true
	}
	s.plainText, s.plainSrc = s.src[first:firstEnd], true
	if multi {
		s.plainText, s.plainSrc = out, false
		s.buf = out[:0]
	}
	return fieldValue{kind: plainValue}, true
}

// quoted reads a single- or double-quoted scalar; its lines after the first
// must be empty or indented past parent.
func (s *frontScanner) quoted(parent int, want bool) (fieldValue, bool) {
	q := s.src[s.pos]
	s.pos++
	start := s.pos
	out := s.buf[:0]
	verbatim := true // out is src[start:pos]: no escape, doubled quote or line break
	for {
		if s.pos >= len(s.src) {
			return fieldValue{}, false
		}
		switch c := s.src[s.pos]; {
		case c == '\'' && q == '\'' && s.pos+1 < len(s.src) && s.src[s.pos+1] == '\'':
			out = append(out, '\'')
			s.pos += 2
			verbatim = false
		case c == q:
			s.pos++
			if !want {
				return fieldValue{}, true
			}
			s.buf = out[:0]
			if verbatim {
				return fieldValue{kind: stringValue, text: view(s.src[start : s.pos-1])}, true
			}
			return fieldValue{kind: stringValue, text: string(out)}, true
		case c == '\\' && q == '"':
			verbatim = false
			var ok bool
			if out, ok = s.escape(parent, out); !ok {
				return fieldValue{}, false
			}
		case c == ' ' || c == '\n':
			j := s.pos
			for j < len(s.src) && s.src[j] == ' ' {
				j++
			}
			if j == len(s.src) || s.src[j] != '\n' {
				out = append(out, s.src[s.pos:j]...)
				s.pos = j
				continue
			}
			// Spaces before a line break are dropped; one break is a
			// space, and each further one a line feed.
			s.pos = j
			verbatim = false
			breaks, ok := s.quotedBreaks(parent)
			if !ok {
				return fieldValue{}, false
			}
			if breaks == 1 {
				out = append(out, ' ')
			}
			for range breaks - 1 {
				out = append(out, '\n')
			}
		default:
			out = append(out, c)
			s.pos++
		}
	}
}

// quotedBreaks reads, inside a quoted scalar, the line breaks at pos and
// the spaces that start the lines after them, and returns how many breaks
// it read; the line it stops on must be indented past parent.
func (s *frontScanner) quotedBreaks(parent int) (int, bool) {
	breaks := 0
	for s.pos < len(s.src) && s.src[s.pos] == '\n' {
		breaks++
		s.pos++
		s.lineStart = s.pos
		s.skipSpaces()
	}
	if s.pos < len(s.src) && s.src[s.pos] != '\n' && s.pos-s.lineStart <= parent {
		return 0, false
	}
	return breaks, true
}

// escape decodes the escape sequence at pos in a double-quoted scalar.
func (s *frontScanner) escape(parent int, out []byte) ([]byte, bool) {
	if s.pos+1 >= len(s.src) {
		return out, false
	}
	e := s.src[s.pos+1]
	s.pos += 2
	var r rune
	switch e {
	case '\n':
		// An escaped line break vanishes with the next line's
		// indentation; further empty lines stay line feeds.
		s.pos--
		breaks, ok := s.quotedBreaks(parent)
		for range breaks - 1 {
			out = append(out, '\n')
		}
		return out, ok
	case '0':
		r = 0
	case 'a':
		r = '\a'
	case 'b':
		r = '\b'
	case 't':
		r = '\t'
	case 'n':
		r = '\n'
	case 'v':
		r = '\v'
	case 'f':
		r = '\f'
	case 'r':
		r = '\r'
	case 'e':
		r = 0x1b
	case ' ', '"', '\'', '\\':
		r = rune(e)
	case 'N':
		r = 0x85
	case '_':
		r = 0xa0
	case 'L':
		r = 0x2028
	case 'P':
		r = 0x2029
	case 'x', 'u', 'U':
		n := 2
		if e == 'u' {
			n = 4
		} else if e == 'U' {
			n = 8
		}
		if s.pos+n > len(s.src) {
			return out, false
		}
		for _, h := range s.src[s.pos : s.pos+n] {
			switch {
			case h >= '0' && h <= '9':
				r = r<<4 | rune(h-'0')
			case h >= 'a' && h <= 'f':
				r = r<<4 | rune(h-'a'+10)
			case h >= 'A' && h <= 'F':
				r = r<<4 | rune(h-'A'+10)
			default:
				return out, false
			}
		}
		if r < 0 || r >= 0xd800 && r <= 0xdfff || r > utf8.MaxRune {
			return out, false
		}
		s.pos += n
	default:
		return out, false
	}
	return utf8.AppendRune(out, r), true
}

// blockScalar reads a literal (|) or folded (>) block scalar in a block
// collection at column parent, from its indicator.
func (s *frontScanner) blockScalar(parent int, literal, want bool) (fieldValue, bool) {
	s.pos++
	chomp, increment := 0, 0 // chomp: -1 strip, 0 clip, +1 keep
	for range 2 {
		if s.pos == len(s.src) {
			break
		}
		switch c := s.src[s.pos]; {
		case (c == '-' || c == '+') && chomp == 0:
			chomp = 1
			if c == '-' {
				chomp = -1
			}
			s.pos++
		case c >= '1' && c <= '9' && increment == 0:
			increment = int(c - '0')
			s.pos++
		case c == '0':
			return fieldValue{}, false
		}
	}
	if !s.endLine() {
		return fieldValue{}, false
	}
	indent := 0
	if increment > 0 {
		indent = parent + increment
	}
	// Leading empty lines; without an indicator, the indentation is that
	// of the first non-empty line, or more if an empty line before it has
	// more spaces (and then the scalar is empty).
	src := s.src
	breaks, most := 0, 0
	i, j := s.pos, s.pos
	for {
		for j < len(src) && src[j] == ' ' && (indent == 0 || j-i < indent) {
			j++
		}
		most = max(most, j-i)
		if j < len(src) && src[j] == '\n' {
			breaks++
			i = j + 1
			j = i
			continue
		}
		break
	}
	if indent == 0 {
		indent = max(most, parent+1, 1)
	}
	out := s.buf[:0]
	lineBreak, blankStart := false, false // after the last line: its break; it started with a space
	for j-i == indent && j < len(src) {
		startsBlank := src[j] == ' '
		if want {
			switch {
			case !literal && lineBreak && !blankStart && !startsBlank:
				if breaks == 0 {
					out = append(out, ' ')
				}
			case lineBreak:
				out = append(out, '\n')
			}
			for range breaks {
				out = append(out, '\n')
			}
		}
		blankStart = startsBlank
		breaks = 0
		e := j + bytes.IndexByte(src[j:], '\n')
		if e < j {
			e = len(src)
		}
		if want {
			out = append(out, src[j:e]...)
		}
		lineBreak = e < len(src)
		i = min(e+1, len(src))
		j = i
		for {
			for j < len(src) && src[j] == ' ' && j-i < indent {
				j++
			}
			if j < len(src) && src[j] == '\n' {
				breaks++
				i = j + 1
				j = i
				continue
			}
			break
		}
	}
	s.pos, s.lineStart = i, i
	if !want {
		return fieldValue{}, true
	}
	if chomp != -1 && lineBreak {
		out = append(out, '\n')
	}
	if chomp == 1 {
		for range breaks {
			out = append(out, '\n')
		}
	}
	s.buf = out[:0]
	return fieldValue{kind: stringValue, text: string(out)}, true
}

// flow reads a flow sequence or mapping inside a block collection at
// column parent, from its bracket, to just after its closing bracket.
func (s *frontScanner) flow(parent int) bool {
	if !s.enter() {
		return false
	}
	defer s.leave()
	mark := len(s.keys)
	defer func() { s.keys = s.keys[:mark] }()
	isMap := s.src[s.pos] == '{'
	end := byte(']')
	if isMap {
		end = '}'
		s.flowMaps++
	}
	s.pos++
	for n := 0; ; n++ {
		if !s.flowSpace(parent) {
			return false
		}
		if s.src[s.pos] == end {
			s.pos++
			return true
		}
		if n > 0 {
			if s.src[s.pos] != ',' {
				return false
			}
			s.pos++
			if !s.flowSpace(parent) {
				return false
			}
			if s.src[s.pos] == end {
				s.pos++
				return true
			}
		}
		if isMap {
			k, ok := s.key()
			if !ok || !s.newKey(mark, k) || !s.flowSpace(parent) {
				return false
			}
			s.values++
		}
		s.values++
		if !s.flowNode(parent) {
			return false
		}
	}
}

// flowSpace moves past spaces and line breaks inside a flow collection to
// the next token; a line holding one must be indented past parent. A
// comment or the end of the input is not sure.
func (s *frontScanner) flowSpace(parent int) bool {
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ' ':
			s.pos++
		case '\n':
			s.pos++
			s.lineStart = s.pos
			s.skipSpaces()
			if s.pos < len(s.src) && s.src[s.pos] != '\n' && s.pos-s.lineStart <= parent {
				return false
			}
		case '#':
			return false
		default:
			return true
		}
	}
	return false
}

// flowNode reads an entry of a flow collection: a nested collection, a
// quoted scalar, or a plain scalar, which ends at a flow indicator, at
// ':' and a blank, or at the end of its line.
func (s *frontScanner) flowNode(parent int) bool {
	switch c := s.src[s.pos]; c {
	case '[', '{':
		return s.flow(parent)
	case '"', '\'':
		_, ok := s.quoted(parent, false)
		return ok
	case '-':
		if s.blankAt(s.pos + 1) {
			return false
		}
	case '?', ':', ',', ']', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`':
		return false
	}
	for s.pos < len(s.src) {
		switch s.src[s.pos] {
		case ',', '[', ']', '{', '}', '\n':
			return true
		case '?':
			return false
		case ':':
			if s.blankAt(s.pos + 1) {
				return true
			}
			if strings.IndexByte(",[]{}", s.src[s.pos+1]) >= 0 {
				return false
			}
			s.pos++
		case ' ':
			j := s.pos
			for j < len(s.src) && s.src[j] == ' ' {
				j++
			}
			if j < len(s.src) && s.src[j] == '#' {
				return false
			}
			s.pos = j
			if j == len(s.src) || s.src[j] == '\n' {
				return true
			}
		default:
			s.pos++
		}
	}
	return true
}

// printable reports whether front holds only characters that YAML reads
// as printable and that the scanner knows: line feeds, and Unicode
// printable characters other than tabs, carriage returns, NEL, line and
// paragraph separators, byte order marks and non-characters.
func printable(front []byte) bool {
	for i := 0; i < len(front); {
		c := front[i]
		if c < utf8.RuneSelf {
			if c < ' ' && c != '\n' || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(front[i:])
		if r == utf8.RuneError && n == 1 || r < 0xa0 || r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0xfffe || r == 0xffff {
			return false
		}
		i += n
	}
	return true
}

// resolvePlain reads a plain scalar as yaml.v3 does when decoding into an
// interface (resolve.go in go.yaml.in/yaml/v3): the exact words true,
// True, TRUE, false, False, FALSE are booleans; ~, null, Null, NULL are
// null; .nan, .inf and -.inf (with their capitalised forms) are floats;
// text starting with a digit or a sign is an integer when Go parses it as
// one with its underscores removed (0x, 0o, 0b and leading-zero octal
// prefixes allowed), else a float when it has YAML's float syntax; text
// starting with '.' is a float when Go parses it as one; anything else is
// a string. yes, no, on and off are strings, as in YAML 1.2. It is not
// sure of what could be a timestamp (yaml.v3 decodes one as a time.Time)
// and of the merge key "<<". The text of a value is b as written: 2.10,
// not the 2.1 the library decodes.
//
// With inSrc, b is a part of the front matter being scanned and the text
// shares its memory (see view).
func resolvePlain(b []byte, inSrc bool) (fieldValue, bool) {
	var kind valueKind
	switch string(b) {
	case "true", "True", "TRUE", "false", "False", "FALSE":
		kind = boolValue
	case "", "~", "null", "Null", "NULL":
		return fieldValue{kind: nullValue}, true
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF":
		kind = floatValue
	case "<<":
		return fieldValue{}, false
	default:
		kind = stringValue
		switch c := b[0]; {
		case c == '.':
			if _, err := strconv.ParseFloat(string(b), 64); err == nil {
				kind = floatValue
			}
		case c == '+' || c == '-' || c >= '0' && c <= '9':
			if len(b) > 4 && isDigits(b[:4]) && b[4] == '-' {
				return fieldValue{}, false // a date, perhaps
			}
			if k, ok := resolveNumber(strings.ReplaceAll(string(b), "_", "")); ok {
				kind = k
			}
		}
	}
	if inSrc {
		return fieldValue{kind: kind, text: view(b)}, true
	}
	return fieldValue{kind: kind, text: string(b)}, true
}

// view returns b, a part of the front matter being scanned, as a string
// that shares its memory. A front matter is never changed once read (a
// Skill keeps it as FrontMatter), so the names and descriptions the
// scanner returns cost no copy: at 100,000 skills, about 30 MB less.
func view(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// resolveNumber reports whether s (a plain scalar without its
// underscores) is a number as yaml.v3 reads one, and which kind: a Go
// integer of any base prefix, an unsigned one, YAML's float syntax, then
// binary and octal prefixes Go alone would refuse.
func resolveNumber(s string) (valueKind, bool) {
	if _, err := strconv.ParseInt(s, 0, 64); err == nil {
		return intValue, true
	}
	if _, err := strconv.ParseUint(s, 0, 64); err == nil {
		return intValue, true
	}
	if yamlFloat(s) {
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return floatValue, true
		}
	}
	for _, p := range []struct {
		prefix string
		base   int
	}{{"0b", 2}, {"0o", 8}} {
		if digits, ok := strings.CutPrefix(s, p.prefix); ok {
			if _, err := strconv.ParseInt(digits, p.base, 64); err == nil {
				return intValue, true
			}
			if _, err := strconv.ParseUint(digits, p.base, 64); err == nil {
				return intValue, true
			}
		} else if digits, ok := strings.CutPrefix(s, "-"+p.prefix); ok {
			if _, err := strconv.ParseInt("-"+digits, p.base, 64); err == nil {
				return intValue, true
			}
		}
	}
	return 0, false
}

// yamlFloat reports whether s has YAML's float syntax:
// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
func yamlFloat(s string) bool {
	i := 0
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	} else {
		if digits() == 0 {
			return false
		}
		if i < len(s) && s[i] == '.' {
			i++
			digits()
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func isDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
