// Package project is the source provider for the skills of the workspace
// an agent works in: from each workspace folder up to its repository root
// (the nearest folder holding .git), every .claude/skills and
// .agents/skills (where flat markdown notes are served as learned skills),
// nearest first; then skills/ at the repository root (or at the workspace
// folder when it is in no repository).
package project

import (
	"context"
	"os"
	"path/filepath"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// Options configures a Source. A nil *Options means the defaults.
type Options struct {
	// Name is the source name; default "project".
	Name string
	// Home is the person's home folder. Its .claude/skills and
	// .agents/skills are theirs, not a project's, and are left to the user
	// source even when the workspace is the home folder or inside a
	// repository rooted there.
	Home string
}

// Source lists the skills of one or more workspace folders.
type Source struct {
	name string
	all  sources.Source
}

var _ sources.Source = (*Source)(nil)

// New returns the Source for the workspace folders (several when a client
// declares several roots), in precedence order.
func New(workspaces []string, opts *Options) *Source {
	s := &Source{name: "project"}
	seen := map[string]bool{}
	if opts != nil {
		if opts.Name != "" {
			s.name = opts.Name
		}
		if opts.Home != "" {
			seen[filepath.Join(opts.Home, ".claude", "skills")] = true
			seen[filepath.Join(opts.Home, ".agents", "skills")] = true
		}
	}
	var trees []sources.Source
	add := func(dir string, learned bool) {
		if seen[dir] {
			return
		}
		seen[dir] = true
		trees = append(trees, dirtree.New(dir, &dirtree.Options{Name: s.name, Scope: sources.ScopeProject, Learned: learned, Optional: true}))
	}
	for _, ws := range workspaces {
		if abs, err := filepath.Abs(ws); err == nil {
			ws = abs
		}
		top := RepoRoot(ws)
		for dir := ws; ; dir = filepath.Dir(dir) {
			add(filepath.Join(dir, ".claude", "skills"), false)
			add(filepath.Join(dir, ".agents", "skills"), true)
			if dir == top || dir == filepath.Dir(dir) {
				break
			}
		}
		add(filepath.Join(top, "skills"), false)
	}
	s.all = sources.Concat(s.name, trees...)
	return s
}

// RepoRoot returns the nearest folder at or above dir that holds .git (a
// folder, or a file in worktrees), or dir itself when there is none.
func RepoRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return dir
		}
	}
}

// Name implements sources.Source.
func (s *Source) Name() string { return s.name }

// List implements sources.Source.
func (s *Source) List(ctx context.Context) (*sources.Listing, error) { return s.all.List(ctx) }
