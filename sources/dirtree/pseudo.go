package dirtree

import (
	"path/filepath"
	"strings"
)

// pseudoRoots are where Unix systems mount file systems made up by the
// kernel: walking them finds no skills and can take minutes (/proc lists
// every process, and links back to every folder).
var pseudoRoots = []string{"/proc", "/sys", "/dev"}

// pseudoFS says why the folder at the real path real must not be walked,
// or returns "". Folders reached by the walk are checked by path, which
// costs nothing; roots and symlink targets are also asked of the system
// (pseudoMount), since a pseudo file system can be mounted anywhere.
func pseudoFS(real string) string {
	for _, p := range pseudoRoots {
		if real == p || strings.HasPrefix(real, p+string(filepath.Separator)) {
			return "a pseudo file system (" + p + ")"
		}
	}
	return pseudoMount(real)
}
