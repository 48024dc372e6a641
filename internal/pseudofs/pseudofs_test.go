package pseudofs

import (
	"os"
	"runtime"
	"testing"
)

// The kernel's folders are refused by their path; /dev/shm, a tmpfs people
// write skills to, is not.
func TestReason(t *testing.T) {
	for _, p := range []string{"/proc", "/proc/1", "/sys/kernel", "/dev", "/dev/pts"} {
		if Reason(p) == "" {
			t.Errorf("%s is taken for an ordinary folder", p)
		}
	}
	for _, p := range []string{"/devices", "/procedures/x", t.TempDir()} {
		if r := Reason(p); r != "" {
			t.Errorf("%s: %s", p, r)
		}
	}
	if runtime.GOOS != "linux" {
		return
	}
	if _, err := os.Stat("/dev/shm"); err != nil {
		t.Skip("no /dev/shm here")
	}
	for _, p := range []string{"/dev/shm", "/dev/shm/skills"} {
		if r := Reason(p); r != "" {
			t.Errorf("%s: %s", p, r)
		}
	}
}
