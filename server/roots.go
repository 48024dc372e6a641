package server

import (
	"context"
	"net/url"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// rootsTimeout bounds one roots/list request to the client.
const rootsTimeout = 10 * time.Second

// onInitialized asks a client that declares the roots capability for its
// workspace folders once the handshake is done.
func (s *Server) onInitialized(ctx context.Context, req *mcp.InitializedRequest) {
	s.askRoots(ctx, req.Session)
}

// onRootsChanged follows notifications/roots/list_changed.
func (s *Server) onRootsChanged(ctx context.Context, req *mcp.RootsListChangedRequest) {
	s.askRoots(ctx, req.Session)
}

// askRoots requests roots/list and hands the folders to Options.OnRoots.
// The request runs on its own goroutine, bounded by rootsTimeout, because a
// notification handler must not wait for a reply from the client.
func (s *Server) askRoots(ctx context.Context, ss *mcp.ServerSession) {
	if s.onRoots == nil || ss == nil {
		return
	}
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), rootsTimeout)
	go func() {
		defer cancel()
		res, err := ss.ListRoots(ctx, nil)
		if err != nil {
			s.logger.Warn("roots/list failed; keeping the workspace", "err", err)
			return
		}
		dirs := rootDirs(res.Roots, s)
		if len(dirs) == 0 {
			s.logger.Info("client declared no usable file roots; keeping the workspace")
			return
		}
		s.logger.Info("workspace from client roots", "roots", dirs)
		s.onRoots(ctx, dirs)
	}()
}

// rootDirs turns file:// root URIs into folders; other schemes are
// skipped with a warning.
func rootDirs(roots []*mcp.Root, s *Server) []string {
	var dirs []string
	for _, r := range roots {
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || u.Path == "" {
			s.logger.Warn("ignoring a root that is not a file:// folder", "uri", r.URI)
			continue
		}
		dirs = append(dirs, filepath.FromSlash(u.Path))
	}
	return dirs
}
