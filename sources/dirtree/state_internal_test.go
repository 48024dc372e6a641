package dirtree

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/skillmux/skillmux/sources"
)

// parent is filepath.Dir for the clean paths a state holds.
func TestParentIsDir(t *testing.T) {
	for _, p := range []string{"/", "/a", "/a/b", "/a/b/c.md", "a", "a/b", ".", filepath.Join("/r", strings.Repeat("d/", 300), "x")} {
		p = filepath.Clean(p)
		if got, want := parent(p), filepath.Dir(p); got != want {
			t.Errorf("parent(%q) = %q, want %q", p, got, want)
		}
	}
}

// A change thousands of folders deep is the change of its folder at the
// deepest level a walk reaches.
func TestCutDeep(t *testing.T) {
	tr := New("/r", &Options{MaxDepth: 2})
	deep := "/r/" + strings.Repeat("d/", 1000) + "x"
	if got, want := tr.cutDeep(deep), "/r/d/d/d/d/d/d"; got != want {
		t.Errorf("cutDeep = %q, want %q", got, want)
	}
	for _, p := range []string{"/r", "/r/a", "/r/a/b/c/d/e/f"} {
		if got := tr.cutDeep(p); got != p {
			t.Errorf("cutDeep(%q) = %q", p, got)
		}
	}
}

// A walk out of file descriptors fails, so that its source keeps its last
// listing: the files it could not open are not gone. Other errors do not
// fail it.
func TestWalkShortOfDescriptorsFails(t *testing.T) {
	root := t.TempDir()
	tr := New(root, nil)
	st := &state{skills: map[string]*entry{}, problems: map[string]sources.Diagnostic{}, plain: map[string]bool{}}
	w := newWalk(t.Context(), tr, st, true, 1)
	if w.shortOf(&fs.PathError{Op: "open", Path: root, Err: syscall.EACCES}) {
		t.Error("permission denied taken for a shortage")
	}
	if !w.shortOf(&fs.PathError{Op: "open", Path: root, Err: syscall.EMFILE}) {
		t.Error("EMFILE not taken for a shortage")
	}
	if err := w.wait(); err == nil || !errors.Is(err, syscall.EMFILE) || !strings.Contains(err.Error(), "ulimit -n") {
		t.Errorf("the walk ended with %v", err)
	}
}
