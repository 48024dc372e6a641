package server

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/sources"
)

// rootsTimeout bounds one roots/list request to the client.
const rootsTimeout = 10 * time.Second

// rootsFollower asks clients for their workspace folders and hands them
// to a callback. Requests are made one at a time on one goroutine, which
// runs only while there is work and which close stops and waits for: an
// answer is applied only after every earlier one, so a slow answer to an
// old request can never replace a newer workspace.
type rootsFollower struct {
	onRoots func(ctx context.Context, dirs []string)
	logger  *slog.Logger
	ctx     context.Context // cancelled by close
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	// mu guards the fields below.
	mu      sync.Mutex
	queue   []*mcp.ServerSession // sessions whose roots are to be asked, each once
	running bool
	closed  bool
}

func newRootsFollower(onRoots func(context.Context, []string), logger *slog.Logger) *rootsFollower {
	ctx, cancel := context.WithCancel(context.Background())
	return &rootsFollower{onRoots: onRoots, logger: logger, ctx: ctx, cancel: cancel}
}

// follow queues a roots/list request to ss, if its client declares the
// roots capability. It never blocks: a notification handler must not wait
// for an answer from the client.
func (f *rootsFollower) follow(ss *mcp.ServerSession) {
	if f.onRoots == nil || ss == nil {
		return
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	if !slices.Contains(f.queue, ss) {
		f.queue = append(f.queue, ss)
	}
	if !f.running {
		f.running = true
		f.wg.Add(1)
		go f.run()
	}
}

func (f *rootsFollower) run() {
	defer f.wg.Done()
	for {
		f.mu.Lock()
		if len(f.queue) == 0 || f.closed {
			f.running = false
			f.mu.Unlock()
			return
		}
		ss := f.queue[0]
		f.queue = f.queue[1:]
		f.mu.Unlock()
		f.ask(ss)
	}
}

// ask requests roots/list from ss and hands the folders to onRoots.
func (f *rootsFollower) ask(ss *mcp.ServerSession) {
	ctx, cancel := context.WithTimeout(f.ctx, rootsTimeout)
	defer cancel()
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		f.logger.Warn("roots/list failed; keeping the workspace", "err", err)
		return
	}
	dirs := f.dirs(res.Roots)
	if len(dirs) == 0 {
		f.logger.Info("client declared no usable file roots; keeping the workspace")
		return
	}
	f.logger.Info("workspace from client roots", "roots", sources.ClipList(dirs))
	f.onRoots(f.ctx, dirs)
}

// close stops following and waits for the request under way.
func (f *rootsFollower) close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
	f.cancel()
	f.wg.Wait()
}

// MaxRoots bounds the client's roots that are followed: each is a project
// whose folders are scanned and watched (about 100 kB of memory each, 2,000
// roots 245 MB), and a client has a handful.
const MaxRoots = 64

// dirs turns file:// root URIs into folders, at most MaxRoots; other
// schemes are skipped. Each is said in one warning, however many roots.
func (f *rootsFollower) dirs(roots []*mcp.Root) []string {
	var dirs, skipped, malformed, remote []string
	seen := map[string]bool{}
	for _, r := range roots {
		u, err := url.Parse(r.URI)
		switch {
		case err != nil:
			malformed = append(malformed, r.URI)
			continue
		case u.Scheme != "file" || u.Path == "":
			skipped = append(skipped, r.URI)
			continue
		case u.Host != "" && !strings.EqualFold(u.Host, "localhost"):
			// RFC 8089: a folder of another machine, not this one's.
			remote = append(remote, r.URI)
			continue
		}
		dir := filepath.Clean(filepath.FromSlash(u.Path))
		if seen[dir] {
			continue // a root given twice is one
		}
		seen[dir] = true
		if len(dirs) < MaxRoots {
			dirs = append(dirs, dir)
		}
	}
	// A root that is a file is no project; one that does not exist yet
	// is followed, and served once made.
	var files, missing []string
	dirs = slices.DeleteFunc(dirs, func(d string) bool {
		st, err := os.Stat(d)
		switch {
		case err == nil && !st.IsDir():
			files = append(files, d)
			return true
		case errors.Is(err, fs.ErrNotExist):
			missing = append(missing, d)
		}
		return false
	})
	if len(files) > 0 {
		f.logger.Warn("ignoring roots that are files, not folders", "count", len(files), "roots", sources.ClipList(files))
	}
	if len(missing) > 0 {
		f.logger.Warn("roots that do not exist (yet): their project's skills are served once they are made", "count", len(missing), "roots", sources.ClipList(missing))
	}
	if len(skipped) > 0 {
		f.logger.Warn("ignoring roots that are not file:// folders", "count", len(skipped), "uris", sources.ClipList(skipped))
	}
	if len(malformed) > 0 {
		f.logger.Warn("ignoring roots that are not valid URIs (a % must start an escape such as %20)", "count", len(malformed), "uris", sources.ClipList(malformed))
	}
	if len(remote) > 0 {
		f.logger.Warn("ignoring roots of another host (file://HOST/...): only this machine's folders are read", "count", len(remote), "uris", sources.ClipList(remote))
	}
	if len(seen) > MaxRoots {
		f.logger.Warn("the client gave more roots than are followed; the first are", "roots", len(seen), "followed", MaxRoots)
	}
	return dirs
}
