package dirtree

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/skillmux/skillmux/sources"
)

// A List that comes between the deferred scan's completion and its
// notice (one for a change the watcher reported while the cache was
// saved) shows the completed state; the notice then asks for no other,
// which, with nothing reported, would rescan the whole tree.
func TestCompletionListedByAnotherIsNotRescanned(t *testing.T) {
	root := t.TempDir()
	for _, f := range []string{"a/SKILL.md", "b/SKILL.md"} {
		p := filepath.Join(root, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("---\nname: "+filepath.Base(filepath.Dir(p))+"\ndescription: D.\n---\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tr := New(root, &Options{Defer: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := tr.List(ctx); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var notices int
	tr.completed = func() {
		tr.Changed(filepath.Join(root, "a", "SKILL.md"))
		if _, err := tr.List(ctx); err != nil {
			t.Error(err)
		}
		mu.Lock()
		notices = 0 // those before the completion do not count
		mu.Unlock()
	}
	st := tr.st
	settled := make(chan struct{})
	sctx, _ := sources.WithSettle(ctx, func() { close(settled) })
	done := make(chan error, 1)
	go func() {
		done <- tr.Watch(sctx, func() {
			mu.Lock()
			notices++
			mu.Unlock()
			if _, err := tr.List(ctx); err != nil {
				t.Error(err)
			}
		})
	}()
	select {
	case <-settled:
	case <-time.After(10 * time.Second):
		t.Fatal("the deferred scan did not complete")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if notices != 0 {
		t.Errorf("%d notices after a List had shown the completed state; want none", notices)
	}
	tr.scanning.Lock()
	defer tr.scanning.Unlock()
	if tr.st != st {
		t.Error("the whole tree was scanned again after its completion had been listed")
	}
}
