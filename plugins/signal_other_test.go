//go:build !unix

package plugins

import "os"

// signalZero reports whether a process pid exists: elsewhere, finding one
// opens it.
func signalZero(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	p.Release()
	return true
}
