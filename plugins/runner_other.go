//go:build !unix

package plugins

import (
	"os"
	"syscall"
)

// sysProcAttr sets nothing: the plugin checks its parent (Serve does).
func sysProcAttr() *syscall.SysProcAttr { return nil }

func killGroup(p *os.Process) error { return p.Kill() }

// termGroup does nothing here: go-plugin's shutdown call, then Kill, stop
// the plugin.
func termGroup(*os.Process) {}

// endGroupAtExit does nothing here: there are no process groups.
func endGroupAtExit(*os.Process) {}
