//go:build linux || solaris || illumos

package sources

import "syscall"

func keyOfStat(st *syscall.Stat_t) FileKey {
	return FileKey{Dev: st.Dev, Ino: st.Ino, Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}
}
