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
	n := 0
	for _, fd := range inotifyFDs(t) {
		info, err := os.ReadFile(filepath.Join("/proc/self/fdinfo", fd))
		if err != nil {
			continue
		}
		n += strings.Count(string(info), "inotify wd:")
	}
	return n
}

// inotifyInstances counts the inotify instances this process holds.
func inotifyInstances(t *testing.T) int { return len(inotifyFDs(t)) }

// inotifyFDs returns the file descriptors of this process's inotify
// instances, by number.
func inotifyFDs(t *testing.T) []string {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fd := range fds {
		if link, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name())); err == nil && link == "anon_inode:inotify" {
			out = append(out, fd.Name())
		}
	}
	return out
}
