// Package dirtree is the source provider for a folder tree of skills: every
// SKILL.md at any depth under a root is a skill, its folder being the skill
// folder. It is what `--root`, the user folders (~/.claude/skills, ...) and
// the project folders (.claude/skills, ...) are made of.
//
// The scan reads only front matter, walks folders in parallel, skips .git
// and node_modules, searches dot-folders (collections keep skills under
// .system/ or .curated/), follows symlinked folders with loop protection,
// and bounds both depth and the number of folders visited, with a warning
// when a bound is hit.
package dirtree

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/skillmux/skillmux/sources"
)

// Defaults for Options.
const (
	DefaultMaxDepth = 16
	DefaultMaxDirs  = 100_000
)

// Options configures a Tree. The zero value is usable.
type Options struct {
	// Name is the source name; default "dir:" + the root path.
	Name string
	// Namespace qualifies every skill's name; empty gives plain names.
	Namespace string
	// Scope is recorded on every skill; default sources.ScopeRoot.
	Scope sources.Scope
	// Learned serves flat *.md files with front matter lying directly in
	// the root as skills of kind learned.
	Learned bool
	// Optional makes a missing root silent: user folders such as
	// ~/.codex/skills often do not exist. Otherwise a missing root is a
	// warning.
	Optional bool
	// MaxDepth bounds how many folders deep below the root a SKILL.md is
	// looked for; default DefaultMaxDepth.
	MaxDepth int
	// MaxDirs bounds how many folders one scan visits; default
	// DefaultMaxDirs.
	MaxDirs int
	// Skip lists sub-folders of the root, as slash-separated paths relative
	// to it, that are not searched (Codex keeps its built-in skills in
	// ~/.codex/skills/.system).
	Skip []string
	// Convention is recorded on every skill (see sources.Skill).
	Convention string
}

// Tree is a Source over one folder tree.
type Tree struct {
	root string
	opts Options
}

var _ sources.Source = (*Tree)(nil)

// New returns a Tree rooted at root (made absolute). A nil opts means the
// defaults documented on Options.
func New(root string, opts *Options) *Tree {
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	t := &Tree{root: filepath.Clean(root)}
	if opts != nil {
		t.opts = *opts
	}
	if t.opts.Name == "" {
		t.opts.Name = "dir:" + t.root
	}
	if t.opts.Scope == "" {
		t.opts.Scope = sources.ScopeRoot
	}
	if t.opts.MaxDepth <= 0 {
		t.opts.MaxDepth = DefaultMaxDepth
	}
	if t.opts.MaxDirs <= 0 {
		t.opts.MaxDirs = DefaultMaxDirs
	}
	return t
}

// Name implements sources.Source.
func (t *Tree) Name() string { return t.opts.Name }

// List implements sources.Source: it scans the tree now.
func (t *Tree) List(ctx context.Context) (*sources.Listing, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	st, err := os.Stat(t.root)
	switch {
	case errors.Is(err, fs.ErrNotExist) && t.opts.Optional:
		return &sources.Listing{}, nil
	case errors.Is(err, fs.ErrNotExist):
		return &sources.Listing{Problems: []sources.Diagnostic{{
			Severity: sources.Warning, Path: t.root, Rule: "root-missing",
			Message: "folder does not exist; no skills served from it",
		}}}, nil
	case err != nil:
		return nil, fmt.Errorf("scan %s: %w", t.root, err)
	case !st.IsDir():
		return &sources.Listing{Problems: []sources.Diagnostic{{
			Severity: sources.Warning, Path: t.root, Rule: "root-not-folder",
			Message: "is a file, not a folder; no skills served from it (give the folder that holds the skill folders)",
		}}}, nil
	}
	real, err := filepath.EvalSymlinks(t.root)
	if err != nil {
		return nil, fmt.Errorf("scan %s: %w", t.root, err)
	}
	if why := pseudoFS(real); why != "" {
		return &sources.Listing{Problems: []sources.Diagnostic{{
			Severity: sources.Warning, Path: t.root, Rule: "pseudo-fs",
			Message: "is " + why + ", where skills never live; not searched",
		}}}, nil
	}
	s := &scan{
		ctx:  ctx,
		tree: t,
		sem:  make(chan struct{}, 2*runtime.GOMAXPROCS(0)),
		seen: map[string]bool{real: true},
	}
	s.wg.Add(1)
	s.walk(t.root, real, 0, false)
	s.wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.listing(), nil
}

// scan is one run of List.
type scan struct {
	ctx  context.Context
	tree *Tree
	sem  chan struct{} // bounds the goroutines walking folders
	wg   sync.WaitGroup
	dirs atomic.Int64

	// mu guards the fields below.
	mu        sync.Mutex
	seen      map[string]bool // real paths of folders reached through symlinks, and the root
	found     []found
	problems  []sources.Diagnostic
	depthHit  bool
	budgetHit bool
}

type found struct {
	path   string
	real   string // the real path of the skill's folder
	linked bool   // reached through a symlinked folder
	skill  *sources.Skill
	err    error
}

// walk scans dir (whose real path is real) and its sub-folders; linked
// says dir was reached through a symlinked folder. It owns one count of
// s.wg.
func (s *scan) walk(dir, real string, depth int, linked bool) {
	defer s.wg.Done()
	if s.ctx.Err() != nil {
		return
	}
	if s.dirs.Add(1) > int64(s.tree.opts.MaxDirs) {
		s.mu.Lock()
		s.budgetHit = true
		s.mu.Unlock()
		return
	}
	f, err := os.Open(dir)
	if err != nil {
		s.problem(sources.Diagnostic{Severity: sources.Warning, Path: dir, Rule: "read", Message: "cannot read folder: " + err.Error()})
		return
	}
	entries, err := f.ReadDir(-1)
	f.Close()
	if err != nil && len(entries) == 0 {
		s.problem(sources.Diagnostic{Severity: sources.Warning, Path: dir, Rule: "read", Message: "cannot read folder: " + err.Error()})
		return
	}
	for _, e := range entries {
		name := e.Name()
		full := filepath.Join(dir, name)
		typ := e.Type()
		if typ&fs.ModeSymlink != 0 {
			st, err := os.Stat(full)
			if err != nil {
				continue // dangling link
			}
			typ = st.Mode().Type()
		}
		switch {
		case typ.IsDir():
			if sources.SkipDir(name) || s.skipped(full) {
				continue
			}
			sub := filepath.Join(real, name)
			viaLink := linked
			if e.Type()&fs.ModeSymlink != 0 {
				if sub, err = filepath.EvalSymlinks(full); err != nil || !s.firstVisit(sub, real) {
					continue
				}
				if why := pseudoFS(sub); why != "" {
					s.problem(sources.Diagnostic{Severity: sources.Warning, Path: full, Rule: "pseudo-fs", Message: "not searched: the link points to " + sub + ", " + why})
					continue
				}
				viaLink = true
			}
			if depth+1 > s.tree.opts.MaxDepth {
				s.mu.Lock()
				s.depthHit = true
				s.mu.Unlock()
				continue
			}
			s.wg.Add(1)
			select {
			case s.sem <- struct{}{}:
				go func() {
					defer func() { <-s.sem }()
					s.walk(full, sub, depth+1, viaLink)
				}()
			default:
				s.walk(full, sub, depth+1, viaLink)
			}
		case name == sources.SkillFile:
			// Load refuses what is not a regular file, with a reason.
			s.load(full, real, linked, sources.KindSkill)
		case !typ.IsRegular():
		case depth == 0 && s.tree.opts.Learned && strings.EqualFold(filepath.Ext(name), ".md") && hasFrontMatter(full):
			s.load(full, real, linked, sources.KindLearned)
		}
	}
}

// skipped reports whether the folder at path is one of Options.Skip.
func (s *scan) skipped(path string) bool {
	for _, rel := range s.tree.opts.Skip {
		if path == filepath.Join(s.tree.root, filepath.FromSlash(rel)) {
			return true
		}
	}
	return false
}

// firstVisit records a folder reached through a symlink and reports whether
// it should be walked: not seen before and not the folder holding the link
// or one of its ancestors (which would loop).
func (s *scan) firstVisit(target, from string) bool {
	if within(from, target) {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seen[target] {
		return false
	}
	s.seen[target] = true
	return true
}

// within reports whether path is dir or lies inside it.
func within(path, dir string) bool {
	if path == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) { // "/" has one already
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(path, dir)
}

func (s *scan) load(path, real string, linked bool, kind sources.Kind) {
	t := s.tree
	sk, err := sources.Load(path, sources.LoadOptions{Namespace: t.opts.Namespace, Source: t.opts.Name, Scope: t.opts.Scope, Kind: kind, Convention: t.opts.Convention})
	if kind == sources.KindLearned {
		real = filepath.Join(real, filepath.Base(path)) // a note is its file, not its folder
	}
	s.mu.Lock()
	s.found = append(s.found, found{path: path, real: real, linked: linked, skill: sk, err: err})
	s.mu.Unlock()
}

func (s *scan) problem(d sources.Diagnostic) {
	s.mu.Lock()
	s.problems = append(s.problems, d)
	s.mu.Unlock()
}

// listing orders what the scan found by path, so that precedence among
// equal names inside one tree does not depend on goroutine scheduling, and
// lists each real skill folder once: a symlink to a folder the walk also
// reached another way adds nothing. The path that involves no symlinked
// folder is kept; among linked ones, the first.
func (s *scan) listing() *sources.Listing {
	sort.Slice(s.found, func(i, j int) bool { return s.found[i].path < s.found[j].path })
	taken := map[string]bool{}
	for _, f := range s.found {
		if !f.linked {
			taken[f.real] = true
		}
	}
	l := &sources.Listing{}
	for _, f := range s.found {
		if f.linked {
			if taken[f.real] {
				continue
			}
			taken[f.real] = true
		}
		if f.err != nil {
			l.Problems = append(l.Problems, sources.AsDiagnostic(f.path, f.err))
			continue
		}
		l.Skills = append(l.Skills, f.skill)
	}
	sort.Slice(s.problems, func(i, j int) bool { return s.problems[i].Path < s.problems[j].Path })
	l.Problems = append(l.Problems, s.problems...)
	root := s.tree.root
	if s.depthHit {
		l.Problems = append(l.Problems, sources.Diagnostic{Severity: sources.Warning, Path: root, Rule: "max-depth",
			Message: fmt.Sprintf("folders deeper than %d levels were not searched; skills there are not served", s.tree.opts.MaxDepth)})
	}
	if s.budgetHit {
		l.Problems = append(l.Problems, sources.Diagnostic{Severity: sources.Warning, Path: root, Rule: "max-dirs",
			Message: fmt.Sprintf("stopped after visiting %d folders; some skills may be missing (point the root at a smaller folder)", s.tree.opts.MaxDirs)})
	}
	return l
}

// hasFrontMatter reports whether the file starts with a "---" line, so
// that a README.md lying beside learned notes is ignored, not an error.
func hasFrontMatter(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 8)
	n, _ := f.Read(buf)
	b := strings.TrimPrefix(string(buf[:n]), "\xef\xbb\xbf")
	return strings.HasPrefix(b, "---\n") || strings.HasPrefix(b, "---\r") || b == "---"
}
