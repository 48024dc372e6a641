package watch

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// kernelWatches counts the inotify watches this process holds, as the
// kernel lists them in /proc/self/fdinfo: a watch that fsnotify forgot but
// the kernel kept would show here and nowhere else.
func kernelWatches(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return -1
	}
	n := 0
	for _, fd := range fds {
		link, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err != nil || link != "anon_inode:inotify" {
			continue
		}
		info, err := os.ReadFile(filepath.Join("/proc/self/fdinfo", fd.Name()))
		if err != nil {
			continue
		}
		n += strings.Count(string(info), "inotify wd:")
	}
	return n
}
