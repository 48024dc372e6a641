package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

func TestRootsFollowTheClient(t *testing.T) {
	got := make(chan []string, 4)
	srv := server.New(newResolver(t, &sourcetest.Fake{SourceName: "s"}), &server.Options{
		OnRoots: func(_ context.Context, dirs []string) { got <- dirs },
	})
	a, b := t.TempDir(), t.TempDir()
	client := connectWithRoots(t, srv, &mcp.Root{URI: "file://" + filepath.ToSlash(a)}, &mcp.Root{URI: "https://example.invalid/not-a-folder"})
	wait := func(want []string) {
		t.Helper()
		select {
		case dirs := <-got:
			if diff := cmp.Diff(want, dirs); diff != "" {
				t.Errorf("roots (-want +got):\n%s", diff)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("OnRoots not called; want %v", want)
		}
	}
	wait([]string{a})
	client.AddRoots(&mcp.Root{URI: "file://" + filepath.ToSlash(b)})
	wait([]string{a, b})
}

func TestNoRootsCapabilityNoCall(t *testing.T) {
	called := make(chan struct{}, 1)
	srv := server.New(newResolver(t, &sourcetest.Fake{SourceName: "s"}), &server.Options{
		OnRoots: func(context.Context, []string) { called <- struct{}{} },
	})
	cs := connect(t, srv, "2025-11-25", &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	// The ping is handled after notifications/initialized, and Close
	// waits for any roots request the server started.
	if err := cs.Ping(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	srv.Close()
	if len(called) != 0 {
		t.Error("OnRoots called for a client without the roots capability")
	}
}

// Roots that change quickly are applied one at a time, and the last
// applied are the client's latest: an old answer never wins.
func TestRootsChangesApplyInOrder(t *testing.T) {
	var mu sync.Mutex
	var last []string
	inside, overlapped := 0, false
	applied := make(chan []string, 100)
	srv := server.New(newResolver(t, &sourcetest.Fake{SourceName: "s"}), &server.Options{
		OnRoots: func(_ context.Context, dirs []string) {
			mu.Lock()
			inside++
			overlapped = overlapped || inside > 1
			last = dirs
			mu.Unlock()
			applied <- dirs
			mu.Lock()
			inside--
			mu.Unlock()
		},
	})
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	prev := "file://" + filepath.ToSlash(t.TempDir())
	client.AddRoots(&mcp.Root{URI: prev})
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	var final string
	for range 10 {
		final = t.TempDir()
		uri := "file://" + filepath.ToSlash(final)
		client.AddRoots(&mcp.Root{URI: uri})
		client.RemoveRoots(prev)
		prev = uri
	}
	timeout := time.After(10 * time.Second)
	for done := false; !done; {
		select {
		case dirs := <-applied:
			done = len(dirs) == 1 && dirs[0] == final
		case <-timeout:
			t.Fatal("the final roots were never applied")
		}
	}
	srv.Close() // waits for any request still under way
	mu.Lock()
	defer mu.Unlock()
	if overlapped {
		t.Error("OnRoots calls overlapped")
	}
	if len(last) != 1 || last[0] != final {
		t.Errorf("last roots applied %v, want [%s]", last, final)
	}
}

// A client that gives more roots than are followed has the first
// server.MaxRoots followed, with one warning; roots that are not folders
// are one warning too, however many.
func TestManyRootsAreBounded(t *testing.T) {
	got := make(chan []string, 1)
	logs := &logBuffer{}
	srv := server.New(newResolver(t, &sourcetest.Fake{SourceName: "s"}), &server.Options{
		Logger:  logs.logger(),
		OnRoots: func(_ context.Context, dirs []string) { got <- dirs },
	})
	var want []string
	var roots []*mcp.Root
	for i := range server.MaxRoots + 36 {
		dir := filepath.Join(t.TempDir(), fmt.Sprint(i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if i < server.MaxRoots {
			want = append(want, dir)
		}
		roots = append(roots, &mcp.Root{URI: "file://" + filepath.ToSlash(dir)}, &mcp.Root{URI: fmt.Sprintf("https://example.invalid/%d", i)})
	}
	connectWithRoots(t, srv, roots...)
	select {
	case dirs := <-got:
		if diff := cmp.Diff(want, dirs); diff != "" {
			t.Errorf("roots followed (-want +got):\n%s", diff)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OnRoots not called")
	}
	out := logs.String()
	if strings.Count(out, "level=WARN") != 2 || !strings.Contains(out, "roots=100 followed=64") || !strings.Contains(out, "count=100") || !strings.Contains(out, "and 90 more") {
		t.Errorf("warnings:\n%s", out)
	}
}

// Roots that name no folder of this machine are each said, in one
// warning per kind, and left out: a file, a URI that does not parse, a
// folder of another host; one that does not exist yet is followed, and
// said; a root given twice is one.
func TestOddRoots(t *testing.T) {
	got := make(chan []string, 1)
	logs := &logBuffer{}
	srv := server.New(newResolver(t, &sourcetest.Fake{SourceName: "s"}), &server.Options{
		Logger:  logs.logger(),
		OnRoots: func(_ context.Context, dirs []string) { got <- dirs },
	})
	dir := t.TempDir()
	file := filepath.Join(dir, "a-file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	later := filepath.Join(dir, "later")
	uri := func(p string) *mcp.Root { return &mcp.Root{URI: "file://" + filepath.ToSlash(p)} }
	connectWithRoots(t, srv, uri(dir), uri(dir+"/"), &mcp.Root{URI: "file://LOCALHOST" + filepath.ToSlash(dir)}, uri(file), uri(later),
		&mcp.Root{URI: "file:///tmp/%zz"}, &mcp.Root{URI: "file://otherhost" + filepath.ToSlash(dir)})
	select {
	case dirs := <-got:
		if diff := cmp.Diff([]string{dir, later}, dirs); diff != "" {
			t.Errorf("roots followed (-want +got):\n%s", diff)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OnRoots not called")
	}
	out := logs.String()
	for _, want := range []string{"roots that are files, not folders", "roots that do not exist (yet)", "not valid URIs", "roots of another host"} {
		if !strings.Contains(out, want) {
			t.Errorf("not said: %s\n%s", want, out)
		}
	}
}

// connectWithRoots connects a client that declares roots to srv, for the
// test's duration, and returns it: roots added to it later are announced.
func connectWithRoots(t *testing.T, srv *server.Server, roots ...*mcp.Root) *mcp.Client {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	client.AddRoots(roots...)
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return client
}

// A client that says its roots changed before notifications/initialized
// is asked for them once the handshake is over, not before: MCP has a
// server send no request until then.
func TestRootsAskedOnlyOnceInitialized(t *testing.T) {
	srv := server.New(newResolver(t, &sourcetest.Fake{SourceName: "s"}), &server.Options{OnRoots: func(context.Context, []string) {}})
	send, msgs := rawSession(t, srv)
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"raw","version":"1"}}}`)
	if m := <-msgs; m.(*jsonrpc.Response).ID.Raw() != int64(1) {
		t.Fatalf("want the initialize answer, got %+v", m)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	for m := range msgs {
		if r, ok := m.(*jsonrpc.Request); ok {
			t.Fatalf("the server sent %s before notifications/initialized", r.Method)
		}
		if m.(*jsonrpc.Response).ID.Raw() == int64(2) {
			break
		}
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	m := <-msgs
	if r, ok := m.(*jsonrpc.Request); !ok || r.Method != "roots/list" {
		t.Fatalf("want roots/list once initialized, got %+v", m)
	}
}
