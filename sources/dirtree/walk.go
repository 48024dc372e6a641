package dirtree

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/skillmux/skillmux/internal/fspath"
	"github.com/skillmux/skillmux/internal/leftover"
	"github.com/skillmux/skillmux/internal/pseudofs"
	"github.com/skillmux/skillmux/sources"
)

// walk is one scan of a tree, or of part of it, into a state. Folders are
// visited in parallel, a bounded number of goroutines at a time.
//
// A folder is a skill folder when it holds a SKILL.md. A shallow walk
// finds skill folders by opening SKILL.md directly, which costs less than
// listing the folder, and does not look inside them; a deep walk lists
// every folder, so it finds the skills nested in other skills and each
// skill's file list.
type walk struct {
	ctx    context.Context
	until  time.Time // when the walk stops (Options.MaxTime); zero for never
	t      *Tree
	st     *state
	deep   bool
	record bool // record the listings of plain folders in the cache (deep walks only)
	within bool // the walk starts inside a skill folder: every skill it finds is nested
	gen    uint64
	sem    chan struct{} // bounds the goroutines walking folders
	wg     sync.WaitGroup
	dirs   atomic.Int64

	// mu guards st and the fields below.
	mu     sync.Mutex
	seen   map[string]bool // real paths of folders reached through symlinks
	links  []folderLink    // links to folders met, to follow once the folders walked are done
	bounds bounds
	added  []*entry // the entries this walk made
	// short is the first failure that says the process, not the file, is
	// short of something (file descriptors): the walk fails, and its
	// source keeps its last listing, rather than take files it could not
	// open for gone.
	short error
}

// folderLink is a symbolic link to a folder, met by the walk, whose
// target is walked after the folders the walk reaches without links: of
// the paths that reach one folder, the first in path order serves it,
// whatever the order the parallel walk met them in (a fresh scan and a
// rescan of a part agree).
type folderLink struct {
	real  string // of the folder holding the link
	full  string
	sub   string // where it leads
	depth int
	owner *entry
}

func newWalk(ctx context.Context, t *Tree, st *state, deep bool, gen uint64) *walk {
	return &walk{ctx: ctx, t: t, st: st, deep: deep, record: true, gen: gen,
		sem:  make(chan struct{}, 2*runtime.GOMAXPROCS(0)),
		seen: map[string]bool{st.rootReal: true}}
}

// start walks the folder dir, whose real path is real.
func (w *walk) start(dir, real string, depth int, linked bool) {
	w.wg.Add(1)
	w.visit(dir, real, depth, linked, nil)
}

// spawn is start on another goroutine when one of the walk's may run, so
// that many folders started one after another are walked in parallel.
func (w *walk) spawn(dir, real string, depth int, linked bool) {
	w.wg.Add(1)
	select {
	case w.sem <- struct{}{}:
		go func() {
			defer func() { <-w.sem }()
			w.visit(dir, real, depth, linked, nil)
		}()
	default:
		w.visit(dir, real, depth, linked, nil)
	}
}

// wait waits for the walk and reports whether ctx ended it. The links to
// folders met are followed in rounds, each in path order: those met in
// the targets of a round's links make the next.
func (w *walk) wait() error {
	for {
		w.wg.Wait()
		w.mu.Lock()
		links := w.links
		w.links = nil
		w.mu.Unlock()
		if len(links) == 0 || w.ctx.Err() != nil {
			break
		}
		slices.SortFunc(links, func(a, b folderLink) int { return strings.Compare(a.full, b.full) })
		for _, l := range links {
			if fspath.Within(l.real, l.sub) {
				if l.owner == nil {
					w.problem(sources.Diagnostic{Severity: sources.Warning, Path: l.full, Rule: "link-loop",
						Message: "not searched: the link leads to " + l.sub + ", a folder that holds it, and would loop; link to the folders in it instead"})
				} else {
					// Inside a skill (a "self -> ." beside its files) only
					// nested skills are at stake, as for a folder too deep.
					w.t.logDebug("not followed: the link leads to a folder that holds it", "path", l.full, "target", l.sub)
				}
				continue
			}
			if w.firstVisit(l.sub, l.real) {
				w.follow(l)
			}
		}
	}
	w.finish()
	if err := w.ctx.Err(); err != nil {
		return err
	}
	return w.short
}

// shortOf reports whether err says the process is out of file
// descriptors, and then fails the walk with it.
func (w *walk) shortOf(err error) bool {
	if !errors.Is(err, syscall.EMFILE) && !errors.Is(err, syscall.ENFILE) {
		return false
	}
	w.mu.Lock()
	if w.short == nil {
		w.short = fmt.Errorf("scan %s: %w; raise the open files limit (ulimit -n)", w.t.root, err)
	}
	w.mu.Unlock()
	return true
}

// visit scans the folder dir and what is below it. owner is the skill
// whose folder dir is inside, or nil. It owns one count of w.wg.
func (w *walk) visit(dir, real string, depth int, linked bool, owner *entry) {
	defer w.wg.Done()
	if w.ctx.Err() != nil {
		return
	}
	if w.dirs.Add(1) > int64(w.t.opts.MaxDirs) {
		w.hit(func(b *bounds) { b.dirs = true })
		return
	}
	if !w.until.IsZero() && time.Now().After(w.until) {
		w.hit(func(b *bounds) { b.time = true })
		return
	}
	// A folder inside no skill that has not changed since its listing was
	// recorded is not read again: a warm start, or a periodic rescan,
	// costs one stat for it.
	var entries []sources.DirEntry
	cached := false
	if owner == nil {
		entries, cached = w.t.cache.Folder(dir, w.gen)
	}
	if !w.deep && (!cached || slices.ContainsFunc(entries, isSkillFile)) {
		// Shallow: a folder with a SKILL.md is a skill, and its inside
		// is left for later.
		if e := w.probe(dir, real, linked, false); e != nil {
			return
		}
	}
	// Only a folder that may turn out plain is worth its key; and a
	// deferred scan, which the server waits for, takes none: the check
	// after it records the listings (state.changedSince).
	record := !cached && w.deep && w.record && owner == nil
	var key sources.FileKey
	var err error
	switch {
	case record:
		entries, key, err = sources.ReadFolder(dir)
	case !cached:
		entries, err = sources.ListFolder(dir)
	}
	if err != nil && len(entries) == 0 {
		if w.shortOf(err) {
			return
		}
		if errors.Is(err, fs.ErrNotExist) {
			// Gone since its parent was listed (a checkout, a folder
			// deleted and copied again): nothing to warn of, and the
			// change it is part of brings a rescan.
			return
		}
		w.problem(sources.Diagnostic{Severity: sources.Warning, Path: dir, Rule: "read", Message: "cannot read folder: " + err.Error()})
		return
	}
	holdsSkillFile := slices.ContainsFunc(entries, isSkillFile)
	if owner != nil && len(entries) > 0 && !enterable(dir, entries) {
		// Its names are listed, but none of its files can be read:
		// offered, each would fail to load. A nested skill's is the
		// error of its SKILL.md, as for any skill folder.
		d := sources.Diagnostic{Severity: sources.Warning, Path: dir, Rule: "read",
			Message: "its files are not served: the folder can be listed but not entered; give it the x permission (chmod +x)"}
		if holdsSkillFile {
			d = unenterableSkill(dir)
		}
		w.problem(d)
		return
	}
	skillHere := false // the probe found this folder's SKILL.md
	if w.deep && holdsSkillFile {
		if e := w.probe(dir, real, linked, owner != nil); e != nil {
			skillHere = true
			// A SKILL.md refused inside a skill (invalid front matter)
			// makes no skill: its folder's files stay the enclosing
			// skill's, as every read of that skill finds them.
			if e.err == nil || owner == nil {
				owner = e
			}
		}
	}
	if !skillHere && holdsSkillFile {
		// The probe found no SKILL.md to read, or refused it with a
		// reason it gave; or the folder can be listed but not entered,
		// which it cannot tell from no file. Then nothing in the folder
		// can be read: its SKILL.md is the problem, not each sub-folder.
		if _, err := os.Lstat(join(dir, sources.SkillFile)); errors.Is(err, fs.ErrPermission) {
			w.problem(unenterableSkill(dir))
			return
		}
	}
	if owner == nil {
		w.plain(dir)
		if record && err == nil {
			w.t.cache.PutFolder(dir, key, entries, w.gen)
		}
	}
	for _, e := range entries {
		name := e.Name
		full := join(dir, name)
		typ, isLink := e.Type, e.Type&fs.ModeSymlink != 0
		if typ&fs.ModeIrregular != 0 { // the listing did not say
			st, err := os.Lstat(full)
			if err != nil {
				continue
			}
			typ, isLink = st.Mode().Type(), st.Mode()&fs.ModeSymlink != 0
		}
		if isLink {
			// Inside a skill, the link is followed as reads follow it,
			// within the skill folder: what it leads out to, or nowhere,
			// the skill's file list does not offer.
			st, err := followLink(owner, full)
			if err != nil {
				continue // dangling, or out of the skill
			}
			typ = st.Mode().Type()
		}
		switch {
		case typ.IsDir():
			w.folder(dir, real, full, name, depth, linked, isLink, owner)
		case name == sources.SkillFile:
			// Probed above; one refused inside a skill is that skill's file.
			if owner != nil && owner.path != full && typ.IsRegular() {
				w.file(owner, full)
			}
		case sources.MisnamedSkillFile(name) && !holdsSkillFile:
			// The probe for SKILL.md missed it; the listing, read
			// anyway, shows what was meant. Inside a skill, it is one of
			// the skill's files all the same, as every list of them
			// (sources.ListFiles, WalkFiles) has it.
			w.problem(sources.MisnamedDiagnostic(sources.Warning, full))
			if owner != nil && typ.IsRegular() {
				w.file(owner, full)
			}
		case owner != nil:
			// A FIFO or a device cannot be read as a file; an editor's
			// leftover is not the skill's.
			if typ.IsRegular() && !leftover.Is(name) {
				w.file(owner, full)
			}
		case depth == 0 && w.t.isNote(full, typ.IsRegular()):
			w.load(full, filepath.Join(real, name), linked, sources.KindLearned)
		}
	}
}

// unenterableSkill is the problem of the SKILL.md of dir, a folder that
// can be listed but not entered.
func unenterableSkill(dir string) sources.Diagnostic {
	return sources.Diagnostic{Severity: sources.Error, Path: join(dir, sources.SkillFile), Rule: "read",
		Message: "cannot read: permission denied: its folder can be listed but not entered; give the folder the x permission (chmod +x)"}
}

// enterable reports whether the files of the folder dir, listed as
// entries, can be reached: a folder with read but no execute permission
// can be listed and not entered. It costs one lstat.
func enterable(dir string, entries []sources.DirEntry) bool {
	_, err := os.Lstat(join(dir, entries[0].Name))
	return !errors.Is(err, fs.ErrPermission)
}

// followLink stats what the symlink at path leads to. Inside the skill of
// owner, it is followed as reads of the skill's files follow it, through
// an os.Root of the skill folder, which refuses a link that leaves it.
func followLink(owner *entry, path string) (fs.FileInfo, error) {
	if owner == nil {
		return os.Stat(path)
	}
	dir := filepath.Dir(owner.path)
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return nil, err
	}
	return fs.Stat(sources.DirFS(dir), filepath.ToSlash(rel))
}

// folder starts the visit of the sub-folder full (named name) of dir.
func (w *walk) folder(dir, real, full, name string, depth int, linked, isLink bool, owner *entry) {
	if sources.SkipDir(name) || w.t.skipped(full) {
		return
	}
	sub := full // the real path, the same string while no link was crossed
	if dir != real {
		sub = join(real, name)
	}
	if isLink {
		var err error
		if sub, err = filepath.EvalSymlinks(full); err != nil {
			return
		}
		w.mu.Lock()
		w.links = append(w.links, folderLink{real: real, full: full, sub: sub, depth: depth, owner: owner})
		w.mu.Unlock()
		return
	}
	w.enter(full, sub, depth, linked, owner)
}

// follow starts the visit of the folder the link l leads to, once the walk
// has claimed it (firstVisit), unless it lies where the tree serves
// nothing.
func (w *walk) follow(l folderLink) {
	if why := pseudofs.Reason(l.sub); why != "" {
		w.problem(sources.Diagnostic{Severity: sources.Warning, Path: l.full, Rule: "pseudo-fs", Message: "not searched: the link points to " + l.sub + ", " + why})
		return
	}
	if w.st.outside(l.sub) {
		w.problem(sources.Diagnostic{Severity: sources.Warning, Path: l.full, Rule: "outside",
			Message: "not searched: the link points to " + l.sub + ", outside " + w.t.opts.Within + ", the only folder this source may serve"})
		return
	}
	w.enter(l.full, l.sub, l.depth, true, l.owner)
}

// enter starts the visit of the sub-folder full, whose real path is sub.
func (w *walk) enter(full, sub string, depth int, linked bool, owner *entry) {
	if why := pseudofs.Under(sub); why != "" {
		// Met as a plain folder by a walk of / (or of a link to it).
		w.problem(sources.Diagnostic{Severity: sources.Warning, Path: full, Rule: "pseudo-fs", Message: "not searched: " + why})
		return
	}
	if depth+1 > w.t.opts.MaxDepth {
		if owner != nil {
			// Inside a skill only nested skills are at stake: a warning
			// would stay in every log for an assets tree the author
			// has no reason to change.
			w.t.logDebug("not searched for nested skills: deeper than the walk goes", "path", full, "levels", w.t.opts.MaxDepth)
			w.mu.Lock()
			owner.deeper = true
			w.mu.Unlock()
			return
		}
		w.hit(func(b *bounds) { b.tooDeep(full) })
		return
	}
	w.wg.Add(1)
	select {
	case w.sem <- struct{}{}:
		go func() {
			defer func() { <-w.sem }()
			w.visit(full, sub, depth+1, linked, owner)
		}()
	default:
		w.visit(full, sub, depth+1, linked, owner)
	}
}

// probe loads dir/SKILL.md if there is one, recording the skill (or why
// the file was refused) under dir, and returns its entry, or nil when dir
// is not a skill folder. inSkill says that dir is inside another skill's
// folder.
func (w *walk) probe(dir, real string, linked, inSkill bool) *entry {
	path := join(dir, sources.SkillFile)
	sk, exists, err := w.t.cache.Probe(path, w.loadOptions(sources.KindSkill), w.gen)
	if w.shortOf(err) || !exists {
		return nil
	}
	e := &entry{path: path, real: real, linked: linked, skill: sk, err: err, inside: w.deep, nested: inSkill || w.within}
	if !w.add(dir, e) {
		return nil
	}
	return e
}

// load records the learned note at path.
func (w *walk) load(path, real string, linked bool, kind sources.Kind) {
	sk, err := w.t.cache.LoadGen(path, w.loadOptions(kind), w.gen)
	w.add(path, &entry{path: path, real: real, linked: linked, skill: sk, err: err, inside: true})
}

// add records an entry, within the bound on skills; false when over it.
func (w *walk) add(key string, e *entry) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if e.err == nil && len(w.st.skills) >= w.t.opts.MaxSkills {
		w.bounds.skills = true
		return false
	}
	w.st.put(key, e)
	w.added = append(w.added, e)
	return true
}

// file adds the file at path to the file list of the skill owner.
func (w *walk) file(owner *entry, path string) {
	rel, err := filepath.Rel(filepath.Dir(owner.path), path)
	if err != nil {
		return
	}
	var pe *sources.PathError
	if errors.As(sources.CheckPath(filepath.ToSlash(rel)), &pe) {
		// No URI or tool path can name it (a name that is not UTF-8 or
		// holds a '\', a path too long): it is not listed, as no read
		// would serve it. The warning is on the first name on its path
		// that breaks a rule (one for a folder, however many files it
		// holds), or on the file when only the whole path does.
		bad := filepath.Dir(owner.path)
		for name := range strings.SplitSeq(rel, string(filepath.Separator)) {
			bad = filepath.Join(bad, name)
			var named *sources.PathError
			if errors.As(sources.CheckPath(name), &named) {
				pe = named
				break
			}
		}
		why := "breaks the rule " + string(pe.Rule) + " of skill paths"
		switch pe.Rule {
		case sources.RuleNotUTF8:
			why = "is not UTF-8"
		case sources.RuleBackslash:
			why = `holds '\'`
		}
		w.problem(sources.Diagnostic{Severity: sources.Warning, Path: bad, Rule: "file-name",
			Message: "the name " + why + ", so no resource URI or tool path can name it: the skill's file (for a folder, its files in it) is not served; rename it"})
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(owner.files) == 2*sources.MaxListedFiles {
		keepFirstFiles(owner)
	}
	// Rel returns a part of path; the clone keeps only the part, not the
	// whole path, alive for as long as the skill is listed.
	owner.files = append(owner.files, strings.Clone(filepath.ToSlash(rel)))
}

// keepFirstFiles sorts e's file list and keeps its first MaxListedFiles
// names: whatever order parallel folders filled it in, a skill with more
// files lists the same ones at every scan.
func keepFirstFiles(e *entry) {
	slices.Sort(e.files)
	if len(e.files) > sources.MaxListedFiles {
		clear(e.files[sources.MaxListedFiles:])
		e.files = e.files[:sources.MaxListedFiles]
		e.truncated = true
	}
}

// finish sorts the file lists, which parallel folders filled in any
// order, and cuts them to MaxListedFiles. A walk may go on after it
// (complete walks in parts): what it sorted is not sorted again.
func (w *walk) finish() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, e := range w.added {
		keepFirstFiles(e)
		if e.truncated {
			e.files = slices.Clip(e.files)
		}
	}
	w.added = w.added[:0]
}

func (w *walk) loadOptions(kind sources.Kind) sources.LoadOptions {
	o := w.t.opts
	return sources.LoadOptions{Namespace: o.Namespace, Source: o.Name, Scope: o.Scope, Kind: kind, Convention: o.Convention}
}

// firstVisit records a folder reached through a symlink and reports whether
// it should be walked: not seen before and not the folder holding the link
// or one of its ancestors (which would loop).
func (w *walk) firstVisit(target, from string) bool {
	if fspath.Within(from, target) {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen[target] {
		return false
	}
	w.seen[target] = true
	return true
}

// plain records a folder outside every skill, whose listing the tree may
// read again to see what appeared or went (see Tree.lookOutside).
func (w *walk) plain(dir string) {
	w.mu.Lock()
	w.st.plain[dir] = true
	w.mu.Unlock()
}

func (w *walk) problem(d sources.Diagnostic) {
	w.mu.Lock()
	w.st.problems[d.Path] = d
	w.mu.Unlock()
}

func (w *walk) hit(set func(*bounds)) {
	w.mu.Lock()
	set(&w.bounds)
	w.mu.Unlock()
}

func isSkillFile(e sources.DirEntry) bool { return e.Name == sources.SkillFile }

// join is filepath.Join for a clean folder and a plain name, without the
// cleaning a scan of thousands of folders would pay for each time.
func join(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// hasFrontMatter reports whether the file starts with a "---" line, so
// that a README.md lying beside learned notes is ignored, not an error.
// It reads only inside the file's folder, as every read of a skill does:
// a link that leads out of it is not read, and is taken for a note, so
// that loading it says why it is refused.
func hasFrontMatter(path string) bool {
	f, err := sources.OpenFile(sources.DirFS(filepath.Dir(path)), filepath.Base(path))
	if err != nil {
		fi, lerr := os.Lstat(path)
		return lerr == nil && fi.Mode()&fs.ModeSymlink != 0
	}
	defer f.Close()
	buf := make([]byte, 8)
	n, _ := io.ReadFull(f, buf)
	b := strings.TrimPrefix(string(buf[:n]), "\xef\xbb\xbf")
	return strings.HasPrefix(b, "---\n") || strings.HasPrefix(b, "---\r") || b == "---"
}
