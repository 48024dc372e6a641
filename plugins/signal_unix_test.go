//go:build unix

package plugins

import "syscall"

// signalZero reports whether a process pid exists, by sending it no signal.
func signalZero(pid int) bool { return syscall.Kill(pid, 0) == nil }
