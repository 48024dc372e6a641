package sources

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
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
// racyWindow of the save is not trusted, and is parsed again.

// cacheMagic starts a saved cache; the version changes with the format or
// with what Load makes of a file.
const cacheMagic = "skillmux-cache 1\n"

// racyWindow is how close to the save a modification must be for its
// entry not to be trusted.
const racyWindow = 2 * time.Second

// MaxCacheFile bounds the size of a saved cache that LoadFile reads.
const MaxCacheFile = 512 << 20

// SaveFile writes the cache to path, atomically: a reader sees the old
// file or the new one, never half of one.
func (c *Cache) SaveFile(path string) error {
	var body bytes.Buffer
	w := &cacheWriter{w: bufio.NewWriter(&body)}
	c.mu.Lock()
	w.uvarint(uint64(time.Now().UnixNano()))
	w.uvarint(uint64(len(c.m)))
	for p, e := range c.m {
		w.entry(p, e)
	}
	c.changed = false
	c.mu.Unlock()
	if err := w.w.Flush(); err != nil {
		return err
	}
	sum := sha256.Sum256(body.Bytes())
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cache-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // once renamed, there is nothing to remove
	_, err = tmp.WriteString(cacheMagic)
	if err == nil {
		_, err = tmp.Write(sum[:])
	}
	if err == nil {
		_, err = tmp.Write(body.Bytes())
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// LoadFile fills an empty cache from a file SaveFile wrote. An error
// means the file was not usable; the cache is then left empty.
func (c *Cache) LoadFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxCacheFile+1))
	if err != nil {
		return err
	}
	if len(data) > MaxCacheFile {
		return errors.New("cache file too large")
	}
	if !bytes.HasPrefix(data, []byte(cacheMagic)) || len(data) < len(cacheMagic)+sha256.Size {
		return errors.New("not a cache file of this version")
	}
	data = data[len(cacheMagic):]
	sum, body := data[:sha256.Size], data[sha256.Size:]
	if got := sha256.Sum256(body); !bytes.Equal(got[:], sum) {
		return errors.New("cache file corrupt")
	}
	r := &cacheReader{b: body}
	saved := int64(r.uvarint())
	n := r.uvarint()
	m := make(map[string]cached, min(n, 1<<20))
	for i := uint64(0); i < n && r.err == nil; i++ {
		p, e := r.entry()
		if r.err == nil && saved-e.key.Mtime > int64(racyWindow) {
			m[p] = e
		}
	}
	if r.err != nil {
		return fmt.Errorf("cache file corrupt: %w", r.err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = m
	}
	return nil
}

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
	for _, v := range []uint64{e.key.Dev, e.key.Ino, uint64(e.key.Size), uint64(e.key.Mtime), uint64(e.key.Ctime)} {
		w.uvarint(v)
	}
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
	b   []byte
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
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *cacheReader) entry() (string, cached) {
	path := r.str()
	var e cached
	e.key = FileKey{Dev: r.uvarint(), Ino: r.uvarint(), Size: int64(r.uvarint()), Mtime: int64(r.uvarint()), Ctime: int64(r.uvarint())}
	e.opts = LoadOptions{Namespace: r.str(), Source: r.str(), Scope: Scope(r.str()), Kind: Kind(r.str()), Convention: r.str()}
	switch r.uvarint() {
	case 1:
		name, desc, front := r.str(), r.str(), r.str()
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
			FrontMatter:            []byte(front),
			Path:                   path,
			Dir:                    filepath.Dir(path),
			Source:                 e.opts.Source,
			Scope:                  e.opts.Scope,
			Kind:                   e.opts.Kind,
			Convention:             e.opts.Convention,
			Diagnostics:            diags,
			Files:                  localFiles(path, e.opts.Kind),
		}
	case 2:
		e.err = r.diagnostic()
	default:
		e.key = FileKey{} // never matches: the file is loaded again
	}
	return path, e
}

func (r *cacheReader) diagnostic() Diagnostic {
	sev, line := Severity(r.uvarint()), int(r.uvarint())
	return Diagnostic{Severity: sev, Line: line, Path: r.str(), Field: r.str(), Rule: r.str(), Message: r.str()}
}
