//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package sources

import "syscall"

func keyOfStat(st *syscall.Stat_t) FileKey {
	return FileKey{Dev: uint64(st.Dev), Ino: uint64(st.Ino), Size: st.Size, Mtime: st.Mtimespec.Nano(), Ctime: st.Ctimespec.Nano()}
}
