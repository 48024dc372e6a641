// Package user is the source provider for a person's own skill folders:
// ~/.claude/skills, ~/.agents/skills (where flat markdown notes with front
// matter are served as learned skills too) and the Codex folder,
// $CODEX_HOME/skills or ~/.codex/skills. Missing folders are normal and
// silent.
package user

import (
	"context"
	"path/filepath"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// Options configures a Source. A nil *Options means the defaults.
type Options struct {
	// Name is the source name; default "user".
	Name string
	// CodexHome replaces ~/.codex, as $CODEX_HOME does for Codex.
	CodexHome string
}

// Source lists the skills of one person's folders, in this precedence
// order: ~/.claude/skills, ~/.agents/skills, the Codex folder.
type Source struct {
	name string
	all  sources.Source
}

var _ sources.Source = (*Source)(nil)

// New returns the Source for the home folder home.
func New(home string, opts *Options) *Source {
	s := &Source{name: "user"}
	codex := filepath.Join(home, ".codex")
	if opts != nil {
		if opts.Name != "" {
			s.name = opts.Name
		}
		if opts.CodexHome != "" {
			codex = opts.CodexHome
		}
	}
	type dir struct {
		path    string
		learned bool
	}
	var trees []sources.Source
	for _, d := range []dir{
		{filepath.Join(home, ".claude", "skills"), false},
		{filepath.Join(home, ".agents", "skills"), true},
		{filepath.Join(codex, "skills"), false},
	} {
		trees = append(trees, dirtree.New(d.path, &dirtree.Options{Name: s.name, Scope: sources.ScopeUser, Learned: d.learned, Optional: true}))
	}
	s.all = sources.Concat(s.name, trees...)
	return s
}

// Name implements sources.Source.
func (s *Source) Name() string { return s.name }

// List implements sources.Source.
func (s *Source) List(ctx context.Context) (*sources.Listing, error) { return s.all.List(ctx) }
