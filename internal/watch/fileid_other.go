//go:build !unix

package watch

import (
	"io/fs"
	"path/filepath"
)

// fileID names a folder whatever path reaches it, so that one folder is
// watched once: the kernel would hand a second watch on it back under the
// first one's name.
type fileID struct {
	dev, ino uint64
	real     string // the resolved path, where the system has no inode numbers
}

// idOf returns the identity of the folder at path. Without inode numbers
// (Windows, wasm), the path with every link resolved stands in for one.
func idOf(path string, _ fs.FileInfo) (fileID, bool) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return fileID{}, false
	}
	return fileID{real: real}, true
}
