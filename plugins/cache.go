package plugins

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// DefaultCacheBytes bounds the local copies of plugin skills, together.
const DefaultCacheBytes = 256 << 20

// copyCache keeps read-only local copies of plugin skills, so that an
// agent can read a skill's files with its own tools from the base
// directory it is shown. A copy lives in <root>/<key>/<folder>, where key
// is a digest of the skill's content and folder the skill's folder name:
// a skill that changes gets a new folder, and an unchanged one keeps its
// folder across restarts of skillmux and of the plugin. Skills of equal
// content but other folder names (two folders holding the same file) have
// a copy each in one key's folder. When the copies would hold more than
// max bytes, the least recently used keys' folders are removed.
type copyCache struct {
	root string
	max  int64

	// mu guards inflight: the copies being made, by <key>/<folder>, so
	// that two loads of one skill make one copy.
	mu       sync.Mutex
	inflight map[string]*flight

	// usage guards the fields below, and makes evictions one at a time.
	usage sync.Mutex
	// keys are the key folders under root, with the size of each copy in
	// them and when they were last used: as the last look at the folder
	// found them, and as this process made, used and lost them since.
	// Other processes sharing the folder are seen at the next look, at
	// most rescanEvery after the last.
	keys map[string]*keyUse
	// reserved is the room evict made for the copies being made now,
	// which are counted in keys only once they are in place: fills at
	// once each make room for their own, not all for the same.
	reserved int64
	scanned  time.Time // of the last look; zero before the first
	scans    int       // looks taken, for tests
}

// keyUse is what a key folder holds: a copy of the key's content in a
// folder of each name it was made for (a copy's size is set, never added
// to, so a copy made again is counted once), and its last use.
type keyUse struct {
	copies map[string]int64 // bytes, by folder name
	used   time.Time
}

// size is the bytes of the key folder's copies.
func (k *keyUse) size() int64 {
	var n int64
	for _, b := range k.copies {
		n += b
	}
	return n
}

// rescanEvery is how often at most the cache folder is walked whole to
// learn what other processes copied or removed: a walk reads every copy,
// and a catalog of thousands of plugin skills makes thousands of copies.
const rescanEvery = time.Minute

type flight struct {
	done chan struct{}
	err  error
}

func newCopyCache(root string, max int64) *copyCache {
	return &copyCache{root: root, max: max, inflight: map[string]*flight{}}
}

// ensure makes the copy of a skill in <root>/<key>/<folder> unless it
// exists, fetching each file (which checks it against its digest). The
// files are written read-only to a temporary folder that is renamed into
// place whole, so a copy is complete or absent, also to other processes;
// a copy another process made first is as good as one's own.
func (c *copyCache) ensure(key, folder string, files []fileMeta, fetch func(fileMeta) ([]byte, error)) error {
	keyDir := filepath.Join(c.root, key)
	dest := filepath.Join(keyDir, folder)
	c.mu.Lock()
	if f := c.inflight[dest]; f != nil {
		c.mu.Unlock()
		<-f.done
		return f.err
	}
	if isDir(dest) {
		if intact(dest, files) {
			c.mu.Unlock()
			c.used(keyDir, "", 0)
			return nil
		}
		// Changed in place (an agent's edit, a removal cut short): made
		// again, as its content is named by its key.
		removeAll(dest)
	}
	f := &flight{done: make(chan struct{})}
	c.inflight[dest] = f
	c.mu.Unlock()
	f.err = c.fill(keyDir, folder, files, fetch)
	c.mu.Lock()
	delete(c.inflight, dest)
	c.mu.Unlock()
	close(f.done)
	return f.err
}

func (c *copyCache) fill(keyDir, folder string, files []fileMeta, fetch func(fileMeta) ([]byte, error)) error {
	var total int64
	for _, m := range files {
		total += m.size
	}
	if total > c.max {
		return fmt.Errorf("the skill's %d bytes do not fit in the cache of plugin skills (%d bytes)", total, c.max)
	}
	if err := os.MkdirAll(c.root, 0o755); err != nil {
		return err
	}
	c.evict(total)
	defer c.release(total)
	tmp, err := os.MkdirTemp(c.root, ".tmp-")
	if err != nil {
		return err
	}
	defer removeAll(tmp) // empty once renamed
	base := filepath.Join(tmp, folder)
	made := time.Now().Truncate(time.Second) // every file's time: see intact
	for _, m := range files {
		data, err := fetch(m)
		if err != nil {
			return err
		}
		if sum := sha256.Sum256(data); !bytes.Equal(sum[:], m.sha256) {
			return fmt.Errorf("%s: %w", m.path, errBadFile)
		}
		p := filepath.Join(base, filepath.FromSlash(m.path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o444); err != nil {
			return err
		}
		if err := os.Chtimes(p, made, made); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(base, 0o755); err != nil { // a skill of one empty listing
		return err
	}
	if err := writeStamp(base, files); err != nil {
		return err
	}
	// The files are read-only; the folders are not, so that the user
	// can delete the cache folder with rm -rf, as any cache.
	dest := filepath.Join(keyDir, folder)
	err = os.MkdirAll(keyDir, 0o755)
	if err == nil {
		err = os.Rename(base, dest)
	}
	switch {
	case err == nil:
		c.used(keyDir, folder, total)
		return nil
	case isDir(dest):
		c.used(keyDir, folder, total)
		return nil // another process made it first
	}
	return err
}

// used records a use of the key folder keyDir, in memory and in the
// folder's time (which tells other processes and the next start), and,
// when folder is not "", that its copy there holds size bytes.
func (c *copyCache) used(keyDir, folder string, size int64) {
	now := time.Now()
	os.Chtimes(keyDir, now, now)
	c.usage.Lock()
	defer c.usage.Unlock()
	if c.keys == nil {
		return // the first eviction looks at the folder
	}
	k := c.keys[keyDir]
	if k == nil {
		k = &keyUse{copies: map[string]int64{}}
		c.keys[keyDir] = k
	}
	if folder != "" {
		k.copies[folder] = size
	}
	k.used = now
}

// forget drops the copy in keyDir's folder of that name, which is gone,
// from the accounting.
func (c *copyCache) forget(keyDir, folder string) {
	c.usage.Lock()
	defer c.usage.Unlock()
	if k := c.keys[keyDir]; k != nil {
		delete(k.copies, folder)
	}
}

// isDir reports whether p is a folder.
func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// evict removes the least recently used copies until need more bytes
// fit under the cap, with the room reserved for other copies being made,
// and reserves it (see release). It looks at the folder whole (and removes the
// temporary folders a crash left) at most every rescanEvery; between
// looks it counts what this process copied.
func (c *copyCache) evict(need int64) {
	c.usage.Lock()
	defer c.usage.Unlock()
	defer func() { c.reserved += need }() // until release
	if c.keys == nil || time.Since(c.scanned) > rescanEvery {
		c.scan()
	}
	used := c.reserved
	for _, k := range c.keys {
		used += k.size()
	}
	if used+need <= c.max {
		return
	}
	byUse := slices.SortedFunc(maps.Keys(c.keys), func(a, b string) int { return c.keys[a].used.Compare(c.keys[b].used) })
	for _, p := range byUse {
		if used+need <= c.max {
			return
		}
		if removeAll(p) == nil {
			used -= c.keys[p].size()
			delete(c.keys, p)
		}
	}
}

// release gives back the room evict reserved for a copy, once the copy is
// counted in keys (or failed).
func (c *copyCache) release(need int64) {
	c.usage.Lock()
	defer c.usage.Unlock()
	c.reserved -= need
}

// scan learns the key folders under root, their sizes and last uses.
// c.usage is held.
func (c *copyCache) scan() {
	c.scans++
	c.scanned = time.Now()
	c.keys = map[string]*keyUse{}
	entries, err := os.ReadDir(c.root)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(c.root, e.Name())
		info, err := e.Info()
		if err != nil || !e.IsDir() {
			continue
		}
		if strings.HasPrefix(e.Name(), ".tmp-") {
			if time.Since(info.ModTime()) > time.Hour {
				removeAll(p)
			}
			continue
		}
		k := &keyUse{copies: map[string]int64{}, used: info.ModTime()}
		filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if fi, err := d.Info(); err == nil {
					rel, _ := filepath.Rel(p, q)
					folder, file, _ := strings.Cut(filepath.ToSlash(rel), "/")
					if file != stampName { // the skill's files, as counted when copied
						k.copies[folder] += fi.Size()
					}
				}
			}
			return nil
		})
		c.keys[p] = k
	}
}

// stampName is the file of a copy that says how its files read back
// once written (see writeStamp). A skill whose own files include one of
// that name has no stamp, and its copy is checked by sizes only.
const stampName = ".skillmux-copied"

// writeStamp writes the stamp of the copy in dir: the time and the mode
// its files read back with, as the file system stored them (FAT keeps
// times to 2 s; some mounts keep no mode).
func writeStamp(dir string, files []fileMeta) error {
	if len(files) == 0 || hasStampFile(files) {
		return nil
	}
	fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(files[0].path)))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, stampName), fmt.Appendf(nil, "%d %o", fi.ModTime().Unix(), fi.Mode().Perm()), 0o444)
}

func hasStampFile(files []fileMeta) bool {
	return slices.ContainsFunc(files, func(m fileMeta) bool { return m.path == stampName })
}

// intact reports whether the copy in dir still holds files as they were
// written: each one a regular file of its size, with the time and mode
// the stamp gives (an editor's save, sed -i, makes a new file, which may
// keep the size and the mode, not the time). A file added is not looked
// for; a copy without its stamp (of an earlier version) is made again.
func intact(dir string, files []fileMeta) bool {
	var made int64
	var perm fs.FileMode
	stamped := !hasStampFile(files)
	if stamped {
		stamp, err := os.ReadFile(filepath.Join(dir, stampName))
		if err != nil {
			return false
		}
		if _, err := fmt.Sscanf(string(stamp), "%d %o", &made, &perm); err != nil {
			return false
		}
	}
	for _, m := range files {
		fi, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(m.path)))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != m.size {
			return false
		}
		if stamped && (fi.ModTime().Unix() != made || fi.Mode().Perm() != perm) {
			return false
		}
	}
	return true
}

// removeAll removes a copy, whose folders an earlier version made
// read-only.
func removeAll(p string) error {
	filepath.WalkDir(p, func(q string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(q, 0o755)
		}
		return nil
	})
	err := os.RemoveAll(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}
