package sources

import (
	"io/fs"
	"sort"

	"golang.org/x/sys/unix"
)

// readDirAt lists the folder dir of the open skill folder with one
// fstatat per entry, relative to the open folder's descriptor, rather
// than a walk of the path from the skill folder for each: the folder was
// opened through the os.Root, and a name with no '/' in it, not followed
// if it is a symlink, cannot leave it. ok is false when this cannot be
// done, and the caller reads the folder the portable way.
func (r rootFS) readDirAt(dir string) (out []statEntry, ok bool, err error) {
	f, err := r.r.Open(dir)
	if escapes(err) {
		if rel, in := r.inside(dir); in {
			f, err = r.r.Open(rel)
		}
	}
	if err != nil {
		return nil, true, err
	}
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, true, err
	}
	sort.Strings(names)
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, false, nil
	}
	out = make([]statEntry, 0, len(names))
	cerr := rc.Control(func(fd uintptr) {
		var st unix.Stat_t
		for _, name := range names {
			var err error
			for {
				err = unix.Fstatat(int(fd), name, &st, unix.AT_SYMLINK_NOFOLLOW)
				if err != unix.EINTR {
					break
				}
			}
			if err != nil {
				continue // gone since the listing
			}
			key := FileKey{Dev: st.Dev, Ino: st.Ino, Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano()}
			out = append(out, statEntry{name: name, mode: modeOf(st.Mode), size: st.Size, key: key})
		}
	})
	if cerr != nil {
		return nil, false, nil
	}
	return out, true, nil
}

// modeOf is the type bits of a raw mode as an fs.FileMode.
func modeOf(m uint32) fs.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFREG:
		return 0
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFLNK:
		return fs.ModeSymlink
	}
	return fs.ModeIrregular
}
