package dirtree

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillmux/skillmux/sources"
)

// state is what a Tree knows of its folders after its last scan. Only the
// goroutine holding Tree.scanning touches it.
type state struct {
	rootReal string // the root's real path; empty when the root is not a usable folder
	bound    string // Options.Within's real path, looked up once a scan; empty without one
	gen      uint64 // cache generation of the last full scan
	deep     bool   // skill folders have been looked inside
	looked   bool   // what changed outside the skills before the watch was set has been looked for (Tree.lookOutside)
	skills   map[string]*entry
	problems map[string]sources.Diagnostic // folder-level problems, by path
	plain    map[string]bool               // folders walked that are inside no skill
	bounds   bounds
	// order holds the entries sorted by path once a listing was made, and
	// is kept so by forget and listing: an edit in a big tree costs a
	// merge, not a sort. nil means "sort everything at the next listing".
	order   []*entry
	added   []*entry // entries put since order was last made
	dropped bool     // some entry in order was forgotten or replaced
}

// entry is one skill (or one file refused as a skill), keyed in
// state.skills by its folder (its file, for a learned note).
type entry struct {
	key    string // its key in state.skills
	path   string // the SKILL.md or the note
	real   string // the real path of the skill folder (of the note file)
	linked bool   // reached through a symlinked folder
	skill  *sources.Skill
	err    error

	files     []string // the skill's other files, once looked inside
	truncated bool
	inside    bool           // files is known
	deeper    bool           // some of its folders are deeper than the walk goes: files is not all of them
	nested    bool           // the skill folder is inside another skill's
	served    *sources.Skill // skill with its file list, made once
	listedAs  *sources.Skill // what withFiles returned last
	gone      bool           // forgotten or replaced; still in state.order until the next listing
}

// keepServed gives each entry the copy with its file list that prev
// made, when nothing about the skill changed: a full rescan then returns
// the same *sources.Skill for an unchanged skill, as the Source contract
// allows, and what follows the catalog (the search index) sees no change.
func (s *state) keepServed(prev *state) {
	for k, e := range s.skills {
		p, ok := prev.skills[k]
		if ok && p.served != nil && p.skill == e.skill && p.inside && e.inside &&
			p.truncated == e.truncated && slices.Equal(p.files, e.files) {
			e.served = p.served
		}
	}
}

// bounds records which bounds a scan hit.
type bounds struct {
	// depth is the first folder, in path order, that was not searched
	// for being too deep; "" when none was.
	depth        string
	skills, dirs bool
	time         bool // the walk ran out of Options.MaxTime
}

// tooDeep records that the folder path was not searched for being too
// deep.
func (b *bounds) tooDeep(path string) {
	if b.depth == "" || path < b.depth {
		b.depth = path
	}
}

func (s *state) nextGen() uint64 {
	if s == nil {
		return 1
	}
	return s.gen + 1
}

// owner returns the key of the skill (folder, or note) that path is or is
// inside, the nearest one, or "".
func (s *state) owner(path string) string {
	for p := path; ; {
		if _, ok := s.skills[p]; ok {
			return p
		}
		up := parent(p)
		if up == p {
			return ""
		}
		p = up
	}
}

// parent is filepath.Dir for a clean path, without cleaning it again: a
// climb from a path thousands of folders deep costs each step its own
// length, not the whole path's.
func parent(p string) string {
	i := strings.LastIndexByte(p, filepath.Separator)
	vol := len(filepath.VolumeName(p))
	switch {
	case i < vol:
		if vol > 0 {
			return p[:vol]
		}
		return "."
	case i == vol:
		return p[:i+1] // the root of the volume
	}
	return p[:i]
}

// forget drops every skill and problem at or below path.
func (s *state) forget(path string) {
	prefix := path
	if !strings.HasSuffix(prefix, string(filepath.Separator)) { // "/" has one already
		prefix += string(filepath.Separator)
	}
	under := func(k string) bool { return k == path || strings.HasPrefix(k, prefix) }
	// No plain folder is inside a skill: a path in one spares the scan.
	inSkill := s.owner(path) != ""
	if s.order == nil {
		for k, e := range s.skills {
			if under(k) {
				s.drop(e)
			}
		}
	} else {
		// The entries at or below path are two runs of the sorted order:
		// the note at path itself, and the paths below path+"/" (a
		// sibling such as "path-2" sorts between the two).
		for _, p := range []string{path, prefix} {
			i, _ := slices.BinarySearchFunc(s.order, p, func(e *entry, p string) int { return strings.Compare(e.path, p) })
			for ; i < len(s.order) && under(s.order[i].path); i++ {
				if e := s.order[i]; !e.gone {
					s.drop(e)
				}
			}
		}
		for _, e := range s.added {
			if !e.gone && under(e.path) {
				s.drop(e)
			}
		}
	}
	for k := range s.problems {
		if under(k) {
			delete(s.problems, k)
		}
	}
	if !inSkill {
		for k := range s.plain {
			if under(k) {
				delete(s.plain, k)
			}
		}
	}
}

// drop removes e from the skills; listing takes it out of the order.
func (s *state) drop(e *entry) {
	delete(s.skills, e.key)
	e.gone = true
	s.dropped = true
}

// changedSince returns the paths of the folders (and notes) that appeared
// in, or went from, the plain folders since they were walked: what a
// change made between the walk and the start of a watch leaves behind.
// Each plain folder is listed once, and its listing recorded in cache, or
// only stat'ed when cache has its listing and it has not changed; no file
// is read.
func (s *state) changedSince(learnedRoot string, cache *sources.Cache) []string {
	known := map[string]bool{} // what the walk found in each plain folder
	for k := range s.skills {
		known[k] = true
	}
	for k := range s.plain {
		known[k] = true
	}
	var changed []string
	seen := map[string]bool{}
	for dir := range s.plain {
		entries, ok := cache.Folder(dir, s.gen)
		if !ok {
			var key sources.FileKey
			var err error
			if entries, key, err = sources.ReadFolder(dir); err != nil {
				changed = append(changed, dir)
				continue
			}
			cache.PutFolder(dir, key, entries, s.gen)
		}
		for _, e := range entries {
			p := join(dir, e.Name)
			seen[p] = true
			isNote := dir == learnedRoot && strings.EqualFold(filepath.Ext(e.Name), ".md")
			if (e.Type.IsDir() || e.Type&(fs.ModeSymlink|fs.ModeIrregular) != 0 || isNote) && !known[p] && !sources.SkipDir(e.Name) {
				changed = append(changed, p)
			}
		}
	}
	for k := range known {
		if parent := filepath.Dir(k); s.plain[parent] && !seen[k] {
			changed = append(changed, k) // gone
		}
	}
	return changed
}

// put records an entry under key.
func (s *state) put(key string, e *entry) {
	if old, ok := s.skills[key]; ok {
		s.drop(old)
	}
	e.key = key
	s.skills[key] = e
	if s.order != nil {
		s.added = append(s.added, e)
	}
}

// listing assembles what the state holds, in path order so that
// precedence among equal names inside one tree does not depend on
// goroutine scheduling, and with each real skill folder once: a symlink to
// a folder the walk also reached another way adds nothing.
//
// The skills nested in other skills come after all the others: a deferred
// scan finds them only after the first listing, and one that took a name
// from a skill listed before would make that name load another skill in
// the middle of a session. For the same reason, of the paths that reach
// one skill folder, one that is not nested wins (a link at the top to a
// nested skill, which the first listing had already), then one that
// involves no symlinked folder, then the first.
func (s *state) listing(t *Tree) *sources.Listing {
	s.sortOrder()
	l := &sources.Listing{Skills: make([]*sources.Skill, 0, len(s.skills))}
	nested := slices.ContainsFunc(s.order, func(e *entry) bool { return e.nested })
	passes := []bool{false, true}
	if !nested {
		passes = passes[:1]
	}
	// The entry kept for each real folder; only worth knowing when some
	// entry was reached through a link.
	var kept map[string]*entry
	if slices.ContainsFunc(s.order, func(e *entry) bool { return e.linked }) {
		kept = make(map[string]*entry, len(s.skills))
		for _, pass := range passes {
			for _, linked := range []bool{false, true} {
				for _, e := range s.order {
					if e.nested == pass && e.linked == linked && kept[e.real] == nil {
						kept[e.real] = e
					}
				}
			}
		}
	}
	for _, pass := range passes {
		top := len(l.Skills)
		for _, e := range s.order {
			if e.nested != pass || kept != nil && kept[e.real] != e {
				continue
			}
			if e.err != nil {
				l.Problems = append(l.Problems, sources.AsDiagnostic(e.path, e.err))
				continue
			}
			l.Skills = append(l.Skills, e.withFiles(&t.cache))
		}
		if pass {
			l.Nested = len(l.Skills) - top
		}
	}
	probs := make([]string, 0, len(s.problems))
	for k := range s.problems {
		probs = append(probs, k)
	}
	slices.Sort(probs)
	for _, k := range probs {
		l.Problems = append(l.Problems, s.problems[k])
	}
	root := t.root
	if s.bounds.depth != "" {
		l.Problems = append(l.Problems, sources.Diagnostic{Severity: sources.Warning, Path: s.bounds.depth, Rule: "max-depth",
			Message: fmt.Sprintf("not searched, nor any other folder deeper than %d levels below %s; skills there are not served", t.opts.MaxDepth, root)})
	}
	if s.bounds.skills {
		l.Problems = append(l.Problems, sources.Diagnostic{Severity: sources.Warning, Path: root, Rule: "max-skills",
			Message: fmt.Sprintf("holds more than %d skills; only the first %d are served (point the root at a smaller folder)", t.opts.MaxSkills, t.opts.MaxSkills)})
	}
	if s.bounds.dirs {
		l.Problems = append(l.Problems, sources.Diagnostic{Severity: sources.Warning, Path: root, Rule: "max-dirs",
			Message: fmt.Sprintf("stopped after visiting %d folders; some skills may be missing (point the root at a smaller folder)", t.opts.MaxDirs)})
	}
	if s.bounds.time {
		l.Problems = append(l.Problems, sources.Diagnostic{Severity: sources.Warning, Path: root, Rule: "max-time",
			Message: fmt.Sprintf("the first walk stopped after %s, so as to answer the client; the skills in the folders it did not reach come once the whole walk that follows reaches them (point the root at a smaller folder for a faster start)", t.opts.MaxTime)})
	}
	return l
}

// sortOrder brings state.order up to date: all entries sorted the first
// time, then the entries added since merged in and the gone ones left out.
func (s *state) sortOrder() {
	byPath := func(a, b *entry) int { return strings.Compare(a.path, b.path) }
	if s.order == nil {
		s.order = make([]*entry, 0, len(s.skills))
		for _, e := range s.skills {
			s.order = append(s.order, e)
		}
		slices.SortFunc(s.order, byPath)
		s.added, s.dropped = nil, false
		return
	}
	if len(s.added) == 0 && !s.dropped {
		return
	}
	slices.SortFunc(s.added, byPath)
	merged := make([]*entry, 0, len(s.skills))
	old, add := s.order, s.added
	for len(old) > 0 || len(add) > 0 {
		var e *entry
		if len(add) == 0 || len(old) > 0 && byPath(old[0], add[0]) <= 0 {
			e, old = old[0], old[1:]
		} else {
			e, add = add[0], add[1:]
		}
		if !e.gone {
			merged = append(merged, e)
		}
	}
	s.order, s.added, s.dropped = merged, nil, false
}

// withFiles returns the entry's skill with its file list, once it is
// known. The copy is made once per entry, and only when the skill does not
// hold that list already; it then takes the original's place in the cache,
// so that the next scan's entry for an unchanged file starts from it and
// needs no copy (and a catalog holds one Skill per skill, not two). A
// Skill is never changed after a List returned it.
//
// A skill reached through a symlinked folder carries its real path too
// (sources.Skill.RealPath), which the walk knew already: the catalog
// tells by it one folder reached by two trees, as the listing of one tree
// does by entry.real.
func (e *entry) withFiles(cache *sources.Cache) *sources.Skill {
	sk := e.listed(cache)
	if sk == e.listedAs {
		return sk // every unchanged skill, at every listing
	}
	real := e.real
	if sk.Kind != sources.KindLearned {
		real = filepath.Join(real, sources.SkillFile)
	}
	if real == sk.Path || real == sk.RealPath {
		e.listedAs = sk
		return sk
	}
	c := *sk
	c.RealPath = real
	cache.Replace(e.path, sk, &c)
	if e.skill == sk {
		e.skill = &c
	}
	if e.served == sk {
		e.served = &c
	}
	e.listedAs = &c
	return &c
}

// listed is withFiles before the real path is added.
func (e *entry) listed(cache *sources.Cache) *sources.Skill {
	if e.skill.Kind == sources.KindLearned {
		return e.skill
	}
	if e.served != nil {
		return e.served
	}
	files := e.files
	if files == nil {
		files = []string{}
	}
	switch sk := e.skill; {
	case (!e.inside || e.deeper) && sk.FileList == nil:
		// Not looked inside, or not all of it: a reader lists the
		// folder itself, as every other read of the skill's files does.
		e.served = sk
	case !e.inside || e.deeper:
		// A list from an earlier scan, which this one did not make.
		c := *sk
		c.FileList, c.FileListTruncated = nil, false
		e.served = &c
	case sk.FileList != nil && sk.FileListTruncated == e.truncated && slices.Equal(sk.FileList, files):
		e.served = sk
	default:
		c := *sk
		c.FileList, c.FileListTruncated = files, e.truncated
		e.served = &c
		cache.Replace(e.path, sk, e.served)
		e.skill = e.served // the same file: nothing keeps the first copy
	}
	return e.served
}
