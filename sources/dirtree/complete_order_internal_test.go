package dirtree

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// A skill reached both by its folder and by a link to it has, once the
// deferred scan is completed, the files a full scan gives it: a link
// inside it is followed from its own folder, whichever part of the
// completion the link to it fell in.
func TestCompletionGivesTheFilesAFullScanGives(t *testing.T) {
	files := map[string]string{"A/SKILL.md": "---\nname: a\ndescription: D.\n---\n", "A/x/f.md": "f"}
	for i := range 300 { // several parts of the completion
		files[fmt.Sprintf("s%03d/SKILL.md", i)] = fmt.Sprintf("---\nname: s%03d\ndescription: D.\n---\n", i)
	}
	t.Cleanup(DeferAll())
	for trial := range 10 {
		root := t.TempDir()
		sourcetest.WriteFiles(t, root, files)
		for link, to := range map[string]string{"A/l": "x", "L": filepath.Join(root, "A")} {
			if err := os.Symlink(to, filepath.Join(root, link)); err != nil {
				t.Fatal(err)
			}
		}
		tr := New(root, &Options{Defer: true})
		ctx, cancel := context.WithCancel(context.Background())
		if _, err := tr.List(ctx); err != nil {
			t.Fatal(err)
		}
		completed := make(chan struct{})
		tr.completed = func() { close(completed) }
		watched := make(chan error, 1)
		go func() { watched <- tr.Watch(ctx, func() {}) }()
		select {
		case <-completed:
		case <-time.After(20 * time.Second): // a hang, not a timing
			t.Fatal("the deferred scan was never completed")
		}
		l, err := tr.List(ctx)
		cancel()
		<-watched
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := New(root, nil).List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		filesOfA := func(skills []*sources.Skill) []string {
			for _, sk := range skills {
				if sk.Ref.Name == "a" {
					return append([]string{sk.Path}, sk.FileList...)
				}
			}
			return nil
		}
		if got, want := filesOfA(l.Skills), filesOfA(fresh.Skills); !slices.Equal(got, want) {
			t.Errorf("trial %d: a completed as %v; a full scan gives %v", trial, got, want)
		}
	}
}
