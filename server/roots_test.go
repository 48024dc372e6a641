package server_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
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
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil)
	client.AddRoots(&mcp.Root{URI: "file://" + filepath.ToSlash(a)}, &mcp.Root{URI: "https://example.invalid/not-a-folder"})
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
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
	connect(t, srv, "2025-11-25", &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
	select {
	case <-called:
		t.Error("OnRoots called for a client without the roots capability")
	case <-time.After(200 * time.Millisecond):
	}
}
