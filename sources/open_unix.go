//go:build unix && !aix

package sources

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"syscall"
)

// openFast opens dir/name with raw system calls: no symlink is followed
// (O_NOFOLLOW), the open cannot block (O_NONBLOCK), and the descriptor
// never meets Go's poller, which a scan of ten thousand files would pay
// for in system calls. ok is false when the careful path must decide: the
// file is a symlink (ELOOP; EMLINK on FreeBSD) or the error is unusual.
func openFast(dir, name string) (f entryFile, ok bool, err error) {
	path := filepath.Join(dir, name)
	var fd int
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
		if err != syscall.EINTR {
			break
		}
	}
	switch err {
	case nil:
	case syscall.ENOENT, syscall.ENOTDIR, syscall.EACCES, syscall.EPERM:
		return nil, true, &fs.PathError{Op: "open", Path: path, Err: err}
	default:
		return nil, false, nil
	}
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		syscall.Close(fd)
		return nil, true, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		syscall.Close(fd)
		return nil, true, &fs.PathError{Op: "open", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, rawType(uint32(st.Mode)))}
	}
	return &rawFile{fd: fd, key: keyOfStat(&st)}, true, nil
}

func rawType(mode uint32) string {
	switch mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return "a folder"
	case syscall.S_IFIFO:
		return "a FIFO"
	case syscall.S_IFSOCK:
		return "a socket"
	case syscall.S_IFCHR, syscall.S_IFBLK:
		return "a device"
	}
	return "a special file"
}

// rawFile reads a regular file through its descriptor.
type rawFile struct {
	fd  int
	key FileKey
}

func (f *rawFile) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(f.fd, p)
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *rawFile) Close() error { return syscall.Close(f.fd) }

func (f *rawFile) Size() int64 { return f.key.Size }

func (f *rawFile) Key() FileKey { return f.key }

// keyOf is the FileKey of a FileInfo from the system.
func keyOf(st fs.FileInfo) FileKey {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return keyOfStat(sys)
	}
	return FileKey{Size: st.Size(), Mtime: st.ModTime().UnixNano()}
}

// lstatKey returns the FileKey of the file at path, and whether it is a
// regular file, without following a final symlink.
func lstatKey(path string) (FileKey, bool) {
	return statKey(path, false, syscall.S_IFREG)
}

// folderKey returns the FileKey of the folder at path, following links,
// and whether there is a folder there.
func folderKey(path string) (FileKey, bool) {
	return statKey(path, true, syscall.S_IFDIR)
}

// statKey stats path, following a final symlink or not, and reports
// whether the file is of type typ (an S_IFMT value). (The stat is called
// directly, not passed in: a function value would move st to the heap.)
func statKey(path string, follow bool, typ uint32) (FileKey, bool) {
	var st syscall.Stat_t
	for {
		var err error
		if follow {
			err = syscall.Stat(path, &st)
		} else {
			err = syscall.Lstat(path, &st)
		}
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return FileKey{}, false
		}
		break
	}
	return keyOfStat(&st), uint32(st.Mode)&syscall.S_IFMT == typ
}
