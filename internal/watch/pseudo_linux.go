package watch

import "golang.org/x/sys/unix"

// pseudoMount reports whether path lies on a kernel-made file system,
// wherever it is mounted (a container may mount /proc anywhere).
func pseudoMount(path string) bool {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil {
		return false
	}
	switch int64(st.Type) {
	case unix.PROC_SUPER_MAGIC, unix.SYSFS_MAGIC, unix.DEVPTS_SUPER_MAGIC, unix.DEBUGFS_MAGIC,
		unix.TRACEFS_MAGIC, unix.SECURITYFS_MAGIC, unix.CGROUP_SUPER_MAGIC, unix.CGROUP2_SUPER_MAGIC,
		unix.BPF_FS_MAGIC:
		return true
	}
	return false
}
