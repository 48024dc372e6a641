//go:build !unix || aix

package sources

import (
	"io/fs"
	"os"
)

// openFast has no fast path here: every open goes through os.Root.
func openFast(dir, name string) (f entryFile, ok bool, err error) { return nil, false, nil }

// keyOf is the FileKey of a FileInfo: size and time are all this system
// says portably.
func keyOf(st fs.FileInfo) FileKey { return FileKey{Size: st.Size(), Mtime: st.ModTime().UnixNano()} }

// lstatKey returns the FileKey of the file at path, and whether it is a
// regular file, without following a final symlink.
func lstatKey(path string) (FileKey, bool) {
	fi, err := os.Lstat(path)
	if err != nil {
		return FileKey{}, false
	}
	return keyOf(fi), fi.Mode().IsRegular()
}

// folderKey returns the FileKey of the folder at path, following links,
// and whether there is a folder there.
func folderKey(path string) (FileKey, bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return FileKey{}, false
	}
	return keyOf(fi), fi.IsDir()
}
