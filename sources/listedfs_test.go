package sources_test

import (
	"errors"
	"io/fs"
	"testing"
	"testing/fstest"
	"time"

	"github.com/skillmux/skillmux/sources"
)

// A ListedFS passes the standard library's file system checks: its files,
// the folders their paths imply, nothing else.
func TestListedFS(t *testing.T) {
	content := map[string]string{"SKILL.md": "---\nname: x\n---\n", "references/a.md": "a", "references/deep/b.txt": "bb", "scripts/run.py": "print()"}
	sizes := map[string]int64{}
	for p, c := range content {
		sizes[p] = int64(len(c))
	}
	reads := 0
	fsys := sources.ListedFS(sizes, time.Unix(1700000000, 0), func(name string) ([]byte, error) {
		reads++
		return []byte(content[name]), nil
	})
	if err := fstest.TestFS(fsys, "SKILL.md", "references/a.md", "references/deep/b.txt", "scripts/run.py"); err != nil {
		t.Fatal(err)
	}
	if reads == 0 {
		t.Error("files were not read through the function")
	}
	if _, err := fs.Stat(fsys, "missing.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a path not listed: %v", err)
	}
}
