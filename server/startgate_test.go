package server_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// endingCatalog is a catalog whose start ends at the first look at it
// once armed: that look still gets the catalog before, and every later
// one the catalog after, with done closed.
type endingCatalog struct {
	armed         atomic.Bool
	once          sync.Once
	mu            sync.Mutex
	before, after *resolver.Snapshot
	done          chan struct{}
}

func (c *endingCatalog) Snapshot() *resolver.Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := c.before
	if c.armed.Load() {
		c.once.Do(func() { c.before = c.after; close(c.done) })
	}
	return s
}

func snapshotOf(t *testing.T, names ...string) *resolver.Snapshot {
	t.Helper()
	f := &sourcetest.Fake{SourceName: "s"}
	for _, n := range names {
		f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: n, Description: "The " + n + " skill.", Body: "body of " + n + "\n"})
	}
	l, err := f.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return resolver.Build([]resolver.Input{{Source: "s", Listing: l}})
}

// pendingStart serves srcs with a start that is not complete yet, as
// while a large folder is searched for the skills nested in others. It
// returns a client and complete, which a test calls once it has sent a
// request: 50 ms later complete writes the k8s skill at skillMD (a skill
// the start brings), lists the sources again and completes the start.
func pendingStart(t *testing.T, opts server.Options, srcs ...sources.Source) (cs *mcp.ClientSession, complete func(skillMD string)) {
	t.Helper()
	after := make(chan struct{})
	opts.IndexAfter = after
	r := newResolver(t, srcs...)
	srv := server.New(r, &opts)
	t.Cleanup(func() { srv.Close() })
	r.OnSwap(func(_, _ *resolver.Snapshot) { srv.Refresh() })
	return connect(t, srv, "", nil), func(skillMD string) {
		t.Helper()
		// What the start completes comes before it says it is done.
		time.Sleep(50 * time.Millisecond)
		sourcetest.WriteFile(t, skillMD, "---\nname: k8s\ndescription: Deploy to a cluster.\n---\nUse kubectl on Kubernetes.\n")
		if _, err := r.Reload(context.Background()); err != nil {
			t.Fatal(err)
		}
		close(after)
	}
}

// A start that completes between a skill call's look at the catalog and
// its wait is not missed: the skill it brought is loaded.
func TestStartEndingJustAfterTheLookup(t *testing.T) {
	c := &endingCatalog{before: snapshotOf(t, "pdf"), after: snapshotOf(t, "pdf", "k8s"), done: make(chan struct{})}
	srv := server.New(c, &server.Options{IndexAfter: c.done})
	t.Cleanup(func() { srv.Close() })
	cs := connect(t, srv, "", nil)
	c.armed.Store(true)
	res, err := callTool(cs, "skill", map[string]any{"name": "k8s"})
	if err != nil {
		t.Fatal(err)
	}
	if got := text(t, res.Content[0]); res.IsError || !strings.Contains(got, "body of k8s") {
		t.Errorf("k8s, served once the start completed: %.100q", got)
	}
}

// A search whose arguments are wrong whatever the catalog holds (a kind
// that is none) is refused without waiting for the start, and so does not
// use up the wait: a skill call made later in the start still waits for
// the skill the start brings.
func TestMalformedSearchDoesNotWaitForTheStart(t *testing.T) {
	root := searchDir(t)
	cs, complete := pendingStart(t, server.Options{SearchWait: 2 * time.Second}, dirtree.New(root, nil))
	res, err := callTool(cs, "skills_search", map[string]any{"query": "kubernetes", "kind": "skills"})
	if err != nil || !res.IsError {
		t.Fatalf("a search of kind skills: %v %+v", err, res)
	}
	answered := make(chan string, 1)
	go func() {
		res, err := callTool(cs, "skill", map[string]any{"name": "k8s"})
		if err != nil {
			t.Error(err)
		}
		answered <- text(t, res.Content[0])
	}()
	complete(filepath.Join(root, "pdf-forms", "k8s", "SKILL.md"))
	if got := <-answered; !strings.Contains(got, "Use kubectl") {
		t.Errorf("a skill call during the start, after a malformed search: %.120q", got)
	}
}

// lateCatalog is a catalog whose start brings more skills: before until
// done is closed, after from then on.
type lateCatalog struct {
	before, after *resolver.Snapshot
	done          chan struct{}
}

func (c *lateCatalog) Snapshot() *resolver.Snapshot {
	select {
	case <-c.done:
		return c.after
	default:
		return c.before
	}
}

// Every request that names a skill waits, as the skill call does, for the
// start to complete when it does not find the skill: a prompt, a file
// through skill_resource or resources/read, the extension's skills/get and
// a folder's listing of a skill the start brings are served, not refused
// as unknown.
func TestRequestsOfANameTheStartBrings(t *testing.T) {
	for _, tc := range []struct {
		name string
		do   func(cs *mcp.ClientSession) (string, error)
	}{
		{"prompts/get", func(cs *mcp.ClientSession) (string, error) {
			res, err := cs.GetPrompt(context.Background(), &mcp.GetPromptParams{Name: "k8s"})
			if err != nil {
				return "", err
			}
			return text(t, res.Messages[0].Content), nil
		}},
		{"skill_resource", func(cs *mcp.ClientSession) (string, error) {
			res, err := callTool(cs, server.SkillResourceToolName, map[string]any{"skill": "k8s", "path": "SKILL.md"})
			if err != nil {
				return "", err
			}
			if res.IsError {
				return "", errors.New(text(t, res.Content[0]))
			}
			return text(t, res.Content[0]), nil
		}},
		{"resources/read", func(cs *mcp.ClientSession) (string, error) {
			res, err := read(cs, "skill://k8s/SKILL.md")
			if err != nil {
				return "", err
			}
			return res.Contents[0].Text, nil
		}},
		{"skills/get", func(cs *mcp.ClientSession) (string, error) {
			res, err := getSkill(cs, "skill://k8s/SKILL.md")
			if err != nil {
				return "", err
			}
			return res.Skill.URI, nil
		}},
		{"resources/directory/read", func(cs *mcp.ClientSession) (string, error) {
			res, err := readDir(cs, "skill://k8s/", "")
			if err != nil {
				return "", err
			}
			var names []string
			for _, r := range res.Resources {
				names = append(names, r.URI)
			}
			return strings.Join(names, " "), nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &lateCatalog{before: snapshotOf(t, "pdf"), after: snapshotOf(t, "pdf", "k8s"), done: make(chan struct{})}
			srv := server.New(c, &server.Options{IndexAfter: c.done})
			t.Cleanup(func() { srv.Close() })
			cs := extClient(t, srv, "", nil)
			time.AfterFunc(50*time.Millisecond, func() { close(c.done) })
			got, err := tc.do(cs)
			if err != nil {
				t.Fatalf("k8s, which the start brings: %v", err)
			}
			if !strings.Contains(got, "k8s") {
				t.Errorf("k8s, served once the start completed: %.200q", got)
			}
		})
	}
}

// A URI with a query or a fragment names no skill's file, whatever the
// start brings: it is refused at once, and uses up no wait for the start
// (in a synctest bubble, where waiting would take the bubble's time).
func TestQueryURIDoesNotWaitForTheStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := &lateCatalog{before: snapshotOf(t, "pdf"), after: snapshotOf(t, "pdf", "k8s"), done: make(chan struct{})}
		srv := server.New(c, &server.Options{IndexAfter: c.done})
		t.Cleanup(func() { srv.Close() })
		cs := extClient(t, srv, "", nil)
		began := time.Now()
		if _, err := read(cs, "skill://pdf/SKILL.md?x=1"); err == nil {
			t.Error("a URI with a query was served")
		}
		if waited := time.Since(began); waited != 0 {
			t.Errorf("waited %v for the start", waited)
		}
		close(c.done)
	})
}
