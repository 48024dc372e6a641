package sources

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"
)

// ListedFS is the fs.FS of a skill whose files are not a local folder (a
// source plugin's, a bundle's): the files listed, with their sizes, and
// the folders their paths imply. A file's content is read whole, by read,
// when it is opened; paths not listed do not exist. Every file and folder
// has the modification time modTime (the zero time when unknown).
func ListedFS(sizes map[string]int64, modTime time.Time, read func(name string) ([]byte, error)) fs.FS {
	return &listedFS{sizes: sizes, modTime: modTime, read: read}
}

type listedFS struct {
	sizes   map[string]int64 // by slash path from the skill's folder
	modTime time.Time
	read    func(name string) ([]byte, error)
}

var (
	_ fs.ReadDirFS = (*listedFS)(nil)
	_ fs.StatFS    = (*listedFS)(nil)
)

func (f *listedFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if _, ok := f.sizes[name]; !ok {
		entries, isDir := f.dirEntries(name)
		if !isDir {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		return &listedDir{info: f.dirInfo(path.Base(name)), entries: entries}, nil
	}
	data, err := f.read(name)
	if err != nil {
		return nil, err
	}
	return &listedFile{Reader: bytes.NewReader(data), info: listedInfo{name: path.Base(name), size: int64(len(data)), modTime: f.modTime}}, nil
}

func (f *listedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrInvalid}
	}
	entries, ok := f.dirEntries(name)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return entries, nil
}

func (f *listedFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if size, ok := f.sizes[name]; ok {
		return listedInfo{name: path.Base(name), size: size, modTime: f.modTime}, nil
	}
	if _, ok := f.dirEntries(name); ok {
		return f.dirInfo(path.Base(name)), nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

func (f *listedFS) dirInfo(name string) listedInfo {
	return listedInfo{name: name, dir: true, modTime: f.modTime}
}

// dirEntries lists the folder name as the listed paths imply it, sorted,
// and reports whether it is one.
func (f *listedFS) dirEntries(name string) ([]fs.DirEntry, bool) {
	prefix := name + "/"
	if name == "." {
		prefix = ""
	}
	seen := map[string]bool{}
	var out []fs.DirEntry
	isDir := name == "."
	for p, size := range f.sizes {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		isDir = true
		first, _, nested := strings.Cut(rest, "/")
		if seen[first] {
			continue
		}
		seen[first] = true
		if nested {
			out = append(out, fs.FileInfoToDirEntry(f.dirInfo(first)))
		} else {
			out = append(out, fs.FileInfoToDirEntry(listedInfo{name: first, size: size, modTime: f.modTime}))
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, isDir
}

// listedInfo describes a file or a folder of a listedFS: read-only.
type listedInfo struct {
	name    string
	size    int64
	dir     bool
	modTime time.Time
}

func (i listedInfo) Name() string       { return i.name }
func (i listedInfo) Size() int64        { return i.size }
func (i listedInfo) ModTime() time.Time { return i.modTime }
func (i listedInfo) IsDir() bool        { return i.dir }
func (i listedInfo) Sys() any           { return nil }
func (i listedInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

// listedFile is a file of a listedFS, read whole when opened.
type listedFile struct {
	*bytes.Reader
	info listedInfo
}

func (f *listedFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *listedFile) Close() error               { return nil }

// listedDir is a folder of a listedFS.
type listedDir struct {
	info    listedInfo
	entries []fs.DirEntry
	read    int
}

func (d *listedDir) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *listedDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: fs.ErrInvalid}
}
func (d *listedDir) Close() error { return nil }

func (d *listedDir) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.entries[d.read:]
	if n <= 0 {
		d.read = len(d.entries)
		return rest, nil
	}
	if len(rest) == 0 {
		return nil, io.EOF
	}
	n = min(n, len(rest))
	d.read += n
	return rest[:n], nil
}
