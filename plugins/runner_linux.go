package plugins

import "syscall"

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
