package resolver

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/skillmux/skillmux/sources"
)

// Skill URIs
//
// Every file of a served skill has a URI skill://<skill-path>/<file-path>,
// as the MCP Skills extension (io.modelcontextprotocol/skills) lays out:
//
//   - <skill-path> is the qualified name that reaches the skill with each
//     ':' turned into '/': "pdf" is skill://pdf, "example-skills:pdf" is
//     skill://example-skills/pdf, and a shadowed skill, reached by its
//     alias, is under its source's name: "project:pdf" is
//     skill://project/pdf, "plugin-dir:example-skills:pdf" is
//     skill://plugin-dir/example-skills/pdf. Its last segment is always
//     the skill's name.
//   - <file-path> is the file's path in the skill folder. The entry file is
//     always SKILL.md: a learned note (a flat markdown file of its own) is
//     served as the SKILL.md of a skill that holds nothing else.
//   - skill://<skill-path> is the skill's root folder, and a trailing slash
//     (skill://<skill-path>/) asks for every file of the skill at once.
//
// Each segment is percent-encoded byte by byte: everything but the
// unreserved characters of RFC 3986 (A-Z a-z 0-9 - . _ ~) becomes %XX, so
// a name with spaces, '%' or non-ASCII letters has exactly one URI, and
// no name ever reaches the authority part undecoded (net/url would refuse
// "plugin:skill" as a host; nothing here uses net/url). A segment that
// cannot be written this way (empty, "." or "..", which only a source
// named "/" could produce) has no URI: such a skill is not served as a
// resource.
//
// Parsing is the inverse: segments are decoded once and looked up as the
// qualified name they spell, case-sensitively. An encoded '/' or '\' may
// appear in a skill path (a source's name can hold one), never in a file
// path. When a URI can be split
// into skill path and file path in several ways (a skill "pdf" with a
// folder forms/ and a plugin skill "pdf:forms"), the longest skill path
// wins: skill://pdf/forms/SKILL.md is the SKILL.md of pdf:forms, and
// pdf's own forms/ folder has no URI of its own while pdf:forms exists.

// URIScheme is the scheme of skill URIs.
const URIScheme = "skill"

const uriPrefix = URIScheme + "://"

// EntryName is the name under which a skill's entry file is addressed.
const EntryName = sources.SkillFile

// maxURIBytes bounds a URI that is parsed.
const maxURIBytes = 2*sources.MaxPathBytes + 8*sources.MaxNameBytes

// SkillURI is where one skill lives in the skill:// namespace. It is made
// from the qualified name that reaches the skill (URIOf), never from text.
// The zero SkillURI is not a skill's.
type SkillURI struct {
	path  string // the skill path, encoded: "example-skills/pdf"
	entry string // the entry file's name in the folder: SKILL.md, or a learned note's file name
}

// URIOf returns the URI of the skill m reaches, under m.Ref. ok is false
// when the Ref has a segment that cannot be written (see above).
func URIOf(m Match) (SkillURI, bool) {
	if m.Skill == nil {
		return SkillURI{}, false
	}
	segs := strings.Split(m.Ref.String(), ":")
	for i, s := range segs {
		if s == "" || s == "." || s == ".." {
			return SkillURI{}, false
		}
		segs[i] = escape(s)
	}
	return SkillURI{path: strings.Join(segs, "/"), entry: m.Skill.EntryFile()}, true
}

// IsZero reports whether u is the zero SkillURI.
func (u SkillURI) IsZero() bool { return u.path == "" }

// Path returns the encoded skill path: "example-skills/pdf".
func (u SkillURI) Path() string { return u.path }

// Root returns the URI of the skill's root folder: skill://example-skills/pdf.
func (u SkillURI) Root() string { return uriPrefix + u.path }

// Entry returns the URI of the skill's SKILL.md.
func (u SkillURI) Entry() string { return u.Root() + "/" + EntryName }

// File returns the URI of the file or folder at the slash-separated path
// name in the skill folder; "" is the root. The entry file is SKILL.md
// whatever its name on disk.
func (u SkillURI) File(name string) string {
	if name == "" {
		return u.Root()
	}
	if name == u.entry {
		return u.Entry()
	}
	var b strings.Builder
	b.Grow(len(uriPrefix) + len(u.path) + len(name) + 8)
	b.WriteString(u.Root())
	for seg := range strings.SplitSeq(name, "/") {
		b.WriteByte('/')
		b.WriteString(escape(seg))
	}
	return b.String()
}

// reservedChars are the reserved characters of RFC 3986, which a URI may
// hold as they are.
const reservedChars = ":/?#[]@!$&'()*+,;="

// unreserved reports whether c is an unreserved character of RFC 3986.
func unreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~'
}

// escape percent-encodes every byte of s that is not unreserved.
func escape(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !unreserved(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	const hexDigits = "0123456789ABCDEF"
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		if c := s[i]; unreserved(c) {
			b = append(b, c)
		} else {
			b = append(b, '%', hexDigits[c>>4], hexDigits[c&15])
		}
	}
	return string(b)
}

// ParsedURI is a skill:// URI taken apart, before it is looked up.
type ParsedURI struct {
	// Segments are the decoded path segments; none for skill://.
	Segments []string
	// Slash is true when the URI ends with '/' after at least one
	// segment: the collection of the files under it.
	Slash bool
	// separators marks the segments that held an encoded '/' or '\',
	// which only a skill path may (the name of a source can hold one).
	separators []bool
}

// Key is the same for every spelling of the URI (skill://%61lpha/x.md and
// skill://alpha/x.md) and differs for any other resource: the decoded
// segments, which hold no NUL, each followed by one, then '/' for a
// collection.
func (p ParsedURI) Key() string {
	var b strings.Builder
	for _, s := range p.Segments {
		b.WriteString(s)
		b.WriteByte(0)
	}
	if p.Slash {
		b.WriteByte('/')
	}
	return b.String()
}

// URIError says why a URI names nothing served. It matches
// sources.ErrBadPath (with errors.Is) when the URI breaks a rule, and
// sources.ErrNotFound when it is well-formed and names nothing.
type URIError struct {
	URI string
	Err error
}

func (e *URIError) Error() string {
	u := sources.Shown(e.URI)
	if len(u) > 300 {
		u = clip(u, 300)
	}
	if errors.Is(e.Err, sources.ErrNotFound) {
		return fmt.Sprintf("%s: no skill file is served at this URI", u)
	}
	return fmt.Sprintf("%s: %v", u, e.Err)
}

func (e *URIError) Unwrap() error { return e.Err }

// errNotSkillURI means a URI is not of the skill scheme.
var errNotSkillURI = fmt.Errorf("%w: not a %s URI", sources.ErrNotFound, uriPrefix)

// ParseURI takes a skill URI apart without looking anything up. Each
// segment is percent-decoded once and must then be a plain name: not
// empty, "." or "..", with no NUL byte, no encoded '/' or '\'. A URI
// holds no raw backslash, control character or other character RFC 3986
// wants encoded (a space, a non-ASCII letter), and no query or fragment.
// Resolve then holds the file path to the rules of sources.CheckPath. The
// error is a *URIError.
func ParseURI(uri string) (ParsedURI, error) {
	fail := func(err error) (ParsedURI, error) { return ParsedURI{}, &URIError{URI: uri, Err: err} }
	rule := func(r sources.PathRule) (ParsedURI, error) {
		return fail(&sources.PathError{Path: uri, Rule: r})
	}
	if len(uri) < len(uriPrefix) || !strings.EqualFold(uri[:len(uriPrefix)], uriPrefix) {
		return fail(errNotSkillURI)
	}
	if len(uri) > maxURIBytes {
		return rule(sources.RuleTooLong)
	}
	rest := uri[len(uriPrefix):]
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; {
		case c == 0:
			return rule(sources.RuleNUL)
		case c == '\\':
			return rule(sources.RuleBackslash)
		case c < 0x20 || c == 0x7f:
			return rule(sources.RuleControl)
		case c == '?' || c == '#':
			return fail(fmt.Errorf("%w: a skill URI has no query or fragment", sources.ErrNotFound))
		case !unreserved(c) && !strings.ContainsRune(reservedChars, rune(c)) && c != '%':
			return rule(sources.RuleRaw)
		}
	}
	var p ParsedURI
	if rest == "" {
		return p, nil
	}
	if strings.HasSuffix(rest, "/") {
		p.Slash = true
		rest = rest[:len(rest)-1]
	}
	for seg := range strings.SplitSeq(rest, "/") {
		d, r, sep := unescape(seg)
		switch {
		case r != "":
		case d == "":
			r = sources.RuleEmpty
		case d == "..":
			r = sources.RuleParent
		case d == ".":
			r = sources.RuleDot
		case len(d) > sources.MaxSegmentBytes:
			r = sources.RuleTooLong
		}
		if r != "" {
			return rule(r)
		}
		p.Segments = append(p.Segments, d)
		p.separators = append(p.separators, sep)
	}
	return p, nil
}

// unescape decodes %XX sequences. It refuses a bad sequence, an encoded
// NUL and an encoded dot segment, and reports an encoded '/' or '\',
// which Resolve refuses in a file path.
func unescape(s string) (d string, r sources.PathRule, sep bool) {
	if strings.IndexByte(s, '%') < 0 {
		return s, "", false
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b = append(b, s[i])
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", sources.RuleBadEncoding, false
		}
		c := unhex(s[i+1])<<4 | unhex(s[i+2])
		switch c {
		case 0:
			return "", sources.RuleNUL, false
		case '/', '\\':
			sep = true
		}
		b = append(b, c)
		i += 2
	}
	if d := string(b); d == "." || d == ".." {
		return "", sources.RuleEncoded, false
	}
	return string(b), "", sep
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// Address is a skill URI resolved against a snapshot: a skill and a path
// in its folder, a folder above skills, or the scheme root.
type Address struct {
	// Match is the skill the URI is in; its Skill is nil when the URI
	// names skill:// itself or a folder above skills (Prefix).
	Match Match
	// URI is the skill's URI, when Match has a skill.
	URI SkillURI
	// File is the slash-separated path in the skill folder, "" for the
	// root; SKILL.md is given as the entry file's name on disk.
	File string
	// Prefix is the encoded path of a folder above skills, such as
	// "example-skills" in skill://example-skills; "" otherwise.
	Prefix string
	// Slash is true when the URI ends with '/'.
	Slash bool
}

// IsSchemeRoot reports whether the address is skill:// itself.
func (a Address) IsSchemeRoot() bool { return a.Match.Skill == nil && a.Prefix == "" }

// Resolve finds what a skill URI names in the snapshot, by the rules at
// the top of this file: the longest skill path that names a served or
// shadowed skill wins. It reads no file: whether the file exists is the
// caller's to find out. The error is a *URIError.
func (s *Snapshot) Resolve(uri string) (Address, error) {
	p, err := ParseURI(uri)
	if err != nil {
		return Address{}, err
	}
	segs := p.Segments
	for k := len(segs); k >= 1; k-- {
		m, ok := s.exact(segs[:k])
		if !ok {
			continue
		}
		u, ok := URIOf(m)
		if !ok {
			continue
		}
		if slices.Contains(p.separators[k:], true) {
			return Address{}, &URIError{URI: uri, Err: &sources.PathError{Path: uri, Rule: sources.RuleEncoded}}
		}
		a := Address{Match: m, URI: u, File: strings.Join(segs[k:], "/"), Slash: p.Slash}
		if a.File != "" {
			// The rules of paths in a skill folder, which a skill path
			// need not keep (a name may hold "%2f").
			if err := sources.CheckPath(a.File); err != nil {
				return Address{}, &URIError{URI: uri, Err: err}
			}
		}
		if a.File == EntryName {
			a.File = m.Skill.EntryFile()
		} else if m.Skill.Kind == sources.KindLearned && a.File != "" {
			// A note's folder holds other notes, which are not part of it.
			return Address{}, &URIError{URI: uri, Err: sources.ErrNotFound}
		}
		return a, nil
	}
	if len(segs) == 0 {
		return Address{Slash: p.Slash}, nil
	}
	if slices.Contains(p.separators, true) {
		return Address{}, &URIError{URI: uri, Err: &sources.PathError{Path: uri, Rule: sources.RuleEncoded}}
	}
	enc := make([]string, len(segs))
	for i, seg := range segs {
		enc[i] = escape(seg)
	}
	if prefix := strings.Join(enc, "/"); s.addresses().hasPrefix(prefix) {
		return Address{Prefix: prefix, Slash: p.Slash}, nil
	}
	return Address{}, &URIError{URI: uri, Err: sources.ErrNotFound}
}

// exact returns the served or shadowed skill whose qualified name is
// exactly segs joined with ':'.
func (s *Snapshot) exact(segs []string) (Match, bool) {
	for _, seg := range segs {
		if strings.IndexByte(seg, ':') >= 0 {
			return Match{}, false // URIOf never writes one: ':' separates segments
		}
	}
	name := strings.Join(segs, ":")
	key := sources.NameKey(name)
	if sk, ok := s.byKey[key]; ok && sk.Ref.String() == name {
		return Match{Ref: sk.Ref, Skill: sk}, true
	}
	if i, ok := s.aliases[key]; ok && s.shadowed[i].Alias.String() == name {
		sh := s.shadowed[i]
		return Match{Ref: sh.Alias, Skill: sh.Skill}, true
	}
	return Match{}, false
}

// Addressed is one skill of a snapshot with its URI.
type Addressed struct {
	URI   SkillURI
	Match Match
}

// Addresses returns every skill of the snapshot that has a URI, served and
// shadowed, sorted by URI. The caller must not modify the slice.
func (s *Snapshot) Addresses() []Addressed { return s.addresses().list }

// addressBook is the sorted list of a snapshot's skill URIs, built on
// first use: most snapshots are never asked.
type addressBook struct {
	once  sync.Once
	list  []Addressed
	paths []string // list's encoded paths, for prefix searches
}

func (s *Snapshot) addresses() *addressBook {
	b := &s.addrs
	b.once.Do(func() {
		add := func(m Match) {
			if u, ok := URIOf(m); ok {
				b.list = append(b.list, Addressed{URI: u, Match: m})
			}
		}
		for _, sk := range s.skills {
			add(Match{Ref: sk.Ref, Skill: sk})
		}
		for _, sh := range s.shadowed {
			add(Match{Ref: sh.Alias, Skill: sh.Skill})
		}
		sort.Slice(b.list, func(i, j int) bool { return b.list[i].URI.path < b.list[j].URI.path })
		b.paths = make([]string, len(b.list))
		for i, a := range b.list {
			b.paths[i] = a.URI.path
		}
	})
	return b
}

// hasPrefix reports whether some skill path starts with prefix + "/".
func (b *addressBook) hasPrefix(prefix string) bool {
	p := prefix + "/"
	i := sort.SearchStrings(b.paths, p)
	return i < len(b.paths) && strings.HasPrefix(b.paths[i], p)
}

// HasSkillsUnder reports whether the URI of some skill of the snapshot
// lies below u's root: skill://team/deploy, the root of a skill deploy of
// a source named team, lies below skill://team, a skill team's.
func (s *Snapshot) HasSkillsUnder(u SkillURI) bool { return s.addresses().hasPrefix(u.path) }

// Children returns the names (encoded segments) of the folders directly
// below the encoded path prefix ("" for skill://) that lead to skills,
// sorted and without repeats: the skill roots and folders above skills
// one level down.
func (s *Snapshot) Children(prefix string) []string {
	b := s.addresses()
	p := ""
	if prefix != "" {
		p = prefix + "/"
	}
	seen := map[string]bool{}
	var out []string
	for i := sort.SearchStrings(b.paths, p); i < len(b.paths) && strings.HasPrefix(b.paths[i], p); i++ {
		next, _, _ := strings.Cut(b.paths[i][len(p):], "/")
		if !seen[next] {
			seen[next] = true
			out = append(out, next)
		}
	}
	sort.Strings(out)
	return out
}

// TemplateValue is the encoded path of a URI as a value of a template's
// {+var}: decoded, but for the characters that {+var} would pass as they
// are and that would then mean something else in the URI ('%', '?', '#',
// and '/' in a name), which stay encoded. RFC 6570 expansion
// encodes the rest again (a space, a letter with an accent), and so does
// a client whose expansion encodes every '%' it is given (the TypeScript
// SDK's): "my skill" reaches skill://my%20skill through both, where
// "my%20skill" reached skill://my%2520skill through the second.
func TemplateValue(encoded string) string {
	if !strings.Contains(encoded, "%") {
		return encoded
	}
	var b strings.Builder
	for i := 0; i < len(encoded); i++ {
		c := encoded[i]
		if c == '%' && i+2 < len(encoded) {
			if isHex(encoded[i+1]) && isHex(encoded[i+2]) {
				if v := unhex(encoded[i+1])<<4 | unhex(encoded[i+2]); !strings.ContainsRune("%?#/", rune(v)) {
					b.WriteByte(v)
					i += 2
					continue
				}
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

// ExpandReserved is value as RFC 6570 expands {+var}: the characters a URI
// allows as they are, percent-encoded triplets too, and the rest encoded.
func ExpandReserved(value string) string {
	const allowed = "-._~:/?#[]@!$&'()*+,;="
	var b strings.Builder
	for i := 0; i < len(value); i++ {
		c := value[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte(allowed, c) >= 0:
			b.WriteByte(c)
		case c == '%' && i+2 < len(value) && isHex(value[i+1]) && isHex(value[i+2]):
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
