package server

import (
	"context"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
)

// Catalog gives the current snapshot; *resolver.Resolver is one.
type Catalog interface {
	Snapshot() *resolver.Snapshot
}

// Options configures a Server. A nil *Options means the defaults.
type Options struct {
	// Version is reported in serverInfo; default "dev".
	Version string
	// Budget bounds the tool description and the instructions, in UTF-16
	// code units; default resolver.DefaultBudget.
	Budget int
	// Logger receives the server's logs; default discards. It must not
	// write to stdout.
	Logger *slog.Logger
	// OnRoots, if set, is called with the client's workspace folders when a
	// client that declares the roots capability finishes its handshake, and
	// again each time it sends notifications/roots/list_changed. Calls are
	// made one at a time, on a goroutine the Server owns, with the answer
	// to a roots/list request sent after the latest notification.
	OnRoots func(ctx context.Context, dirs []string)
	// IncludeNative serves every skill to every client. By default a
	// client's catalog leaves out the skill folders that client loads
	// itself (see clients.go), so the model does not see them twice.
	IncludeNative bool
}

// Server serves a Catalog over MCP. Each session sees a view of the
// current snapshot that fits its client (see clients.go), with its own
// instructions and skill tool description.
type Server struct {
	mcp           *mcp.Server
	catalog       Catalog
	budget        int
	logger        *slog.Logger
	includeNative bool
	roots         *rootsFollower

	// mu guards the fields below.
	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*session
	views    map[string]*view // views of viewsOf, by client title ("" for everything)
	viewsOf  *resolver.Snapshot
}

// Name is the server name reported in serverInfo.
const Name = "skillmux"

// New returns a Server over c.
func New(c Catalog, opts *Options) *Server {
	s := &Server{catalog: c, budget: resolver.DefaultBudget, logger: slog.New(slog.DiscardHandler), sessions: map[*mcp.ServerSession]*session{}}
	version := "dev"
	var onRoots func(context.Context, []string)
	if opts != nil {
		if opts.Version != "" {
			version = opts.Version
		}
		if opts.Budget > 0 {
			s.budget = opts.Budget
		}
		if opts.Logger != nil {
			s.logger = opts.Logger
		}
		onRoots = opts.OnRoots
		s.includeNative = opts.IncludeNative
	}
	s.roots = newRootsFollower(onRoots, s.logger)
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Version: version}, &mcp.ServerOptions{
		Logger:                  s.logger,
		InitializedHandler:      s.onInitialized,
		RootsListChangedHandler: s.onRootsChanged,
		Capabilities: &mcp.ServerCapabilities{
			Tools: &mcp.ToolCapabilities{ListChanged: true},
		},
	})
	s.mcp.AddReceivingMiddleware(s.recoverPanics, s.sessionViews)
	s.mcp.AddSendingMiddleware(s.filterListChanged)
	s.addSkillTool(s.catalog.Snapshot().ToolDescription(s.catalogOpts()))
	return s
}

// Refresh brings every session up to date with the current snapshot: a
// session whose skill tool description changed gets tools/list_changed,
// once it has sent notifications/initialized; the others get nothing.
// Call it after the catalog swaps in a new snapshot.
func (s *Server) Refresh() {
	snap := s.catalog.Snapshot()
	live := map[*mcp.ServerSession]bool{}
	for ss := range s.mcp.Sessions() {
		live[ss] = true
	}
	s.mu.Lock()
	changed := false
	for ss, st := range s.sessions {
		if !live[ss] {
			delete(s.sessions, ss) // the session has ended
			continue
		}
		if st.listed != "" && s.viewLocked(snap, st).tool != st.listed {
			changed = true
		}
	}
	s.mu.Unlock()
	if changed {
		// Registering the tool again makes the SDK announce
		// tools/list_changed to every session; filterListChanged keeps it
		// from those whose view did not change.
		s.addSkillTool(snap.ToolDescription(s.catalogOpts()))
	}
}

// Connect serves one session on t; it is how tests attach in-memory
// clients. The session ends when the transport closes.
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return s.mcp.Connect(ctx, t, nil)
}

// Close stops the work the Server does on its own (asking clients for
// their roots) and waits for it. Sessions end with their transports.
func (s *Server) Close() error {
	s.roots.close()
	return nil
}

func (s *Server) catalogOpts() *resolver.CatalogOptions {
	return &resolver.CatalogOptions{Budget: s.budget}
}
