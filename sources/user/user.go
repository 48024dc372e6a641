// Package user is the source provider for a person's own skill folders,
// the ones each client reads from the home folder: ~/.claude/skills,
// ~/.agents/skills (where flat markdown notes with front matter are served
// as learned skills too), the Codex folder ($CODEX_HOME/skills or
// ~/.codex/skills, without Codex's own built-ins in its .system folder),
// ~/.cursor/skills, ~/.copilot/skills, and the machine-wide Codex folder
// /etc/codex/skills. Missing folders are normal and silent.
package user

import (
	"context"
	"io"
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
	// ClaudeDir replaces ~/.claude, as $CLAUDE_CONFIG_DIR does for Claude
	// Code.
	ClaudeDir string
	// AdminDir replaces /etc/codex/skills, the folder an administrator
	// fills for every user of the machine.
	AdminDir string
	// Trees is the base of the options of each folder's tree (Defer,
	// Debounce, bounds); the source sets the name, scope and the like.
	Trees dirtree.Options
}

// DefaultAdminDir is the machine-wide Codex skill folder.
const DefaultAdminDir = "/etc/codex/skills"

// CodexSystemDir is the sub-folder of the Codex skill folder that holds
// Codex's own built-in skills. They are Codex's, not the person's, so the
// user source leaves them out; a dir source can name the folder to serve
// them.
const CodexSystemDir = ".system"

// Source lists the skills of one person's folders.
type Source struct {
	name string
	all  sources.Source
}

var _ sources.Source = (*Source)(nil)

// Folder is one of the user folders, in precedence order.
type Folder struct {
	Path       string
	Convention string
}

// Folders returns the user folders of the home folder home, in precedence
// order: ~/.claude/skills, ~/.agents/skills, the Codex folder,
// ~/.cursor/skills, ~/.copilot/skills, /etc/codex/skills.
func Folders(home string, opts *Options) []Folder {
	claude, codex, admin := filepath.Join(home, ".claude"), filepath.Join(home, ".codex"), DefaultAdminDir
	if opts != nil {
		if opts.ClaudeDir != "" {
			claude = opts.ClaudeDir
		}
		if opts.CodexHome != "" {
			codex = opts.CodexHome
		}
		if opts.AdminDir != "" {
			admin = opts.AdminDir
		}
	}
	return []Folder{
		{filepath.Join(claude, "skills"), sources.ConventionClaudeUser},
		{filepath.Join(home, ".agents", "skills"), sources.ConventionAgentsUser},
		{filepath.Join(codex, "skills"), sources.ConventionCodexUser},
		{filepath.Join(home, ".cursor", "skills"), sources.ConventionCursorUser},
		{filepath.Join(home, ".copilot", "skills"), sources.ConventionCopilotUser},
		{admin, sources.ConventionCodexAdmin},
	}
}

// New returns the Source for the home folder home.
func New(home string, opts *Options) *Source {
	s := &Source{name: "user"}
	var base dirtree.Options
	if opts != nil {
		if opts.Name != "" {
			s.name = opts.Name
		}
		base = opts.Trees
	}
	var trees []sources.Source
	for _, f := range Folders(home, opts) {
		o := base
		o.Name, o.Scope, o.Optional, o.Convention = s.name, sources.ScopeUser, true, f.Convention
		switch f.Convention {
		case sources.ConventionAgentsUser:
			o.Learned = true
		case sources.ConventionCodexUser:
			o.Skip = []string{CodexSystemDir}
		}
		trees = append(trees, dirtree.New(f.Path, &o))
	}
	s.all = sources.Concat(s.name, trees...)
	return s
}

var (
	_ sources.Watcher = (*Source)(nil)
	_ io.Closer       = (*Source)(nil)
)

// Name implements sources.Source.
func (s *Source) Name() string { return s.name }

// List implements sources.Source.
func (s *Source) List(ctx context.Context) (*sources.Listing, error) { return s.all.List(ctx) }

// Watch implements sources.Watcher: it watches each folder.
func (s *Source) Watch(ctx context.Context, changed func()) error {
	return s.all.(sources.Watcher).Watch(ctx, changed)
}

// Close implements io.Closer.
func (s *Source) Close() error { return sources.Close(s.all) }

// Places returns the user folders read (see sources.Places).
func (s *Source) Places() []string { return sources.Places(s.all) }
