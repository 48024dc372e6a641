package plugins

import (
	"bytes"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillmux/skillmux/sources"
)

// remoteFS is the fs.FS of a plugin's skill: its listed files, and the
// folders they imply. The first file opened makes the local copy (when
// there is a cache) and every read is then served from it; without a
// copy each file is read through the plugin. Paths not listed do not
// exist: a plugin cannot add a file after its listing.
type remoteFS struct {
	r     *remote
	id    string
	files map[string]fileMeta
	key   string // content key: the local copy is <cache>/<key>/<folder>
	dir   string // the local copy's folder, "" without a cache

	// once makes the local copy; copied tells whether it exists.
	once   sync.Once
	copied bool
}

var (
	_ fs.ReadDirFS = (*remoteFS)(nil)
	_ fs.StatFS    = (*remoteFS)(nil)
)

func (f *remoteFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	m, ok := f.files[name]
	if !ok {
		entries, isDir := f.dirEntries(name)
		if !isDir {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		return &dirFile{info: dirInfo(path.Base(name)), entries: entries}, nil
	}
	if f.local() {
		return sources.DirFS(f.dir).Open(name)
	}
	ctx, cancel := f.r.fileCtx()
	defer cancel()
	data, err := f.r.readFile(ctx, f.id, m)
	if err != nil {
		return nil, err
	}
	return &memFile{Reader: bytes.NewReader(data), info: fileInfo{name: path.Base(name), size: m.size}}, nil
}

// local makes the local copy if it is not made yet, and reports whether
// it exists.
func (f *remoteFS) local() bool {
	if f.r.cache == nil {
		return false
	}
	f.once.Do(func() {
		metas := make([]fileMeta, 0, len(f.files))
		for _, m := range f.files {
			metas = append(metas, m)
		}
		err := f.r.cache.ensure(f.key, path.Base(f.id), metas, func(m fileMeta) ([]byte, error) {
			ctx, cancel := f.r.fileCtx()
			defer cancel()
			return f.r.readFile(ctx, f.id, m)
		})
		if err != nil && f.r.copyFailed != nil {
			f.r.copyFailed(f.id, err)
		}
		f.copied = err == nil
	})
	return f.copied
}

func (f *remoteFS) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, ok := f.dirEntries(name)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return entries, nil
}

func (f *remoteFS) Stat(name string) (fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrInvalid}
	}
	if m, ok := f.files[name]; ok {
		return fileInfo{name: path.Base(name), size: m.size}, nil
	}
	if _, ok := f.dirEntries(name); ok {
		return dirInfo(path.Base(name)), nil
	}
	return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
}

// dirEntries lists the folder name as the listed files imply it, and
// reports whether it is one.
func (f *remoteFS) dirEntries(name string) ([]fs.DirEntry, bool) {
	prefix := name + "/"
	if name == "." {
		prefix = ""
	}
	seen := map[string]bool{}
	var out []fs.DirEntry
	isDir := name == "."
	for p, m := range f.files {
		rest, ok := strings.CutPrefix(p, prefix)
		if !ok {
			continue
		}
		isDir = true
		first, sub, nested := strings.Cut(rest, "/")
		_ = sub
		if seen[first] {
			continue
		}
		seen[first] = true
		if nested {
			out = append(out, fs.FileInfoToDirEntry(dirInfo(first)))
		} else {
			out = append(out, fs.FileInfoToDirEntry(fileInfo{name: first, size: m.size}))
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, isDir
}

// fileInfo and dirInfo describe the files and folders of a remoteFS.
type fileInfo struct {
	name string
	size int64
}

func (i fileInfo) Name() string       { return i.name }
func (i fileInfo) Size() int64        { return i.size }
func (i fileInfo) Mode() fs.FileMode  { return 0o444 }
func (i fileInfo) ModTime() time.Time { return time.Time{} }
func (i fileInfo) IsDir() bool        { return false }
func (i fileInfo) Sys() any           { return nil }

type dirInfo string

func (d dirInfo) Name() string       { return string(d) }
func (d dirInfo) Size() int64        { return 0 }
func (d dirInfo) Mode() fs.FileMode  { return fs.ModeDir | 0o555 }
func (d dirInfo) ModTime() time.Time { return time.Time{} }
func (d dirInfo) IsDir() bool        { return true }
func (d dirInfo) Sys() any           { return nil }

// memFile is a file read whole through the plugin.
type memFile struct {
	*bytes.Reader
	info fileInfo
}

func (m *memFile) Stat() (fs.FileInfo, error) { return m.info, nil }
func (m *memFile) Close() error               { return nil }

// dirFile is a folder of a remoteFS.
type dirFile struct {
	info    dirInfo
	entries []fs.DirEntry
	read    int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.Name(), Err: fs.ErrInvalid}
}
func (d *dirFile) Close() error { return nil }

func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
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
