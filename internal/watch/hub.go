package watch

import (
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fsnotify/fsnotify"
)

// A hub is one fsnotify watcher (on Linux, one inotify instance) shared by
// every Watcher of the process. A system allows each user few instances
// (fs.inotify.max_user_instances, often 128, for every program the user
// runs), and a server watches a dozen roots, most of them missing and
// waited for; with one instance per Watcher, ten servers would use them
// all up, and editors' file watching would fail with them.
//
// The kernel watches a folder once per instance, whatever path reached
// it, and fsnotify names its events by the last path added. So the hub
// watches each folder once, under its real path (its label), and hands
// each event to every Watcher that watches the folder, under each path
// that Watcher gave for it. Paths and folders are counted: a folder is
// unwatched when no Watcher watches it by any path.
type hub struct {
	fsw      *fsnotify.Watcher
	isShared bool // the process's hub, not a test's own

	// opMu makes the hub's changes (add, remove, detach) one at a time; it
	// is held while fsnotify is called, and before mu.
	opMu sync.Mutex

	// mu guards the fields below. No Watcher's lock is taken under it, nor
	// is fsnotify called.
	mu    sync.Mutex
	users map[*Watcher]bool   // the Watchers attached
	paths map[string]*hubNode // every path a Watcher watches: the folder it reaches
	nodes map[fileID]*hubNode // every folder watched, by identity
	// stale are the labels of folders that went from them (see bury),
	// which fsnotify may still hold a watch under, and their identity: the
	// watch is removed before that folder, or that label, is watched
	// again, or when the last Watcher leaves the folder.
	stale map[string]fileID
	// orphans are the folders watched under a label (their real path, see
	// hubNode) that no Watcher watches them by, by label: those reached
	// only through links.
	orphans map[string]*hubNode

	warned atomic.Bool   // a Watcher logged a limit reached (see onceWarn)
	done   chan struct{} // closed when the last Watcher leaves
	wg     sync.WaitGroup
}

// hubNode is one watched folder. It is kept small: a server watches tens
// of thousands of folders, nearly every one by one path for one Watcher.
type hubNode struct {
	id    fileID
	label string   // the path its fsnotify watch was added under, which names its events
	link  bool     // label names a symbolic link to the folder
	dead  bool     // its watch is gone (the folder was removed or moved)
	subs  []hubSub // who watches it, by which path, each once
	// at indexes subs once they are many: the folders above the roots
	// are watched by every Watcher, one per client root.
	at map[hubSub]int
}

// manySubs is the number of subscriptions from which a folder's are
// indexed.
const manySubs = 16

// hubSub is a Watcher watching a folder by a path.
type hubSub struct {
	path string
	w    *Watcher
}

// subscribe counts w among the Watchers of the folder by path.
func (n *hubNode) subscribe(path string, w *Watcher) {
	sub := hubSub{path, w}
	if n.has(sub) {
		return
	}
	n.subs = append(n.subs, sub)
	switch {
	case n.at != nil:
		n.at[sub] = len(n.subs) - 1
	case len(n.subs) > manySubs:
		n.at = make(map[hubSub]int, len(n.subs))
		for i, s := range n.subs {
			n.at[s] = i
		}
	}
}

// has reports whether sub is among the folder's subscriptions.
func (n *hubNode) has(sub hubSub) bool {
	if n.at != nil {
		_, ok := n.at[sub]
		return ok
	}
	return slices.Contains(n.subs, sub)
}

// unsubscribe removes the subscriptions for which drop holds; sub, when
// not zero, is the only one it can hold for, which the index finds at
// once.
func (n *hubNode) unsubscribe(sub hubSub, drop func(hubSub) bool) {
	if n.at == nil {
		n.subs = slices.DeleteFunc(n.subs, drop)
		return
	}
	if sub != (hubSub{}) {
		i, ok := n.at[sub]
		if !ok {
			return
		}
		last := len(n.subs) - 1
		n.subs[i] = n.subs[last]
		n.at[n.subs[i]] = i
		n.subs[last] = hubSub{}
		n.subs = n.subs[:last]
		delete(n.at, sub)
	} else {
		n.subs = slices.DeleteFunc(n.subs, drop)
		clear(n.at)
		for i, s := range n.subs {
			n.at[s] = i
		}
	}
	if len(n.subs) <= manySubs/2 {
		n.at = nil
	}
}

// by reports whether a Watcher watches the folder by path.
func (n *hubNode) by(path string) bool {
	return slices.ContainsFunc(n.subs, func(s hubSub) bool { return s.path == path })
}

var (
	sharedMu sync.Mutex
	shared   *hub
)

// attachShared returns the process's hub, made when the first Watcher
// needs it, with w attached.
func attachShared(w *Watcher) (*hub, error) {
	sharedMu.Lock()
	defer sharedMu.Unlock()
	if shared == nil {
		h, err := newHub(fsnotify.NewWatcher)
		if err != nil {
			return nil, err
		}
		h.isShared = true
		shared = h
	}
	shared.attach(w)
	return shared, nil
}

// attach counts w as a user of the hub: its errors go to w too.
func (h *hub) attach(w *Watcher) {
	h.mu.Lock()
	h.users[w] = true
	h.mu.Unlock()
}

// newHub makes a hub on a watcher of its own, with no user yet; tests make
// private hubs to fail newFS as a system out of instances does.
func newHub(newFS func() (*fsnotify.Watcher, error)) (*hub, error) {
	fsw, err := newFS()
	if err != nil {
		return nil, err
	}
	h := &hub{
		fsw:     fsw,
		paths:   map[string]*hubNode{},
		nodes:   map[fileID]*hubNode{},
		orphans: map[string]*hubNode{},
		stale:   map[string]fileID{},
		users:   map[*Watcher]bool{},
		done:    make(chan struct{}),
	}
	h.wg.Add(1)
	go h.pump()
	return h, nil
}

// detach forgets the paths w watches, all of them in paths, and, when w
// was the last user, closes the fsnotify watcher (the shared hub is made
// again when a Watcher needs one). It costs what w watches, not what the
// hub does: a server of many client roots closes thousands of Watchers.
func (h *hub) detach(w *Watcher, paths []string) error {
	if h.isShared {
		sharedMu.Lock()
		defer sharedMu.Unlock()
	}
	h.opMu.Lock()
	defer h.opMu.Unlock()
	h.mu.Lock()
	var gone []string
	for _, p := range paths {
		gone = appendLabel(gone, h.removeLocked(w, p))
	}
	delete(h.users, w)
	last := len(h.users) == 0
	h.mu.Unlock()
	if !last {
		for _, l := range gone {
			h.fsw.Remove(l) // fails harmlessly for a folder that is gone
		}
		return nil
	}
	if h.isShared {
		shared = nil
	}
	close(h.done)
	err := h.fsw.Close()
	h.wg.Wait()
	return err
}

// add watches the folder at path for w. It fails as fsnotify's Add does:
// with the stat's error for a path that is gone, or the system's for a
// watch it cannot add (a limit).
//
// A folder is watched under its real path, whatever path reached it: so
// its events name it whatever links lead to it, and an event named by a
// label is about the folder itself, never about a link to it (a link
// removed or switched leaves the folder, and its other paths, alone).
//
// fsnotify is called without h.mu, which pump takes for each event: on
// Windows, fsnotify's Add waits for the goroutine that sends the events.
// opMu keeps the hub's changes one at a time meanwhile.
func (h *hub) add(w *Watcher, path string) error {
	// One lstat tells a folder from a link to one, and names a folder;
	// only a link needs a stat as well.
	fi, err := os.Lstat(path)
	link := err == nil && fi.Mode()&os.ModeSymlink != 0
	if link {
		fi, err = os.Stat(path)
	}
	if err != nil {
		return err
	}
	id, ok := idOf(path, fi)
	if !ok {
		return &os.PathError{Op: "watch", Path: path, Err: errors.New("the folder has no identity")}
	}
	h.opMu.Lock()
	defer h.opMu.Unlock()
	h.mu.Lock()
	if n := h.paths[path]; n != nil && n.id == id && !n.dead {
		n.subscribe(path, w)
		h.mu.Unlock()
		return nil
	}
	node := h.nodes[id]
	parent := ""
	if pn := h.paths[filepath.Dir(path)]; pn != nil && !pn.dead {
		parent = pn.label
	}
	h.mu.Unlock()
	label := ""
	if node == nil {
		if label, err = realPath(path, parent, link); err != nil {
			return err
		}
		// A watch fsnotify may still hold for this folder under its old
		// name (its move not read yet), or for another folder under this
		// name, would be handed back, or replaced, by the Add: it goes
		// first.
		h.mu.Lock()
		if l := h.byLabel(label); l != nil {
			// The folder that was at this real path went, and its event
			// has not come yet: fsnotify would forget its watch, not
			// remove it.
			h.bury(l)
		}
		var stale []string
		for l, sid := range h.stale {
			if l == label || sid == id {
				stale = append(stale, l)
				delete(h.stale, l)
			}
		}
		h.mu.Unlock()
		for _, l := range stale {
			h.fsw.Remove(l) // fails harmlessly for a watch fsnotify dropped
		}
		if err := h.fsw.Add(label); err != nil {
			return err
		}
	}
	h.mu.Lock()
	if node == nil {
		node = &hubNode{id: id, label: label}
		h.nodes[id] = node
		h.orphans[label] = node // until a Watcher watches it by this path
	}
	gone := ""
	if old := h.paths[path]; old != nil && old != node {
		// The path leads to another folder now: whoever watches it
		// watches that one, as a watcher of its own would after a
		// rescan.
		for _, s := range old.subs {
			if s.path == path {
				node.subscribe(path, s.w)
			}
		}
		old.unsubscribe(hubSub{}, func(s hubSub) bool { return s.path == path })
		gone = h.left(old)
	}
	h.paths[path] = node
	node.subscribe(path, w)
	if path == node.label {
		delete(h.orphans, path)
	}
	h.mu.Unlock()
	if gone != "" {
		h.fsw.Remove(gone) // fails harmlessly for a folder that is gone
	}
	return nil
}

// remove stops watching path for w. Unwatching a path not watched does
// nothing; like fsnotify's Remove, it may fail for a folder that is gone,
// which callers ignore.
func (h *hub) remove(w *Watcher, path string) error {
	h.opMu.Lock()
	defer h.opMu.Unlock()
	h.mu.Lock()
	gone := h.removeLocked(w, path)
	h.mu.Unlock()
	if gone == "" {
		return nil
	}
	return h.fsw.Remove(gone)
}

// removeLocked stops watching path for w, and returns the label whose
// fsnotify watch is to be removed, if one is.
func (h *hub) removeLocked(w *Watcher, path string) string {
	n := h.paths[path]
	if n == nil {
		return ""
	}
	sub := hubSub{path, w}
	n.unsubscribe(sub, func(s hubSub) bool { return s == sub })
	if !n.by(path) {
		delete(h.paths, path)
	}
	return h.left(n)
}

// left tidies up after a folder lost a Watcher's path. A folder still
// watched by another path keeps its watch and its label, which fsnotify
// names its events by; one watched by none returns the label whose
// fsnotify watch is to be removed, if one is.
func (h *hub) left(n *hubNode) string {
	if len(n.subs) > 0 {
		if !n.dead && !n.by(n.label) {
			h.orphans[n.label] = n
		}
		return ""
	}
	if !n.dead {
		h.bury(n)
		delete(h.stale, n.label) // removed now
		return n.label
	}
	// Buried when its folder left its path: fsnotify has most likely
	// dropped the watch already. Removing it is safe unless the path, or
	// the folder, is watched again since, which fsnotify would take for
	// this one.
	if h.nodes[n.id] == nil && h.byLabel(n.label) == nil {
		delete(h.stale, n.label) // removed now
		return n.label
	}
	return ""
}

// realPath returns the path of the folder at path with every link
// resolved: from the real path of its parent folder, when the hub knows
// it, unless path itself is a link; else from the file system. A path
// with no link on it is its own real path, and is returned as it is, not
// as a copy: tens of thousands of folders are watched.
func realPath(path, parent string, link bool) (string, error) {
	if parent != "" && !link {
		base := filepath.Base(path)
		if dir := path[:len(path)-len(base)]; strings.TrimSuffix(dir, string(filepath.Separator)) == parent {
			return path, nil
		}
		return filepath.Join(parent, base), nil
	}
	return filepath.EvalSymlinks(path)
}

// byLabel returns the live folder fsnotify names by label, or nil.
func (h *hub) byLabel(label string) *hubNode {
	if n := h.paths[label]; n != nil && n.label == label && !n.dead {
		return n
	}
	return h.orphans[label]
}

// appendLabel appends l to ls unless it is empty.
func appendLabel(ls []string, l string) []string {
	if l == "" {
		return ls
	}
	return append(ls, l)
}

// bury marks n's watch gone and forgets it as the folder watched for its
// identity and under its label.
func (h *hub) bury(n *hubNode) {
	h.stale[n.label] = n.id
	n.dead = true
	if h.nodes[n.id] == n {
		delete(h.nodes, n.id)
	}
	if h.orphans[n.label] == n {
		delete(h.orphans, n.label)
	}
}

// watched returns the paths w watches, for tests.
func (h *hub) watched(w *Watcher) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for p, n := range h.paths {
		if n.has(hubSub{p, w}) {
			out = append(out, p)
		}
	}
	return out
}

// pump hands fsnotify's events to the Watchers they concern, into their
// queues, which never block; so fsnotify is never kept waiting, not by a
// long walk or a slow callback, and not by a Watcher's Add, which on
// Windows is carried out by the very goroutine that would be blocked
// sending an event. An error (an overflow: events were lost) goes to
// every Watcher.
func (h *hub) pump() {
	defer h.wg.Done()
	var targets []hubTarget
	for {
		select {
		case ev, ok := <-h.fsw.Events:
			if !ok {
				return
			}
			targets = targets[:0]
			h.mu.Lock()
			// The folder the event is in, and the folder it is about
			// (its own removal or move): each under every path that
			// reaches it.
			// A node's subscriptions are distinct, and so are its
			// targets: only the second node's are checked against the
			// first's, which are many only for a folder above the roots.
			var firsts map[hubTarget]bool
			for i, dir := range [2]string{filepath.Dir(ev.Name), ev.Name} {
				n := h.byLabel(dir)
				if n == nil {
					continue
				}
				rest := ev.Name[len(dir):]
				first := targets
				if i == 1 && len(first) > manySubs {
					firsts = make(map[hubTarget]bool, len(first))
					for _, t := range first {
						firsts[t] = true
					}
				}
				for _, sub := range n.subs {
					t := hubTarget{sub.w, ev.Name} // watched by its real path: no copy
					if sub.path != dir {
						t.name = sub.path + rest
					}
					if i == 1 && (firsts != nil && firsts[t] || firsts == nil && slices.Contains(first, t)) {
						continue
					}
					targets = append(targets, t)
				}
			}
			if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
				// The folder at this real path was removed or moved, and
				// fsnotify dropped its watch; a folder made in its place,
				// which may have its inode number, is watched anew.
				if n := h.byLabel(ev.Name); n != nil {
					h.bury(n)
				}
			}
			h.mu.Unlock()
			for _, t := range targets {
				t.w.queue.push(fsnotify.Event{Name: t.name, Op: ev.Op})
			}
		case err, ok := <-h.fsw.Errors:
			if !ok {
				return
			}
			h.mu.Lock()
			// Events were lost (an overflow), and with them perhaps the
			// move or removal of a folder watched: each is checked, so
			// that the Watchers' resync watches anew what went.
			for _, n := range h.nodes {
				if fi, err := os.Stat(n.label); err != nil {
					h.bury(n)
				} else if id, ok := idOf(n.label, fi); !ok || id != n.id {
					h.bury(n)
				}
			}
			all := slices.Collect(maps.Keys(h.users))
			h.mu.Unlock()
			for _, w := range all {
				w.queue.fail(err)
			}
		case <-h.done:
			return
		}
	}
}

// hubTarget is a Watcher an event goes to, and the name it has there.
type hubTarget struct {
	w    *Watcher
	name string
}
