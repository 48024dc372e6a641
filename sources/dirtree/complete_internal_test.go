package dirtree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
	t.Cleanup(DeferAll())
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

// A root switched to another folder (a link re-pointed at another
// checkout) while the deferred scan is being completed is replaced by a
// scan as shallow as the first: the completion goes on with that one, so
// that its skills get their file lists and its nested skills are found.
func TestCompletionOfARootSwitchedMeanwhile(t *testing.T) {
	base := t.TempDir()
	files := map[string]string{
		"outer/SKILL.md":       "---\nname: outer\ndescription: D.\n---\n",
		"outer/inner/SKILL.md": "---\nname: inner\ndescription: Nested.\n---\n",
	}
	for i := range 2 * completePart {
		files[fmt.Sprintf("s%04d/SKILL.md", i)] = fmt.Sprintf("---\nname: s%d\ndescription: D.\n---\n", i)
		files[fmt.Sprintf("s%04d/ref.md", i)] = "ref"
	}
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	sourcetest.WriteFiles(t, a, files)
	sourcetest.WriteFiles(t, b, files)
	link := filepath.Join(base, "skills")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(DeferAll())
	tr := New(link, &Options{Defer: true})
	ctx := context.Background()
	if _, err := tr.List(ctx); err != nil {
		t.Fatal(err)
	}
	switched := false
	tr.betweenParts = func() {
		if switched {
			return
		}
		switched = true
		if err := os.Remove(link); err != nil {
			t.Error(err)
		}
		if err := os.Symlink(b, link); err != nil {
			t.Error(err)
		}
		tr.Changed(link)
		if _, err := tr.List(ctx); err != nil {
			t.Error(err)
		}
	}
	if ok, err := tr.complete(ctx, func() {}); !ok || err != nil {
		t.Fatalf("complete: %v, %v", ok, err)
	}
	l, err := tr.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	noFiles, nested := 0, false
	for _, sk := range l.Skills {
		if sk.FileList == nil {
			noFiles++
		}
		nested = nested || sk.Ref.Name == "inner"
		if !strings.HasPrefix(sk.Path, link) {
			t.Fatalf("%s is not served from the link", sk.Path)
		}
	}
	if !switched || noFiles > 0 || !nested {
		t.Errorf("switched %v; after the completion: %d of %d skills without a file list, nested skill listed: %v", switched, noFiles, len(l.Skills), nested)
	}
}
