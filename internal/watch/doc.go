// Package watch reports changes below folder trees, so that folder-tree skill
// sources can refresh live instead of only on a periodic rescan. It is the
// project's only importer of github.com/fsnotify/fsnotify, and exists because
// fsnotify reports raw, per-folder kernel events, while a source wants "these
// paths changed below my roots, once, after the storm".
//
// A [Watcher] watches any number of roots ([Watcher.Add], [Watcher.Remove]).
// Its own two goroutines read fsnotify and keep the set of watched folders up
// to date; [Watcher.Run] delivers [Batch] values to one callback on the
// caller's goroutine. Between them sits a debouncer that merges events into
// one set of paths.
//
// # Traps handled, and why
//
// fsnotify is not recursive: a watch covers one folder's entries. Every
// folder below a root is added, and a folder that appears later is added when
// its Create event arrives. Files made in that folder between its mkdir and
// the new watch produce no event, so the new folder is read after its watch is
// added and everything found in it is reported: "add, then list" leaves no gap.
//
// Watches outlive names. On Linux a renamed folder keeps its inotify watch,
// and fsnotify keeps reporting its events under the old path; worse, adding
// the new path returns the same watch, still named by the old path. So a
// folder that is renamed or removed has its whole subtree's watches removed
// explicitly, before its new location (a Create event, if it stays inside a
// root) is walked and watched afresh. The same explicit removal works on the
// other backends, where it is harmless.
//
// Editors save by renaming a temporary file over the original; the rename
// arrives as a Create of the original name, which is reported like any other
// change. Swap, backup and lock files (vim, emacs, macOS Finder) are never
// reported, and .git, .hg, .svn and node_modules are never watched: a
// checkout or an npm install there would otherwise cost a watch per folder
// and a storm of events that can never change a skill.
//
// Storms are merged. A batch is delivered once events pause for
// [Options.Debounce], and at the latest [Options.MaxDelay] after its first
// event, so a long storm (a git checkout of thousands of files) still ends in
// one batch within MaxDelay instead of postponing it forever. Events are read
// from fsnotify by a goroutine that does nothing else, so a slow callback or a
// long walk never stalls the kernel's queue (and, on Windows, fsnotify's
// reader cannot deadlock with our own Add).
//
// The kernel's queue can still overflow (fsnotify.ErrEventOverflow), and a
// watch can fail to be added. Either way events may be lost, which no list
// of paths can express, so the next batch carries Rescan: the caller reads
// everything again. Lost events also leave the watches wrong (a folder made
// meanwhile unwatched, one renamed meanwhile watched under its old name), so
// after an overflow the watcher checks every watched folder against the disk
// and walks every root again.
//
// A root may not exist yet, or may be removed or moved away and come back
// (a user makes ~/.claude/skills during a session; a checkout replaces a
// folder). Such a root is waited for through the nearest folder above it
// that exists, watched on its own as a sentinel; each folder made on the
// way down moves the sentinel, and the root's appearance is a batch that
// says Rescan, since everything in it is new. Every folder above a root is
// a sentinel too, up to the file system's root: a root's own watch does not
// tell when a folder on its path moves, nor when a root that is a link is
// switched to another folder; both are a Rescan, and the root is watched
// again where it now leads. A sentinel sees only its own entries, and an
// event in one that is not on a root's path costs a look at each root.
//
// Every Watcher of a process shares one fsnotify watcher, on Linux one
// inotify instance (see hub): a user has few of them
// (fs.inotify.max_user_instances, often 128, for every program), and a
// server watches a dozen roots. The hub watches a folder once, however many
// Watchers watch it, and hands each its events under its own paths.
//
// Watches are a limited resource: inotify allows fs.inotify.max_user_watches
// per user, kqueue one open file per watched file and folder. Reaching the
// limit (or [Options.MaxDirs]) logs one warning that names the limit and how
// to raise it, once per process (the other Watchers log it at debug level);
// the watcher keeps the watches it has, and the caller's
// periodic rescan covers the rest. A folder made later that cannot be
// watched is reported by its path, so the caller reads what it holds;
// later changes in it wait for the periodic rescan. The folders a limit
// leaves out are the deepest inside units ([Options.Unit]: skill folders),
// so that new and removed skills are still seen at once. The same order
// lets a caller read the folders outside units as soon as they are watched
// ([Options.Outside]), while the walk goes on inside units: at 10,000
// skills the whole walk takes about half a second. It never fails or
// floods the log. If no watcher can be created at all (out of inotify
// instances, or an unsupported system) the same warning path applies and
// every root is left to the periodic rescan.
//
// Symlinked folders below a root are watched at their target (inotify and
// kqueue follow a link given to them) and reported under the link's path. A
// folder is watched once however many paths reach it (the kernel would hand
// back one watch, named by one path), and its events are also reported under
// every other path that reaches it, so two roots that share a skill folder
// through a link both hear of its changes. A link to an ancestor would loop
// and is not followed; links into /proc, /sys, /dev (or any kernel-made file
// system on Linux) are never followed, since those never hold skills and
// produce events without end.
//
// Network and container mounts deliver no events at all, so callers keep a
// periodic rescan whatever this package reports.
package watch
