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
	// again each time it sends notifications/roots/list_changed. It runs on
	// its own goroutine.
	OnRoots func(ctx context.Context, dirs []string)
}

// Server serves a Catalog over MCP.
type Server struct {
	mcp     *mcp.Server
	catalog Catalog
	budget  int
	logger  *slog.Logger
	onRoots func(ctx context.Context, dirs []string)

	// mu guards the fields below.
	mu    sync.Mutex
	texts *catalogTexts // the texts of the snapshot last shown
}

// catalogTexts caches the budgeted texts of one snapshot.
type catalogTexts struct {
	snap         *resolver.Snapshot
	tool, instrs string
}

// Name is the server name reported in serverInfo.
const Name = "skillmux"

// New returns a Server over c.
func New(c Catalog, opts *Options) *Server {
	s := &Server{catalog: c, budget: resolver.DefaultBudget, logger: slog.New(slog.DiscardHandler)}
	version := "dev"
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
		s.onRoots = opts.OnRoots
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Version: version}, &mcp.ServerOptions{
		Logger:                  s.logger,
		InitializedHandler:      s.onInitialized,
		RootsListChangedHandler: s.onRootsChanged,
		Capabilities: &mcp.ServerCapabilities{
			Tools: &mcp.ToolCapabilities{ListChanged: true},
		},
	})
	s.mcp.AddReceivingMiddleware(s.codedErrors, s.recoverPanics, s.sessionInstructions)
	s.addSkillTool(s.current().tool)
	return s
}

// current returns the budgeted texts of the current snapshot, computing
// them once per snapshot.
func (s *Server) current() *catalogTexts {
	snap := s.catalog.Snapshot()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.texts == nil || s.texts.snap != snap {
		s.texts = &catalogTexts{snap: snap, tool: snap.ToolDescription(s.budget), instrs: snap.Instructions(s.budget)}
	}
	return s.texts
}

// Refresh brings the tool description up to date with the current
// snapshot; when it changed, connected clients get tools/list_changed.
// Call it after the catalog swaps in a new snapshot.
func (s *Server) Refresh() {
	s.mu.Lock()
	old := ""
	if s.texts != nil {
		old = s.texts.tool
	}
	s.mu.Unlock()
	if t := s.current(); t.tool != old {
		s.addSkillTool(t.tool)
	}
}

// Connect serves one session on t; it is how tests attach in-memory
// clients. The session ends when the transport closes.
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return s.mcp.Connect(ctx, t, nil)
}
