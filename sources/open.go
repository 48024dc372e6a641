package sources

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

// ErrNotRegular means a path that should be a file is something else: a
// folder, a FIFO, a device or a socket. Reading one could block forever
// or never end, so skillmux refuses it.
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge means a file is over the size a read allows.
var ErrTooLarge = errors.New("file too large")

// entryFile is an open skill file whose descriptor has been checked to
// be a regular file.
type entryFile interface {
	io.ReadCloser
	// Size is the file's size when it was opened.
	Size() int64
	// Key is the file's FileKey when it was opened.
	Key() FileKey
}

// openEntry opens dir/name for reading in a way that a hostile skill
// folder cannot abuse: a symlink is followed only while it stays inside
// dir's real path, the open never blocks (a FIFO would block until a
// writer came), and what was opened is checked, on the open descriptor
// rather than by an earlier stat that a swap could outrun, to be a
// regular file.
//
// openFast (per system) handles the common case of a plain file with
// few system calls; anything else takes the portable path through
// os.Root, which is authoritative about symlinks.
func openEntry(dir, name string) (entryFile, error) {
	if f, ok, err := openFast(dir, name); ok {
		return f, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close() // a file opened through a Root outlives it
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, socketOr(err, "open", filepath.Join(dir, name), func() (fs.FileInfo, error) { return root.Stat(name) })
	}
	return checkRegular(f)
}

// linkProblem says why the entry file at path, which could not be opened,
// is refused when it is a symlink that leads nowhere or out of its
// folder (reads stay inside the skill folder's real path). ok is false
// when path is no link, or not one of those.
func linkProblem(path string) (why string, ok bool) {
	target, err := os.Readlink(path)
	if err != nil {
		return "", false
	}
	name := filepath.Base(path)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return fmt.Sprintf("%s is a link to %s, which does not exist; point the link at the file, or put the file in its place", name, target), true
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", false
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(path))
	if err != nil {
		return "", false
	}
	if rel, err := filepath.Rel(dir, real); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return fmt.Sprintf("%s is a link to %s, outside the skill folder, which skillmux does not read; copy the file into the folder, or link the whole skill folder instead", name, target), true
	}
	return "", false
}

// checkRegular returns f as an entryFile when its descriptor is a regular
// file, and closes it otherwise.
func checkRegular(f fs.File) (entryFile, error) {
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%w (%s)", ErrNotRegular, fileType(st.Mode()))
	}
	return sizedFile{File: f, key: keyOf(st)}, nil
}

type sizedFile struct {
	fs.File
	key FileKey
}

func (f sizedFile) Size() int64 { return f.key.Size }

func (f sizedFile) Key() FileKey { return f.key }

func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "a special file"
}

// ReadFileLimit reads the regular file name of fsys whole, refusing
// anything that is not a regular file (ErrNotRegular) or that holds more
// than limit bytes (ErrTooLarge). The checks are made on the open file
// and the read itself is bounded, so a file swapped or grown between a
// listing and the read cannot make it block or read without end.
func ReadFileLimit(fsys fs.FS, name string, limit int64) ([]byte, error) {
	f, err := OpenFile(fsys, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadInto(limit, nil)
}

// ReadRegularFile reads the file at path whole, following symbolic links
// wherever they lead (unlike a skill's files), with ReadFileLimit's
// checks: the open never blocks, and a FIFO, a device or a socket (a
// settings file linked to /dev/zero or /dev/stdin) is refused with
// ErrNotRegular, a file over limit bytes with ErrTooLarge, without reading
// it. It is for files the user keeps anywhere, such as an application's
// settings.
func ReadRegularFile(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, socketOr(err, "read", path, func() (fs.FileInfo, error) { return os.Stat(path) })
	}
	ef, err := checkRegular(f)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	defer ef.Close()
	return readLimit(ef, path, limit, nil)
}

// socketOr is err, the failure of an open of path, or ErrNotRegular when
// stat says path is a socket: a socket cannot be opened at all (ENXIO on
// Unix), and is said to be what it is, as the other files that are not
// regular are.
func socketOr(err error, op, path string, stat func() (fs.FileInfo, error)) error {
	if info, serr := stat(); serr == nil && info.Mode()&fs.ModeSocket != 0 {
		return &fs.PathError{Op: op, Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, fileType(info.Mode()))}
	}
	return err
}

// openRegular opens the file name of fsys, and keeps it open only when
// it is a regular file.
func openRegular(fsys fs.FS, name string) (entryFile, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, socketOr(err, "read", name, func() (fs.FileInfo, error) { return fs.Stat(fsys, name) })
	}
	ef, err := checkRegular(f)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return ef, nil
}

// readLimit reads the open file f (named name in errors) whole, into
// buf's memory when it is large enough: one buffer of the size the file
// has, and a byte more to see it grow (io.ReadAll alone would make and
// drop a dozen as it went). It refuses a file over limit bytes, by its
// size or by what it held when read.
func readLimit(f entryFile, name string, limit int64, buf []byte) ([]byte, error) {
	if f.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: %d bytes; the limit is %d", ErrTooLarge, f.Size(), limit)}
	}
	data := buf[:0]
	if int64(cap(data)) < f.Size()+1 {
		data = make([]byte, 0, f.Size()+1)
	}
	data, err := readAllInto(io.LimitReader(f, limit+1), data)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fmt.Errorf("%w: it grew past %d bytes while being read", ErrTooLarge, limit)}
	}
	return data, nil
}

// ReadEntry reads the skill's entry file (SKILL.md, or a learned note)
// whole, with the checks of ReadFileLimit. For a local folder it opens the
// file directly, without holding the folder open, as loading a skill does
// on every call.
func ReadEntry(sk *Skill, limit int64) ([]byte, error) {
	return ReadEntryInto(sk, limit, nil)
}

// Peeker is implemented by a skill's Files whose Open does more than open
// a file: a source plugin's makes the skill's local copy, its base
// directory, at the first. Peek opens a file for a reader of its text
// alone, without that.
type Peeker interface {
	Peek(name string) (fs.File, error)
}

// peekFS is the fs.FS of a Peeker's Peek, whose Stat is its file
// system's (a stat after a failed open must not read the file again).
type peekFS struct {
	p    Peeker
	fsys fs.FS
}

func (p peekFS) Open(name string) (fs.File, error) { return p.p.Peek(name) }

func (p peekFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(p.fsys, name) }

// PeekEntryInto is ReadEntryInto for a reader of the entry file's text
// alone (the search index): a skill's Files that is a Peeker is read
// with Peek, and of a file over limit bytes the first limit are read
// (File.ReadHead), not none.
func PeekEntryInto(sk *Skill, limit int64, buf []byte) ([]byte, error) {
	var f *File
	var err error
	if p, ok := sk.Files.(Peeker); ok && entryDir(sk) == "" {
		f, err = OpenFile(peekFS{p, sk.Files}, sk.EntryFile())
	} else {
		f, err = OpenEntry(sk)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadHead(limit, buf)
}

// ReadBody reads the skill's entry file as ReadEntry does and returns what
// follows its front matter: all of it for a file without one. A front
// matter that does not end is an error (ErrUnterminated).
func ReadBody(sk *Skill, limit int64) ([]byte, error) {
	return bodyOf(ReadEntry(sk, limit))
}

// PeekBody is ReadBody for a reader of the text alone, as PeekEntryInto.
func PeekBody(sk *Skill, limit int64) ([]byte, error) {
	return bodyOf(PeekEntryInto(sk, limit, nil))
}

// bodyOf is what follows the front matter of data, read with err.
func bodyOf(data []byte, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	_, body, err := SplitFrontMatter(data)
	if errors.Is(err, ErrNoFrontMatter) {
		err = nil // body is the whole file
	}
	return body, err
}

// EntrySize returns the size of the skill's entry file, 0 when it cannot
// be told (the read that follows says why). For a local folder it stats
// the file by its path, as ReadEntry opens it, without opening the folder.
func EntrySize(sk *Skill) int64 {
	var info fs.FileInfo
	var err error
	if dir := entryDir(sk); dir != "" {
		info, err = os.Stat(filepath.Join(dir, sk.EntryFile()))
	} else if sk.Files != nil {
		info, err = fs.Stat(sk.Files, sk.EntryFile())
	}
	if err != nil || info == nil {
		return 0
	}
	return info.Size()
}

// LocalFiles reports whether the skill's files are a folder on this
// machine, where opening a file reads nothing yet; a source plugin's
// files are read as they are opened.
func LocalFiles(sk *Skill) bool { return entryDir(sk) != "" }

// entryDir is the local folder of a skill's entry file, "" when its files
// are not a local folder.
func entryDir(sk *Skill) string {
	switch f := sk.Files.(type) {
	case dirFS:
		return string(f)
	case noteFS:
		if d, ok := f.dir.(dirFS); ok {
			return string(d)
		}
	}
	return ""
}

// ReadEntryInto is ReadEntry reading into buf's memory when it is large
// enough, for a caller that reads many entries one after another and
// keeps none: the result is only good until buf is used again.
func ReadEntryInto(sk *Skill, limit int64, buf []byte) ([]byte, error) {
	e, err := OpenEntry(sk)
	if err != nil {
		return nil, err
	}
	defer e.Close()
	return e.ReadInto(limit, buf)
}

// File is a file opened for a bounded read, by OpenEntry or OpenFile,
// and checked to be a regular file. Its size is known before a byte is
// read, so that a reader can make room for it first without asking the
// file system twice.
type File struct {
	f    entryFile
	name string
}

// OpenEntry opens the skill's entry file for reading, with the checks of
// ReadEntry. The caller closes it.
func OpenEntry(sk *Skill) (*File, error) {
	name := sk.EntryFile()
	if dir := entryDir(sk); dir != "" {
		f, err := openEntry(dir, name)
		if err != nil {
			return nil, err
		}
		return &File{f: f, name: name}, nil
	}
	if sk.Files == nil {
		return nil, fmt.Errorf("skill %s has no readable files", sk.Ref)
	}
	return OpenFile(sk.Files, name)
}

// OpenFile opens the file name of fsys for reading, with the checks of
// ReadFileLimit. The caller closes it.
func OpenFile(fsys fs.FS, name string) (*File, error) {
	f, err := openRegular(fsys, name)
	if err != nil {
		return nil, err
	}
	return &File{f: f, name: name}, nil
}

// Size is the file's size when it was opened.
func (f *File) Size() int64 { return f.f.Size() }

// ReadInto reads the file whole, refusing more than limit bytes as
// ReadFileLimit does, into buf's memory when it is large enough.
func (f *File) ReadInto(limit int64, buf []byte) ([]byte, error) {
	return readLimit(f.f, f.name, limit, buf)
}

// ReadHead is ReadInto for a reader of the file's beginning: of a file
// over limit bytes it reads the first limit, less the bytes of a last
// character cut in two, rather than none.
func (f *File) ReadHead(limit int64, buf []byte) ([]byte, error) {
	if f.f.Size() <= limit {
		return f.ReadInto(limit, buf)
	}
	data := buf[:0]
	if int64(cap(data)) < limit {
		data = make([]byte, 0, limit)
	}
	data, err := readAllInto(io.LimitReader(f.f, limit), data)
	if err != nil {
		return nil, err
	}
	for range utf8.UTFMax - 1 {
		if r, size := utf8.DecodeLastRune(data); r != utf8.RuneError || size != 1 {
			break
		}
		data = data[:len(data)-1]
	}
	return data, nil
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Read reads from the file, as an io.Reader: to look at its head, say.
func (f *File) Read(p []byte) (int, error) { return f.f.Read(p) }

// readAllInto reads r to its end, appending to buf, whose capacity is the
// size expected: one read for a file that did not change.
func readAllInto(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
