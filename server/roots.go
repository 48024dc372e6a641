package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"path/filepath"
	"slices"
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
	f.logger.Info("workspace from client roots", "roots", shortList(dirs))
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
	var dirs, skipped []string
	for _, r := range roots {
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || u.Path == "" {
			skipped = append(skipped, r.URI)
			continue
		}
		dirs = append(dirs, filepath.FromSlash(u.Path))
	}
	if len(skipped) > 0 {
		f.logger.Warn("ignoring roots that are not file:// folders", "count", len(skipped), "uris", shortList(skipped))
	}
	if len(dirs) > MaxRoots {
		f.logger.Warn("the client gave more roots than are followed; the first are", "roots", len(dirs), "followed", MaxRoots)
		dirs = dirs[:MaxRoots]
	}
	return dirs
}

// shortList is a list for a log line: its first ten values, each clipped,
// and how many more.
func shortList(values []string) []string {
	var out []string
	for i, v := range values {
		if i == 10 {
			return append(out, fmt.Sprintf("and %d more", len(values)-i))
		}
		out = append(out, sources.Clip(v, 300))
	}
	return out
}
