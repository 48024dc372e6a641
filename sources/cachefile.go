package sources

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// A Cache can be saved to a file and loaded back, so that a new process
// starts with what the last one parsed: a SKILL.md whose FileKey is the
// one saved is not read again. The file only saves time: one that is
// missing, stale, corrupt, or from another version is ignored, and every
// entry is checked against the file system before use like any other.
//
// File times have a granularity: a file written just before the cache was
// saved might be written again within the same tick and keep its key. As
// git does with its index, an entry whose file was modified within
// racyWindow of the save is not trusted, and is parsed again; the change
// time counts, as a copy that keeps an old modification time (cp -p,
// rsync -a, tar x) sets it. A running process does the same with the
// entries it parsed within racyWindow of their file's change (Probe). Folder
// listings are recorded only when the folder is older than that already
// (PutFolder).

// cacheMagic starts a saved cache; the version changes with the format or
// with what Load makes of a file.
const cacheMagic = "skillmux-cache 13\n"

// racyWindow is how close to the save a modification must be for its
// entry not to be trusted.
const racyWindow = 2 * time.Second

// changedLately reports whether the file of key was changed within
// racyWindow of the time at (Unix ns): it may change again within the same
// tick of the file system's clock and keep its key. Its change time
// tells, which a copy that keeps an old modification time sets (cp -p,
// rsync -a) and which nothing sets back, or its modification time where
// there is none; a time far from at either way (a clock that drifts, an
// archive from another time zone) is not lately, lest the file be parsed
// again at every look.
func changedLately(key FileKey, at int64) bool {
	t := key.Ctime
	if t == 0 {
		t = key.Mtime
	}
	d := at - t
	return -int64(racyWindow) <= d && d <= int64(racyWindow)
}

// MaxCacheFile bounds the size of a saved cache that LoadFile reads.
const MaxCacheFile = 512 << 20

// SaveFile writes the cache to path, atomically: a reader sees the old
// file or the new one, never half of one. The entries are streamed to the
// file, the checksum last, so saving costs no copy of the cache in memory.
func (c *Cache) SaveFile(path string) error {
	type saved struct {
		path string
		e    cached
	}
	type savedFolder struct {
		path string
		f    folder
	}
	c.mu.Lock()
	entries := make([]saved, 0, len(c.m))
	for p, e := range c.m {
		if !e.racy { // parsed again by the next process, as by this one
			entries = append(entries, saved{p, e})
		}
	}
	folders := make([]savedFolder, 0, len(c.folders))
	for p, f := range c.folders {
		folders = append(folders, savedFolder{p, *f})
	}
	c.changed = false
	c.mu.Unlock()

	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	removeLeftovers(filepath.Dir(path), path)
	tmp, err := os.CreateTemp(filepath.Dir(path), tempPrefix+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // once renamed, there is nothing to remove
	out := bufio.NewWriterSize(tmp, 64<<10)
	out.WriteString(cacheMagic)
	sum := crc32.New(castagnoli)
	w := &cacheWriter{w: bufio.NewWriterSize(io.MultiWriter(out, sum), 64<<10)}
	w.uvarint(uint64(now().UnixNano()))
	w.uvarint(uint64(len(entries)))
	for _, s := range entries {
		w.entry(s.path, s.e)
	}
	w.uvarint(uint64(len(folders)))
	for _, s := range folders {
		w.folder(s.path, s.f)
	}
	err = w.w.Flush()
	if err == nil {
		err = binary.Write(out, binary.LittleEndian, sum.Sum32())
	}
	if err == nil {
		err = out.Flush()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// tempPrefix starts the name of the file a save writes before renaming it.
const tempPrefix = ".cache-"

// leftoverAge is how old a temporary file of a save must be for another
// save to remove it: a process killed while saving left it. A younger one
// may be another process's save under way.
const leftoverAge = time.Hour

// unusedAge is how long a saved cache may go unused, neither saved nor
// loaded, before a save of another in its folder removes it: the root it
// was for (a checkout since deleted, a sandbox) is served no more.
const unusedAge = 30 * 24 * time.Hour

// maxSaved bounds the saved caches of one folder: past it, a save removes
// the least recently used.
const maxSaved = 256

// usedAge is how old a saved cache's time must be for a load to renew it:
// a file loaded at every start but never saved again is in use.
const usedAge = 24 * time.Hour

// swept holds the folders this process swept already.
var swept sync.Map

// removeLeftovers removes, once per process, what saves in dir left: the
// temporary files older than leftoverAge, the saved caches (*.cache)
// unused for unusedAge, and the least recently used past maxSaved, the
// one about to be saved, path, counted.
func removeLeftovers(dir, path string) {
	if _, done := swept.LoadOrStore(dir, true); done {
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type savedFile struct {
		path string
		used time.Time
	}
	var saved []savedFile
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if !e.Type().IsRegular() || p == path {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		switch age := time.Since(fi.ModTime()); {
		case strings.HasPrefix(e.Name(), tempPrefix):
			if age > leftoverAge {
				os.Remove(p)
			}
		case strings.HasSuffix(e.Name(), ".cache"):
			if age > unusedAge {
				os.Remove(p)
				continue
			}
			saved = append(saved, savedFile{p, fi.ModTime()})
		}
	}
	if len(saved) >= maxSaved {
		slices.SortFunc(saved, func(a, b savedFile) int { return b.used.Compare(a.used) })
		for _, f := range saved[maxSaved-1:] {
			os.Remove(f.path)
		}
	}
}

// LoadFile fills an empty cache from a file SaveFile wrote. An error
// means the file was not usable; the cache is then left empty.
func (c *Cache) LoadFile(path string) error {
	// Only a regular file is read, and its open does not wait: a FIFO
	// put in its place would block until a writer came.
	data, err := ReadRegularFile(path, MaxCacheFile)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(data, []byte(cacheMagic)) || len(data) < len(cacheMagic)+4 {
		return errors.New("not a cache file of this version")
	}
	body, sum := data[len(cacheMagic):len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return errors.New("cache file corrupt")
	}
	// Every string and front matter decoded is a part of data, read once
	// and never written again: a load makes one allocation per entry, not
	// one per field, and keeps one copy of the text, not two.
	r := &cacheReader{b: body, s: unsafe.String(unsafe.SliceData(body), len(body))}
	saved := int64(r.uvarint())
	n := r.uvarint()
	m := make(map[string]cached, min(n, 1<<20))
	for i := uint64(0); i < n && r.err == nil; i++ {
		p, e := r.entry()
		if r.err == nil && !changedLately(e.key, saved) {
			m[p] = e
		}
	}
	n = r.uvarint()
	folders := make(map[string]*folder, min(n, 1<<20))
	for i := uint64(0); i < n && r.err == nil; i++ {
		p, f := r.folder()
		folders[p] = f
	}
	if r.err == nil && len(r.b) != 0 {
		r.err = errors.New("data past the end")
	}
	if r.err != nil {
		return fmt.Errorf("cache file corrupt: %w", r.err)
	}
	if fi, err := os.Stat(path); err == nil && time.Since(fi.ModTime()) > usedAge {
		t := time.Now()
		os.Chtimes(path, t, t) // in use, though not saved again: see removeLeftovers
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil && c.folders == nil {
		c.m, c.folders = m, folders
	}
	return nil
}

// castagnoli is the CRC-32 that checks a saved cache: it catches a torn or
// damaged file, and the processor computes it at memory speed.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// cacheWriter encodes entries: numbers as varints, strings and bytes with
// their length first.
type cacheWriter struct{ w *bufio.Writer }

func (w *cacheWriter) uvarint(v uint64) {
	var b [binary.MaxVarintLen64]byte
	w.w.Write(b[:binary.PutUvarint(b[:], v)])
}

func (w *cacheWriter) str(s string) {
	w.uvarint(uint64(len(s)))
	w.w.WriteString(s)
}

func (w *cacheWriter) entry(path string, e cached) {
	w.str(path)
	w.key(e.key)
	for _, s := range []string{e.opts.Namespace, e.opts.Source, string(e.opts.Scope), string(e.opts.Kind), e.opts.Convention} {
		w.str(s)
	}
	var d Diagnostic
	switch {
	case e.skill != nil:
		w.uvarint(1)
		sk := e.skill
		for _, s := range []string{sk.Ref.Name, sk.Description, string(sk.FrontMatter)} {
			w.str(s)
		}
		w.uvarint(flag(sk.DisableModelInvocation) | flag(sk.UserInvocable)<<1)
		w.uvarint(uint64(len(sk.Diagnostics)))
		for _, d := range sk.Diagnostics {
			w.diagnostic(d)
		}
	case errors.As(e.err, &d):
		w.uvarint(2)
		w.diagnostic(d)
	default:
		w.uvarint(0) // an error of no kind worth saving: load it again
	}
}

func (w *cacheWriter) folder(path string, f folder) {
	w.str(path)
	w.key(f.key)
	w.uvarint(uint64(len(f.entries)))
	for _, e := range f.entries {
		w.str(e.Name)
		w.uvarint(uint64(e.Type))
	}
}

func (w *cacheWriter) key(k FileKey) {
	for _, v := range []uint64{k.Dev, k.Ino, uint64(k.Size), uint64(k.Mtime), uint64(k.Ctime)} {
		w.uvarint(v)
	}
}

func (w *cacheWriter) diagnostic(d Diagnostic) {
	w.uvarint(uint64(d.Severity))
	w.uvarint(uint64(d.Line))
	for _, s := range []string{d.Path, d.Field, d.Rule, d.Message} {
		w.str(s)
	}
}

func flag(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// cacheReader decodes what cacheWriter wrote; the first problem sticks in
// err and every later read returns zero values.
type cacheReader struct {
	b   []byte // what is left to read
	s   string // the whole of it, of which strings are cut
	err error
}

func (r *cacheReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errors.New("bad number")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *cacheReader) str() string {
	n := r.uvarint()
	if r.err != nil {
		return ""
	}
	if n > uint64(len(r.b)) {
		r.err = errors.New("string past the end")
		return ""
	}
	at := len(r.s) - len(r.b)
	r.b = r.b[n:]
	return r.s[at : at+int(n)]
}

// bytes is str for bytes: a part of the data read, capacity cut so that
// nothing can append into the next field.
func (r *cacheReader) bytes() []byte {
	n := r.uvarint()
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = errors.New("bytes past the end")
		return nil
	}
	b := r.b[:n:n]
	r.b = r.b[n:]
	return b
}

func (r *cacheReader) entry() (string, cached) {
	path := r.str()
	var e cached
	e.key = r.key()
	e.opts = LoadOptions{Namespace: r.str(), Source: r.str(), Scope: Scope(r.str()), Kind: Kind(r.str()), Convention: r.str()}
	switch r.uvarint() {
	case 1:
		name, desc, front := r.str(), r.str(), r.bytes()
		flags := r.uvarint()
		n := r.uvarint()
		var diags []Diagnostic
		for i := uint64(0); i < n && r.err == nil; i++ {
			diags = append(diags, r.diagnostic())
		}
		e.skill = &Skill{
			Ref:                    Ref{Namespace: e.opts.Namespace, Name: name},
			Description:            desc,
			DisableModelInvocation: flags&1 != 0,
			UserInvocable:          flags&2 != 0,
			FrontMatter:            front,
			Path:                   path,
			Dir:                    filepath.Dir(path),
			Source:                 e.opts.Source,
			Scope:                  e.opts.Scope,
			Kind:                   e.opts.Kind,
			Convention:             e.opts.Convention,
			Diagnostics:            diags,
			Files:                  localLocation(path, e.opts.Kind).Files,
		}
	case 2:
		e.err = r.diagnostic()
	default:
		e.key = FileKey{} // never matches: the file is loaded again
	}
	return path, e
}

func (r *cacheReader) key() FileKey {
	return FileKey{Dev: r.uvarint(), Ino: r.uvarint(), Size: int64(r.uvarint()), Mtime: int64(r.uvarint()), Ctime: int64(r.uvarint())}
}

func (r *cacheReader) folder() (string, *folder) {
	path := r.str()
	f := &folder{key: r.key()}
	n := r.uvarint()
	f.entries = make([]DirEntry, 0, min(n, 256))
	for i := uint64(0); i < n && r.err == nil; i++ {
		f.entries = append(f.entries, DirEntry{Name: r.str(), Type: fs.FileMode(r.uvarint())})
	}
	return path, f
}

func (r *cacheReader) diagnostic() Diagnostic {
	sev, line := Severity(r.uvarint()), int(r.uvarint())
	return Diagnostic{Severity: sev, Line: line, Path: r.str(), Field: r.str(), Rule: r.str(), Message: r.str()}
}
