package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"syscall"

	"github.com/fsnotify/fsnotify"

	"github.com/skillmux/skillmux/internal/fspath"
	"github.com/skillmux/skillmux/internal/pseudofs"
)

// errAbort stops a walk: a limit is reached, or no watch can be added at all.
var errAbort = errors.New("watch: no more watches")

// The methods in this file change the watch set: w.mu is held.

// watchTree watches the folder at top and every folder below it, adding the
// watches that are missing (it walks through folders watched already: after
// lost events, what is missing may lie below them). link says top may be a
// symbolic link (or a root), whose target is checked. If report is not
// nil, every file and folder found is passed to it: the folder is new, and
// what was made in it before its watch existed produced no event. A folder
// that cannot be watched (a limit, a permission) is left to the caller's
// periodic rescans: a Rescan now would read it once, and miss its next
// change all the same.
//
// The walk is breadth first, and what is inside a unit (Options.Unit) comes
// after everything that is not: when a limit stops it, the folders left
// unwatched are the deepest inside units.
//
// If hooks is not nil, its pause is called every pauseEvery folders, and
// its outside once every folder outside units is watched; the walk stops
// when either returns false. Add lets go of w.mu in them (see Add).
func (w *Watcher) watchTree(top string, link bool, report func(string), hooks *walkHooks) {
	type item struct {
		path  string
		real  string // its real path, when known: "" for a link until followed
		link  bool
		inner bool // inside a unit
	}
	var outer, inner []item // breadth first: taken from the front
	topReal, _ := filepath.EvalSymlinks(top)
	outer = append(outer, item{top, topReal, link, false})
	for n := 1; len(outer) > 0 || len(inner) > 0; n++ {
		if hooks != nil && n%pauseEvery == 0 && !hooks.pause() {
			return
		}
		if hooks != nil && len(outer) == 0 && !hooks.outsideDone {
			hooks.outsideDone = true
			if !hooks.outside() {
				return
			}
		}
		var it item
		if len(outer) > 0 {
			it, outer = outer[0], outer[1:]
		} else {
			it, inner = inner[0], inner[1:]
		}
		fi, err := os.Stat(it.path)
		if err != nil || !fi.IsDir() {
			continue // gone already (its removal is an event of its own), or a file
		}
		if it.link {
			real, err := filepath.EvalSymlinks(it.path)
			if err != nil {
				continue
			}
			it.real = real
			if pseudofs.Reason(real) != "" {
				w.log.Debug("watch: not following a link into a pseudo file system", "path", it.path, "target", real)
				continue
			}
			if w.within != "" && !fspath.Within(real, w.within) {
				w.log.Debug("watch: not following a link out of the folder it may watch", "path", it.path, "target", real, "within", w.within)
				continue
			}
			// A link inside a root to a folder above it, even above the
			// root (which the scan does not follow either), would loop,
			// or watch a home folder whole.
			if !w.roots[it.path] && linksUp(it.path, real) {
				w.log.Debug("watch: not following a link to an ancestor", "path", it.path, "target", real)
				continue
			}
		}
		if it.real != "" && pseudofs.Under(it.real) != "" {
			// /proc and the like, met as plain folders below a root of /.
			w.log.Debug("watch: not watching a pseudo file system", "path", it.path, "real", it.real)
			continue
		}
		id, ok := idOf(it.path, fi)
		if !ok {
			continue // gone between Stat and here
		}
		if at, seen := w.ids[id]; seen && at != it.path {
			if fspath.Within(it.path, at) {
				w.log.Debug("watch: not following a link to an ancestor", "path", it.path, "target", at)
			} else {
				w.addAlias(it.path, at)
			}
			continue
		} else if !seen {
			switch err := w.watchDir(it.path, id); {
			case err == nil:
			case errors.Is(err, errAbort):
				return
			default:
				continue // gone, or not watchable (watchDir logged why)
			}
		}
		// Listed after the watch is added: whatever is made from now on is an
		// event, whatever was made before is in the listing.
		entries, _ := os.ReadDir(it.path)
		below := it.inner || w.unit != nil && w.unit(entries)
		for _, e := range entries {
			name := e.Name()
			if w.skip(name) {
				continue
			}
			full := filepath.Join(it.path, name)
			if report != nil {
				report(full)
			}
			if !e.IsDir() && e.Type()&fs.ModeSymlink == 0 {
				continue
			}
			next := item{full, "", !e.IsDir(), below}
			if e.IsDir() && it.real != "" {
				next.real = filepath.Join(it.real, name)
			}
			if below {
				inner = append(inner, next)
			} else {
				outer = append(outer, next)
			}
		}
	}
}

// watchDir adds a watch on the folder at path, whose identity is id. Past a
// limit it warns once and returns errAbort.
func (w *Watcher) watchDir(path string, id fileID) error {
	if len(w.dirs) >= w.maxDirs {
		w.warnLimit(fmt.Sprintf("the watcher's folder limit (%d, Options.MaxDirs) is reached", w.maxDirs), nil)
		return errAbort
	}
	err := w.addWatch(path)
	switch {
	case err == nil:
	case errors.Is(err, errAbort), errors.Is(err, fsnotify.ErrClosed):
		return errAbort
	case errors.Is(err, fs.ErrNotExist):
		return err
	default:
		if hint, ok := limitHint(err); ok {
			w.warnLimit(hint, err)
			return errAbort
		}
		// Most likely permissions: one warning says what is going on, the
		// rest would only repeat it.
		const msg = "watch: cannot watch a folder; changes in it are seen only by periodic rescans"
		if w.failed {
			w.log.Debug(msg, "path", path, "err", err)
		} else {
			w.failed = true
			w.log.Warn(msg+" (more such folders are logged at debug level)", "path", path, "err", err)
		}
		return err
	}
	if old := w.dirs[path]; old != nil {
		// Another folder at the path (replaced between two events):
		// the folders below, and the one above, are those of the path.
		if w.ids[old.id] == path {
			delete(w.ids, old.id)
		}
		old.id = id
		w.ids[id] = path
		return nil
	}
	w.dirs[path] = &dir{id: id}
	w.ids[id] = path
	if parent := filepath.Dir(path); parent != path && w.dirs[parent] != nil {
		w.dirs[parent].kids++
	} else {
		w.detached[path] = true
	}
	return nil
}

// unwatchDir forgets the watched folder at path, d, and removes its
// watch.
func (w *Watcher) unwatchDir(path string, d *dir) {
	delete(w.dirs, path)
	if w.ids[d.id] == path {
		delete(w.ids, d.id)
	}
	if w.detached[path] {
		delete(w.detached, path)
	} else if parent := w.dirs[filepath.Dir(path)]; parent != nil {
		parent.kids--
	}
	// ErrNonExistentWatch when the system has dropped it already (a
	// removed folder, or a root moved away): nothing to undo.
	_ = w.rmWatch(path)
}

// alone reports whether no folder below path is watched: none counted in
// its kids, and none detached below it.
func (w *Watcher) alone(path string, d *dir) bool {
	if d.kids != 0 {
		return false
	}
	for p := range w.detached {
		if p != path && fspath.Within(p, path) {
			return false
		}
	}
	return true
}

// rearm watches the roots that exist again; drops and watches anew a
// root whose path now leads to another folder (a link switched), or to
// none (a folder above it moved away); and keeps a sentinel, a folder
// watched on its own (not its sub-folders), for each root: every folder
// above a root that exists, whose events tell when the root is replaced or
// a folder on its path moved, and the nearest existing folder above a
// missing root,
// whose events tell when the next folder down the root's path, or the
// root, is made. Sentinels no root needs any more are unwatched. rearm
// returns the roots that appeared, went or were replaced. Roots are few
// (one per source), and rearm runs only when an event touched a root or
// a folder above one.
func (w *Watcher) rearm() (changed []string) {
	want := map[string]bool{}
	for root := range w.roots {
		if w.arm(root, want) {
			changed = append(changed, root)
		}
	}
	for dir := range w.sentinels {
		if !want[dir] {
			delete(w.sentinels, dir)
			if w.dirs[dir] == nil {
				w.rmWatch(dir) // fails harmlessly on a folder that is gone
			}
		}
	}
	slices.Sort(changed)
	return slices.Compact(changed)
}

// arm is rearm for one root: it watches the root if it exists again,
// drops and watches it anew if it was replaced, and sets its sentinels,
// which it adds to want. It reports whether the root appeared, went or
// was replaced. Add arms a new root alone, so that adding many missing
// roots costs each its own path, not a look at every root before it.
func (w *Watcher) arm(root string, want map[string]bool) (changed bool) {
	changed = w.armPath(root, want)
	w.guardLink(root, want)
	return changed
}

// armPath is arm for the root's own path.
func (w *Watcher) armPath(root string, want map[string]bool) (changed bool) {
	if w.dirs[root] != nil || w.aliases[root] != "" {
		if !w.replaced(root) {
			w.guardAbove(root, want)
			return false
		}
		w.adopt(w.drop(root, true), nil)
		changed = true
	}
	// The file system may change while we look: a folder found may be
	// gone when its watch is added, and the next one down may be made
	// just before. Each turn looks again, a few times at most.
	last := "" // the last sentinel set for root
	for range 8 {
		if fi, err := os.Stat(root); err == nil && fi.IsDir() {
			w.watchTree(root, true, nil, nil)
			if w.dirs[root] != nil || w.aliases[root] != "" {
				changed = true
				w.guardAbove(root, want)
				last = ""
				break
			}
			if _, err := os.Stat(root); err == nil {
				break // there, and cannot be watched (a limit): left to rescans
			}
			continue // gone again before its watch: look again
		}
		dir, next := existingAbove(root)
		if dir == "" {
			break
		}
		if !w.sentinels[dir] && w.dirs[dir] == nil {
			if err := w.addWatch(dir); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				w.log.Debug("watch: cannot wait for a missing root; it is found by periodic rescans", "folder", dir, "err", err)
				break
			}
			w.sentinels[dir] = true
		}
		last = dir
		if _, err := os.Stat(next); err != nil {
			break // no event was missed: the sentinel will tell
		}
		// Made before the watch: go down.
	}
	if last != "" {
		// Kept even when the looks ran out, so that the root's
		// appearance is still heard of; and the folders above it,
		// so that its own move is.
		want[last] = true
		w.guardAbove(last, want)
	}
	return changed
}

// replaced reports whether the watched root's path no longer leads to
// the folder watched under it: a link switched to another folder, or no
// folder any more (a folder above the root moved or removed, which the
// root's own watch does not tell).
func (w *Watcher) replaced(root string) bool {
	watched := root
	if t := w.aliases[root]; t != "" {
		watched = t
	}
	d := w.dirs[watched]
	if d == nil {
		return false
	}
	fi, err := os.Stat(root)
	if err != nil {
		// A folder above it removed, or made a file (not a folder).
		return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
	}
	if !fi.IsDir() {
		return true
	}
	id, ok := idOf(root, fi)
	return ok && id != d.id
}

// guardAbove keeps a sentinel on every folder above the root, up to the
// file system's root, unless a tree watches it already: a folder moved,
// removed or replaced anywhere on the root's path is an event in the
// folder above it. A root's path is a handful of folders, and a sentinel
// sees only its own entries change, not its sub-folders'. A folder that
// cannot be watched is left to the periodic rescans.
func (w *Watcher) guardAbove(root string, want map[string]bool) {
	for dir := filepath.Dir(root); ; dir = filepath.Dir(dir) {
		if w.dirs[dir] == nil {
			if !w.sentinels[dir] {
				if err := w.addWatch(dir); err != nil {
					w.log.Debug("watch: cannot watch a folder above a root; its moves are seen by periodic rescans", "folder", dir, "err", err)
					return
				}
				w.sentinels[dir] = true
			}
			want[dir] = true
		}
		if filepath.Dir(dir) == dir {
			return
		}
	}
}

// guardLink is guardAbove for where a root reached through a symbolic
// link leads (~/.claude/skills -> ~/dotfiles/skills): the link does not
// change when its target folder is moved away and back, or removed and
// made again, so the folders above the target are sentinels too; for a
// target that is missing, the nearest existing folder above it, as for a
// missing root. Where the root leads is kept in leadsTo, whose paths
// aboveRoot counts.
func (w *Watcher) guardLink(root string, want map[string]bool) {
	target := linkTarget(root)
	if target == root {
		delete(w.leadsTo, root)
		return
	}
	w.leadsTo[root] = target
	if fi, err := os.Stat(target); err == nil && fi.IsDir() {
		w.guardAbove(target, want)
		return
	}
	dir, _ := existingAbove(target)
	if dir == "" {
		return
	}
	if !w.sentinels[dir] && w.dirs[dir] == nil {
		if err := w.addWatch(dir); err != nil {
			w.log.Debug("watch: cannot wait for the folder a root's link leads to; it is found by periodic rescans", "folder", dir, "err", err)
			return
		}
		w.sentinels[dir] = true
	}
	want[dir] = true
	w.guardAbove(dir, want)
}

// linkTarget returns the path that path leads to once the symbolic links
// on its way are followed, also when nothing is there (a link whose
// target folder was moved away); path itself when no link is on its way.
func linkTarget(path string) string {
	for range 40 { // as many links as Linux follows
		if real, err := filepath.EvalSymlinks(path); err == nil {
			return real
		}
		dir, next := existingAbove(path)
		if dir == "" {
			return path
		}
		realDir, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return path
		}
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			// Missing from next down: where it would be.
			rel, _ := filepath.Rel(dir, path)
			return filepath.Join(realDir, rel)
		}
		dest, err := os.Readlink(next) // a link to nothing
		if err != nil {
			return path
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(realDir, dest)
		}
		rel, _ := filepath.Rel(next, path)
		path = filepath.Join(dest, rel)
	}
	return path
}

// aboveRoot reports whether path is a root or a folder above one, or
// above where a root's link leads.
func (w *Watcher) aboveRoot(path string) bool {
	for root := range w.roots {
		if fspath.Within(root, path) {
			return true
		}
	}
	for _, target := range w.leadsTo {
		if fspath.Within(target, path) {
			return true
		}
	}
	return false
}

// linksUp reports whether the link at path leads to real, a folder that
// holds the link.
func linksUp(path, real string) bool {
	from, err := filepath.EvalSymlinks(filepath.Dir(path))
	return err == nil && fspath.Within(from, real)
}

// existingAbove returns the nearest folder above path that exists, and the
// path of its child on the way down to path; "" when none does.
func existingAbove(path string) (dir, next string) {
	for next = path; ; next = dir {
		dir = filepath.Dir(next)
		if dir == next {
			return "", ""
		}
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir, next
		}
	}
}

// pauseEvery is how many folders Add's walk watches between two pauses.
const pauseEvery = 256

// walkHooks are what Add's walk calls on its way.
type walkHooks struct {
	pause       func() bool // every pauseEvery folders
	outside     func() bool // once the folders outside units are watched
	outsideDone bool        // outside was called
}

// warnLimit logs, once per Watcher, that a limit keeps folders unwatched.
func (w *Watcher) warnLimit(hint string, err error) {
	if w.warned {
		return
	}
	w.warned = true
	args := []any{"watched", len(w.dirs)}
	if err != nil {
		args = append(args, "err", err)
	}
	w.log.Log(context.Background(), onceWarn(w.hub),
		"watch: not every folder can be watched: "+hint+
			"; folders already watched stay watched, changes elsewhere are seen only by periodic rescans", args...)
}

// unavailableWarned says that a Watcher of the process found no watcher to
// be had (see New), and said so.
var unavailableWarned atomic.Bool

// onceWarn is the level of a Watcher's warning about a limit: Warn for the
// first of the process's Watchers (of the hub h, nil when there is none)
// to reach it, Debug for the others, which reach the same limit.
func onceWarn(h *hub) slog.Level {
	warned := &unavailableWarned
	if h != nil {
		warned = &h.warned
	}
	if warned.Swap(true) {
		return slog.LevelDebug
	}
	return slog.LevelWarn
}

// drop removes the watches on the folder at path and every folder below it,
// and the other paths reaching into it; with keepRoots, it leaves alone the
// roots below path and what they cover. It returns the other paths whose
// folder it dropped: one of them may still reach an existing folder, which
// must then be watched through it (see adopt).
func (w *Watcher) drop(path string, keepRoots bool) []string {
	if target, ok := w.aliases[path]; ok {
		w.removeAlias(path, target)
	}
	d := w.dirs[path]
	if d == nil {
		return nil
	}
	if w.alone(path, d) {
		w.unwatchDir(path, d)
		return w.dropAliases(path, keepRoots)
	}
	// The subtree is found by path, a scan of the watched folders: a
	// tree of sub-folder sets would cost memory on every folder of a
	// large catalog.
	var kept []string // roots below path that keep their watches
	if keepRoots {
		for r := range w.roots {
			if r != path && fspath.Within(r, path) {
				kept = append(kept, r)
			}
		}
	}
	for p, d := range w.dirs {
		if p != path && !fspath.Within(p, path) || slices.ContainsFunc(kept, func(r string) bool { return p == r || fspath.Within(p, r) }) {
			continue
		}
		w.unwatchDir(p, d)
	}
	for _, r := range kept {
		// Its parent is gone: nothing counts it in its kids.
		if _, ok := w.dirs[r]; ok && w.dirs[filepath.Dir(r)] == nil {
			w.detached[r] = true
		}
	}
	return w.dropAliases(path, keepRoots)
}

// dropAliases is the end of drop: it forgets the other paths reaching
// into path, and returns those whose folder is no longer watched.
func (w *Watcher) dropAliases(path string, keepRoots bool) (orphans []string) {
	for link, target := range w.aliases {
		switch {
		case fspath.Within(link, path) && !(keepRoots && w.covered(link)):
			w.removeAlias(link, target)
		case w.dirs[target] == nil:
			w.removeAlias(link, target)
			orphans = append(orphans, link)
		}
	}
	slices.Sort(orphans) // adopted in a stable order: the first becomes the watched path
	return orphans
}

// adopt watches, through the paths in orphans that still lie in a root, the
// folders they reach, whose watches were just dropped with another path.
// Events between the drop and the new watch came under the other path, or not
// at all, so what is found is reported, as for a new folder.
func (w *Watcher) adopt(orphans []string, paths []string) []string {
	for _, link := range orphans {
		if w.covered(link) {
			paths = w.expand(link, paths)
			w.watchTree(link, true, func(p string) { paths = w.expand(p, paths) }, nil)
		}
	}
	return paths
}

// resync brings the watch set back in line with the folders on disk after
// events were lost. Lost events leave folders made meanwhile unwatched, and
// worse, leave folders renamed meanwhile watched under their old names; so
// every recorded folder is checked and the stale ones dropped, then every
// root is walked again, which adds what is missing, and the sentinels are
// set anew (rearm). The caller is told to rescan anyway, so nothing found
// is reported.
func (w *Watcher) resync() {
	var stale []string
	for p, d := range w.dirs {
		if !w.still(p, d.id) {
			stale = append(stale, p)
		}
	}
	slices.Sort(stale) // parents first: dropping one drops its sub-folders
	for _, p := range stale {
		w.drop(p, false) // what the dropped links reached, the walk finds again
	}
	for link, target := range w.aliases {
		if d := w.dirs[target]; d == nil || !w.still(link, d.id) {
			w.removeAlias(link, target)
		}
	}
	for r := range w.roots {
		w.watchTree(r, true, nil, nil)
	}
	// A root may have gone, or its parent, with the events that told:
	// wait for it from where it can be seen again.
	w.rearm()
}

// still reports whether path is still the folder with identity id.
func (w *Watcher) still(path string, id fileID) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.IsDir() {
		return false
	}
	now, ok := idOf(path, fi)
	return ok && now == id
}

// addAlias records that link reaches the watched folder at target.
func (w *Watcher) addAlias(link, target string) {
	if w.aliases[link] == target {
		return
	}
	w.aliases[link] = target
	w.targets[target] = append(w.targets[target], link)
}

func (w *Watcher) removeAlias(link, target string) {
	delete(w.aliases, link)
	links := slices.DeleteFunc(w.targets[target], func(l string) bool { return l == link })
	if len(links) == 0 {
		delete(w.targets, target)
	} else {
		w.targets[target] = links
	}
}

// expand appends path, and path as seen through every other path that
// reaches a folder above it, to out.
func (w *Watcher) expand(path string, out []string) []string {
	out = append(out, path)
	if len(w.targets) == 0 {
		return out
	}
	for a := path; ; {
		for _, link := range w.targets[a] {
			out = append(out, link+path[len(a):])
		}
		parent := filepath.Dir(a)
		if parent == a {
			return out
		}
		a = parent
	}
}

// covered reports whether path is a root or lies below one.
func (w *Watcher) covered(path string) bool {
	for a := path; ; {
		if w.roots[a] {
			return true
		}
		parent := filepath.Dir(a)
		if parent == a {
			return false
		}
		a = parent
	}
}

func (w *Watcher) skip(name string) bool {
	return ignoredName(name) || (w.ignore != nil && w.ignore(name))
}
