package sources

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/skillmux/skillmux/internal/leftover"
)

// DirFS returns a file system for the skill folder dir in which every read
// stays inside dir's real path: a symlink that points outside it fails, as
// does "..". It opens the folder afresh for each call, so holding one costs
// no file descriptor; a catalog of ten thousand skills keeps none open.
func DirFS(dir string) fs.FS { return dirFS(dir) }

type dirFS string

var (
	_ fs.ReadFileFS = dirFS("")
	_ fs.ReadDirFS  = dirFS("")
	_ fs.StatFS     = dirFS("")
	_ fs.ReadFileFS = rootFS{}
	_ fs.ReadDirFS  = rootFS{}
	_ fs.StatFS     = rootFS{}
)

// with runs f on the folder opened as a root for the one call.
func with[T any](d dirFS, f func(rootFS) (T, error)) (T, error) {
	r, err := os.OpenRoot(string(d))
	if err != nil {
		var zero T
		return zero, err
	}
	defer r.Close() // files opened through a Root outlive it
	return f(rootFS{r})
}

func (d dirFS) Open(name string) (fs.File, error) {
	return with(d, func(r rootFS) (fs.File, error) { return r.Open(name) })
}

// ReadFile refuses anything but a regular file, so a FIFO planted in a
// skill folder cannot block the reader; callers that need a size bound
// use ReadFileLimit.
func (d dirFS) ReadFile(name string) ([]byte, error) {
	return with(d, func(r rootFS) ([]byte, error) { return r.ReadFile(name) })
}

func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	return with(d, func(r rootFS) ([]fs.DirEntry, error) { return r.ReadDir(name) })
}

func (d dirFS) Stat(name string) (fs.FileInfo, error) {
	return with(d, func(r rootFS) (fs.FileInfo, error) { return r.Stat(name) })
}

// rootFS is a skill folder held open as an os.Root.
type rootFS struct{ r *os.Root }

func (r rootFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	// A device, FIFO or socket is refused before it is opened: opening
	// one has effects of its own (a FIFO's blocked writer let go, then
	// killed by SIGPIPE; a device's driver woken). O_NONBLOCK and
	// O_NOCTTY stay for one put in a file's place meanwhile, which readers
	// refuse once opened (ReadFileLimit).
	f, err := r.openRegular(name)
	if escapes(err) {
		if rel, ok := r.inside(name); ok {
			f, err = r.openRegular(rel)
		}
	}
	if err != nil {
		return nil, err // not a nil *os.File in an fs.File
	}
	return f, nil
}

// openRegular opens name for reading unless a stat says it is a device, a
// FIFO or a socket.
func (r rootFS) openRegular(name string) (*os.File, error) {
	if fi, err := r.r.Stat(name); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w (%s)", ErrNotRegular, fileType(fi.Mode()))}
	}
	return r.r.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}

// inside returns, for a name that os.Root refused as leaving the folder,
// the path its symlinks really lead to relative to the folder, when that
// is inside it: os.Root refuses every absolute symlink, and every ".."
// that crosses the folder's top, even when they lead back in. The path
// returned has no symlink left, and is opened through the Root all the
// same, so a link changed meanwhile still cannot lead out.
func (r rootFS) inside(name string) (string, bool) {
	top, err := filepath.EvalSymlinks(r.r.Name())
	if err != nil {
		return "", false
	}
	real, err := filepath.EvalSymlinks(filepath.Join(r.r.Name(), filepath.FromSlash(name)))
	if err != nil {
		return "", false
	}
	rel, err := filepath.Rel(top, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

func (r rootFS) ReadFile(name string) ([]byte, error) {
	return ReadFileLimit(r, name, math.MaxInt64-1)
}

func (r rootFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := r.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rd, ok := f.(fs.ReadDirFile)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	list, err := rd.ReadDir(-1)
	sort.Slice(list, func(i, j int) bool { return list[i].Name() < list[j].Name() })
	return list, err
}

func (r rootFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	info, err := r.r.Stat(name)
	if escapes(err) {
		if rel, ok := r.inside(name); ok {
			return r.r.Stat(rel)
		}
	}
	return info, err
}

// MaxListedFiles bounds how many files ListFiles returns for one skill.
const MaxListedFiles = 1000

// SkipDir reports whether a folder is never part of a skill or a scan:
// version-control and dependency folders.
func SkipDir(name string) bool {
	return name == ".git" || name == "node_modules" || name == ".hg" || name == ".svn"
}

// ListFiles returns the skill's files other than the entry file, as sorted
// slash-separated paths relative to the skill folder. Folders that hold a
// SKILL.md of their own are other skills and are left out, as are .git,
// node_modules and editors' leftovers (backups, swap and lock files). At
// most MaxListedFiles paths are returned; more reports
// truncated. Unreadable sub-folders are skipped.
//
// It lists what a source's own walk lists and what WalkFiles reads:
// regular files only, each stated, with a symlink followed while it stays
// inside the skill folder. A FIFO, or a file in a folder that can be read
// but not entered, is not offered by one list and refused by the others.
//
// Each folder is read once: whether a sub-folder is another skill is seen
// in its own listing, with no extra look-up.
func ListFiles(fsys fs.FS, entry string) (files []string, truncated bool, err error) {
	if fsys == nil {
		return nil, false, nil
	}
	root, err := fs.Stat(fsys, ".")
	if err != nil {
		return nil, false, err
	}
	entries, err := readDirStat(fsys, ".")
	if err != nil {
		return nil, false, err
	}
	dirs := 0
	// ancestors holds the identities of the folders above the one being
	// read, so that a symlink back to one of them ends there.
	ancestors := []FileKey{keyOf(root)}
	var walk func(dir string, entries []statEntry) bool
	walk = func(dir string, entries []statEntry) bool {
		for _, e := range entries {
			p := e.name
			if dir != "." {
				p = dir + "/" + p
			}
			if e.mode&fs.ModeSymlink != 0 {
				info, err := fs.Stat(fsys, p) // follows the link only inside the folder
				if err != nil {
					continue
				}
				e.mode, e.key = info.Mode(), keyOf(info)
			}
			switch {
			case e.mode.IsDir():
				if dirs++; SkipDir(e.name) || dirs > maxWalkDirs || containsKey(ancestors, e.key) {
					continue
				}
				if deeperThanListed(p) {
					continue
				}
				sub, err := readDirStat(fsys, p)
				if err != nil || holds(sub, SkillFile) {
					continue // unreadable, or another skill
				}
				ancestors = append(ancestors, e.key)
				more := walk(p, sub)
				ancestors = ancestors[:len(ancestors)-1]
				if !more {
					return false
				}
			case e.mode.IsRegular():
				if p == entry || leftover.Is(e.name) || CheckPath(p) != nil { // no read can serve it (not UTF-8, a '\\')
					continue
				}
				if len(files) == MaxListedFiles {
					truncated = true
					return false
				}
				files = append(files, p)
			}
		}
		return true
	}
	walk(".", entries)
	// Paths sort apart from names: "a.md" comes before "a/b.md".
	sort.Strings(files)
	return files, truncated, nil
}

// maxFileDepth bounds how many folders deep every list of a skill's files
// (ListFiles, WalkFiles) goes: no skill keeps files so deep (one deeper is
// still served when asked for by its path), and a chain of folders
// thousands deep would cost every list the square of its depth.
const maxFileDepth = 64

// deeperThanListed reports whether the folder at p, a path inside a skill
// folder, is deeper than a list of the skill's files goes, or leaves no
// room for a file's path (MaxPathBytes).
func deeperThanListed(p string) bool {
	return len(p)+2 > MaxPathBytes || strings.Count(p, "/")+1 >= maxFileDepth
}

func holds(entries []statEntry, name string) bool {
	for _, e := range entries {
		if e.name == name && !e.mode.IsDir() {
			return true
		}
	}
	return false
}

// noteFS exposes one file of a folder: a learned note lies among other
// notes, and only its own file belongs to it.
type noteFS struct {
	dir  fs.FS
	name string
}

func (n noteFS) Open(name string) (fs.File, error) {
	if name != n.name {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return n.dir.Open(name)
}

// Pin returns a file system that serves a burst of reads of fsys through
// one open folder, and the function that closes it. DirFS opens its folder
// for every call, which is right for a catalog that holds thousands of
// skills and wrong for the dozen reads that loading one skill makes.
// For any other file system, Pin returns fsys itself.
func Pin(fsys fs.FS) (fs.FS, func()) {
	d, ok := fsys.(dirFS)
	if !ok {
		return fsys, func() {}
	}
	r, err := os.OpenRoot(string(d))
	if err != nil {
		return fsys, func() {} // the reads will report the error
	}
	return rootFS{r}, func() { r.Close() }
}
