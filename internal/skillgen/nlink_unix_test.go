//go:build unix

package skillgen_test

import (
	"os"
	"syscall"
	"testing"
)

// nlink is the number of names a file has.
func nlink(t *testing.T, file string) uint64 {
	t.Helper()
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		t.Skip("no link count on this system")
	}
	return uint64(st.Nlink)
}
