package server

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
)

// session is what the server knows of one client session. The Server's mu
// guards it.
type session struct {
	identified  bool          // the initialize parameters have been read
	client      string        // clientInfo.name
	native      *nativeClient // the client's row in nativeClients; nil serves everything
	initialized bool          // notifications/initialized has come
	listed      string        // the skill tool description the session last saw (handshake or tools/list)
	announced   string        // the description the last tools/list_changed was sent for, since the session last listed
	seen        []string      // the names of the view the session last heard of (handshake, or a change note), when heard
	seenMarks   []uint64      // their marks (Snapshot.Marks)
	heard       bool
	noted       bool       // a change note was given
	res         resSession // its resources and subscriptions (subscribe.go)

	promptsListed    uint64 // the sum of the prompts the session last listed; 0 before prompts/list
	promptsAnnounced uint64 // the sum the last prompts/list_changed was sent for, since the session last listed

	// direct is the session's connection when the server writes to it
	// itself (ServeStdio): notifyNow sends on it.
	direct mcp.Connection
	// sending are the notifications notifyNow is writing to direct, by
	// method, and whether another became due meanwhile (see notifyNow).
	sending map[string]sendState
}

// sendState is where notifyNow is with one notification of a session.
type sendState int

const (
	idle    sendState = iota
	writing           // one is being written
	again             // one is being written, and one more is due after it
)

// view is the catalog one kind of client sees in one snapshot.
type view struct {
	snap         *resolver.Snapshot
	tool, instrs string
	prompts      *promptList // made on first use (prompts.go)
}

// sessionLocked returns the state of ss, which knows its client once the
// session's initialize parameters are there. It must be called with s.mu
// held.
func (s *Server) sessionLocked(ss *mcp.ServerSession) *session {
	st, ok := s.sessions[ss]
	if !ok {
		st = &session{}
		s.sessions[ss] = st
	}
	if st.identified {
		return st
	}
	p := ss.InitializeParams()
	if p == nil {
		return st
	}
	st.identified = true
	if p.ClientInfo != nil {
		st.client = p.ClientInfo.Name
	}
	if !s.includeNative {
		st.native = nativeFor(st.client)
	}
	if st.native != nil {
		s.logger.Info(fmt.Sprintf("client %q is %s, which loads some skill folders itself; they are left out of its catalog so its model does not see them twice (defaults.native: include serves them too)", st.client, st.native.Title),
			"left_out", strings.Join(st.native.Conventions, ", "))
	}
	return st
}

// viewLocked returns the view of snap for the session st, computing it
// once per snapshot and kind of client. It must be called with s.mu held.
func (s *Server) viewLocked(snap *resolver.Snapshot, st *session) *view {
	if s.viewsOf != snap {
		s.views, s.viewsOf = map[string]*view{}, snap
	}
	key := ""
	var exclude []string
	if st.native != nil {
		key, exclude = st.native.Title, st.native.Conventions
	}
	if v, ok := s.views[key]; ok {
		return v
	}
	vs := snap.Excluding(exclude)
	v := &view{snap: vs, tool: vs.ToolDescription(&s.catalogOpts), instrs: vs.Instructions(&s.catalogOpts), prompts: &promptList{}}
	s.views[key] = v
	return v
}

// viewOf returns the current view of the session that sent req.
func (s *Server) viewOf(req mcp.Request) *view {
	ss, _ := req.GetSession().(*mcp.ServerSession)
	return s.viewOfSession(ss)
}

// viewOfSession returns the current view of the session ss (of the whole
// catalog when ss is nil).
func (s *Server) viewOfSession(ss *mcp.ServerSession) *view {
	snap := s.catalog.Snapshot()
	if ss == nil {
		return &view{snap: snap, tool: snap.ToolDescription(&s.catalogOpts), instrs: snap.Instructions(&s.catalogOpts), prompts: &promptList{}}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.viewLocked(snap, s.sessionLocked(ss))
}

// shown returns the current view of the session that sent req and records
// that its skill tool description is what the session now knows: from the
// handshake on, a change to it is worth a tools/list_changed.
func (s *Server) shown(req mcp.Request) *view {
	v := s.viewOf(req)
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
		s.mu.Lock()
		st := s.sessionLocked(ss)
		st.listed = v.tool
		st.announced = "" // told since: a change from what it now knows is news again
		if !st.heard {
			st.seen, st.seenMarks, st.heard = v.snap.Keys(), v.snap.Marks(), true
		}
		s.mu.Unlock()
	}
	return v
}

// listedResources records that the session ss has listed resources (with
// resources/list, skills/list or resources/directory/read) from the
// snapshot snap: from its first listing on, a change to the resources is
// worth a notifications/resources/list_changed. A session that never
// listed them knows no list to be told is out of date.
func (s *Server) listedResources(ss *mcp.ServerSession, snap *resolver.Snapshot) {
	if ss == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sessionLocked(ss)
	if st.res.listed == nil && !st.res.hasSig {
		st.res.listed = snap
	}
}

// sessionViews fits what a session is told of the catalog to its view:
// the instructions of each handshake (initialize and, for clients of
// protocol 2026-07-28, server/discover), computed from the current
// snapshot so a client that connects after a change sees it, and the skill
// tool's description in tools/list.
func (s *Server) sessionViews(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.InitializeResult:
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
				s.negotiated.Store(ss, r.ProtocolVersion)
			}
			r.Instructions = s.shown(req).instrs
			s.greet()
		case *mcp.DiscoverResult:
			// A client of 2026-07-28 sends no notifications/initialized:
			// its handshake is this.
			r.Instructions = s.shown(req).instrs
			s.greet()
			s.startIndex()
		case *mcp.ListToolsResult:
			v := s.shown(req)
			for i, t := range r.Tools {
				if t.Name == SkillToolName {
					c := *t // the SDK's own tool is shared by every session
					c.Description = v.tool
					r.Tools[i] = &c
				}
			}
		}
		return res, nil
	}
}

// filterListChanged lets notifications/tools/list_changed reach a session
// only when it has finished its handshake and the skill tool it listed
// differs from its current view (once per change), and
// notifications/prompts/list_changed only when the prompts it listed
// differ from its current view's.
func (s *Server) filterListChanged(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != toolsChanged && method != promptsChanged {
			return next(ctx, method, req)
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return next(ctx, method, req)
		}
		snap := s.catalog.Snapshot()
		s.mu.Lock()
		send := s.dueLocked(ss, s.sessionLocked(ss), snap, method)
		s.mu.Unlock()
		if !send {
			return nil, nil
		}
		return next(ctx, method, req)
	}
}

// The list_changed notifications.
const (
	toolsChanged     = "notifications/tools/list_changed"
	promptsChanged   = "notifications/prompts/list_changed"
	resourcesChanged = "notifications/resources/list_changed"
)

// dueLocked reports whether list_changed notification method is due to
// the session ss, whose state is st, in snap, and if so records it as
// sent. s.mu must be held.
func (s *Server) dueLocked(ss *mcp.ServerSession, st *session, snap *resolver.Snapshot, method string) bool {
	if method == resourcesChanged {
		// refreshResources decided.
		send := st.res.listChanged
		st.res.listChanged = false
		return send
	}
	v := s.viewLocked(snap, st)
	// A client of 2026-07-28 has no notifications/initialized to wait
	// for.
	handshaken := st.initialized || s.modern(ss)
	if method == toolsChanged {
		send := handshaken && st.listed != "" && v.tool != st.listed && v.tool != st.announced
		if send {
			st.announced = v.tool
		}
		return send
	}
	sum := s.promptsOf(v).sum
	send := handshaken && st.promptsListed != 0 && sum != st.promptsListed && sum != st.promptsAnnounced
	if send {
		st.promptsAnnounced = sum
	}
	return send
}

// notifyNow sends list_changed notification method at once to the
// sessions it is due to that the server writes to itself (ServeStdio's),
// of protocols before 2026-07-28.
// The SDK announces a change 10 ms after it, to batch changes; the sending
// middleware (filterListChanged, filterResourceNotes) then keeps its
// notice from the sessions told already. Each is written on a goroutine
// of its own: a client that does not read holds up no refresh. While one
// is being written, the next of its method waits for it, and those after
// add nothing (a list_changed says only that the list changed; the one
// after the write covers any change the client may have missed while it
// read the first): a client that stops reading while the catalog keeps
// changing holds one goroutine per method, not one per change.
func (s *Server) notifyNow(method string, snap *resolver.Snapshot) {
	var to []*session
	s.mu.Lock()
	for ss, st := range s.sessions {
		// A client of 2026-07-28 is sent a list_changed only on a
		// subscriptions/listen that asked for it, tagged with the
		// listen's id: the SDK's notice does that.
		if st.direct == nil || s.modern(ss) || !s.dueLocked(ss, st, snap, method) {
			continue
		}
		if st.sending == nil {
			st.sending = map[string]sendState{}
		}
		if st.sending[method] != idle {
			st.sending[method] = again
			continue
		}
		st.sending[method] = writing
		to = append(to, st)
	}
	s.mu.Unlock()
	for _, st := range to {
		go func() {
			for {
				// A failure is the session's end, which the SDK sees too.
				_ = st.direct.Write(context.Background(), &jsonrpc.Request{Method: method, Params: json.RawMessage("{}")})
				s.mu.Lock()
				more := st.sending[method] == again
				if more {
					st.sending[method] = writing
				} else {
					delete(st.sending, method)
				}
				s.mu.Unlock()
				if !more {
					return
				}
			}
		}()
	}
}

// Greeted returns a channel that is closed once the server has made its
// answer to the first handshake (initialize, or server/discover for a
// client of 2026-07-28). Work the client does not wait for, such as
// watching the catalog's folders, can wait for it: on a machine of two
// cores, a few system calls that block in the kernel (adding a watch to a
// folder of many entries takes milliseconds) hold both of the runtime's
// processors, and the answer with them.
func (s *Server) Greeted() <-chan struct{} { return s.greeted }

func (s *Server) greet() { s.greetOnce.Do(func() { close(s.greeted) }) }

// onInitialized records the end of a session's handshake, and asks a
// client that declares the roots capability for its workspace folders.
// The first handshake also starts the search index (once
// Options.IndexAfter allows), when a tool served searches it: its build is
// kept off the way of the server's start, and costs nothing to those whose
// tools never search.
func (s *Server) onInitialized(ctx context.Context, req *mcp.InitializedRequest) {
	s.startIndex()
	if req.Session == nil {
		return
	}
	s.mu.Lock()
	st := s.sessionLocked(req.Session)
	st.initialized = true
	// A client may list between the handshake's answer and now; a change
	// made meanwhile could not be announced, and is now, as any change
	// (Refresh tells only the sessions whose lists differ).
	listedEarly := st.listed != "" || st.promptsListed != 0 || st.res.hasSig || st.res.listed != nil
	s.mu.Unlock()
	if listedEarly {
		s.Refresh()
	}
	s.roots.follow(req.Session)
}

// startIndex starts the search index, when a tool served searches it,
// once Options.IndexAfter allows.
func (s *Server) startIndex() {
	if !s.tools.searches() {
		return
	}
	s.indexing.Do(func() {
		if s.indexAfter == nil {
			s.index.start()
			return
		}
		go func() {
			select {
			case <-s.indexAfter:
				s.index.start()
			case <-s.index.live.Done():
			}
		}()
	})
}

// onRootsChanged follows notifications/roots/list_changed. Before the
// client's notifications/initialized, which the roots are asked for at
// anyway, the server sends no request, as MCP asks.
func (s *Server) onRootsChanged(ctx context.Context, req *mcp.RootsListChangedRequest) {
	if req.Session == nil {
		return
	}
	s.mu.Lock()
	initialized := s.sessionLocked(req.Session).initialized
	s.mu.Unlock()
	if initialized {
		s.roots.follow(req.Session)
	}
}

// recoverPanics turns a panic in any handler into a -32603 error for that
// request; the SDK alone would let it kill the process.
func (s *Server) recoverPanics(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
		defer func() {
			if p := recover(); p != nil {
				s.logger.Error("handler panicked", "method", method, "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error in %s: %v", method, p)}
			}
		}()
		return next(ctx, method, req)
	}
}
