//go:build unix

package sources_test

import "syscall"

func makeFIFO(path string) error { return syscall.Mkfifo(path, 0o644) }
