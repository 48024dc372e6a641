package watch

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"
)

func TestFilePoll(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "later", "b.yaml")
	if err := os.WriteFile(a, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan []string, 10)
		go NewFilePoll([]string{a, b}).Run(ctx, time.Second, func(p []string) { got <- p })
		next := func() []string { return nextLook(got) }
		if p := next(); p != nil {
			t.Errorf("nothing changed, got %v", p)
		}
		os.WriteFile(a, []byte("two, longer"), 0o644)
		if p := next(); len(p) != 1 || p[0] != a {
			t.Errorf("an edit: %v", p)
		}
		os.MkdirAll(filepath.Dir(b), 0o755)
		os.WriteFile(b, []byte("new"), 0o644)
		if p := next(); len(p) != 1 || p[0] != b {
			t.Errorf("a new file: %v", p)
		}
		// A file made readable again: its content and times are the same.
		os.Chmod(b, 0)
		if p := next(); len(p) != 1 || p[0] != b {
			t.Errorf("a file closed by chmod: %v", p)
		}
		os.Chmod(b, 0o644)
		if p := next(); len(p) != 1 || p[0] != b {
			t.Errorf("a file opened again by chmod: %v", p)
		}
		os.Remove(a)
		if p := next(); len(p) != 1 || p[0] != a {
			t.Errorf("a removed file: %v", p)
		}
		cancel()
	})
}

// TestFilePollSet checks that the files looked at can change while Run
// looks: a file added is reported when it changes after, not for being
// new; one dropped is not reported any more.
func TestFilePollSet(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.json"), filepath.Join(dir, "b.json")
	for _, f := range []string{a, b} {
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		got := make(chan []string, 10)
		fp := NewFilePoll([]string{a})
		go fp.Run(ctx, time.Second, func(p []string) { got <- p })
		next := func() []string { return nextLook(got) }
		fp.Set([]string{a, b})
		if p := next(); p != nil {
			t.Errorf("a file added, unchanged: %v", p)
		}
		os.WriteFile(b, []byte(`{"x": 1}`), 0o644)
		if p := next(); len(p) != 1 || p[0] != b {
			t.Errorf("an edit of the file added: %v", p)
		}
		fp.Set([]string{b})
		os.WriteFile(a, []byte(`{"dropped": true}`), 0o644)
		if p := next(); p != nil {
			t.Errorf("an edit of the file dropped: %v", p)
		}
	})
}

// nextLook lets a FilePoll running in a synctest bubble look once more,
// a second of fake time later, and returns what it reported, or nil.
func nextLook(got <-chan []string) []string {
	time.Sleep(time.Second)
	synctest.Wait()
	select {
	case p := <-got:
		return p
	default:
		return nil
	}
}
