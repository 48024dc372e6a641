//go:build unix

package watch

import (
	"io/fs"
	"syscall"
)

// fileID names a folder whatever path reaches it, so that one folder is
// watched once: the kernel would hand a second watch on it back under the
// first one's name.
type fileID struct {
	dev, ino uint64
}

// idOf returns the identity of the folder at path, described by fi (from
// os.Stat, which follows links). The inode costs nothing: Stat has read it.
// Dev is narrower than 64 bits on some systems, hence the conversions.
func idOf(path string, fi fs.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true
}
