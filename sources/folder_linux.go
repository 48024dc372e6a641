package sources

import (
	"io/fs"
	"sync"
	"syscall"
	"unsafe"
)

// direntBufs recycles the buffers of readFolder.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

func readFolder(path string, withKey bool) ([]DirEntry, FileKey, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, FileKey{}, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var key FileKey
	if withKey {
		var st syscall.Stat_t
		if err := syscall.Fstat(fd, &st); err != nil {
			return nil, FileKey{}, &fs.PathError{Op: "stat", Path: path, Err: err}
		}
		key = keyOfStat(&st)
	}
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	var out []DirEntry
	for {
		n, err := syscall.ReadDirent(fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return out, key, &fs.PathError{Op: "readdirent", Path: path, Err: err}
		}
		if n <= 0 {
			return out, key, nil
		}
		out = parseDirents(buf[:n], out)
	}
}

// parseDirents appends the entries of a buffer of linux_dirent64 records:
// an 8-byte inode, an 8-byte offset, a 2-byte record length, a 1-byte type
// and the name, NUL-terminated.
func parseDirents(b []byte, out []DirEntry) []DirEntry {
	const nameOff = 19
	for len(b) >= nameOff {
		reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
		if reclen < nameOff || reclen > len(b) {
			break
		}
		typ := b[18]
		name := b[nameOff:reclen]
		for i, c := range name {
			if c == 0 {
				name = name[:i]
				break
			}
		}
		b = b[reclen:]
		if len(name) == 0 || string(name) == "." || string(name) == ".." {
			continue
		}
		var mode fs.FileMode
		switch typ {
		case syscall.DT_REG:
		case syscall.DT_DIR:
			mode = fs.ModeDir
		case syscall.DT_LNK:
			mode = fs.ModeSymlink
		case syscall.DT_UNKNOWN:
			mode = fs.ModeIrregular // the file system did not say
		default:
			mode = fs.ModeNamedPipe // a FIFO, device or socket: never read
		}
		out = append(out, DirEntry{Name: string(name), Type: mode})
	}
	return out
}
