package watch

import (
	"context"
	"os"
	"slices"
	"sync"
	"time"
)

// DefaultPollInterval is how often a FilePoll looks at its files.
const DefaultPollInterval = time.Second

// FilePoll reports the files, among its paths, that were created, removed
// or changed (another file, size, modification time or permissions) since it last
// looked. NewFilePoll takes the first look, so that a caller knows when
// the files were first looked at; Run reports what changed since.
//
// It is for a handful of single files, such as configuration files: they
// may not exist yet, and their folders (a repository's root, ~/.claude)
// are ones a recursive watch should not take on for one file. A few stat
// calls a second cost nothing.
type FilePoll struct {
	mu    sync.Mutex // guards paths and last: Set may change them while Run looks
	paths []string
	last  []fileState
}

// NewFilePoll looks at the files at paths now.
func NewFilePoll(paths []string) *FilePoll {
	p := &FilePoll{paths: paths, last: make([]fileState, len(paths))}
	for i, path := range paths {
		p.last[i] = stateOf(path)
	}
	return p
}

// Set makes paths the files looked at: one new among them is looked at
// now, and what Run reports of it is what changes after; one that was
// looked at already keeps its last look.
func (fp *FilePoll) Set(paths []string) {
	fp.mu.Lock()
	defer fp.mu.Unlock()
	was := make(map[string]fileState, len(fp.paths))
	for i, p := range fp.paths {
		was[p] = fp.last[i]
	}
	last := make([]fileState, len(paths))
	for i, p := range paths {
		st, ok := was[p]
		if !ok {
			st = stateOf(p)
		}
		last[i] = st
	}
	fp.paths, fp.last = slices.Clone(paths), last
}

// Run calls changed with the paths that changed since the last look,
// looking every interval (DefaultPollInterval when 0), until ctx is done.
// changed runs on the calling goroutine.
func (fp *FilePoll) Run(ctx context.Context, interval time.Duration, changed func([]string)) {
	if interval <= 0 {
		interval = DefaultPollInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		var diff []string
		fp.mu.Lock()
		for i, p := range fp.paths {
			if now := stateOf(p); now != fp.last[i] {
				fp.last[i] = now
				diff = append(diff, p)
			}
		}
		fp.mu.Unlock()
		if len(diff) > 0 {
			changed(diff)
		}
	}
}

// fileState is what a stat says of a file that changes when it does.
type fileState struct {
	exists bool
	id     fileID
	size   int64
	mtime  time.Time
	mode   os.FileMode // a file made readable again by chmod is read again
}

func stateOf(path string) fileState {
	fi, err := os.Stat(path)
	if err != nil {
		return fileState{}
	}
	id, _ := idOf(path, fi)
	return fileState{exists: true, id: id, size: fi.Size(), mtime: fi.ModTime(), mode: fi.Mode()}
}
