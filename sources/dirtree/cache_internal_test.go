package dirtree

import (
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/skillmux/skillmux/internal/logtest"
)

// A cache folder closed to skillmux is warned of, once: each start then
// reads every skill again, which nothing else would tell.
func TestClosedCacheFolderIsWarnedOfOnce(t *testing.T) {
	root := t.TempDir()
	cache := filepath.Join(t.TempDir(), "cache")
	var log logtest.Buffer
	tr := New(root, &Options{CacheDir: cache, Logger: log.Logger(slog.LevelInfo)})
	denied := &fs.PathError{Op: "mkdir", Path: filepath.Join(cache, "trees"), Err: syscall.EACCES}
	if !tr.cacheClosed(denied) || !tr.cacheClosed(denied) {
		t.Error("permission denied is not a closed folder")
	}
	if tr.cacheClosed(errors.New("cache file corrupt")) {
		t.Error("a corrupt file is a closed folder")
	}
	if got := log.String(); strings.Count(got, "level=WARN") != 1 || !strings.Contains(got, "the parse cache cannot be kept in "+cache) || !strings.Contains(got, "permission denied") {
		t.Errorf("the log:\n%s\nwant one warning naming the folder and why", got)
	}

	// A file where the cache folder should be: as a real start meets it.
	if err := os.MkdirAll(filepath.Join(root, "s"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "s", "SKILL.md"), []byte("---\nname: s\ndescription: d\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cache")
	if err := os.WriteFile(file, []byte("not a folder"), 0o644); err != nil {
		t.Fatal(err)
	}
	var log3 logtest.Buffer
	tr = New(root, &Options{CacheDir: file, Logger: log3.Logger(slog.LevelInfo)})
	if _, err := tr.List(t.Context()); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if got := log3.String(); !strings.Contains(got, "the parse cache cannot be kept in "+file) || !strings.Contains(got, "not a directory") || !strings.Contains(got, "move the file") {
		t.Errorf("a file in the cache folder's place was not warned of:\n%s", got)
	}

	// As the user skillmux runs as, unless that is root, whom modes do
	// not stop: a folder left to root by a sudo.
	if os.Geteuid() == 0 {
		return
	}
	closed := filepath.Join(t.TempDir(), "closed")
	if err := os.MkdirAll(closed, 0o500); err != nil {
		t.Fatal(err)
	}
	var log2 logtest.Buffer
	tr = New(root, &Options{CacheDir: closed, Logger: log2.Logger(slog.LevelInfo)})
	if _, err := tr.List(t.Context()); err != nil {
		t.Fatal(err)
	}
	tr.Close()
	if !strings.Contains(log2.String(), "the parse cache cannot be kept in "+closed) {
		t.Errorf("a save in a closed folder was not warned of:\n%s", log2.String())
	}
}
