package search_test

import (
	"bytes"
	"context"
	"io/fs"
	"log/slog"
	"strings"
	"testing"
	"testing/fstest"
	"testing/synctest"
	"time"

	"github.com/skillmux/skillmux/resolver/search"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// TestLiveLogsTheFirstBuild checks that only the index's first build is
// logged at info level, not each update after the goroutine went idle (as
// after every periodic rescan).
func TestLiveLogsTheFirstBuild(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "alpha", "Alpha.", "body\n")
	skills := list(t, dirtree.New(root, nil))
	synctest.Test(t, func(t *testing.T) {
		var buf bytes.Buffer
		l := search.NewLive(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
		defer l.Close()
		for range 3 {
			l.Submit(skills)
			synctest.Wait() // the goroutine is done and has stopped
		}
		if info, all := strings.Count(buf.String(), "level=INFO"), strings.Count(buf.String(), "search index updated"); info != 1 || all != 3 {
			t.Errorf("%d updates logged, %d at info level; want 3 and 1:\n%s", all, info, buf.String())
		}
	})
}

// TestLiveSearchesBeforePluginsAreRead submits a local skill and a source
// plugin's skill whose file read hangs: the wait ends once the local one
// is indexed, with the plugin's counted as unread; the plugin's is found
// once its read ends. A plugin hung in its reads (until its timeout)
// holds up no search of the other skills.
func TestLiveSearchesBeforePluginsAreRead(t *testing.T) {
	root := t.TempDir()
	writeSkill(t, root, "local", "Local.", "apples")
	skills := list(t, dirtree.New(root, nil))
	release := make(chan struct{})
	body := "---\nname: remote\ndescription: Remote.\n---\nbananas\n"
	remote := &sources.Skill{
		Ref:   sources.Ref{Name: "remote"},
		Path:  "plugin://p/remote/SKILL.md",
		Scope: sources.ScopeSourcePlugin,
		Files: blockingFS{release, fstest.MapFS{"SKILL.md": {Data: []byte(body)}}},
	}
	remote.Description = "Remote."
	skills = append(skills, remote)

	l := search.NewLive(nil)
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	gen := l.Submit(skills)
	if ready, err := l.Wait(ctx, gen); !ready || err != nil {
		t.Fatalf("wait: %v %v", ready, err)
	}
	if got := names(l.Index().Search("apples", 10, nil)); len(got) != 1 {
		t.Errorf("the local skill is not found while the plugin's is read: %v", got)
	}
	if n := l.Unread(); n != 1 {
		t.Errorf("Unread() = %d while the plugin's skill is read, want 1", n)
	}
	close(release)
	for l.Unread() != 0 || len(l.Index().Search("bananas", 10, nil)) == 0 {
		if ctx.Err() != nil {
			t.Fatalf("the plugin's skill was not indexed once its read ended (unread %d)", l.Unread())
		}
		time.Sleep(time.Millisecond)
	}
}

// blockingFS is a file system whose opens wait for release.
type blockingFS struct {
	release <-chan struct{}
	fs.FS
}

func (b blockingFS) Open(name string) (fs.File, error) {
	<-b.release
	return b.FS.Open(name)
}

// The index reads a skill's text with Peek when its files offer it (a
// plugin's, whose Open makes the skill's local copy first).
func TestIndexPeeks(t *testing.T) {
	body := "---\nname: remote\ndescription: Remote.\n---\nbananas\n"
	sk := &sources.Skill{Ref: sources.Ref{Name: "remote"}, Path: "plugin://p/remote/SKILL.md", Scope: sources.ScopeSourcePlugin,
		Description: "Remote.", Files: peekOnly{fstest.MapFS{"SKILL.md": {Data: []byte(body)}}}}
	ix := search.NewIndex()
	if _, err := ix.Update(context.Background(), []*sources.Skill{sk}, nil); err != nil {
		t.Fatal(err)
	}
	if hits := ix.Search("bananas", 10, nil); len(hits) != 1 || hits[0].Unread {
		t.Errorf("the body read with Peek is not indexed: %+v", hits)
	}
}

// peekOnly is a file system whose Open fails and whose Peek reads.
type peekOnly struct{ fs fs.FS }

func (p peekOnly) Open(name string) (fs.File, error) {
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrPermission}
}

func (p peekOnly) Peek(name string) (fs.File, error) { return p.fs.Open(name) }
