package server

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

// Catalog gives the current snapshot; *resolver.Resolver is one.
type Catalog interface {
	Snapshot() *resolver.Snapshot
}

// Options configures a Server. A nil *Options means the defaults.
type Options struct {
	// Version is reported in serverInfo; default "dev".
	Version string
	// Catalog says what the catalog shows and where (budget, pins,
	// visibility, channel); nil means the defaults. Its Usage, SearchTool
	// and Preamble are the server's to set: the catalog orders by the
	// Usage below and points to the search tool served.
	Catalog *resolver.CatalogOptions
	// Usage counts the loads of skills, for the catalog's order; default
	// a resolver.MemoryUsage.
	Usage resolver.Usage
	// Tools chooses the tools served; nil is the default profile.
	Tools *ToolsOptions
	// SearchWait bounds how long a search waits for the search index to
	// catch up with the catalog (it is built in the background at the
	// start, and updated after each change); default 10 s. Past it, a
	// search answers from the index as it is, or, before the first
	// build, with an error that says to try again.
	SearchWait time.Duration
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
	// MaxFileSize bounds a skill file served as a resource or by the
	// skill_resource tool, in bytes; default 10 MiB. A larger file is
	// refused with an error that says so.
	MaxFileSize int64
	// AllowDirs, when set, limits the files of each skill that are served
	// (as resources, in the Skills extension and by the skill_resource
	// tool) to its SKILL.md and the files in these folders of the skill
	// folder, such as "scripts" or "assets/fonts".
	AllowDirs []string
	// PageSize is the number of items in a page of resources/list,
	// skills/list and resources/directory/read; default 100.
	PageSize int
	// IndexAfter, when set, holds back the build of the search index that
	// the first handshake starts until it is closed (resolver.Settled):
	// the build takes the machine's cores for a while, and what the
	// sources do just after the start (watching their folders, completing
	// a deferred scan) is what brings a client its first notifications.
	// A search that comes sooner waits for it too (for at most half of
	// SearchWait, before the index's own wait), and so does a skill call
	// of a name not found (at most 5 s), since the catalog is not
	// complete until then; once such a wait has run out, none waits again.
	IndexAfter <-chan struct{}
}

// Server serves a Catalog over MCP. Each session sees a view of the
// current snapshot that fits its client (see clients.go), with its own
// instructions, skill tool description and prompts.
type Server struct {
	mcp           *mcp.Server
	catalog       Catalog
	catalogOpts   resolver.CatalogOptions
	usage         resolver.Usage
	tools         toolSet
	index         *searchIndex
	indexAfter    <-chan struct{}
	started       *startGate // indexAfter, for the requests that wait for it
	indexing      sync.Once  // the first handshake's start of the index
	greeted       chan struct{}
	greetOnce     sync.Once
	logger        *slog.Logger
	includeNative bool
	roots         *rootsFollower
	maxFileSize   int64
	reads         *readBudget
	allowDirs     []string // slash paths, without a trailing '/'
	pageSize      int
	warnedAll     bool     // warnOnce logs no more (guarded by mu)
	dirPages      dirPages // the pages of resources/directory/read
	digests       sources.Digests
	fronts        frontCache // front matter as JSON (skillsext.go)
	refreshing    sync.Mutex // serializes Refresh: the last call works from the newest snapshot
	refreshTaken  func()     // tests: called by Refresh once it has its snapshot
	resRefresh    sync.Mutex // serializes refreshResources
	listSums      skillSums  // refreshResources's memo; resRefresh guards it
	negotiated    sync.Map   // *mcp.ServerSession → the version initialize answered (see modern)

	// mu guards the fields below.
	mu       sync.Mutex
	sessions map[*mcp.ServerSession]*session
	views    map[string]*view // views of viewsOf, by client title ("" for everything)
	viewsOf  *resolver.Snapshot
	warned   map[string]bool // warnings logged once
}

// Name is the server name reported in serverInfo.
const Name = "skillmux"

// DefaultSearchWait is the default of Options.SearchWait.
const DefaultSearchWait = 10 * time.Second

// New returns a Server over c.
func New(c Catalog, opts *Options) *Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	s := &Server{catalog: c, logger: o.Logger, usage: o.Usage, includeNative: o.IncludeNative, sessions: map[*mcp.ServerSession]*session{},
		maxFileSize: o.MaxFileSize, pageSize: o.PageSize, warned: map[string]bool{}}
	version := o.Version
	if version == "" {
		version = "dev"
	}
	if s.logger == nil {
		s.logger = slog.New(slog.DiscardHandler)
	}
	if s.usage == nil {
		s.usage = &resolver.MemoryUsage{}
	}
	if o.SearchWait <= 0 {
		o.SearchWait = DefaultSearchWait
	}
	if s.maxFileSize <= 0 {
		s.maxFileSize = DefaultMaxFileSize
	}
	s.reads = newReadBudget(s.maxFileSize)
	if s.pageSize <= 0 {
		s.pageSize = defaultPageSize
	}
	for _, d := range o.AllowDirs {
		s.allowDirs = append(s.allowDirs, strings.TrimSuffix(d, "/"))
	}
	s.tools = resolveTools(o.Tools)
	s.catalogOpts = s.catalogOptions(o.Catalog)
	s.started = &startGate{done: o.IndexAfter}
	s.index = newSearchIndex(s.logger, o.SearchWait, s.started, c.Snapshot)
	s.indexAfter = o.IndexAfter
	s.greeted = make(chan struct{})
	s.roots = newRootsFollower(o.OnRoots, s.logger)
	caps := &mcp.ServerCapabilities{
		Tools:     &mcp.ToolCapabilities{ListChanged: true},
		Prompts:   &mcp.PromptCapabilities{ListChanged: true},
		Resources: &mcp.ResourceCapabilities{Subscribe: true, ListChanged: true},
	}
	caps.AddExtension(SkillsExtension, map[string]any{"directoryRead": true})
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: Name, Version: version}, &mcp.ServerOptions{
		Logger:                  slog.New(quieter{s.logger.Handler()}),
		InitializedHandler:      s.onInitialized,
		RootsListChangedHandler: s.onRootsChanged,
		SubscribeHandler:        s.subscribe,
		UnsubscribeHandler:      s.unsubscribe,
		CompletionHandler:       s.complete,
		Capabilities:            caps,
		// Every result is the user's own catalog, in the view of one kind
		// of client: none may be shared, as "public" (the SDK's default)
		// would allow.
		SetCacheable: func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { c.CacheScope = cacheScope },
	})
	// recoverPanics covers every handler after it, the resource
	// methods included; plainResults sees every result as the others
	// leave it.
	s.mcp.AddReceivingMiddleware(s.plainResults, s.codedErrors, s.cacheFieldsByVersion, s.recoverPanics, requiredParams, s.sessionViews, s.servePrompts, s.resourceMethods)
	s.mcp.AddSendingMiddleware(s.filterListChanged, s.filterResourceNotes)
	s.reportTools(s.tools)
	makers := toolMakers()
	for _, name := range s.tools.served {
		t := makers[name](s)
		s.mcp.AddTool(t.def, toolErrors(t.handle))
	}
	s.addResourceTemplates()
	s.addSkillsExtension()
	return s
}

// DefaultMaxFileSize is the default of Options.MaxFileSize: 10 MiB.
const DefaultMaxFileSize = 10 << 20

// catalogOptions completes the configured catalog options with what the
// server knows: the usage, the search tool the closing line points to,
// how to reach the skills the instructions do not list, and, without the
// skill tool, a preamble that names the tools there are. Every sentence
// names only tools that are served.
func (s *Server) catalogOptions(c *resolver.CatalogOptions) resolver.CatalogOptions {
	var o resolver.CatalogOptions
	if c != nil {
		o = *c
	}
	o.Usage = s.usage
	for _, name := range []string{SearchToolName, catalogSearchName, skSearchName} {
		if s.tools.has(name) {
			o.SearchTool = name
			break
		}
	}
	o.Unlisted = s.tools.unlisted()
	if !s.tools.has(SkillToolName) {
		const entry = "each skill's instructions are its SKILL.md, at the location below."
		switch list, search := s.tools.has(skListName), s.tools.has(skSearchName); {
		case list && search:
			o.Preamble = "Agent Skills: prefer skills.list for exhaustive metadata and skills.search for targeted lookups; " + entry
		case list:
			o.Preamble = "Agent Skills: prefer skills.list for exhaustive metadata; " + entry
		case search:
			o.Preamble = "Agent Skills: prefer skills.search for targeted lookups; " + entry
		default:
			o.Preamble = "Agent Skills: before a task that matches a skill below, read its SKILL.md at the location given and follow it."
		}
		if o.Channel == resolver.ChannelTool {
			s.logger.Warn("catalog.channel is tool, but the tools served have no skill tool: the catalog goes to the instructions")
		}
		o.Channel = resolver.ChannelInstructions
	}
	return o
}

// Refresh brings every session up to date with the current snapshot: a
// session whose skill tool description changed gets tools/list_changed,
// and one whose prompts changed prompts/list_changed, once it has sent
// notifications/initialized; one whose resources changed gets the
// resource notifications it is due (subscribe.go); the others get
// nothing. The search index follows the snapshot in the background. Call
// Refresh after the catalog swaps in a new snapshot. Calls are one at a
// time, each with the snapshot current when it starts: one that took an
// older snapshot cannot finish after a newer one and record the older as
// what sessions were told.
func (s *Server) Refresh() {
	s.refreshing.Lock()
	defer s.refreshing.Unlock()
	snap := s.catalog.Snapshot()
	if s.refreshTaken != nil {
		s.refreshTaken()
	}
	s.index.follow()
	live := map[*mcp.ServerSession]bool{}
	for ss := range s.mcp.Sessions() {
		live[ss] = true
	}
	s.mu.Lock()
	toolChanged, promptsDiffer := false, false
	for ss, st := range s.sessions {
		if !live[ss] {
			delete(s.sessions, ss) // the session has ended
			s.negotiated.Delete(ss)
			continue
		}
		v := s.viewLocked(snap, st)
		if st.listed != "" && v.tool != st.listed {
			toolChanged = true
		}
		if st.promptsListed != 0 && s.promptsOf(v).sum != st.promptsListed {
			promptsDiffer = true
		}
	}
	var tool string // the whole catalog's description, from the views' memo
	if toolChanged {
		tool = s.viewLocked(snap, &session{}).tool
	}
	s.mu.Unlock()
	if toolChanged && s.tools.has(SkillToolName) {
		// Registering the tool again makes the SDK announce
		// tools/list_changed to every session; filterListChanged keeps it
		// from those whose view did not change.
		s.addSkillTool(tool)
		s.notifyNow(toolsChanged, snap)
	}
	if promptsDiffer {
		s.announcePrompts()
		s.notifyNow(promptsChanged, snap)
	}
	s.refreshResources(snap)
}

// Connect serves one session on t; it is how tests attach in-memory
// clients. The session ends when the transport closes.
func (s *Server) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	return s.mcp.Connect(ctx, t, nil)
}

// Close stops the work the Server does on its own (asking clients for
// their roots, updating the search index) and waits for it. Sessions end
// with their transports.
func (s *Server) Close() error {
	s.roots.close()
	s.index.close()
	return nil
}

// quieter logs the SDK's info lines at debug level: it writes one for
// each step of a session, each subscription and each resources/updated
// sent (28,788 lines for 10,000 subscriptions, an edit and their end),
// which say nothing a user acts on. Its warnings and errors stay, but for
// the errors of a client's (clientsMistakes), which are warnings.
type quieter struct{ slog.Handler }

func (q quieter) Enabled(ctx context.Context, l slog.Level) bool {
	return q.Handler.Enabled(ctx, quiet(l))
}

func (q quieter) Handle(ctx context.Context, r slog.Record) error {
	r.Level = quiet(r.Level)
	if r.Level == slog.LevelError && clientsMistakes[r.Message] {
		r.Level = slog.LevelWarn
		if !q.Handler.Enabled(ctx, r.Level) {
			return nil // Enabled said yes to the error it was
		}
	}
	return q.Handler.Handle(ctx, r)
}

// clientsMistakes are the SDK's error lines about what a client sent out
// of turn, which the client is answered of: the server's warnings, not
// its errors.
var clientsMistakes = map[string]bool{
	"initialized before initialize":        true,
	"duplicate initialized notification":   true,
	"duplicate initialize request":         true,
	"method invalid during initialization": true,
	"method removed in the new protocol":   true,
}

func (q quieter) WithAttrs(attrs []slog.Attr) slog.Handler {
	return quieter{q.Handler.WithAttrs(attrs)}
}

func (q quieter) WithGroup(name string) slog.Handler { return quieter{q.Handler.WithGroup(name)} }

// quiet is the level a line of the SDK's is logged at.
func quiet(l slog.Level) slog.Level {
	if l < slog.LevelWarn {
		return min(l, slog.LevelDebug)
	}
	return l
}
