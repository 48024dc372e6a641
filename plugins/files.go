package plugins

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillmux/skillmux/sources"
)

// remoteFS is the fs.FS of a plugin's skill: its listed files, and the
// folders they imply (sources.ListedFS). The first file opened makes the
// local copy (when there is a cache) and every read is then served from
// it; without a copy each file is read through the plugin. Paths not
// listed do not exist: a plugin cannot add a file after its listing.
type remoteFS struct {
	listed fs.FS // the files as listed, each read through the plugin
	r      *remote
	id     string
	files  map[string]fileMeta
	key    string // content key: the local copy is <cache>/<key>/<folder>
	dir    string // the local copy's folder, "" without a cache
	front  []byte // the front matter as listed (see fetch)

	// mu guards tried, copied, making and retryAt: whether the local copy
	// was tried, whether it was made, whether it is being made, and when
	// a copy the plugin failed is tried again. A copy removed since (the
	// cache evicted it, or another process sharing the cache did) is made
	// again at the next open that misses it; one the plugin failed while
	// busy with other reads, at the next open; one it failed by not
	// answering or going down, copyRetry later (a plugin that hangs or
	// crashes in the read of one file would do it again at every open,
	// and the skill's other files are read through it meanwhile).
	mu      sync.Mutex
	tried   bool
	copied  bool
	making  chan struct{} // closed when the copy being made is done; nil when none is
	retryAt time.Time
}

// copyRetry is how long after a plugin failed a copy by not answering or
// going down the copy is tried again.
const copyRetry = 30 * time.Second

var (
	_ fs.ReadDirFS   = (*remoteFS)(nil)
	_ fs.StatFS      = (*remoteFS)(nil)
	_ sources.Peeker = (*remoteFS)(nil)
)

func newRemoteFS(r *remote, id string, files map[string]fileMeta, front []byte) *remoteFS {
	sizes := make(map[string]int64, len(files))
	for p, m := range files {
		sizes[p] = m.size
	}
	f := &remoteFS{r: r, id: id, files: files, front: front}
	f.listed = sources.ListedFS(sizes, time.Time{}, func(name string) ([]byte, error) { return f.fetch(files[name]) })
	return f
}

// fetch reads a listed file through the plugin (readFile checks it
// against its size and digest). The SKILL.md must also begin with the
// front matter the listing gave: the catalog shows that one (its
// description, its allowed tools), and an agent reads the file.
func (f *remoteFS) fetch(m fileMeta) ([]byte, error) {
	return f.fetchWaiting(m, nil)
}

// fetchWaiting is fetch that tells waited how long the read waited for its
// turn (remote.turn), when it is not nil.
func (f *remoteFS) fetchWaiting(m fileMeta, waited func(time.Duration)) ([]byte, error) {
	began := time.Now()
	end, err := f.r.turn(m.path)
	if err != nil {
		return nil, err
	}
	defer end()
	if waited != nil {
		waited(time.Since(began))
	}
	ctx, cancel := f.r.fileCtx()
	defer cancel()
	data, err := f.r.readFile(ctx, f.id, m)
	if err == nil && m.path == sources.SkillFile {
		if front, _, ferr := sources.SplitFrontMatter(data); ferr != nil || !sameFront(front, f.front) {
			return nil, &fs.PathError{Op: "read", Path: m.path, Err: f.r.named(fmt.Errorf("%w: its front matter is not the one the plugin listed", errBadFile))}
		}
	}
	return data, err
}

// sameFront reports whether the front matter of a SKILL.md, as
// SplitFrontMatter gives it, is the one a listing gave: the same text but
// for CRLF line ends, blank lines before it and a last line break, which
// plugins that cut the block out themselves may add or leave out; or text
// that reads as the same values, by the strict reading that skills/get
// publishes (FrontMatterJSON), which clients compare with the file. Two
// blocks that reading cannot take are compared by the server's own.
func sameFront(file, listed []byte) bool {
	if bytes.Equal(file, listed) || bytes.Equal(normalFront(file), normalFront(listed)) {
		return true
	}
	a, _, aerr := sources.FrontMatterJSON(file)
	b, _, berr := sources.FrontMatterJSON(listed)
	switch {
	case aerr == nil && berr == nil:
		return bytes.Equal(a, b)
	case aerr == nil || berr == nil:
		return false
	}
	am, aerr := sources.ParseFrontMatter(file)
	bm, berr := sources.ParseFrontMatter(listed)
	return aerr == nil && berr == nil && reflect.DeepEqual(am, bm)
}

// normalFront is a front matter block with LF line ends, without the
// lines of only spaces and tabs before it, ending with one line break
// unless it is empty. Lines after the text are kept: a block scalar that
// keeps its trailing lines (|+) holds them.
func normalFront(text []byte) []byte {
	text = bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n"))
	for {
		line, rest, found := bytes.Cut(text, []byte("\n"))
		if !found || len(bytes.Trim(line, " \t")) > 0 {
			break
		}
		text = rest
	}
	if len(bytes.Trim(text, " \t")) == 0 {
		return nil
	}
	if text[len(text)-1] != '\n' {
		text = append(slices.Clip(text), '\n')
	}
	return text
}

func (f *remoteFS) Open(name string) (fs.File, error) {
	if _, ok := f.files[name]; ok {
		for range 2 {
			copied, failed := f.local(name)
			if !copied {
				if pe, ok := errors.AsType[*fs.PathError](failed); ok && pe.Path == name &&
					(errors.Is(failed, errNoAnswer) || errors.Is(failed, errNotRunning) || errors.Is(failed, errBusy)) {
					// The copy just waited for the plugin in vain, on
					// this very file (it reads it first): reading it
					// through the plugin would wait as long again.
					return nil, failed
				}
				if cf, ok := errors.AsType[*failedCopy](failed); ok {
					// The copy failed on another file, and read this one.
					one := sources.ListedFS(map[string]int64{name: int64(len(cf.first))}, time.Time{},
						func(string) ([]byte, error) { return cf.first, nil })
					return one.Open(name)
				}
				break
			}
			file, err := sources.DirFS(f.dir).Open(name)
			if err == nil || !errors.Is(err, fs.ErrNotExist) {
				return file, err
			}
			// The copy, or the file in it, is gone: the next turn makes
			// it again (or finds it made again by another reader meanwhile).
			f.lost()
		}
	}
	// No copy (none could be made, another read is still making it, or
	// there is no cache), or two turns without the file in it: it is read
	// through the plugin.
	return f.listed.Open(name)
}

// failedCopy is why a local copy failed, with the file asked for as the
// copy read it, when it did.
type failedCopy struct {
	err   error
	first []byte
}

func (e *failedCopy) Error() string { return e.err.Error() }
func (e *failedCopy) Unwrap() error { return e.err }

// errCopySlow is why a local copy was given up: the plugin sent the
// skill's files too slowly for one timeout, and each is read through it
// as it is asked for.
var errCopySlow = errors.New("the plugin did not send the skill's files within its timeout")

// local makes the local copy if it is not made yet, reading the file
// first first, and reports whether it exists, and to the call that tried
// to make it, why it failed.
func (f *remoteFS) local(first string) (copied bool, failed error) {
	if f.r.cache == nil {
		return false, nil
	}
	f.mu.Lock()
	if f.making == nil && !f.retryAt.IsZero() && time.Now().After(f.retryAt) {
		f.tried = false // retryAt is set only with tried, by a copy that failed
	}
	if f.tried {
		making, copied := f.making, f.copied
		f.mu.Unlock()
		if making == nil {
			return copied, nil
		}
		// Another read is making it: it is waited for a moment, then
		// the file is read through the plugin meanwhile, so that reads
		// of a plugin that hangs are held by its bound on reads
		// (remote.reading), not all of them by one copy.
		t := time.NewTimer(readingWait)
		defer t.Stop()
		select {
		case <-making:
			f.mu.Lock()
			defer f.mu.Unlock()
			return f.copied, nil
		case <-t.C:
			return false, nil
		}
	}
	f.tried = true
	making := make(chan struct{})
	f.making = making
	f.mu.Unlock()
	defer close(making)
	metas := make([]fileMeta, 0, len(f.files))
	for _, m := range f.files {
		metas = append(metas, m)
	}
	// The file asked for first, then the SKILL.md: a plugin that fails
	// the copy on another file has served these.
	rank := func(m fileMeta) int {
		switch m.path {
		case first:
			return 0
		case sources.SkillFile:
			return 1
		}
		return 2
	}
	slices.SortFunc(metas, func(a, b fileMeta) int {
		return cmp.Or(rank(a)-rank(b), strings.Compare(a.path, b.path))
	})
	fetch := f.fetch
	if within := f.r.copyWithin; within > 0 {
		// The time the reads wait for their turns is the plugin's being
		// busy with other reads, not its being slow with these.
		stopBy := time.Now().Add(within)
		fetch = func(m fileMeta) ([]byte, error) {
			if time.Now().After(stopBy) {
				return nil, errCopySlow
			}
			return f.fetchWaiting(m, func(d time.Duration) { stopBy = stopBy.Add(d) })
		}
	}
	// What the copy read of the file asked for is kept, for the open that
	// asked, should the copy fail on another file: a plugin that crashes
	// on that one is down for a while after.
	var firstData []byte
	copying := fetch
	fetch = func(m fileMeta) ([]byte, error) {
		data, err := copying(m)
		if err == nil && m.path == first {
			firstData = data
		}
		return data, err
	}
	err := f.r.cache.ensure(f.key, path.Base(f.id), metas, fetch)
	if err != nil && firstData != nil {
		err = &failedCopy{err: err, first: firstData}
	}
	if err != nil && f.r.copyFailed != nil {
		f.r.copyFailed(f.id, err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.copied, f.making, f.retryAt = err == nil, nil, time.Time{}
	switch {
	case errors.Is(err, errBusy):
		// The plugin's state at the time, not the skill's: the next open
		// tries again. (One too slow for a copy, errCopySlow, is not.)
		f.tried = false
	case errors.Is(err, errNoAnswer) || errors.Is(err, errNotRunning):
		// The plugin's state, or this skill's doing (a file it hangs or
		// crashes on): tried again later, not at every open.
		f.retryAt = time.Now().Add(copyRetry)
	}
	return f.copied, err
}

// lost looks whether the local copy, made before, is gone; if so, the
// cache forgets it and the next local makes it again.
func (f *remoteFS) lost() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.copied || isDir(f.dir) {
		return
	}
	f.r.cache.forget(filepath.Dir(f.dir), filepath.Base(f.dir))
	f.tried, f.copied = false, false
}

// Peek implements sources.Peeker: it opens a listed file without making
// the local copy (the search index reads every SKILL.md, and copying every
// skill whole for it would fill the cache), from the copy when there is
// one, made by this process or another (a copy's folder is named by its
// content, checked, and put in place whole), else through the plugin. It
// never waits for a copy being made.
func (f *remoteFS) Peek(name string) (fs.File, error) {
	if _, ok := f.files[name]; ok && f.r.cache != nil {
		if file, err := sources.DirFS(f.dir).Open(name); err == nil {
			return file, nil
		}
	}
	return f.listed.Open(name)
}

func (f *remoteFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(f.listed, name) }

func (f *remoteFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(f.listed, name) }
