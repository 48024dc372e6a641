//go:build unix

package plugins

import (
	"os"
	"syscall"
)

// killGroup kills the plugin's process group, which Setpgid made: the
// plugin and whatever it started.
func killGroup(p *os.Process) error {
	if err := syscall.Kill(-p.Pid, syscall.SIGKILL); err != nil && err != syscall.ESRCH {
		return p.Kill()
	}
	return nil
}

// termGroup asks the plugin's process group to stop, as a terminal's
// Ctrl-C or a service manager would.
func termGroup(p *os.Process) {
	syscall.Kill(-p.Pid, syscall.SIGTERM)
}
