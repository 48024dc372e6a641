package server_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// notes records the resource notifications a client receives.
type notes struct {
	mu      sync.Mutex
	updated []string
	listed  int
}

func (n *notes) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			n.mu.Lock()
			n.updated = append(n.updated, req.Params.URI)
			n.mu.Unlock()
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			n.mu.Lock()
			n.listed++
			n.mu.Unlock()
		},
	}
}

// take returns what arrived since the last call, updates sorted.
func (n *notes) take() (updated []string, listed int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	updated, listed = n.updated, n.listed
	n.updated, n.listed = nil, 0
	slices.Sort(updated)
	return updated, listed
}

func subscribe(t *testing.T, cs *mcp.ClientSession, uris ...string) {
	t.Helper()
	for _, uri := range uris {
		if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatal(err)
		}
	}
}

// reload swaps in a new snapshot; the server is told through OnSwap, as
// serve wires it. Then it lets every notification arrive, so that
// "nothing was sent" can be checked: the SDK sends list_changed after a
// 10 ms debounce, which the bubble's clock passes at once, and
// synctest.Wait returns when everything is idle.
func reload(t *testing.T, r *resolver.Resolver) {
	t.Helper()
	if _, err := r.Reload(context.Background()); err != nil {
		t.Fatal(err)
	}
	settle()
}

// settle lets the bubble's clock pass the SDK's debounce and waits until
// every goroutine is idle.
func settle() {
	time.Sleep(time.Second) // the bubble's clock: no wall time passes
	synctest.Wait()
}

func check(t *testing.T, n *notes, what string, wantUpdated []string, wantListed bool) {
	t.Helper()
	updated, listed := n.take()
	if !slices.Equal(updated, wantUpdated) || (listed > 0) != wantListed || listed > 1 {
		t.Errorf("%s: updated %v (want %v), list_changed %d times (want %v)", what, updated, wantUpdated, listed, wantListed)
	}
}

// A subscribed file that changes is announced, a skill's root is
// announced when any of its files changes, and nothing else is: not a
// file nobody subscribed to, not an unchanged one, not after
// unsubscribing. Skills appearing or going are list_changed.
func TestSubscriptions(t *testing.T) { synctest.Test(t, testSubscriptions) }

func testSubscriptions(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{
		{Name: "one", Description: "One.", Files: map[string]string{"a.md": "a", "b.md": "b"}},
		{Name: "two", Description: "Two.", Files: map[string]string{"x/y.md": "y"}},
	}}
	r, srv := refreshing(t, src)
	n := &notes{}
	cs := connect(t, srv, "2025-11-25", n.options())
	listResources(t, cs)
	subscribe(t, cs, "skill://one/a.md", "skill://two", "skill://three/SKILL.md")

	reload(t, r)
	check(t, n, "nothing changed", nil, false)

	src.Skills[0].Files = map[string]string{"a.md": "a, edited", "b.md": "b"}
	reload(t, r)
	check(t, n, "a.md edited", []string{"skill://one/a.md"}, false)

	src.Skills[0].Files = map[string]string{"a.md": "a, edited", "b.md": "b, edited"}
	reload(t, r)
	check(t, n, "b.md edited (not subscribed)", nil, false)

	// What resources/list and skills/list say of a skill is its front
	// matter: its body is not listed.
	src.Skills[0].Body = "A new body."
	reload(t, r)
	check(t, n, "one's body edited", nil, false)
	src.Skills[0].Description = "One, described anew."
	reload(t, r)
	check(t, n, "one's description edited", nil, true)

	src.Skills[1].Files = map[string]string{"x/y.md": "y, edited"}
	reload(t, r)
	check(t, n, "a file of two edited", []string{"skill://two"}, false)

	src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: "three", Description: "Three."})
	reload(t, r)
	check(t, n, "three appeared", []string{"skill://three/SKILL.md"}, true)

	// Unsubscribed by another spelling of the same URI.
	if err := cs.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: "skill://%6fne/a%2Emd"}); err != nil {
		t.Fatal(err)
	}
	src.Skills[0].Files = map[string]string{"a.md": "a, edited twice", "b.md": "b, edited"}
	reload(t, r)
	check(t, n, "a.md edited after unsubscribing", nil, false)

	src.Skills = src.Skills[1:]
	reload(t, r)
	check(t, n, "one went", nil, true)

	// A URI that breaks the rules cannot be subscribed to.
	err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "skill://two/../one/a.md"})
	if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "parent-segment") {
		t.Errorf("a bad URI: %v", err)
	}
	// Nor one that spells a skill as lookups take names, which would
	// never be told of anything; a skill's file yet to come may be.
	err = cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "skill://TWO/x/y.md"})
	if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "did you mean skill://two/x/y.md?") {
		t.Errorf("a URI in another case: %v", err)
	}
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "skill://two/later.md"}); err != nil {
		t.Errorf("a file yet to come: %v", err)
	}
}

// Real files: an edit is seen after the resolver reloads the tree, and a
// new file in a skill changes the list.
func TestSubscriptionsRealFiles(t *testing.T) { synctest.Test(t, testSubscriptionsRealFiles) }

func testSubscriptionsRealFiles(t *testing.T) {
	rt := newResourceTree(t)
	r, srv := refreshing(t, dirtree.New(rt.root, nil))
	n := &notes{}
	cs := connect(t, srv, "2025-11-25", n.options())
	listResources(t, cs)
	subscribe(t, cs, "skill://pdf/forms.md", "skill://docx", "skill://pdf/link-in.md")

	reload(t, r)
	check(t, n, "a rescan that found nothing new", nil, false)

	write := func(rel, content string) {
		if err := os.WriteFile(filepath.Join(rt.root, filepath.FromSlash(rel)), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("pdf/forms.md", "# Forms, edited\n")
	reload(t, r)
	// link-in.md is forms.md under another name: it changed too.
	check(t, n, "forms.md edited", []string{"skill://pdf/forms.md", "skill://pdf/link-in.md"}, false)

	// A touch, or the same bytes written again (an editor's save of an
	// unchanged file), is no update.
	later := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(filepath.Join(rt.root, "pdf", "forms.md"), later, later); err != nil {
		t.Fatal(err)
	}
	docx, err := os.ReadFile(filepath.Join(rt.root, "docx", "SKILL.md"))
	if err != nil {
		t.Fatal(err)
	}
	write("docx/SKILL.md", string(docx))
	reload(t, r)
	check(t, n, "a touch and a rewrite of the same bytes", nil, false)

	write("docx/template.md", "new\n")
	reload(t, r)
	check(t, n, "a file added to docx", []string{"skill://docx"}, true)

	if err := os.Remove(filepath.Join(rt.root, "pdf", "forms.md")); err != nil {
		t.Fatal(err)
	}
	reload(t, r)
	check(t, n, "forms.md removed", []string{"skill://pdf/forms.md", "skill://pdf/link-in.md"}, true)

	// The outside changing is nobody's business.
	write("../outside/secret.txt", "changed")
	subscribe(t, cs, "skill://pdf/link-out.txt")
	reload(t, r)
	write("../outside/secret.txt", "changed again, and longer")
	reload(t, r)
	check(t, n, "the outside changed", nil, false)
}

// A client is told only of changes to what it sees: Claude Code is not
// told when a skill appears in its own folder, which it does not see
// through skillmux.
func TestResourceListChangedPerView(t *testing.T) { synctest.Test(t, testResourceListChangedPerView) }

func testResourceListChangedPerView(t *testing.T) {
	claude, agents, mine := nativeCatalog()
	r, srv := refreshing(t, claude, agents, mine)
	ccNotes, otherNotes := &notes{}, &notes{}
	listResources(t, connectNamed(t, srv, "claude-code", ccNotes.options()))
	listResources(t, connectNamed(t, srv, "mcp-inspector", otherNotes.options()))
	settle() // the server has taken both notifications/initialized

	claude.Skills = append(claude.Skills, sourcetest.FakeSkill{Name: "claude-new", Description: "New in ~/.claude/skills."})
	reload(t, r)
	check(t, ccNotes, "Claude Code, its own folder changed", nil, false)
	check(t, otherNotes, "the other client", nil, true)

	mine.Skills = append(mine.Skills, sourcetest.FakeSkill{Name: "team-new", Description: "New for the team."})
	reload(t, r)
	check(t, ccNotes, "Claude Code, the team's folder changed", nil, true)
	check(t, otherNotes, "the other client, the team's folder changed", nil, true)
}

func connectNamed(t *testing.T, srv *server.Server, name string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: name, Version: "1"}, opts).Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// rawSession connects to srv a client that speaks raw JSON-RPC: send
// writes one message, and msgs has every message the server writes, in
// order (closed when the session ends).
func rawSession(t *testing.T, srv *server.Server) (send func(string), msgs <-chan jsonrpc.Message) {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	conn, err := ct.Connect(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	ch := make(chan jsonrpc.Message, 64)
	go func() {
		defer close(ch)
		for {
			m, err := conn.Read(context.Background())
			if err != nil {
				return
			}
			ch <- m
		}
	}()
	send = func(s string) {
		t.Helper()
		m, err := jsonrpc.DecodeMessage([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		if err := conn.Write(context.Background(), m); err != nil {
			t.Fatal(err)
		}
	}
	return send, ch
}

// Nothing is sent to a session before its notifications/initialized; a
// change after it is.
func TestNoResourceNotesBeforeInitialized(t *testing.T) {
	synctest.Test(t, testNoResourceNotesBeforeInitialized)
}

func testNoResourceNotesBeforeInitialized(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "One."}}}
	r, srv := refreshing(t, src)
	send, msgs := rawSession(t, srv)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := <-msgs; m.(*jsonrpc.Response).ID.Raw() != int64(1) {
		t.Fatalf("want the initialize answer, got %+v", m)
	}
	src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: "two", Description: "Two."})
	reload(t, r)
	if len(msgs) != 0 {
		t.Errorf("%d messages before notifications/initialized: %v", len(msgs), <-msgs)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"resources/list"}`)
	settle()
	if m := <-msgs; m.(*jsonrpc.Response).ID.Raw() != int64(2) {
		t.Fatalf("want the resources/list answer, got %+v", m)
	}
	src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: "three", Description: "Three."})
	reload(t, r)
	var methods []string
	for len(msgs) > 0 {
		if req, ok := (<-msgs).(*jsonrpc.Request); ok {
			methods = append(methods, req.Method)
		}
	}
	if !slices.Contains(methods, "notifications/resources/list_changed") {
		t.Errorf("after initialized: %v", methods)
	}
}

// A client that lists between the handshake's answer and its
// notifications/initialized is told, once initialized, of a change made
// meanwhile: nothing could be sent before, and the change was lost.
func TestChangeBeforeInitializedIsAnnouncedAfter(t *testing.T) {
	synctest.Test(t, testChangeBeforeInitializedIsAnnouncedAfter)
}

func testChangeBeforeInitializedIsAnnouncedAfter(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "One."}}}
	r, srv := refreshing(t, src)
	send, msgs := rawSession(t, srv)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"prompts/list"}`)
	send(`{"jsonrpc":"2.0","id":4,"method":"resources/list"}`)
	settle()
	for range 4 {
		if _, ok := (<-msgs).(*jsonrpc.Response); !ok {
			t.Fatal("want the answers to the handshake and the lists first")
		}
	}
	src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: "two", Description: "Two."})
	reload(t, r)
	if len(msgs) != 0 {
		t.Errorf("%d messages before notifications/initialized: %v", len(msgs), <-msgs)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	settle()
	var methods []string
	for len(msgs) > 0 {
		if req, ok := (<-msgs).(*jsonrpc.Request); ok {
			methods = append(methods, req.Method)
		}
	}
	slices.Sort(methods)
	want := []string{"notifications/prompts/list_changed", "notifications/resources/list_changed", "notifications/tools/list_changed"}
	if !slices.Equal(methods, want) {
		t.Errorf("after initialized: %v, want %v", methods, want)
	}
}

// Refresh runs from the catalog's swaps and from a session's initialized
// (TestChangeBeforeInitializedIsAnnouncedAfter). A Refresh that took its
// snapshot before a swap must not finish after the swap's own and record
// the older catalog as what the client was told: a change back to that
// catalog would then never be announced.
func TestRefreshesDoNotCross(t *testing.T) {
	synctest.Test(t, testRefreshesDoNotCross)
}

func testRefreshesDoNotCross(t *testing.T) {
	skill := func(name string) sourcetest.FakeSkill {
		return sourcetest.FakeSkill{Name: name, Description: name + "."}
	}
	src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{skill("one")}}
	r, srv := refreshing(t, src)
	send, msgs := rawSession(t, srv)
	notes := func() []string {
		var out []string
		for len(msgs) > 0 {
			if req, ok := (<-msgs).(*jsonrpc.Request); ok {
				out = append(out, req.Method)
			}
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"resources/list"}`)
	settle()
	notes()
	src.Skills = []sourcetest.FakeSkill{skill("one"), skill("two")} // catalog A, before initialized
	reload(t, r)
	// initialized's Refresh takes A; catalog B is swapped in meanwhile.
	srv.OnRefreshTaken(func() {
		srv.OnRefreshTaken(nil)
		src.Skills = []sourcetest.FakeSkill{skill("one"), skill("two"), skill("three")}
		before := r.Snapshot()
		go r.Reload(context.Background())
		for r.Snapshot() == before {
			runtime.Gosched() // a goroutine waiting on a mutex is no durable block for synctest.Wait
		}
	})
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	settle()
	notes()
	send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`) // the client has B
	send(`{"jsonrpc":"2.0","id":5,"method":"resources/list"}`)
	settle()
	notes()
	src.Skills = []sourcetest.FakeSkill{skill("one"), skill("two")} // back to A
	reload(t, r)
	if got, want := notes(), []string{"notifications/resources/list_changed", "notifications/tools/list_changed"}; !slices.Equal(got, want) {
		t.Errorf("after the change back: %v, want %v", got, want)
	}
}

// listResources lists the resources, as a client does before it has a
// list to be told is out of date.
func listResources(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	if _, err := cs.ListResources(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
}

// A client that never listed resources has no list to be told is out of
// date: a skill that appears sends it no resources/list_changed (the
// tool's list_changed, for the catalog its handshake was told of, still
// goes), while its subscriptions are kept; once it lists them, it is
// told.
func TestResourceListChangedOnceListed(t *testing.T) {
	synctest.Test(t, testResourceListChangedOnceListed)
}

func testResourceListChangedOnceListed(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "One.", Files: map[string]string{"a.md": "a"}}}}
	r, srv := refreshing(t, src)
	n := &notes{}
	cs := connect(t, srv, "2025-11-25", n.options())
	subscribe(t, cs, "skill://one/a.md")
	settle()

	src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: "two", Description: "Two."})
	src.Skills[0].Files = map[string]string{"a.md": "a, edited"}
	reload(t, r)
	check(t, n, "never listed", []string{"skill://one/a.md"}, false)

	listResources(t, cs)
	src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: "three", Description: "Three."})
	reload(t, r)
	check(t, n, "listed", nil, true)
}

// From protocol 2026-07-28 a client subscribes with subscriptions/listen;
// the same subscriptions apply.
func TestSubscriptionsModernProtocol(t *testing.T) { synctest.Test(t, testSubscriptionsModernProtocol) }

func testSubscriptionsModernProtocol(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "One.", Files: map[string]string{"a.md": "a"}}}}
	r, srv := refreshing(t, src)
	n := &notes{}
	cs := connect(t, srv, "2026-07-28", n.options())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "skill://one/a.md"}) // holds a subscriptions/listen open
	settle()
	src.Skills[0].Files = map[string]string{"a.md": "a, edited"}
	reload(t, r)
	updated, _ := n.take()
	if !slices.Equal(updated, []string{"skill://one/a.md"}) {
		t.Errorf("updated: %v", updated)
	}
	cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "skill://one/a.md"})
	settle()
	src.Skills[0].Files = map[string]string{"a.md": "a, edited twice"}
	reload(t, r)
	if updated, _ := n.take(); len(updated) != 0 {
		t.Errorf("after unsubscribing: %v", updated)
	}
}

// A session may be subscribed to at most 10,000 URIs; unsubscribing, by
// any spelling, makes room again.
func TestSubscriptionsBounded(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "One."}}}
	cs := connect(t, server.New(newResolver(t, src), nil), "2025-11-25", nil)
	ctx := context.Background()
	const limit = 10_000
	for i := range limit {
		if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: fmt.Sprintf("skill://nope%d/SKILL.md", i)}); err != nil {
			t.Fatalf("subscription %d: %v", i, err)
		}
	}
	err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "skill://one/SKILL.md"})
	if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "10000") || !strings.Contains(err.Error(), "resources/unsubscribe") {
		t.Fatalf("one subscription too many: %v", err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "skill://nope7/SKILL.md"}); err != nil {
		t.Errorf("a URI subscribed to already: %v", err)
	}
	if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "skill://%6Eope7/SKILL.md"}); err != nil {
		t.Fatal(err)
	}
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "skill://one/SKILL.md"}); err != nil {
		t.Errorf("after an unsubscribe: %v", err)
	}
}

// gate holds the first Open made once it is armed, until released.
type openGate struct {
	mu      sync.Mutex
	armed   bool
	held    chan struct{} // closed when an Open is held
	release chan struct{}
}

func (g *openGate) hold() {
	g.mu.Lock()
	armed := g.armed
	g.armed = false
	g.mu.Unlock()
	if armed {
		close(g.held)
		<-g.release
	}
}

type gatedFS struct {
	fs.FS
	g *openGate
}

func (f gatedFS) Open(name string) (fs.File, error) {
	f.g.hold()
	return f.FS.Open(name)
}

// gatedSource lists its skills with their files behind a gate.
type gatedSource struct {
	*sourcetest.Fake
	g *openGate
}

func (s gatedSource) List(ctx context.Context) (*sources.Listing, error) {
	l, err := s.Fake.List(ctx)
	if err != nil {
		return nil, err
	}
	for _, sk := range l.Skills {
		sk.Files = gatedFS{sk.Files, s.g}
	}
	return l, nil
}

// A change swapped in while a subscription takes its first look at the
// resource (the stat of every SKILL.md, for skill://) had its refresh
// before the subscription was recorded: it is told all the same, at once,
// not at the next refresh, whenever that comes.
func TestSubscribeDuringARefresh(t *testing.T) { synctest.Test(t, testSubscribeDuringARefresh) }

func testSubscribeDuringARefresh(t *testing.T) {
	g := &openGate{held: make(chan struct{}), release: make(chan struct{})}
	f := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "one", Description: "One."}}}
	r, srv := refreshing(t, gatedSource{f, g})
	n := &notes{}
	cs := connect(t, srv, "2025-11-25", n.options())
	settle() // the search index has read the skills: the Open held is the subscription's
	g.mu.Lock()
	g.armed = true
	g.mu.Unlock()
	subscribed := make(chan error, 1)
	go func() { subscribed <- cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "skill://"}) }()
	<-g.held
	f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: "two", Description: "Two."})
	reload(t, r)
	close(g.release)
	if err := <-subscribed; err != nil {
		t.Fatal(err)
	}
	settle()
	if updated, _ := n.take(); !slices.Equal(updated, []string{"skill://"}) {
		t.Errorf("updated: %v, want skill://", updated)
	}
}

// A file larger than the server serves is summed by its identity and
// times, not read for its content at every refresh: a touch of it is an
// update, as it was of every file before contents were compared.
func TestSubscriptionToALargeFile(t *testing.T) { synctest.Test(t, testSubscriptionToALargeFile) }

func testSubscriptionToALargeFile(t *testing.T) {
	root := t.TempDir()
	sourcetest.WriteFiles(t, root, map[string]string{
		"s/SKILL.md": "---\nname: s\ndescription: S.\n---\n",
		"s/big.bin":  strings.Repeat("x", 64),
		"s/small.md": "small\n",
	})
	r := newResolver(t, dirtree.New(root, nil))
	srv := server.New(r, &server.Options{MaxFileSize: 32})
	r.OnSwap(func(_, _ *resolver.Snapshot) { srv.Refresh() })
	n := &notes{}
	cs := connect(t, srv, "2025-11-25", n.options())
	listResources(t, cs)
	subscribe(t, cs, "skill://s/big.bin", "skill://s/small.md")
	later := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range []string{"big.bin", "small.md"} {
		if err := os.Chtimes(filepath.Join(root, "s", f), later, later); err != nil {
			t.Fatal(err)
		}
	}
	reload(t, r)
	check(t, n, "both touched", []string{"skill://s/big.bin"}, false)
}
