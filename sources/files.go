package sources

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"sort"
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
)

func (d dirFS) root() (*os.Root, error) { return os.OpenRoot(string(d)) }

func (d dirFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	r, err := d.root()
	if err != nil {
		return nil, err
	}
	defer r.Close() // files opened through a Root outlive it
	return r.Open(name)
}

func (d dirFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readfile", Path: name, Err: fs.ErrInvalid}
	}
	r, err := d.root()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadFile(name)
}

func (d dirFS) ReadDir(name string) ([]fs.DirEntry, error) {
	f, err := d.Open(name)
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

func (d dirFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	r, err := d.root()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.Stat(name)
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
// SKILL.md of their own are other skills and are left out, as are .git and
// node_modules. At most MaxListedFiles paths are returned; more reports
// truncated. Unreadable folders are skipped.
func ListFiles(fsys fs.FS, entry string) (files []string, truncated bool, err error) {
	if fsys == nil {
		return nil, false, nil
	}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			return nil // an unreadable sub-folder hides its files, nothing more
		}
		if d.IsDir() {
			if p == "." {
				return nil
			}
			if SkipDir(d.Name()) {
				return fs.SkipDir
			}
			if _, err := fs.Stat(fsys, path.Join(p, SkillFile)); err == nil {
				return fs.SkipDir
			}
			return nil
		}
		if p == entry {
			return nil
		}
		if len(files) == MaxListedFiles {
			truncated = true
			return fs.SkipAll
		}
		files = append(files, p)
		return nil
	})
	return files, truncated, err
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
