//go:build unix && !linux

package plugins

import (
	"os"
	"syscall"
)

// sysProcAttr puts the plugin in a process group of its own, killed
// whole. These systems have no Pdeathsig: the plugin checks its parent
// (Serve does, and the protocol asks every plugin to).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// endGroupAtExit does nothing here: without waitid's WNOWAIT, the group's
// id may be another process's by the time the plugin is seen to exit.
func endGroupAtExit(*os.Process) {}
