// Package pseudofs tells the folders made up by the kernel (/proc, /sys,
// /dev and the like) from real ones, so that no scan or watch ever walks
// them: they hold no skills, can take minutes to walk, and link back to
// every folder of the machine.
package pseudofs

import "github.com/skillmux/skillmux/internal/fspath"

// pseudoRoots are where Unix systems mount file systems made up by the
// kernel: walking them finds no skills and can take minutes (/proc lists
// every process, and links back to every folder).
var pseudoRoots = []string{"/proc", "/sys", "/dev"}

// shm is the one folder of /dev that holds files people write: shared
// memory, a tmpfs, where a scratch copy of skills may live.
const shm = "/dev/shm"

// Reason says why the folder at the real path real must not be walked, or
// returns "" when it is an ordinary folder. A path under /proc, /sys or
// /dev is refused at no cost; others are also asked of the system (a
// statfs on Linux), since a pseudo file system can be mounted anywhere:
// call it for roots and symlink targets, not for every folder of a walk.
func Reason(real string) string {
	if fspath.Within(real, shm) {
		return pseudoMount(real) // memory the user writes to, as any tmpfs
	}
	if why := Under(real); why != "" {
		return why
	}
	return pseudoMount(real)
}

// Under is Reason from the path alone, with no call to the system: it
// says why a folder under /proc, /sys or /dev (but for /dev/shm) must not
// be walked, else "". It costs nothing, so a walk can ask it of every
// folder: one of / meets those folders as plain ones.
func Under(real string) string {
	if fspath.Within(real, shm) {
		return ""
	}
	for _, p := range pseudoRoots {
		if fspath.Within(real, p) {
			return "a pseudo file system (" + p + ")"
		}
	}
	return ""
}
