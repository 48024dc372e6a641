// Package pseudofs tells the folders made up by the kernel (/proc, /sys,
// /dev and the like) from real ones, so that no scan or watch ever walks
// them: they hold no skills, can take minutes to walk, and link back to
// every folder of the machine.
package pseudofs

import (
	"path/filepath"
	"strings"
)

// pseudoRoots are where Unix systems mount file systems made up by the
// kernel: walking them finds no skills and can take minutes (/proc lists
// every process, and links back to every folder).
var pseudoRoots = []string{"/proc", "/sys", "/dev"}

// Reason says why the folder at the real path real must not be walked, or
// returns "" when it is an ordinary folder. A path under /proc, /sys or
// /dev is refused at no cost; others are also asked of the system (a
// statfs on Linux), since a pseudo file system can be mounted anywhere:
// call it for roots and symlink targets, not for every folder of a walk.
func Reason(real string) string {
	for _, p := range pseudoRoots {
		if real == p || strings.HasPrefix(real, p+string(filepath.Separator)) {
			return "a pseudo file system (" + p + ")"
		}
	}
	return pseudoMount(real)
}
