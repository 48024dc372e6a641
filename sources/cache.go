package sources

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// FileKey is what the file system says about a file that changes when the
// file does: its identity, size, and modification and change times. Two
// equal keys mean, for all practical purposes, the same content.
type FileKey struct {
	Dev, Ino     uint64
	Size         int64
	Mtime, Ctime int64 // nanoseconds
}

// Cache remembers what Load made of each file, by its FileKey, so that a
// rescan of a catalog parses only the files that changed: an unchanged
// SKILL.md costs a stat. It also remembers folder listings (PutFolder),
// so that an unchanged folder costs a stat rather than a read. It is safe
// for concurrent use.
type Cache struct {
	// mu guards the fields below.
	mu      sync.Mutex
	m       map[string]cached
	folders map[string]*folder
	changed bool // since the last SaveFile or LoadFile
}

type cached struct {
	key   FileKey
	opts  LoadOptions
	skill *Skill
	err   error
	gen   uint64
	// racy is set when the file was parsed within racyWindow of its last
	// change: it may have changed again within the same tick of the file
	// system's clock (a second on some), keeping its key, so the entry
	// is not trusted and the file is parsed again, until a parse comes
	// later than that.
	racy bool
}

// Load is sources.Load through the cache: a file whose key and options
// are those of its last load gives the same *Skill (or the same error)
// without being read again. A nil *Cache loads every time.
func (c *Cache) Load(path string, o LoadOptions) (*Skill, error) {
	return c.load(path, o, 0)
}

func (c *Cache) load(path string, o LoadOptions, gen uint64) (*Skill, error) {
	sk, exists, err := c.Probe(path, o, gen)
	if !exists {
		msg := "cannot read: the file does not exist"
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrPermission) {
			msg = "cannot read: " + unwrapPath(err)
		}
		return nil, Diagnostic{Severity: Error, Path: path, Rule: "read", Message: msg}
	}
	return sk, err
}

// Probe is LoadGen for a file that may not exist: exists is false, and
// the error nil, when there is no file at path, or when its folder cannot
// be searched (the folder's listing says why). A folder scan probes for
// SKILL.md rather than listing the folder.
func (c *Cache) Probe(path string, o LoadOptions, gen uint64) (sk *Skill, exists bool, err error) {
	path = filepath.Clean(path)
	if o.Kind == "" {
		o.Kind = KindSkill
	}
	if c != nil {
		// A file the cache knows is checked with one lstat, which follows
		// no link: a regular file with the same key is the file parsed.
		// Anything else (a link, a change) takes the careful path below.
		c.mu.Lock()
		e, ok := c.m[path]
		c.mu.Unlock()
		if ok && e.opts == o && !e.racy {
			if key, regular := lstatKey(path); regular && key == e.key {
				c.mu.Lock()
				e.gen = gen
				c.m[path] = e
				c.mu.Unlock()
				return e.skill, true, e.err
			}
		}
	}
	f, err := openEntry(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		// Only a file that fails to open pays for a look at the link
		// it may be: a link that leads nowhere is a SKILL.md all the
		// same, and its author should hear that it is refused.
		if why, ok := linkProblem(path); ok {
			return nil, true, Diagnostic{Severity: Error, Path: path, Rule: "link", Message: why}
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		if errors.Is(err, fs.ErrPermission) {
			if _, lerr := os.Lstat(path); errors.Is(lerr, fs.ErrPermission) {
				// The folder cannot be searched, so there is no telling
				// whether it holds a SKILL.md: that is the folder's
				// problem, which a listing of it reports, not a file's.
				return nil, false, nil
			}
		}
		return nil, true, Diagnostic{Severity: Error, Path: path, Rule: "read", Message: "cannot read: " + unwrapPath(err)}
	}
	defer f.Close()
	key := f.Key()
	var prev cached // a racy entry of the same key: parsed again
	if c != nil {
		c.mu.Lock()
		e, ok := c.m[path]
		if ok && e.key == key && e.opts == o {
			if !e.racy {
				e.gen = gen
				c.m[path] = e
				c.mu.Unlock()
				return e.skill, true, e.err
			}
			prev = e
		}
		c.mu.Unlock()
	}
	racy := changedLately(key, now().UnixNano())
	if d, ok := Oversized(path, key.Size); ok {
		err = d
	} else if front, rerr := ReadFrontMatter(f); rerr != nil {
		err = frontMatterDiagnostic(path, rerr)
	} else {
		sk, err = newSkill(path, front, o)
	}
	if prev.racy && sameParse(prev, sk, err) {
		// Parsed again for nothing: the *Skill stays the one its
		// users hold, which tells them nothing changed.
		sk, err = prev.skill, prev.err
	}
	if c != nil {
		c.mu.Lock()
		if c.m == nil {
			c.m = map[string]cached{}
		}
		c.m[path] = cached{key: key, opts: o, skill: sk, err: err, gen: gen, racy: racy}
		c.changed = true
		c.mu.Unlock()
	}
	return sk, true, err
}

// sameParse reports whether the parse of a file gave what e holds: a
// Skill is made of its path, its options and its front matter, all the
// same in e's.
func sameParse(e cached, sk *Skill, err error) bool {
	if (err == nil) != (e.err == nil) || (sk == nil) != (e.skill == nil) {
		return false
	}
	if err != nil && err.Error() != e.err.Error() {
		return false
	}
	return sk == nil || bytes.Equal(sk.FrontMatter, e.skill.FrontMatter)
}

// LoadGen is Load for a rescan numbered gen: Prune(gen) then forgets the
// files the rescan did not load.
func (c *Cache) LoadGen(path string, o LoadOptions, gen uint64) (*Skill, error) {
	return c.load(path, o, gen)
}

// Prune forgets every file not loaded, and every folder listing not used
// or recorded, since generation gen, so that the cache holds only what
// the catalog holds.
func (c *Cache) Prune(gen uint64) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for p, e := range c.m {
		if e.gen < gen {
			delete(c.m, p)
			c.changed = true
		}
	}
	for p, f := range c.folders {
		if f.gen < gen {
			delete(c.folders, p)
			c.changed = true
		}
	}
}

// Changed reports whether the cache learned or forgot anything since it
// was last saved or loaded.
func (c *Cache) Changed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// Replace makes the cache give next, rather than prev, for the file at
// path, if it gives prev now: a source that serves a copy of a cached
// skill with more filled in (its file list) keeps one Skill per file, not
// two. next must describe the same file as prev; what a saved cache holds
// of it does not change.
func (c *Cache) Replace(path string, prev, next *Skill) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.m[path]; ok && e.skill == prev {
		e.skill = next
		c.m[path] = e
	}
}
