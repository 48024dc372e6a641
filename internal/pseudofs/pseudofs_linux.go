package pseudofs

import "golang.org/x/sys/unix"

// pseudoMagic are the file system types (statfs f_type) of kernel-made
// file systems.
var pseudoMagic = map[int64]string{
	unix.PROC_SUPER_MAGIC:    "procfs",
	unix.SYSFS_MAGIC:         "sysfs",
	unix.DEVPTS_SUPER_MAGIC:  "devpts",
	unix.DEBUGFS_MAGIC:       "debugfs",
	unix.TRACEFS_MAGIC:       "tracefs",
	unix.SECURITYFS_MAGIC:    "securityfs",
	unix.CGROUP_SUPER_MAGIC:  "cgroupfs",
	unix.CGROUP2_SUPER_MAGIC: "cgroup2fs",
	unix.BPF_FS_MAGIC:        "bpffs",
}

func pseudoMount(path string) string {
	var st unix.Statfs_t
	if unix.Statfs(path, &st) != nil {
		return ""
	}
	if name, ok := pseudoMagic[int64(st.Type)]; ok {
		return "a pseudo file system (" + name + ")"
	}
	return ""
}
