//go:build unix

package server

import (
	"os"

	"golang.org/x/sys/unix"
)

// hungUp reports whether the writer of the pipe f reads from has closed
// its end: a pipe with no writer polls as hung up, whatever it still
// holds. A terminal or a file never does. (Through SyscallConn: Fd would
// set the file to blocking mode.)
func hungUp(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	hup := false
	rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(fds, 0)
		hup = err == nil && n > 0 && fds[0].Revents&unix.POLLHUP != 0
	})
	return hup
}
