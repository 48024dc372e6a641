package dirtree

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillmux/skillmux/sources"
)

// state is what a Tree knows of its folders after its last scan. Only the
// goroutine holding Tree.scanning touches it.
type state struct {
	rootReal string // the root's real path; empty when the root is not a usable folder
	gen      uint64 // cache generation of the last full scan
	deep     bool   // skill folders have been looked inside
	skills   map[string]*entry
	problems map[string]sources.Diagnostic // folder-level problems, by path
	bounds   bounds
	order    []*entry // the entries sorted by path; nil after a change
}

// entry is one skill (or one file refused as a skill), keyed in
// state.skills by its folder (its file, for a learned note).
type entry struct {
	path   string // the SKILL.md or the note
	real   string // the real path of the skill folder (of the note file)
	linked bool   // reached through a symlinked folder
	skill  *sources.Skill
	err    error

	files     []string // the skill's other files, once looked inside
	truncated bool
	inside    bool           // files is known
	served    *sources.Skill // skill with its file list, made once
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
	depth, skills, dirs bool
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
	for p := path; ; p = filepath.Dir(p) {
		if _, ok := s.skills[p]; ok {
			return p
		}
		if p == filepath.Dir(p) {
			return ""
		}
	}
}

// forget drops every skill and problem at or below path.
func (s *state) forget(path string) {
	for k := range s.skills {
		if within(k, path) {
			delete(s.skills, k)
			s.order = nil
		}
	}
	for k := range s.problems {
		if within(k, path) {
			delete(s.problems, k)
		}
	}
}

// put records an entry under key.
func (s *state) put(key string, e *entry) {
	s.skills[key] = e
	s.order = nil
}

// listing assembles what the state holds, in path order so that
// precedence among equal names inside one tree does not depend on
// goroutine scheduling, and with each real skill folder once: a symlink to
// a folder the walk also reached another way adds nothing. The path that
// involves no symlinked folder is kept; among linked ones, the first.
func (s *state) listing(t *Tree) *sources.Listing {
	if s.order == nil {
		s.order = make([]*entry, 0, len(s.skills))
		for _, e := range s.skills {
			s.order = append(s.order, e)
		}
		slices.SortFunc(s.order, func(a, b *entry) int { return strings.Compare(a.path, b.path) })
	}
	l := &sources.Listing{Skills: make([]*sources.Skill, 0, len(s.skills))}
	// Real folders reached without a link; only worth knowing when some
	// entry was reached through one.
	var taken map[string]bool
	if slices.ContainsFunc(s.order, func(e *entry) bool { return e.linked }) {
		taken = make(map[string]bool, len(s.skills))
		for _, e := range s.order {
			if !e.linked {
				taken[e.real] = true
			}
		}
	}
	for _, e := range s.order {
		if e.linked {
			if taken[e.real] {
				continue
			}
			taken[e.real] = true
		}
		if e.err != nil {
			l.Problems = append(l.Problems, sources.AsDiagnostic(e.path, e.err))
			continue
		}
		l.Skills = append(l.Skills, e.withFiles())
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
	if s.bounds.depth {
		l.Problems = append(l.Problems, sources.Diagnostic{Severity: sources.Warning, Path: root, Rule: "max-depth",
			Message: fmt.Sprintf("folders deeper than %d levels were not searched; skills there are not served", t.opts.MaxDepth)})
	}
	if s.bounds.skills {
		l.Problems = append(l.Problems, sources.Diagnostic{Severity: sources.Warning, Path: root, Rule: "max-skills",
			Message: fmt.Sprintf("holds more than %d skills; only the first %d are served (point the root at a smaller folder)", t.opts.MaxSkills, t.opts.MaxSkills)})
	}
	if s.bounds.dirs {
		l.Problems = append(l.Problems, sources.Diagnostic{Severity: sources.Warning, Path: root, Rule: "max-dirs",
			Message: fmt.Sprintf("stopped after visiting %d folders; some skills may be missing (point the root at a smaller folder)", t.opts.MaxDirs)})
	}
	return l
}

// withFiles returns the entry's skill with its file list, once it is
// known; the copy is made once per entry, and a Skill is never changed
// after a List returned it.
func (e *entry) withFiles() *sources.Skill {
	if !e.inside || e.skill.Kind == sources.KindLearned {
		return e.skill
	}
	if e.served == nil {
		c := *e.skill
		c.FileList = e.files
		if c.FileList == nil {
			c.FileList = []string{}
		}
		c.FileListTruncated = e.truncated
		e.served = &c
	}
	return e.served
}
