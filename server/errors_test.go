package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// The middleware codes the SDK's refusal of a second initialize on every
// transport, not only on stdio.
func TestSecondInitializeIsAnInvalidRequest(t *testing.T) {
	ctx := context.Background()
	srv := server.New(newResolver(t, dirtree.New(skillsDir(t), nil)), nil)
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	conn, err := ct.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	params := json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}`)
	var resp *jsonrpc.Response
	for n := range 2 {
		id, _ := jsonrpc.MakeID(float64(n))
		if err := conn.Write(ctx, &jsonrpc.Request{ID: id, Method: "initialize", Params: params}); err != nil {
			t.Fatal(err)
		}
		msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		resp = msg.(*jsonrpc.Response)
	}
	var coded *jsonrpc.Error
	if !errors.As(resp.Error, &coded) || coded.Code != jsonrpc.CodeInvalidRequest {
		t.Errorf("second initialize: got %#v, want code %d", resp.Error, jsonrpc.CodeInvalidRequest)
	}
}

// Params that decode but miss what the method needs are invalid params,
// as the protocol says, not "not found" nor accepted; a method of a
// capability the server does not declare is not found.
func TestParamsTheSDKLetsThrough(t *testing.T) {
	ctx := context.Background()
	cs := connect(t, server.New(newResolver(t, dirtree.New(skillsDir(t), nil)), nil), "2025-11-25", &mcp.ClientOptions{})
	for name, call := range map[string]func() error{
		"read without a uri":        func() error { _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{}); return err },
		"subscribe without a uri":   func() error { return cs.Subscribe(ctx, &mcp.SubscribeParams{}) },
		"unsubscribe without a uri": func() error { return cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{}) },
	} {
		if err := call(); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: got %v, want code %d", name, err, jsonrpc.CodeInvalidParams)
		}
	}
	// No logging capability is declared: setLevel is not a method here.
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "warning"}); rpcCode(err) != jsonrpc.CodeMethodNotFound {
		t.Errorf("logging/setLevel: got %v, want code %d", err, jsonrpc.CodeMethodNotFound)
	}
}

// A list's cursor is good for that list only; one made up, or another
// list's, is refused rather than read as a position.
func TestCursorsAreTheirListsOwn(t *testing.T) {
	ctx := context.Background()
	f := &sourcetest.Fake{SourceName: "s"}
	for i := range 1500 {
		f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: fmt.Sprintf("s%04d", i), Description: "D."})
	}
	cs := connect(t, server.New(newResolver(t, f), &server.Options{PageSize: 10}), "2025-11-25", nil)
	res, err := cs.ListResources(ctx, nil)
	if err != nil || res.NextCursor == "" {
		t.Fatalf("resources: %v", err)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || prompts.NextCursor == "" {
		t.Fatalf("prompts: %v", err)
	}
	next, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: res.NextCursor})
	if err != nil || len(next.Resources) != 10 || next.Resources[0].Name != "s0010" {
		t.Fatalf("the second page of resources: %v", err)
	}
	if _, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: prompts.NextCursor}); err != nil {
		t.Errorf("the second page of prompts: %v", err)
	}
	for _, cursor := range []string{"AAAA", "zzz", "not a cursor!", prompts.NextCursor} {
		if _, err := cs.ListResources(ctx, &mcp.ListResourcesParams{Cursor: cursor}); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("resources/list with %q: got %v, want invalid params", cursor, err)
		}
	}
	for _, cursor := range []string{"zzz", res.NextCursor} {
		if _, err := cs.ListPrompts(ctx, &mcp.ListPromptsParams{Cursor: cursor}); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("prompts/list with %q: got %v, want invalid params", cursor, err)
		}
	}
}
