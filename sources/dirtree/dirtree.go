// Package dirtree is the source provider for a folder tree of skills: every
// SKILL.md at any depth under a root is a skill, its folder being the skill
// folder; a SKILL.md inside another skill's folder is a skill of its own.
// It is what `--root`, the user folders (~/.claude/skills, ...) and the
// project folders (.claude/skills, ...) are made of.
//
// The scan reads only front matter, walks folders in parallel, skips .git
// and node_modules, searches dot-folders (collections keep skills under
// .curated/), follows symlinked folders with loop protection, never walks
// kernel file systems, and bounds its depth, the skills it serves and the
// folders it visits, with a warning when a bound bites.
//
// A Tree remembers what it found. Each SKILL.md is parsed once and parsed
// again only when the file system says it changed, and each folder
// outside every skill is read again only when its own key says an entry
// came, went or was renamed in it (sources.Cache, kept between processes
// with Options.CacheDir: a warm start stats what a cold one reads); a
// watched tree (Watch) rescans only the folders where something changed,
// so one edit in a tree of ten thousand skills costs what it costs in a
// tree of ten. A tree that starts with Options.Defer answers its first
// List without looking inside skill folders (where only nested skills and
// each skill's file list are found) and completes the picture from Watch,
// reporting a change when it finds more.
package dirtree

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/skillmux/skillmux/internal/fspath"
	"github.com/skillmux/skillmux/internal/pseudofs"
	"github.com/skillmux/skillmux/internal/watch"
	"github.com/skillmux/skillmux/sources"
)

// Defaults for Options.
const (
	DefaultMaxDepth  = 16
	DefaultMaxSkills = 200_000
	DefaultMaxDirs   = 1_000_000
	// DefaultMaxTime bounds a deferred first walk: clients give a server
	// a few seconds to start (Codex 10), and such a walk of 100,000
	// skills takes about two (see BENCHMARKS.md).
	DefaultMaxTime = 5 * time.Second
)

// Options configures a Tree. The zero value is usable.
type Options struct {
	// Name is the source name; default "dir:" + the root path.
	Name string
	// Within, when set, is the folder the tree must stay in: a root whose
	// real path (its links followed) is elsewhere serves nothing, and a
	// folder inside that is a link leading elsewhere is not searched,
	// each with a warning. It is checked at every scan, so a link made
	// later is caught too. The sources of an untrusted workspace file
	// have it.
	Within string
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
	// MaxSkills bounds the skills one tree serves; default
	// DefaultMaxSkills.
	MaxSkills int
	// MaxDirs bounds the folders one scan visits, skills' own sub-folders
	// included; default DefaultMaxDirs. It protects the machine from a
	// root that is not a skill collection (a home folder, a disk).
	MaxDirs int
	// MaxTime bounds how long the first walk of a tree with Defer set
	// visits folders (a root of /, a home folder of millions), so that
	// the first answer does not wait for it; default DefaultMaxTime.
	// What it did not reach is served, with a warning until then, once
	// the deep walk that completes it (Watch, or the next full rescan)
	// reaches it. Other walks are not bounded in time.
	MaxTime time.Duration
	// Skip lists sub-folders of the root, as slash-separated paths relative
	// to it, that are not searched (Codex keeps its built-in skills in
	// ~/.codex/skills/.system).
	Skip []string
	// Convention is recorded on every skill (see sources.Skill).
	Convention string
	// Logger receives the watcher's warnings (a limit of the system
	// reached); default discards.
	Logger *slog.Logger
	// CacheDir, when set, is a folder where the tree keeps what it parsed
	// for the next process (see sources.Cache): a start with the files
	// unchanged reads no front matter. A missing, stale or corrupt copy
	// costs time, never correctness.
	CacheDir string
	// Debounce is the quiet time Watch waits after a change before it
	// reports one; default 200 ms. A long burst of changes is reported
	// within 2 s anyway.
	Debounce time.Duration
	// Defer makes the first List skip the inside of skill folders, so that
	// a server answers sooner: nested skills and the skills' file lists
	// are found by Watch, which reports a change when it has them, or by
	// the next List when the tree is not watched. A tree of a few hundred
	// skills is scanned whole all the same, if that is quick.
	Defer bool
}

// Tree is a Source over one folder tree.
type Tree struct {
	root  string
	opts  Options
	cache sources.Cache

	// scanning serializes the scans and guards st.
	scanning sync.Mutex
	st       *state     // nil until the first List
	saving   sync.Mutex // one saveCache at a time

	// mu guards the fields below.
	mu      sync.Mutex
	pending pending
	watcher *watch.Watcher // while Watch runs

	// completed, when set (by tests), runs as soon as the deferred scan's
	// completion has marked the state current, before the cache is saved;
	// betweenParts runs after each part of it, the lock let go.
	completed, betweenParts func()
}

// pending is what happened since the last List.
type pending struct {
	paths   map[string]bool // changed paths reported by the watcher
	full    bool            // events were lost: scan everything
	current bool            // st is up to date: List needs to scan nothing
}

var (
	_ sources.Source = (*Tree)(nil)
	_ io.Closer      = (*Tree)(nil)
)

// Close implements io.Closer: it saves the parse cache (Options.CacheDir)
// if it changed, so that the next process starts from it even when this
// one did not live to save it after a scan.
func (t *Tree) Close() error {
	t.scanning.Lock()
	defer t.scanning.Unlock()
	t.saveCache()
	return nil
}

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
	if t.opts.MaxSkills <= 0 {
		t.opts.MaxSkills = DefaultMaxSkills
	}
	if t.opts.MaxDirs <= 0 {
		t.opts.MaxDirs = DefaultMaxDirs
	}
	if t.opts.MaxTime <= 0 {
		t.opts.MaxTime = DefaultMaxTime
	}
	return t
}

// Name implements sources.Source.
func (t *Tree) Name() string { return t.opts.Name }

// Root returns the folder the tree is rooted at.
func (t *Tree) Root() string { return t.root }

// List implements sources.Source. The first call scans the tree; later
// calls rescan only the folders the watcher reported changed, or, when
// nothing was reported, the whole tree (the periodic rescan that catches
// what a watcher cannot see), parsing again only the files that changed.
func (t *Tree) List(ctx context.Context) (*sources.Listing, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	p := t.pending
	t.pending = pending{}
	t.mu.Unlock()

	t.scanning.Lock()
	defer t.scanning.Unlock()
	var err error
	switch {
	case t.st == nil:
		t.loadCache()
		err = t.scanAll(ctx, !t.opts.Defer)
		if err == nil && t.opts.Defer {
			t.completeSmall(ctx)
		}
	case p.full:
		err = t.scanAll(ctx, true)
	case len(p.paths) > 0:
		err = t.rescan(ctx, p.paths)
	case p.current:
	default:
		err = t.scanAll(ctx, true)
	}
	if err != nil {
		t.requeue(p)
		return nil, err
	}
	return t.st.listing(t), nil
}

// A deferred first scan that found at most smallTree skills is done again
// whole, unless that takes more than smallTreeTime: deferring saves such a
// tree little, and its first listing then names every skill, nested ones
// too (a bundle of skills may be one skill folder holding forty), so that
// a server's instructions do.
const (
	smallTree     = 256
	smallTreeTime = 50 * time.Millisecond
)

// deferAll, above 0, turns completeSmall off, for tests of a deferred
// scan; untimed, above 0, lifts its time bound, for tests of it on a busy
// machine. Counts, for tests that run in parallel.
var deferAll, untimed atomic.Int32

// completeSmall completes the deferred first scan of a small tree at once
// (see smallTree). t.scanning is held. A tree whose walk takes longer
// (skills holding large trees of files) keeps its shallow state, which
// Watch completes.
func (t *Tree) completeSmall(ctx context.Context) {
	if len(t.st.skills) > smallTree || deferAll.Load() > 0 {
		return
	}
	if untimed.Load() == 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, smallTreeTime)
		defer cancel()
	}
	if err := t.scanAll(ctx, true); err != nil {
		t.logDebug("deferred scan kept for later", "root", t.root, "err", err)
	}
}

// Changed tells the tree that the files or folders at paths may have
// changed (been created, written, removed or renamed), so that the next
// List rescans only the skill folders they touch. The watcher calls it;
// so can anything else that knows.
func (t *Tree) Changed(paths ...string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, p := range paths {
		t.mark(filepath.Clean(p))
	}
}

// requeue gives back what a failed List took.
func (t *Tree) requeue(p pending) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for path := range p.paths {
		t.mark(path)
	}
	t.pending.full = t.pending.full || p.full
}

// mark records a changed path; t.mu must be held.
func (t *Tree) mark(path string) {
	if t.pending.paths == nil {
		t.pending.paths = map[string]bool{}
	}
	t.pending.paths[path] = true
}

// scanAll scans the whole tree into a new state.
func (t *Tree) scanAll(ctx context.Context, deep bool) error {
	st := &state{skills: map[string]*entry{}, problems: map[string]sources.Diagnostic{}, plain: map[string]bool{}, deep: deep}
	if err := t.check(st); err != nil {
		return err
	}
	gen := t.st.nextGen()
	if st.rootReal != "" {
		w := newWalk(ctx, t, st, deep, gen)
		if !deep && t.st == nil {
			// The deferred first walk, which the client's first answer
			// waits for: bounded in time. The deep walk that completes
			// it is not, and serves what this one did not reach.
			w.until = time.Now().Add(t.opts.MaxTime)
		}
		w.start(t.root, st.rootReal, 0, false)
		if err := w.wait(); err != nil {
			return err
		}
		st.bounds = w.bounds
	}
	st.gen = gen
	if !st.bounds.time {
		// A walk cut short did not reach every cached skill: they stay
		// for the walk that completes it.
		t.cache.Prune(gen)
	}
	if t.st != nil {
		st.keepServed(t.st)
	}
	t.st = st
	if st.rootReal != "" {
		t.addWatch()
	}
	if deep {
		t.saveCache()
	}
	return nil
}

// cacheFile is where the tree keeps its parse cache between processes:
// one file for each root and what decides how its skills are loaded.
func (t *Tree) cacheFile() string {
	if t.opts.CacheDir == "" {
		return ""
	}
	o := t.opts
	h := sha256.Sum256([]byte(strings.Join([]string{t.root, o.Name, o.Namespace, string(o.Scope), o.Convention, fmt.Sprint(o.Learned), strings.Join(o.Skip, "\x00")}, "\x00")))
	return filepath.Join(o.CacheDir, "trees", hex.EncodeToString(h[:8])+".cache")
}

func (t *Tree) loadCache() {
	if f := t.cacheFile(); f != "" {
		if err := t.cache.LoadFile(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			if !t.cacheClosed(err) {
				t.logDebug("parse cache not used", "file", f, "err", err)
			}
		}
	}
}

// saveCache writes the parse cache when it changed; a failure costs the
// next start some time, and is only logged. Saves are one at a time, so
// that an older copy is never renamed over a newer one.
func (t *Tree) saveCache() {
	t.saving.Lock()
	defer t.saving.Unlock()
	if f := t.cacheFile(); f != "" && t.cache.Changed() {
		if err := t.cache.SaveFile(f); err != nil && !t.cacheClosed(err) {
			t.logDebug("parse cache not saved", "file", f, "err", err)
		}
	}
}

// cacheWarned holds the cache folders whose closed door was told of.
var cacheWarned sync.Map

// cacheClosed reports whether err, of a load or save of the parse cache,
// says its folder is closed to skillmux (left to root by a sudo, on a
// read-only mount, a file in its place), and then warns of it, once per folder and process:
// each start then reads every skill again, which only the log can tell.
func (t *Tree) cacheClosed(err error) bool {
	notDir := errors.Is(err, syscall.ENOTDIR) // a file where the folder, or one above it, should be
	if !errors.Is(err, fs.ErrPermission) && !errors.Is(err, syscall.EROFS) && !notDir {
		return false
	}
	if _, told := cacheWarned.LoadOrStore(t.opts.CacheDir, true); !told && t.opts.Logger != nil {
		why := err
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			why = fmt.Errorf("%s: %w", sources.Shown(pe.Path), pe.Err)
		}
		fix := "make the folder writable by this user"
		if notDir {
			fix = "move the file that is in its way"
		}
		t.opts.Logger.Warn(fmt.Sprintf("the parse cache cannot be kept in %s (%v): every start reads every skill again; %s, or set XDG_CACHE_HOME to another", sources.Shown(t.opts.CacheDir), why, fix))
	}
	return true
}

// check looks at the root: a missing root, a file, a path that cannot
// lead to a folder (unreachable) or a kernel file system is a warning in an
// empty state; rootReal stays empty then.
func (t *Tree) check(st *state) error {
	fi, err := os.Stat(t.root)
	switch {
	case errors.Is(err, fs.ErrNotExist) && t.opts.Optional:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		st.problems[t.root] = sources.Diagnostic{Severity: sources.Warning, Path: t.root, Rule: "root-missing",
			Message: "folder does not exist; no skills served from it"}
		return nil
	case err != nil && unreachable(err):
		// A mistake in the path given, not a passing failure: said as a
		// missing root is.
		why := err.Error()
		if pe, ok := errors.AsType[*fs.PathError](err); ok {
			why = pe.Err.Error()
		}
		st.problems[t.root] = sources.Diagnostic{Severity: sources.Warning, Path: t.root, Rule: "root-unreachable",
			Message: "cannot be reached (" + why + "); no skills served from it"}
		return nil
	case err != nil:
		return fmt.Errorf("scan %s: %w", t.root, err)
	case !fi.IsDir():
		st.problems[t.root] = sources.Diagnostic{Severity: sources.Warning, Path: t.root, Rule: "root-not-folder",
			Message: "is a file, not a folder; no skills served from it (give the folder that holds the skill folders)"}
		return nil
	}
	if err := t.rootClosed(); err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(t.root)
	if err != nil {
		return fmt.Errorf("scan %s: %w", t.root, err)
	}
	if why := pseudofs.Reason(real); why != "" {
		st.problems[t.root] = sources.Diagnostic{Severity: sources.Warning, Path: t.root, Rule: "pseudo-fs",
			Message: "is " + why + ", where skills never live; not searched"}
		return nil
	}
	st.bound = t.bound()
	if st.outside(real) {
		st.problems[t.root] = sources.Diagnostic{Severity: sources.Warning, Path: t.root, Rule: "outside",
			Message: "leads to " + real + ", outside " + t.opts.Within + ", the only folder it may serve; not searched"}
		return nil
	}
	st.rootReal = real
	return nil
}

// rootClosed returns an error when the root is a folder closed to the
// user (chmod, a mount being set up): a failure of the source, which
// keeps its last listing, not a root found empty, whose skills would be
// told gone.
func (t *Tree) rootClosed() error {
	f, err := os.Open(t.root)
	if err == nil {
		f.Close()
		// Listed but not entered (chmod a-x): its folders cannot be
		// reached, which the scan would take for none.
		_, err = os.Lstat(t.root + string(filepath.Separator) + ".")
	}
	if errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("scan %s: %w", t.root, err)
	}
	return nil // told by the scan, as before
}

// unreachable reports whether err, from a stat of a root, says the path
// itself cannot lead to a folder: too long, through a file, a loop of
// links. A permission refused may pass (a folder being set up), and stays
// a failure of the source, which keeps its last listing.
func unreachable(err error) bool {
	return errors.Is(err, syscall.ENAMETOOLONG) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.ELOOP)
}

// bound is Options.Within as a real path (its own links resolved, as the
// paths it bounds are), or "" when not set.
func (t *Tree) bound() string {
	if t.opts.Within == "" {
		return ""
	}
	if r, err := filepath.EvalSymlinks(t.opts.Within); err == nil {
		return r
	}
	return t.opts.Within
}

// outside reports whether real, a real path, is outside Options.Within
// (whose own links the scan followed): never when Within is not set.
func (st *state) outside(real string) bool {
	return st.bound != "" && !fspath.Within(real, st.bound)
}

// rescan brings the state up to date with the changed paths: the skill
// folder holding a path is scanned again; a path outside every skill is
// scanned again if it exists, and forgotten with everything below it if
// it does not.
func (t *Tree) rescan(ctx context.Context, paths map[string]bool) error {
	st := t.st
	if st.rootReal == "" || t.rootChanged(paths) {
		return t.scanAll(ctx, st.deep)
	}
	if paths[t.root] {
		if err := t.rootClosed(); err != nil {
			return err
		}
	}
	var todo []string
	seen := map[string]bool{}
	var served map[string]string // skill folders by real path, made when first needed (throughServed)
	for p := range paths {
		if !fspath.Within(p, t.root) {
			continue
		}
		// Nothing deeper than the walk goes is served: a change there is
		// a change of the folder at that depth, and a chain of folders
		// thousands deep costs no more than one.
		if p = t.cutDeep(p); seen[p] {
			continue
		}
		seen[p] = true
		p = st.throughServed(t.root, p, &served)
		if owner := st.owner(p); owner != "" {
			// The folder of a nested skill, or its SKILL.md, changed: it
			// may be refused now, or no longer.
			entry := p == owner || p == join(owner, sources.SkillFile)
			p = owner
			// A skill folder that lost its SKILL.md gives its files to
			// the skill around it, which is scanned instead; so does a
			// skill nested in another whose SKILL.md is refused, or may
			// be now, as it makes no skill (see walk.visit).
			for e := st.skills[p]; e.path != p && (e.nested && (e.err != nil || entry) || !exists(join(p, sources.SkillFile))); e = st.skills[p] { // a folder, not a note
				up := st.owner(filepath.Dir(p))
				if up == "" {
					break
				}
				p, entry = up, false
			}
		} else if _, err := os.Lstat(p); err != nil {
			st.forget(p)
			continue
		} else if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			if name := filepath.Base(p); name == sources.SkillFile || sources.MisnamedSkillFile(name) {
				// A new SKILL.md makes its folder a skill; a skill.md is
				// warned about, as the folder's scan does.
				p = filepath.Dir(p)
			} else if filepath.Dir(p) != t.root || !t.opts.Learned {
				// A file outside every skill is nobody's; but it may
				// have taken the place of a folder of skills (a
				// checkout), whose skills go with it. A file's own
				// problems (a skill.md misnamed) stay.
				if st.plain[p] {
					st.forget(p)
				}
				continue
			}
		}
		todo = append(todo, p)
	}
	// Rescan the outermost paths only: a folder's rescan covers what is
	// below it.
	slices.Sort(todo)
	todo = slices.Compact(todo)
	var outer []string
	for _, p := range todo {
		if len(outer) > 0 && fspath.Within(p, outer[len(outer)-1]) {
			continue
		}
		outer = append(outer, p)
	}
	gen := st.gen // keep the cache generation: only a full scan prunes
	for _, p := range outer {
		if err := t.rescanOne(ctx, st, p, gen); err != nil {
			return err
		}
	}
	return nil
}

// throughServed returns p or, when p is reached through a link into a
// skill served through another path, that path: of the paths that reach
// one folder the first in path order serves it (see folderLink), and the
// watch may tell of a change through any of them. served holds the skill
// folders by real path; it is made at the first path that needs it.
func (st *state) throughServed(root, p string, served *map[string]string) string {
	if st.owner(p) != "" {
		return p
	}
	// The folder holding p, not p: p may be gone, or a link itself.
	dir, err := filepath.EvalSymlinks(filepath.Dir(p))
	if err != nil {
		return p
	}
	real := filepath.Join(dir, filepath.Base(p))
	if rel, err := filepath.Rel(root, p); err != nil || real == filepath.Join(st.rootReal, rel) {
		return p // no link on the way
	}
	if *served == nil {
		*served = make(map[string]string, len(st.skills))
		for key, e := range st.skills {
			if e.err == nil && e.path != key { // a folder's skill, not a note
				(*served)[e.real] = key
			}
		}
	}
	// The nearest skill folder around real, as owner finds it.
	for r := real; ; {
		if key, ok := (*served)[r]; ok {
			return filepath.Join(key, real[len(r):])
		}
		up := parent(r)
		if up == r {
			return p
		}
		r = up
	}
}

// cutDeep returns path, or its folder 2*MaxDepth+2 levels below the root
// when it is deeper: past a skill at the walk's depth and its folders as
// deep again, nothing a change could touch is served.
func (t *Tree) cutDeep(path string) string {
	rel := path[len(t.root):]
	limit := 2*t.opts.MaxDepth + 2
	n := 0
	for i := 0; i < len(rel); i++ {
		if rel[i] == filepath.Separator && i > 0 {
			if n++; n == limit {
				return path[:len(t.root)+i]
			}
		}
	}
	return path
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// rootChanged reports whether the root itself was created, removed or
// replaced, which only a full scan can follow.
func (t *Tree) rootChanged(paths map[string]bool) bool {
	if !paths[t.root] {
		return false
	}
	real, err := filepath.EvalSymlinks(t.root)
	return err != nil || real != t.st.rootReal
}

// rescanOne scans path (a folder, or a learned note in the root) again,
// replacing what the state knew at and below it.
func (t *Tree) rescanOne(ctx context.Context, st *state, path string, gen uint64) error {
	st.forget(path)
	fi, err := os.Stat(path)
	if err != nil {
		return nil // gone: forgetting it was all
	}
	rel, err := filepath.Rel(t.root, path)
	if err != nil {
		return nil
	}
	depth := 0
	if rel != "." {
		depth = strings.Count(rel, string(filepath.Separator)) + 1
	}
	if !fi.IsDir() {
		// A file is a skill of its own only as a learned note in the
		// root; any other (a skill folder replaced by a file of its
		// name) was forgotten above, as a full scan would not find it.
		if depth != 1 || !t.isNote(path, fi.Mode().IsRegular()) {
			return nil
		}
		w := newWalk(ctx, t, st, true, gen)
		// A note lies in the root: its real path is the root's, joined
		// with its name, as a full scan has it.
		w.load(path, filepath.Join(st.rootReal, rel), false, sources.KindLearned)
		return w.wait()
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil || depth > t.opts.MaxDepth || t.skipped(path) || pseudofs.Reason(real) != "" || hasSkipDirAbove(t.root, path) {
		return nil
	}
	linked := real != filepath.Join(st.rootReal, rel)
	if linked {
		// A link on the way, made since the full scan, is held to what
		// the scan holds a link to: never the folder holding it or one
		// above (a loop, or a home folder walked whole), and never a
		// folder outside Options.Within.
		if above, err := filepath.EvalSymlinks(filepath.Dir(path)); err != nil || fspath.Within(above, real) {
			return nil
		}
		if st.outside(real) {
			st.problems[path] = sources.Diagnostic{Severity: sources.Warning, Path: path, Rule: "outside",
				Message: "not searched: it leads to " + real + ", outside " + t.opts.Within + ", the only folder this source may serve"}
			return nil
		}
	}
	w := newWalk(ctx, t, st, true, gen)
	if owner := st.owner(filepath.Dir(path)); owner != "" {
		// Inside a skill, the folder is reached as the walk of the skill
		// folder reaches it: a link on the way that leads out of the
		// skill (a folder moved away, a link left in its place) is not
		// followed.
		if _, err := followLink(st.skills[owner], path); err != nil {
			return nil
		}
		w.within = true
	}
	w.start(path, real, depth, linked)
	return w.wait()
}

// isNote reports whether the file at path, in the root, is a learned
// note: notes are served (Options.Learned), and it is a regular file
// named *.md that starts with front matter.
func (t *Tree) isNote(path string, regular bool) bool {
	return t.opts.Learned && regular && strings.EqualFold(filepath.Ext(path), ".md") && hasFrontMatter(path)
}

// hasSkipDirAbove reports whether a folder between root and path (path
// included) is one that scans never enter.
func hasSkipDirAbove(root, path string) bool {
	for p := path; p != root && len(p) > len(root); p = filepath.Dir(p) {
		if sources.SkipDir(filepath.Base(p)) {
			return true
		}
	}
	return false
}

// skipped reports whether the folder at path is one of Options.Skip.
func (t *Tree) skipped(path string) bool {
	for _, rel := range t.opts.Skip {
		if path == filepath.Join(t.root, filepath.FromSlash(rel)) {
			return true
		}
	}
	return false
}

// Watch implements sources.Watcher. It watches the tree for changes until
// ctx is done and, beside that, completes a deferred scan (nested skills,
// file lists); see watch.go.
func (t *Tree) Watch(ctx context.Context, changed func()) error {
	return t.watch(ctx, changed)
}
