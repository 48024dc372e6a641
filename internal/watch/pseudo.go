package watch

import (
	"path/filepath"
	"strings"
)

// pseudoRoots are where Unix systems mount file systems made up by the
// kernel. They hold no skills, /proc alone has a folder per process and links
// back to every folder, and their "files" change without events.
var pseudoRoots = []string{"/proc", "/sys", "/dev"}

// pseudoFS reports whether the folder at the resolved path real lies in a
// pseudo file system. Only roots and link targets are checked, which is where
// a walk can jump into one; asking the system about every folder walked would
// cost a statfs each, for a mount below a root that nobody makes.
func pseudoFS(real string) bool {
	for _, p := range pseudoRoots {
		if real == p || strings.HasPrefix(real, p+string(filepath.Separator)) {
			return true
		}
	}
	return pseudoMount(real)
}
