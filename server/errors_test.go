package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources/dirtree"
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
