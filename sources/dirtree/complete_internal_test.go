package dirtree

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// A List that comes between the deferred scan's completion and its
// notice (one for a change the watcher reported while the cache was
// saved) shows the completed state; the notice then asks for no other,
// which, with nothing reported, would rescan the whole tree.
func TestCompletionListedByAnotherIsNotRescanned(t *testing.T) {
	root := t.TempDir()
	sourcetest.WriteFiles(t, root, map[string]string{
		"a/SKILL.md": "---\nname: a\ndescription: D.\n---\n",
		"b/SKILL.md": "---\nname: b\ndescription: D.\n---\n",
	})
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
