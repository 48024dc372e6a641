// Package project is the source provider for the skills of the workspace
// an agent works in. From each workspace folder up to its repository root
// (the nearest folder holding .git), nearest first, it reads the folders
// each client reads in a project: .claude/skills, .agents/skills (where
// flat markdown notes are served as learned skills), .cursor/skills and
// .github/skills; then skills/ at the repository root (or at the workspace
// folder when it is in no repository); then, as Claude Code does in a
// monorepo, every .claude/skills in the sub-folders below the workspace
// folder, within the repository. The nested folders are looked for at
// each listing; a watcher over the sub-folders tells when to list again.
package project

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/skillmux/skillmux/internal/watch"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// Bounds of the search for nested .claude/skills folders below a
// workspace: it runs on every listing, so it must stay cheap in a large
// repository.
const (
	NestedMaxDepth = 6
	NestedMaxDirs  = 5_000
)

// Options configures a Source. A nil *Options means the defaults.
type Options struct {
	// Name is the source name; default "project".
	Name string
	// Home is the person's home folder. Its skill folders are theirs, not
	// a project's, and are left to the user source even when the
	// workspace is the home folder or inside a repository rooted there.
	Home string
	// ClaudeDir, when set ($CLAUDE_CONFIG_DIR), is the user's Claude Code
	// folder in place of ~/.claude: ~/.claude/skills is then not the
	// user's, and is a project's like any other folder's.
	ClaudeDir string
	// Trees is the base of the options of each folder's tree (Defer,
	// Debounce, bounds); the source sets the name, scope and the like.
	Trees dirtree.Options
}

// Source lists the skills of one or more workspace folders.
type Source struct {
	name       string
	trees      dirtree.Options // the base of each tree's options
	fixed      sources.Source  // the folders on the way up, and skills/
	workspaces []workspace
	home       map[string]bool // the home folder's skill folders, never a project's

	// mu guards nestedTrees.
	mu          sync.Mutex
	nestedTrees map[string]*dirtree.Tree
}

// workspace is one workspace folder and its repository root; nested
// folders are looked for below dir when it is inside a repository.
type workspace struct {
	dir, top string
	inRepo   bool
}

var _ sources.Source = (*Source)(nil)

// projectFolders are the folders read at each level from a workspace up
// to its repository root, in precedence order.
var projectFolders = []struct {
	rel, convention string
	learned         bool
}{
	{".claude/skills", sources.ConventionClaudeProject, false},
	{".agents/skills", sources.ConventionAgentsProject, true},
	{".cursor/skills", sources.ConventionCursorProject, false},
	{".github/skills", sources.ConventionCopilotProject, false},
}

// New returns the Source for the workspace folders (several when a client
// declares several roots), in precedence order.
func New(workspaces []string, opts *Options) *Source {
	s := &Source{name: "project", home: map[string]bool{}}
	if opts != nil {
		if opts.Name != "" {
			s.name = opts.Name
		}
		s.trees = opts.Trees
		if opts.Home != "" {
			for _, f := range projectFolders {
				s.home[filepath.Join(opts.Home, filepath.FromSlash(f.rel))] = true
			}
			if opts.ClaudeDir != "" {
				delete(s.home, filepath.Join(opts.Home, ".claude", "skills"))
			}
		}
	}
	seen := maps.Clone(s.home)
	var trees []sources.Source
	add := func(dir, convention string, learned bool) {
		if seen[dir] {
			return
		}
		seen[dir] = true
		trees = append(trees, dirtree.New(dir, s.treeOptions(convention, learned)))
	}
	for _, ws := range workspaces {
		if abs, err := filepath.Abs(ws); err == nil {
			ws = abs
		}
		top, inRepo := repoRoot(ws)
		for dir := ws; ; dir = filepath.Dir(dir) {
			for _, f := range projectFolders {
				add(filepath.Join(dir, filepath.FromSlash(f.rel)), f.convention, f.learned)
			}
			if dir == top || dir == filepath.Dir(dir) {
				break
			}
		}
		add(filepath.Join(top, "skills"), "", false)
		s.workspaces = append(s.workspaces, workspace{dir: ws, top: top, inRepo: inRepo})
	}
	s.fixed = sources.Concat(s.name, trees...)
	return s
}

// RepoRoot returns the nearest folder at or above dir that holds .git (a
// folder, or a file in worktrees), or dir itself when there is none.
func RepoRoot(dir string) string {
	top, _ := repoRoot(dir)
	return top
}

func repoRoot(dir string) (string, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d, true
		}
		if d == filepath.Dir(d) {
			return dir, false
		}
	}
}

// treeOptions are the options of one of the source's trees.
func (s *Source) treeOptions(convention string, learned bool) *dirtree.Options {
	o := s.trees
	o.Name, o.Scope, o.Learned, o.Optional, o.Convention = s.name, sources.ScopeProject, learned, true, convention
	return &o
}

// nestedTree returns the tree of a nested .claude/skills folder, the same
// one from listing to listing, so that what it parsed is remembered.
func (s *Source) nestedTree(dir string) *dirtree.Tree {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.nestedTrees[dir]; ok {
		return t
	}
	if s.nestedTrees == nil {
		s.nestedTrees = map[string]*dirtree.Tree{}
	}
	o := s.treeOptions(sources.ConventionClaudeProject, false)
	o.Defer = false // found during a listing: scanned whole at once
	t := dirtree.New(dir, o)
	s.nestedTrees[dir] = t
	return t
}

// keepTrees forgets the trees of nested folders that are gone.
func (s *Source) keepTrees(dirs []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for dir := range s.nestedTrees {
		if !slices.Contains(dirs, dir) {
			delete(s.nestedTrees, dir)
		}
	}
}

var (
	_ sources.Watcher = (*Source)(nil)
	_ io.Closer       = (*Source)(nil)
)

// Watch implements sources.Watcher: it watches the folders on the way up
// from each workspace, and the sub-folders of each workspace inside a
// repository for nested .claude/skills folders (watchNested).
func (s *Source) Watch(ctx context.Context, changed func()) error {
	return sources.WatchAll(ctx, changed, s.fixed.(sources.Watcher).Watch, s.watchNested)
}

// watchNested watches the sub-folders of each workspace inside a
// repository, as the search for nested .claude/skills folders walks them
// (dot-folders other than .claude, .git and node_modules aside), at most
// NestedMaxDirs folders: a nested .claude/skills folder that appears or
// goes, or a skill in one that changes, is a change at once. Past the
// bound, the periodic rescans find what changed in the folders left
// unwatched.
func (s *Source) watchNested(ctx context.Context, changed func()) error {
	var dirs []string
	for _, ws := range s.workspaces {
		if ws.inRepo {
			dirs = append(dirs, ws.dir)
		}
	}
	if len(dirs) == 0 {
		return sources.ErrNotWatched
	}
	logger := s.trees.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	w, err := watch.New(&watch.Options{
		Debounce: s.trees.Debounce,
		MaxDirs:  NestedMaxDirs,
		Ignore: func(name string) bool {
			return strings.HasPrefix(name, ".") && name != ".claude" || sources.SkipDir(name)
		},
		// Its limit is logged at debug level: the search's own warning
		// tells a person what they need, and a large repository would
		// otherwise warn at every start.
		Logger: slog.New(debugOnly{logger.Handler()}).With("source", s.name, "watching", "nested .claude/skills folders"),
	})
	if err != nil {
		return err
	}
	defer w.Close()
	settled := sources.DeferSettle(ctx) // once the watches are set
	for _, d := range dirs {
		if ctx.Err() != nil {
			return nil // the session ended while the watches were set
		}
		if err := w.Add(d); err != nil {
			logger.Debug("cannot watch a workspace for nested .claude/skills folders", "folder", d, "err", err)
		}
	}
	settled()
	err = w.Run(ctx, func(b watch.Batch) {
		if b.Rescan || slices.ContainsFunc(b.Paths, s.touchesNested) {
			changed()
		}
	})
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// touchesNested reports whether a change at path may change the nested
// .claude/skills folders or their skills: path is in a .claude folder, or
// holds a nested folder found by the last search (a folder moved or
// removed is reported alone).
func (s *Source) touchesNested(path string) bool {
	if strings.Contains(path, string(filepath.Separator)+".claude") {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	prefix := path + string(filepath.Separator)
	for dir := range s.nestedTrees {
		if strings.HasPrefix(dir, prefix) {
			return true
		}
	}
	return false
}

// Close implements io.Closer: it closes every tree, nested ones included.
func (s *Source) Close() error {
	errs := []error{sources.Close(s.fixed)}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, t := range s.nestedTrees {
		errs = append(errs, t.Close())
	}
	return errors.Join(errs...)
}

// Name implements sources.Source.
func (s *Source) Name() string { return s.name }

// Places returns the project's folders read at each level (see
// sources.Places); the .claude/skills folders found below the working
// folder are not among them.
func (s *Source) Places() []string { return sources.Places(s.fixed) }

// List implements sources.Source: the folders on the way up, then the
// nested .claude/skills folders found now.
func (s *Source) List(ctx context.Context) (*sources.Listing, error) {
	l, err := s.fixed.List(ctx)
	if err != nil {
		return nil, err
	}
	nested, probs := s.nested(ctx)
	s.keepTrees(nested)
	parts := []*sources.Listing{l, {Problems: probs}}
	for _, dir := range nested {
		t := s.nestedTree(dir)
		nl, err := t.List(ctx)
		if err != nil {
			nl = &sources.Listing{Problems: []sources.Diagnostic{{Severity: sources.Warning, Path: dir, Rule: "read", Message: err.Error()}}}
		}
		parts = append(parts, nl)
	}
	if err := ctx.Err(); err != nil {
		return nil, err // the nested search was cut short: no partial listing
	}
	return sources.Merge(parts...), nil
}

// nested finds the .claude/skills folders in the sub-folders of each
// workspace that is inside a repository (outside one, a workspace such as
// the home folder would lead the search through every project of the
// person). The search skips dot-folders, .git and node_modules, and the
// folders of other repositories nested inside (submodules and vendored
// checkouts keep their own skills), and stops at NestedMaxDepth levels
// and NestedMaxDirs folders, with a warning when it does.
func (s *Source) nested(ctx context.Context) ([]string, []sources.Diagnostic) {
	var found []string
	var probs []sources.Diagnostic
	for _, ws := range s.workspaces {
		if !ws.inRepo {
			continue
		}
		visited := 0
		type item struct {
			dir   string
			depth int
		}
		queue := []item{{ws.dir, 0}}
		for len(queue) > 0 && ctx.Err() == nil {
			it := queue[0]
			queue = queue[1:]
			if visited++; visited > NestedMaxDirs {
				probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: ws.dir, Rule: "max-dirs",
					Message: fmt.Sprintf("stopped looking for nested .claude/skills folders after %d folders; skills deeper in this repository may be missing", NestedMaxDirs)})
				break
			}
			entries, err := os.ReadDir(it.dir)
			if err != nil {
				continue
			}
			for _, e := range entries {
				name := e.Name()
				if !e.IsDir() || sources.SkipDir(name) {
					continue
				}
				sub := filepath.Join(it.dir, name)
				if name == ".claude" && it.dir != ws.dir {
					skills := filepath.Join(sub, "skills")
					if st, err := os.Stat(skills); err == nil && st.IsDir() && !s.home[skills] && !s.onTheWayUp(skills) {
						found = append(found, skills)
					}
					continue
				}
				if strings.HasPrefix(name, ".") || it.depth+1 > NestedMaxDepth {
					continue
				}
				if _, err := os.Lstat(filepath.Join(sub, ".git")); err == nil {
					continue // another repository
				}
				queue = append(queue, item{sub, it.depth + 1})
			}
		}
	}
	slices.Sort(found)
	return slices.Compact(found), probs
}

// onTheWayUp reports whether dir is one of the folders read on the way
// up from a workspace, which the fixed listing has already served.
func (s *Source) onTheWayUp(dir string) bool {
	for _, ws := range s.workspaces {
		for d := ws.dir; ; d = filepath.Dir(d) {
			if filepath.Join(d, ".claude", "skills") == dir {
				return true
			}
			if d == ws.top || d == filepath.Dir(d) {
				break
			}
		}
	}
	return false
}

// debugOnly passes every record on at debug level.
type debugOnly struct{ slog.Handler }

func (h debugOnly) Enabled(ctx context.Context, _ slog.Level) bool {
	return h.Handler.Enabled(ctx, slog.LevelDebug)
}

func (h debugOnly) Handle(ctx context.Context, r slog.Record) error {
	r.Level = slog.LevelDebug
	return h.Handler.Handle(ctx, r)
}

func (h debugOnly) WithAttrs(attrs []slog.Attr) slog.Handler {
	return debugOnly{h.Handler.WithAttrs(attrs)}
}

func (h debugOnly) WithGroup(name string) slog.Handler { return debugOnly{h.Handler.WithGroup(name)} }
