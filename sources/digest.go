package sources

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"sort"
	"sync"

	"github.com/skillmux/skillmux/internal/leftover"
)

// WalkedFile is one regular file of a skill folder as WalkFiles found it.
type WalkedFile struct {
	// Path is slash-separated and relative to the skill folder.
	Path string
	Size int64
	// Key identifies the file's content for the digest cache; its Ino is
	// 0 for files that are not on a local file system.
	Key FileKey
}

// WalkOptions bounds and filters WalkFiles. A nil *WalkOptions means the
// defaults.
type WalkOptions struct {
	// MaxFiles stops the walk once one more file than this is found;
	// default MaxListedFiles.
	MaxFiles int
	// Allow, if set, decides which paths are part of the skill: a folder
	// is entered only if Allow(folder, true), a file is listed only if
	// Allow(file, false).
	Allow func(path string, dir bool) bool
	// Unreadable, if set, is told of each folder that cannot be read
	// (closed to the user skillmux runs as, say), which the walk leaves
	// out: a caller that serves the skill whole can refuse to serve it
	// without those files rather than serve less than the skill.
	Unreadable func(dir string, err error)
}

// maxWalkDirs bounds the folders one walk enters: symlinks between
// folders could otherwise make a small folder look endless.
const maxWalkDirs = 4096

// WalkFiles returns every regular file of a skill, sorted by path: its
// entry file, the other files, and the files of skills nested in its
// folder, which are part of it too, each with its size and FileKey (see
// ListFiles for the other files alone). fsys is the skill's Files (see Pin for a
// burst of reads); for a learned note it is the note alone.
//
// Folders that SkipDir names (.git, node_modules) are left out, and so are
// editors' leftovers (backups, swap and lock files) and anything that is
// not a regular file or a folder. A symlink is followed
// while it stays inside the skill folder, which the file system (os.Root)
// decides; one that leaves it is left out without a word, so that a
// listing says nothing about what lies outside. A symlink to a folder
// that encloses it is not followed again. At most MaxFiles files are
// returned; truncated reports there were more.
func WalkFiles(fsys fs.FS, opts *WalkOptions) (files []WalkedFile, truncated bool, err error) {
	o := WalkOptions{MaxFiles: MaxListedFiles}
	if opts != nil {
		o = *opts
		if o.MaxFiles <= 0 {
			o.MaxFiles = MaxListedFiles
		}
	}
	allow := func(p string, dir bool) bool { return o.Allow == nil || o.Allow(p, dir) }
	if n, ok := fsys.(noteFS); ok {
		info, err := fs.Stat(n, n.name)
		if err != nil {
			return nil, false, err
		}
		if !info.Mode().IsRegular() || !allow(n.name, false) {
			return nil, false, nil
		}
		return []WalkedFile{{Path: n.name, Size: info.Size(), Key: keyOf(info)}}, false, nil
	}
	if d, ok := fsys.(dirFS); ok {
		pinned, done := Pin(d)
		defer done()
		fsys = pinned
	}
	root, err := fs.Stat(fsys, ".")
	if err != nil {
		return nil, false, err
	}
	dirs := 0
	// ancestors holds the identities of the folders above the one being
	// read, so that a symlink back to one of them ends there.
	var ancestors []FileKey
	var walk func(dir string, key FileKey) bool
	walk = func(dir string, key FileKey) bool {
		if dirs++; dirs > maxWalkDirs {
			return true // a bound on pathological trees, not on files
		}
		entries, err := readDirStat(fsys, dir)
		if err != nil {
			// Unreadable: skipped, as ListFiles does; gone since it
			// was listed is no one's concern.
			if o.Unreadable != nil && !errors.Is(err, fs.ErrNotExist) {
				o.Unreadable(dir, err)
			}
			return true
		}
		ancestors = append(ancestors, key)
		defer func() { ancestors = ancestors[:len(ancestors)-1] }()
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
				e.mode, e.size, e.key = info.Mode(), info.Size(), keyOf(info)
			}
			switch {
			case e.mode.IsDir():
				if SkipDir(e.name) || !allow(p, true) || containsKey(ancestors, e.key) {
					continue
				}
				if deeperThanListed(p) {
					continue
				}
				if !walk(p, e.key) {
					return false
				}
			case e.mode.IsRegular():
				if leftover.Is(e.name) || CheckPath(p) != nil || !allow(p, false) {
					continue
				}
				if len(files) == o.MaxFiles {
					truncated = true
					return false
				}
				files = append(files, WalkedFile{Path: p, Size: e.size, Key: e.key})
			}
		}
		return true
	}
	walk(".", keyOf(root))
	sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	return files, truncated, nil
}

// statEntry is one entry of a folder with what a stat of it (not
// following a symlink) says.
type statEntry struct {
	name string
	mode fs.FileMode
	size int64
	key  FileKey
}

// readDirStat lists the folder dir of fsys, sorted by name, with each
// entry stated without following a symlink. A skill folder held open
// (rootFS) is read with one system call per entry where the system
// allows (readDirAt); any other file system through fs.ReadDir and
// DirEntry.Info.
func readDirStat(fsys fs.FS, dir string) ([]statEntry, error) {
	if r, ok := fsys.(rootFS); ok {
		if out, ok, err := r.readDirAt(dir); ok {
			return out, err
		}
	}
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	out := make([]statEntry, 0, len(entries))
	for _, e := range entries {
		se := statEntry{name: e.Name(), mode: e.Type()}
		if se.mode&fs.ModeSymlink == 0 {
			info, err := e.Info()
			if err != nil {
				continue
			}
			se.mode, se.size, se.key = info.Mode(), info.Size(), keyOf(info)
		}
		out = append(out, se)
	}
	return out, nil
}

// KeyOf returns the FileKey of a file's FileInfo: identity, size and
// times where the system gives them (Ino is 0 where it does not, as for
// files that are not on a local file system).
func KeyOf(info fs.FileInfo) FileKey { return keyOf(info) }

func containsKey(keys []FileKey, k FileKey) bool {
	return slices.ContainsFunc(keys, k.SameFile)
}

// SameFile reports whether k and o are one file (or folder) on disk, as
// far as their identity tells: never for keys without one (Ino 0, files
// not on a local file system).
func (k FileKey) SameFile(o FileKey) bool { return k.Ino != 0 && k.Dev == o.Dev && k.Ino == o.Ino }

// Digests computes the SHA-256 digests of skill files and remembers them
// by the file's absolute path and FileKey, so that a file is read again
// only when it changed: listing a catalog a second time costs a stat per
// file. Files without an identity (not on a local file system) are read
// every time. It is safe for concurrent use; the zero value is ready.
type Digests struct {
	// mu guards m.
	mu sync.Mutex
	m  map[string]digestEntry
}

type digestEntry struct {
	key FileKey
	sum [32]byte
}

// maxDigests bounds the cache; past it the cache starts afresh, which
// costs one more read of each file.
const maxDigests = 1 << 18

// Digest is a SHA-256 digest in the Skills extension's form: "sha256:"
// and 64 lowercase hexadecimal digits.
type Digest [32]byte

func (d Digest) String() string { return "sha256:" + hex.EncodeToString(d[:]) }

// Sum returns the digest and size of the file f of the skill folder
// fsys, whose absolute path is base/f.Path. The size is that of the bytes
// read, which is f.Size unless the file changed since it was walked. A
// file that keeps changing while it is read is an error.
func (d *Digests) Sum(fsys fs.FS, base string, f WalkedFile) (Digest, int64, error) {
	abs := path.Join(base, f.Path)
	if f.Key.Ino != 0 {
		d.mu.Lock()
		e, ok := d.m[abs]
		d.mu.Unlock()
		if ok && e.key == f.Key {
			return e.sum, f.Size, nil
		}
	}
	for range 2 {
		sum, key, stable, err := hashFile(fsys, f.Path)
		if err != nil {
			return Digest{}, 0, err
		}
		if !stable {
			continue
		}
		// A file changed within racyWindow of now may change again
		// and keep its key (see Cache): its digest is not kept.
		if key.Ino != 0 && !changedLately(key, now().UnixNano()) {
			d.mu.Lock()
			if d.m == nil || len(d.m) >= maxDigests {
				d.m = map[string]digestEntry{}
			}
			d.m[abs] = digestEntry{key: key, sum: sum}
			d.mu.Unlock()
		}
		return sum, key.Size, nil
	}
	return Digest{}, 0, &fs.PathError{Op: "digest", Path: f.Path, Err: errors.New("the file changed while it was read")}
}

var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// hashFile reads name whole and reports its digest, the key of what was
// read, and whether the file stayed the same during the read.
func hashFile(fsys fs.FS, name string) (sum Digest, key FileKey, stable bool, err error) {
	f, err := fsys.Open(name)
	if err != nil {
		return sum, key, false, Confine(name, err)
	}
	ef, err := checkRegular(f)
	if err != nil {
		return sum, key, false, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	defer ef.Close()
	key = ef.Key()
	h := sha256.New()
	buf := copyBuffers.Get().(*[]byte)
	n, err := io.CopyBuffer(h, io.LimitReader(ef, key.Size+1), *buf)
	copyBuffers.Put(buf)
	if err != nil {
		return sum, key, false, fmt.Errorf("read %s: %w", name, err)
	}
	h.Sum(sum[:0])
	if n != key.Size {
		return sum, key, false, nil
	}
	if st, ok := ef.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if info, err := st.Stat(); err == nil && keyOf(info) != key {
			return sum, key, false, nil
		}
	}
	return sum, key, true, nil
}
