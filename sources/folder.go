package sources

import (
	"io/fs"
	"time"
)

// DirEntry is one entry of a folder listing: its name, and its type as
// the listing gives it (0 for a regular file; fs.ModeIrregular when the
// file system did not say, and a stat must).
type DirEntry struct {
	Name string
	Type fs.FileMode
}

// ReadFolder lists the folder at path, in no particular order, and
// returns the folder's key, taken before the listing was read: a listing
// recorded under that key (Cache.PutFolder) is never newer than the key
// says. On Linux it uses raw system calls: the descriptor never meets
// Go's poller, which would cost two more system calls a folder, and a
// scan opens thousands. A listing cut short by an error is returned with
// the error.
func ReadFolder(path string) ([]DirEntry, FileKey, error) { return readFolder(path, true) }

// ListFolder is ReadFolder without the key, one system call fewer: for a
// listing that is not to be recorded.
func ListFolder(path string) ([]DirEntry, error) {
	entries, _, err := readFolder(path, false)
	return entries, err
}

// now is the clock PutFolder compares folder times with; tests move it.
var now = time.Now

// folder is a recorded listing.
type folder struct {
	key     FileKey
	entries []DirEntry
	gen     uint64
}

// Folder returns the listing recorded for the folder at path, when the
// folder's key, from a stat, is the one recorded: no entry was added to
// it, removed from it or renamed in it since. A folder with no recorded
// listing costs no system call. A listing returned is shared: the caller
// must not change it.
func (c *Cache) Folder(path string, gen uint64) ([]DirEntry, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	f := c.folders[path]
	c.mu.Unlock()
	if f == nil {
		return nil, false
	}
	key, ok := folderKey(path)
	if !ok || key != f.key {
		return nil, false
	}
	c.mu.Lock()
	f.gen = gen
	c.mu.Unlock()
	return f.entries, true
}

// PutFolder records the listing of the folder at path, read after its key
// was taken (ReadFolder), for Folder to give back while the folder is
// unchanged. A folder's times have a granularity: one changed within
// racyWindow of now might change again and keep its key, so its listing
// is not recorded, and the folder is read again next time. Neither is a
// listing whose key does not identify the folder (no inode number).
func (c *Cache) PutFolder(path string, key FileKey, entries []DirEntry, gen uint64) {
	if c == nil || key.Ino == 0 || changedLately(key, now().UnixNano()) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.folders == nil {
		c.folders = map[string]*folder{}
	}
	if f := c.folders[path]; f != nil && f.key == key {
		f.gen = gen
		return
	}
	c.folders[path] = &folder{key: key, entries: entries, gen: gen}
	c.changed = true
}
