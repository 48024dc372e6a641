//go:build !linux

package watch

import "testing"

// kernelWatches: only Linux lists a process's watches.
func kernelWatches(*testing.T) int { return -1 }

// inotifyInstances: only Linux has inotify.
func inotifyInstances(*testing.T) int { return -1 }
