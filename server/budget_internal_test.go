package server

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestReadBudgetHeldUntilAnswered checks that a read's share of the budget
// is given back once both its handler has returned and its request's
// context has ended (the SDK ends it once the answer is written; a
// cancellation ends it while the handler may still read), in either
// order; and at once by the handler when the context never ends.
func TestReadBudgetHeldUntilAnswered(t *testing.T) {
	for _, contextFirst := range []bool{false, true} {
		synctest.Test(t, func(t *testing.T) {
			b := newReadBudget(0)
			ctx, cancel := context.WithCancel(context.Background())
			handled, err := b.acquire(ctx, b.size)
			if err != nil {
				t.Fatal(err)
			}
			first, second := handled, cancel
			if contextFirst {
				first, second = cancel, handled
			}
			first()
			synctest.Wait()
			if b.sem.TryAcquire(1) {
				t.Fatalf("context ended first %v: the share was given back before both were done", contextFirst)
			}
			second()
			synctest.Wait()
			if !b.sem.TryAcquire(b.size) {
				t.Fatalf("context ended first %v: the share was not given back once both were done", contextFirst)
			}
		})
	}

	b := newReadBudget(0)
	handled, err := b.acquire(context.Background(), b.size)
	if err != nil {
		t.Fatal(err)
	}
	handled()
	if !b.sem.TryAcquire(b.size) {
		t.Fatal("a context that never ends kept the share after the handler returned")
	}
}

// TestSmallReadsDoNotWaitBehindLarge checks that a read of a small file
// takes its share at once while large reads hold the whole budget and
// more wait for it, and that small reads wait for one another only when
// their own budget is taken.
func TestSmallReadsDoNotWaitBehindLarge(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := newReadBudget(0)
		ctx := context.Background()
		large, err := b.acquire(ctx, b.size)
		if err != nil {
			t.Fatal(err)
		}
		go b.acquire(ctx, b.size) // waits for the first
		synctest.Wait()
		acquired := func(n int64) (done chan func()) {
			done = make(chan func(), 1)
			go func() {
				handled, err := b.acquire(ctx, n)
				if err != nil {
					t.Error(err)
				}
				done <- handled
			}()
			synctest.Wait()
			return done
		}
		var held []func()
		for range 4 {
			select {
			case handled := <-acquired(smallRead):
				held = append(held, handled)
			default:
				t.Fatalf("read %d of %d bytes waited behind large reads", len(held)+1, smallRead)
			}
		}
		fifth := acquired(2)
		select {
		case <-fifth:
			t.Fatal("a fifth small read took a share while four of the largest small reads held the small reads' budget")
		default:
		}
		held[0]()
		synctest.Wait()
		select {
		case <-fifth:
		default:
			t.Fatal("a small read still waited once a small read ended")
		}
		large()
	})
}

// TestRequestContextEndsOnceAnswered checks what readBudget relies on: the
// SDK ends a request's context only once its answer is written, so a
// share held until then covers the answer's encoding and its wait for a
// client that reads slowly.
func TestRequestContextEndsOnceAnswered(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	ctxs := make(chan context.Context, 1)
	srv.AddTool(&mcp.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctxs <- ctx
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 1<<20)}}}, nil
	})
	pr, pw := io.Pipe()
	defer pr.Close()
	w := newLineWriter(pw)
	conn := newStdioConn(w, newCalls())
	ss, err := srv.Connect(t.Context(), stdioTransport{conn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	out := bufio.NewReader(pr)
	send := func(line string) {
		t.Helper()
		msg, err := jsonrpc.DecodeMessage([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
			conn.calls.add(req.ID, req.Method)
		}
		if err := conn.deliver(msg); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`)
	if _, err := out.ReadBytes('\n'); err != nil {
		t.Fatal(err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"t","arguments":{}}}`)
	ctx := <-ctxs

	// The answer cannot be written while nobody reads it.
	select {
	case <-ctx.Done():
		t.Fatal("the request's context ended before its answer was written")
	case <-time.After(100 * time.Millisecond):
	}
	line, err := out.ReadBytes('\n')
	if err != nil || !strings.Contains(string(line), `"id":2,"result"`) {
		t.Fatalf("answer %.100q, %v", line, err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the request's context did not end once its answer was written")
	}
}

// TestReadWeighsItsAnswer checks that a read weighs what its answer holds,
// readCost times its file's size: a quarter of the budget in files fills
// it, and a file larger than the budget still runs alone.
func TestReadWeighsItsAnswer(t *testing.T) {
	b := newReadBudget(0)
	handled, err := b.acquire(context.Background(), b.size/readCost)
	if err != nil {
		t.Fatal(err)
	}
	if b.sem.TryAcquire(1) {
		t.Error("a read of a quarter of the budget left room")
	}
	handled()
	handled, err = b.acquire(context.Background(), 10*b.size)
	if err != nil {
		t.Fatal(err)
	}
	handled()
	if !b.sem.TryAcquire(b.size) {
		t.Error("a read larger than the budget did not give it all back")
	}
}
