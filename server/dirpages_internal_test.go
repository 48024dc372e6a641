package server

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
)

// The pages of a large folder are cut of one listing: the folder is
// listed again for another folder, another snapshot, or once
// dirPagesTTL has passed, and a folder of one page is never kept.
func TestDirPagesListOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var d dirPages
		lists := 0
		list := func(n int) func() ([]*mcp.Resource, error) {
			return func() ([]*mcp.Resource, error) {
				lists++
				return make([]*mcp.Resource, n), nil
			}
		}
		a, b := resolver.Build(nil), resolver.Build(nil)
		for range 3 {
			d.get(a, "skill://big/refs", 100, list(250))
		}
		if lists != 1 {
			t.Errorf("three pages of one folder listed it %d times; want once", lists)
		}
		d.get(a, "skill://big/other", 100, list(250))
		d.get(b, "skill://big/other", 100, list(250))
		if lists != 3 {
			t.Errorf("another folder, another snapshot: %d listings; want 3", lists)
		}
		time.Sleep(dirPagesTTL)
		d.get(b, "skill://big/other", 100, list(250))
		if lists != 4 {
			t.Errorf("after %v: %d listings; want 4", dirPagesTTL, lists)
		}
		d.get(b, "skill://small", 100, list(10))
		d.get(b, "skill://small", 100, list(10))
		if lists != 6 {
			t.Errorf("a folder of one page: %d listings; want 6 (never kept)", lists)
		}
	})
}
