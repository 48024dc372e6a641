package resolver

import (
	"fmt"
	"hash/maphash"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/skillmux/skillmux/internal/editdist"
	"github.com/skillmux/skillmux/sources"
)

// Input is what one source gave for one build, in precedence order.
type Input struct {
	Source  string
	Listing *sources.Listing
	// Err is set when the source as a whole could not be listed; Listing
	// is then its last good listing, or nil.
	Err error
}

// Shadowed records a skill hidden by another with the same qualified name.
type Shadowed struct {
	// Skill is the hidden skill.
	Skill *sources.Skill
	// By is the skill that is served under the name.
	By *sources.Skill
	// Alias is the source-qualified name that still reaches Skill.
	Alias sources.Ref
}

// SourceError records a source that could not be listed.
type SourceError struct {
	Source string
	Err    error
	// Stale is true when the source's last good listing is served
	// instead.
	Stale bool
}

// Snapshot is the catalog at one moment. It is immutable: build a new one
// to change anything.
type Snapshot struct {
	inputs   []Input          // what it was built from: its sources' names and warnings
	skills   []*sources.Skill // served skills, sorted by qualified name
	keys     []string         // their keys (Ref.Key), in the same order
	marks    []uint64         // their marks (markOf), in the same order
	shadowed []Shadowed
	problems []sources.Diagnostic // skipped files and source warnings
	packages []sources.Package
	failed   []SourceError
	again    []*sources.Skill // folders another path reached first (see reached)

	byKey   map[string]*sources.Skill // qualified names, case-folded
	aliases map[string]int            // aliases of shadowed skills, case-folded, to their index in shadowed
	names   nameIndex                 // short names, built on first use

	addrs addressBook // skill URIs, built on first use (uri.go)

	shadowedAt struct { // the shadowed skills by file, built on first use (find.go)
		once sync.Once
		m    map[skillFile]int
	}

	// whole is, for a view made by Excluding, the snapshot it shows part
	// of, which answers Lookup; nil for a whole snapshot.
	whole *Snapshot
}

// Build merges inputs, given in precedence order: when two skills have the
// same qualified name, the one from the earlier input (or earlier in its
// listing) is served and the other is recorded as shadowed, reachable by
// an alias that puts its source's name in front ("<source>:<name>"); but
// the skills nested in other skills' folders (sources.Listing.Nested) come
// after every input's others.
func Build(inputs []Input) *Snapshot { return build(nil, inputs) }

// build is Build knowing the snapshot before, prev (or nil): the skills
// prev served and the new one still serves keep their place in its order,
// so that a refresh sorts only what changed.
func build(prev *Snapshot, inputs []Input) *Snapshot {
	n := 0
	for _, in := range inputs {
		if in.Listing != nil {
			n += len(in.Listing.Skills)
		}
	}
	s := &Snapshot{
		inputs:  inputs,
		byKey:   make(map[string]*sources.Skill, n),
		aliases: map[string]int{},
	}
	var (
		fresh  []keyed // served, and not by prev
		losers []*sources.Skill
	)
	reached := reachedTwice(inputs)
	// A folder two sources reach is told of once, by the first.
	told := map[sources.Diagnostic]bool{}
	for _, in := range inputs {
		if in.Err != nil {
			s.failed = append(s.failed, SourceError{Source: in.Source, Err: in.Err, Stale: in.Listing != nil})
		}
		if in.Listing != nil {
			for _, d := range in.Listing.Problems {
				if !told[d] {
					told[d] = true
					s.problems = append(s.problems, d)
				}
			}
			s.packages = append(s.packages, in.Listing.Packages...)
		}
	}
	// Every source's skills that are not nested in other skills first,
	// then the nested ones (see sources.Listing.Nested).
	for i := range 2 * len(inputs) {
		in := inputs[i%len(inputs)]
		if in.Listing == nil {
			continue
		}
		all, top := in.Listing.Skills, len(in.Listing.Skills)-in.Listing.NestedCount()
		part := all[:top]
		if i >= len(inputs) {
			part = all[top:]
		}
		for _, sk := range part {
			if reached.again(sk) {
				s.again = append(s.again, sk)
				continue
			}
			key := sk.Ref.Key()
			if _, taken := s.byKey[key]; taken {
				losers = append(losers, sk)
				continue
			}
			s.byKey[key] = sk
			if prev == nil || prev.byKey[key] != sk {
				fresh = append(fresh, keyed{key, sk, markOf(sk)})
			}
		}
	}
	// Keys are unique here, so a plain sort gives the one order.
	slices.SortFunc(fresh, func(a, b keyed) int { return strings.Compare(a.key, b.key) })
	s.skills = make([]*sources.Skill, 0, len(s.byKey))
	s.keys = make([]string, 0, len(s.byKey))
	s.marks = make([]uint64, 0, len(s.byKey))
	add := func(k keyed) {
		s.skills = append(s.skills, k.sk)
		s.keys = append(s.keys, k.key)
		s.marks = append(s.marks, k.mark)
	}
	// Merge prev's skills still served, in prev's order, with the fresh
	// ones.
	var kept keyed
	i, more := 0, true
	next := func() { // the next of prev's skills still served, into kept
		more = false
		for prev != nil && i < len(prev.skills) {
			k, sk, mark := prev.keys[i], prev.skills[i], prev.marks[i]
			i++
			if s.byKey[k] == sk {
				kept, more = keyed{k, sk, mark}, true
				return
			}
		}
	}
	for next(); more || len(fresh) > 0; {
		if len(fresh) == 0 || more && kept.key < fresh[0].key {
			add(kept)
			next()
		} else {
			add(fresh[0])
			fresh = fresh[1:]
		}
	}
	var shadowedAt map[[2]string]bool // the shadowed skills' names and files
	numbered := map[string]int{}      // for aliasFor
	for _, sk := range losers {
		by := s.byKey[sk.Ref.Key()]
		at := [2]string{sk.Ref.Key(), sk.Path}
		if sk.Path == by.Path || shadowedAt[at] {
			// The same file reached again (two sources over one folder, or
			// overlapping roots): one skill, not one shadowing itself.
			continue
		}
		if shadowedAt == nil {
			shadowedAt = map[[2]string]bool{}
		}
		shadowedAt[at] = true
		sh := Shadowed{Skill: sk, By: by, Alias: s.aliasFor(sk, numbered)}
		s.aliases[sh.Alias.Key()] = len(s.shadowed)
		s.shadowed = append(s.shadowed, sh)
	}
	return s
}

// reached tells a skill folder reached again by another path (through a
// symlink) in a namespace it is served in already: keyed by
// sources.Skill.Identity, the namespaces it is served in so far. It holds
// only the folders some skill reached through a link, since only those
// can be reached twice; without links it is nil and costs nothing.
type reached map[string]map[string]bool

// reachedTwice returns the reached map of inputs, or nil when no skill
// was reached through a link.
func reachedTwice(inputs []Input) reached {
	var r reached
	for _, in := range inputs {
		if in.Listing == nil {
			continue
		}
		for _, sk := range in.Listing.Skills {
			if sk.RealPath != "" {
				if r == nil {
					r = reached{}
				}
				r[sk.RealPath] = nil
			}
		}
	}
	return r
}

// again reports whether sk is a folder an earlier skill reached already
// in the same namespace, and records it otherwise: one real folder is one
// skill of a namespace, served by the first path that reaches it, and not
// shadowed by itself, whatever name each path gives it (a link named
// pdf to a folder pdf-tools with no name: in its front matter). A folder
// reached in another namespace (a plugin's skill linked into
// ~/.claude/skills is "access" there, and "telegram:access" in its
// plugin) is served in that one too, as it is when no link is involved:
// a plugin's name for its skill never stops loading it.
func (r reached) again(sk *sources.Skill) bool {
	id := sk.Identity()
	spaces, linked := r[id]
	if !linked {
		return false
	}
	ns := sources.NameKey(sk.Ref.Namespace)
	if spaces[ns] {
		return true
	}
	if spaces == nil {
		spaces = map[string]bool{}
		r[id] = spaces
	}
	spaces[ns] = true
	return false
}

// nameIndex maps the short names of the served skills, case-folded, to
// the skills that have them, in the snapshot's order. A lookup by exact
// name never needs it, so a refresh does not build it.
type nameIndex struct {
	once     sync.Once
	m        map[string][]*sources.Skill
	accented map[string]string // the keys of m with accents: their bare forms (sources.WithoutMarks)
}

func (s *Snapshot) byName() map[string][]*sources.Skill {
	s.names.once.Do(func() {
		s.names.m = make(map[string][]*sources.Skill, len(s.skills))
		for _, sk := range s.skills {
			k := sources.NameKey(sk.Ref.Name)
			if bare := sources.WithoutMarks(k); bare != k {
				if s.names.accented == nil {
					s.names.accented = map[string]string{}
				}
				s.names.accented[k] = bare
			}
			s.names.m[k] = append(s.names.m[k], sk)
		}
	})
	return s.names.m
}

// keyed is a served skill with its key and mark, for sorting.
type keyed struct {
	key  string
	sk   *sources.Skill
	mark uint64
}

// markSeed makes marks comparable within one process, which is all a
// mark is for.
var markSeed = maphash.MakeSeed()

// markOf hashes what the catalog says of a served skill: its name as
// written, its description, and which file it is. A skill whose body
// alone was edited keeps its mark; one that a name now loads from another
// file, or whose description changed, does not.
func markOf(sk *sources.Skill) uint64 {
	var h maphash.Hash
	h.SetSeed(markSeed)
	for _, part := range [...]string{sk.Ref.String(), sk.Source, sk.Path, sk.Description} {
		h.WriteString(part)
		h.WriteByte(0)
	}
	return h.Sum64()
}

// aliasFor is the name that reaches a shadowed skill: its qualified name
// with its source's name in front ("user:pdf", "plugin-dir:example:pdf"),
// and when that is taken (one source holds the name several times), the
// source's name numbered ("user~2:pdf"). The skill's own name stays the
// last part, so an alias is a well-formed Ref whose Name is the skill's.
// next remembers, for each alias without a number, the number to try
// first for the next skill of that alias: a source holding one name a
// thousand times numbers them in one pass, not in a thousand.
func (s *Snapshot) aliasFor(sk *sources.Skill, next map[string]int) sources.Ref {
	prefix := func(src string) string {
		if sk.Ref.Namespace == "" {
			return src
		}
		return src + ":" + sk.Ref.Namespace
	}
	alias := sources.Ref{Namespace: prefix(sk.Source), Name: sk.Ref.Name}
	// Keyed by what the alias is made of, not by the alias: source "u:x"
	// and source "u" with namespace "x" make one alias, and a number the
	// one has taken must not be skipped by the other.
	base := sk.Source + "\x00" + sk.Ref.Key()
	n := max(next[base], 2)
	if n > 2 {
		alias.Namespace = prefix(sk.Source + "~" + strconv.Itoa(n))
	}
	for ; s.taken(alias.Key()); n++ {
		alias.Namespace = prefix(sk.Source + "~" + strconv.Itoa(n))
	}
	next[base] = n
	return alias
}

func (s *Snapshot) taken(key string) bool {
	_, served := s.byKey[key]
	_, aliased := s.aliases[key]
	return served || aliased
}

// Excluding returns the view of s for a client that loads some folders
// itself: without the skills whose Convention is one of conventions, nor
// those that are the same folder reached by another path (see
// sources.Skill.Identity). Leaving them out changes no name: a skill they
// shadowed stays shadowed under its alias, and Lookup finds the left-out
// ones by name as s does, since a skill asked for by name is wanted. s
// itself is unchanged.
func (s *Snapshot) Excluding(conventions []string) *Snapshot {
	if len(conventions) == 0 {
		return s
	}
	drop := map[string]bool{}
	for _, c := range conventions {
		drop[c] = true
	}
	// A folder the client loads is left out by whatever path it was
	// reached: a root that is a link to ~/.claude/skills is Claude Code's
	// folder too.
	native := map[string]bool{}
	for _, sk := range slices.Concat(s.IndexedSkills(), s.again) {
		if drop[sk.Convention] {
			native[sk.Identity()] = true
		}
	}
	v := &Snapshot{
		inputs: s.inputs, problems: s.problems, packages: s.packages, failed: s.failed,
		byKey: make(map[string]*sources.Skill, len(s.skills)), aliases: map[string]int{},
		whole: s,
	}
	for i, sk := range s.skills {
		if native[sk.Identity()] {
			continue
		}
		v.skills = append(v.skills, sk)
		v.keys = append(v.keys, s.keys[i])
		v.marks = append(v.marks, s.marks[i])
		v.byKey[s.keys[i]] = sk
	}
	for _, sh := range s.shadowed {
		if native[sh.Skill.Identity()] {
			continue
		}
		v.aliases[sh.Alias.Key()] = len(v.shadowed)
		v.shadowed = append(v.shadowed, sh)
	}
	return v
}

// Skills returns the served skills sorted by qualified name. The caller
// must not modify the slice.
func (s *Snapshot) Skills() []*sources.Skill { return s.skills }

// Keys returns the keys (Ref.Key: qualified names, case-folded) of the
// skills served, sorted; it must not be changed. It is what to keep of a
// snapshot to tell later which skills came and went: the keys, which the
// snapshot made anyway, rather than the snapshot and every skill it holds.
func (s *Snapshot) Keys() []string { return s.keys }

// Marks returns, in the order of Keys, a hash of what the catalog says of
// each skill (its name as written, its description, and which file it
// is); it must not be changed. A key whose mark differs between two
// snapshots names a skill that changed while keeping its name. Like
// Keys, it is kept instead of the snapshot: eight bytes a skill.
func (s *Snapshot) Marks() []uint64 { return s.marks }

// Len is the number of served skills.
func (s *Snapshot) Len() int { return len(s.skills) }

// Shadowed returns the skills hidden by others of the same name.
func (s *Snapshot) Shadowed() []Shadowed { return s.shadowed }

// Problems returns the files that were skipped and the warnings of sources.
func (s *Snapshot) Problems() []sources.Diagnostic { return s.problems }

// Packages returns the bundles of skills the sources considered (Claude
// Code plugins), served or not.
func (s *Snapshot) Packages() []sources.Package { return s.packages }

// Failed returns the sources that could not be listed at all.
func (s *Snapshot) Failed() []SourceError { return s.failed }

// Diagnostics returns every problem and every served or shadowed skill's
// warnings, in a stable order.
func (s *Snapshot) Diagnostics() []sources.Diagnostic {
	out := slices.Clone(s.problems)
	for _, sk := range s.skills {
		out = append(out, sk.Diagnostics...)
	}
	for _, sh := range s.shadowed {
		out = append(out, sh.Skill.Diagnostics...)
	}
	return out
}

// Match is a skill found by name, and the qualified name that reaches it.
type Match struct {
	// Ref is the skill's own qualified name, or, for a shadowed skill, the
	// alias that reaches it.
	Ref   sources.Ref
	Skill *sources.Skill
}

// Lookup finds a skill by name, case-insensitively: a qualified name
// ("plugin:skill"), the alias of a shadowed skill ("source:skill"), or a
// short name that only one skill has. It returns an *AmbiguousError when a
// short name is shared, and a *NotFoundError with the closest names
// otherwise.
//
// A view made by Excluding finds what its whole snapshot finds: leaving
// skills out of a client's listing changes no name.
func (s *Snapshot) Lookup(name string) (Match, error) {
	if s.whole != nil {
		return s.whole.Lookup(name)
	}
	if m, ok := s.Find(name); ok {
		return m, nil
	}
	name = strings.TrimSpace(name)
	key := sources.NameKey(name)
	if c := s.byName()[key]; len(c) > 1 && !strings.Contains(name, ":") {
		names := make([]string, len(c))
		for i, sk := range c {
			names[i] = sk.Ref.String()
		}
		return Match{}, &AmbiguousError{Name: name, Candidates: names}
	}
	if len(name) > maxSuggestLen {
		return Match{}, &NotFoundError{Name: clip(name, maxSuggestLen)} // no name is that long
	}
	if pkg, ok := s.unservedPackage(key); ok {
		// Another plugin's skill of the same name is not what was meant.
		return Match{}, &NotFoundError{Name: name, Package: &pkg}
	}
	if ns, _ := splitKey(key); ns != "" {
		if f, ok := s.FailedNamespace(ns); ok {
			return Match{}, &NotFoundError{Name: name, Failed: &f}
		}
	}
	return Match{}, &NotFoundError{Name: name, Suggestions: s.suggest(key), Refused: s.refusedAt(key), InFolder: s.inFolder(key)}
}

// unservedPackage returns the package (a Claude Code plugin) that the
// namespace of key names when it is not served, disabled or missing, and
// no package served under that namespace is.
func (s *Snapshot) unservedPackage(key string) (sources.Package, bool) {
	ns, _ := splitKey(key)
	if ns == "" {
		return sources.Package{}, false
	}
	var found *sources.Package
	for j, p := range s.packages {
		if p.State == sources.PackageServed || p.State == sources.PackageLeftOut {
			if sources.NameKey(p.Namespace) == ns {
				return sources.Package{}, false
			}
			continue
		}
		plugin, _, _ := strings.Cut(p.Name, "@")
		if found == nil && sources.NameKey(plugin) == ns {
			found = &s.packages[j]
		}
	}
	// The packages are few, the skills many: those are looked at only
	// for a package found. A namespace served, by a plugin or a folder,
	// has its names suggested.
	if found == nil || slices.ContainsFunc(s.skills, func(sk *sources.Skill) bool { return sources.NameKey(sk.Ref.Namespace) == ns }) {
		return sources.Package{}, false
	}
	return *found, true
}

// FailedNamespace returns the source named as the namespace ns (as a
// source plugin's is, by default) when its listing failed and none of its
// skills is served, nor any other skill in that namespace: what is asked
// for in ns is not found because of it.
func (s *Snapshot) FailedNamespace(ns string) (SourceError, bool) {
	if s.whole != nil {
		return s.whole.FailedNamespace(ns)
	}
	ns = sources.NameKey(ns)
	for _, f := range s.failed {
		if !f.Stale && sources.NameKey(f.Source) == ns &&
			!slices.ContainsFunc(s.skills, func(sk *sources.Skill) bool { return sources.NameKey(sk.Ref.Namespace) == ns }) {
			return f, true
		}
	}
	return SourceError{}, false
}

// inFolder returns the served skills whose folder is named as key's short
// name, when their front matter names them otherwise (a folder renamed, a
// name mistyped): asked for by the folder's name, they are said. A key with
// a namespace looks in that namespace alone: another plugin's skill is not
// what was meant.
func (s *Snapshot) inFolder(key string) []Folded {
	ns, short := splitKey(key)
	var out []Folded
	for _, sk := range s.skills {
		if sk.Dir != "" && len(out) < maxRefused && sources.NameKey(filepath.Base(sk.Dir)) == short && sources.NameKey(sk.Ref.Name) != short &&
			(ns == "" || sources.NameKey(sk.Ref.Namespace) == ns) {
			out = append(out, Folded{Folder: filepath.Base(sk.Dir), Skill: sk.Ref.String()})
		}
	}
	return out
}

// Folded is a served skill whose folder is named otherwise than the skill.
type Folded struct{ Folder, Skill string }

// splitKey splits a case-folded key into the namespace just before its
// short name ("" for none) and the short name.
func splitKey(key string) (ns, short string) {
	i := strings.LastIndexByte(key, ':')
	if i < 0 {
		return "", key
	}
	ns = key[:i]
	return ns[strings.LastIndexByte(ns, ':')+1:], key[i+1:]
}

// maxRefused bounds the refused files a NotFoundError names.
const maxRefused = 3

// Find is Lookup without its errors, and without their cost (the closest
// names): the skill name reaches, if one does.
func (s *Snapshot) Find(name string) (Match, bool) {
	if s.whole != nil {
		return s.whole.Find(name)
	}
	name = strings.TrimSpace(name)
	key := sources.NameKey(name)
	if sk, ok := s.byKey[key]; ok {
		return Match{Ref: sk.Ref, Skill: sk}, true
	}
	if i, ok := s.aliases[key]; ok {
		sh := s.shadowed[i]
		return Match{Ref: sh.Alias, Skill: sh.Skill}, true
	}
	if c := s.byName()[key]; len(c) == 1 && !strings.Contains(name, ":") {
		return Match{Ref: c[0].Ref, Skill: c[0]}, true
	}
	return Match{}, false
}

// refusedAt returns the errors of the entry files that were not loaded
// in a folder whose name is the last part of key (a SKILL.md whose YAML
// is broken, say), and of such folders that could not be read: the skill
// a caller asked for by that name.
func (s *Snapshot) refusedAt(key string) []sources.Diagnostic {
	short := key[strings.LastIndexByte(key, ':')+1:]
	var out []sources.Diagnostic
	for _, d := range s.problems {
		if len(out) == maxRefused {
			break
		}
		base := filepath.Base(d.Path)
		entry := d.Severity == sources.Error && base == sources.SkillFile || sources.MisnamedSkillFile(base)
		switch {
		case entry && sources.NameKey(filepath.Base(filepath.Dir(d.Path))) == short:
			out = append(out, d)
		case d.Rule == "read" && sources.NameKey(base) == short && !s.inSkillFolder(d.Path):
			out = append(out, d) // the folder itself, not a folder of a skill's files
		}
	}
	return out
}

// inSkillFolder reports whether path is inside the folder of a skill
// served.
func (s *Snapshot) inSkillFolder(path string) bool {
	for _, sk := range s.skills {
		if sk.Dir != "" && path != sk.Dir && strings.HasPrefix(path, sk.Dir+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// clip cuts s to at most n bytes on a character boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// maxSuggestLen bounds the names for which suggestions are computed:
// MaxNameBytes, past which no served name can be near.
const maxSuggestLen = sources.MaxNameBytes

// maxSuggestions bounds the names offered for an unknown one.
const maxSuggestions = 5

// maxEdits bounds the edit distance of a suggestion, and with it the
// work: edit distance within k costs about k times the name's length, so
// a long near miss against thousands of long names stays cheap.
const maxEdits = 8

// suggest returns the qualified names closest to key: by edit distance to
// the short name (or the qualified one, when key is qualified), or sharing
// a substring with it.
func (s *Snapshot) suggest(key string) []string {
	if key == "" {
		return nil
	}
	type cand struct {
		name string
		dist int
	}
	var cs []cand
	ref := sources.ParseRef(key)
	short := ref.Name
	bare := sources.WithoutMarks(short)
	limit := min(maxEdits, max(2, len(short)/3))
	names := s.byName()
	// Accents typed or not ("ete" for "été") are nearer than any typo,
	// which the bytes of an accented letter are not: the names with
	// accents, few if any, are compared without them first.
	bareDist := map[string]int{}
	for n, bn := range s.names.accented {
		if d := editdist.AtMost(bare, bn, limit); d <= limit {
			bareDist[n] = d
		}
	}
	if bare != short { // the query has accents: against every other name too
		for n := range names {
			if _, done := bareDist[n]; !done {
				if d := editdist.AtMost(bare, n, limit); d <= limit {
					bareDist[n] = d
				}
			}
		}
	}
	for n, skills := range names {
		sub := len(short) >= 3 && (strings.Contains(n, short) || strings.Contains(short, n))
		db, accent := bareDist[n]
		if abs(len(n)-len(short)) > limit && !sub && !accent {
			continue // too far apart to be a typo, and no substring
		}
		d := editdist.AtMost(short, n, limit)
		if accent {
			d = min(d, db)
		}
		for _, sk := range skills {
			dk := d
			if ref.IsQualified() {
				dk = min(dk, editdist.AtMost(key, sk.Ref.Key(), limit))
			}
			switch {
			case dk <= limit:
			case sub:
				dk = limit + 1
			default:
				continue
			}
			cs = append(cs, cand{sk.Ref.String(), dk})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for _, c := range cs {
		if len(out) == maxSuggestions {
			break
		}
		out = append(out, c.name)
	}
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// NotFoundError says no skill answers to Name; Suggestions are the closest
// names. It matches sources.ErrNotFound with errors.Is.
type NotFoundError struct {
	Name        string
	Suggestions []string
	// Refused are the errors of SKILL.md files that were not loaded, in
	// folders named as the skill asked for, and the files in them named
	// SKILL.md in other letter cases.
	Refused []sources.Diagnostic
	// InFolder are the served skills whose folder is named as the skill
	// asked for, and whose front matter names them otherwise.
	InFolder []Folded
	// Package is the plugin the name's namespace names, which is not
	// served (disabled, missing): no other skill is suggested then.
	Package *sources.Package
	// Failed is the source the name's namespace names, whose listing
	// failed: no other skill is suggested then either.
	Failed *SourceError
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("no skill named %q", e.Name)
	if p := e.Package; p != nil {
		words, ok := stateWords[p.State]
		if !ok {
			words = string(p.State)
		}
		msg += fmt.Sprintf("; the plugin %s is %s", p.Name, words)
		if p.Reason != "" {
			msg += ": " + p.Reason
		}
	}
	if f := e.Failed; f != nil {
		msg += fmt.Sprintf("; the source %s serves no skill now: %v", f.Source, f.Err)
	}
	for _, d := range e.Refused {
		at := d.Path
		if d.Line > 0 {
			at += ":" + strconv.Itoa(d.Line)
		}
		msg += fmt.Sprintf("; %s was not loaded: %s", at, d.Message)
	}
	for _, f := range e.InFolder {
		msg += fmt.Sprintf("; the folder %s holds the skill %q, as its front matter names it: load it by that name", f.Folder, f.Skill)
	}
	if len(e.Suggestions) > 0 {
		msg += "; did you mean " + strings.Join(e.Suggestions, ", ") + "?"
	}
	return msg
}

func (e *NotFoundError) Unwrap() error { return sources.ErrNotFound }

// stateWords say a package's state in a sentence, to the model.
var stateWords = map[sources.PackageState]string{
	sources.PackageDisabled:     "disabled",
	sources.PackageOtherProject: "installed for another project",
	sources.PackageNotInstalled: "enabled but not installed",
	sources.PackageMissing:      "missing",
	sources.PackageInvalid:      "not readable",
}

// AmbiguousError says a short name matches several skills; Candidates are
// their qualified names. It matches sources.ErrAmbiguous with errors.Is.
type AmbiguousError struct {
	Name       string
	Candidates []string
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q is ambiguous: it matches %s; use one of these full names", e.Name, strings.Join(e.Candidates, ", "))
}

func (e *AmbiguousError) Unwrap() error { return sources.ErrAmbiguous }
