package plugins

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// sysProcAttr puts the plugin in a process group of its own (killed
// whole) and has the kernel kill it when skillmux dies, SIGKILL
// included. Pdeathsig fires when the thread that started the process
// exits; the Go runtime keeps its threads but for those of goroutines
// that lock one and exit, which this package never does. The plugin
// checks its parent too (Serve), for the moment between its start and
// the setting taking effect.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// endGroupAtExit waits until the plugin has exited, without reaping it,
// and then kills what is left in its process group (a child that ignored
// SIGTERM): while the plugin is not reaped, its pid, the group's id, is
// no other process's, so the signal reaches its group alone.
func endGroupAtExit(p *os.Process) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, p.Pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, syscall.EINTR) {
			if err == nil {
				syscall.Kill(-p.Pid, syscall.SIGKILL)
			}
			return
		}
	}
}
