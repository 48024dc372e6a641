//go:build !plan9

package watch

import (
	"errors"
	"runtime"
	"syscall"
)

// limitHint reports whether err says a system limit on watches was reached,
// and if so returns a sentence naming that limit and how to raise it. The
// numbers are what desktop Linux distributions ship since 2021 (systemd's
// default for max_user_watches) and what editors' docs recommend.
func limitHint(err error) (string, bool) {
	switch {
	case runtime.GOOS == "linux" && errors.Is(err, syscall.ENOSPC):
		// inotify_add_watch says ENOSPC, "no space left on device", when the
		// per-user watch limit is reached: the message alone misleads.
		return "the inotify watch limit (/proc/sys/fs/inotify/max_user_watches) is reached; " +
			"raise it with `sudo sysctl fs.inotify.max_user_watches=524288` " +
			"(add the same line, without sudo sysctl, to /etc/sysctl.d/99-inotify.conf to keep it)", true
	case runtime.GOOS == "linux" && (errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)):
		// inotify_init1 says EMFILE when the per-user instance limit is
		// reached (a process's Watchers share one), or the process's open
		// files.
		return "the inotify instance limit (/proc/sys/fs/inotify/max_user_instances) or the open-file limit is reached; " +
			"raise it with `sudo sysctl fs.inotify.max_user_instances=1024` (or `ulimit -n`)", true
	case errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE):
		// kqueue opens one file per watched file and folder.
		return "the open-file limit is reached (this system's watcher holds one open file per watched file and folder); " +
			"raise it with `ulimit -n` (and on macOS or BSD, `sudo sysctl kern.maxfilesperproc=...`)", true
	}
	return "", false
}
