//go:build unix && !linux

package plugins

import "syscall"

// sysProcAttr puts the plugin in a process group of its own, killed
// whole. These systems have no Pdeathsig: the plugin checks its parent
// (Serve does, and the protocol asks every plugin to).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
