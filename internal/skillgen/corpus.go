package skillgen

import (
	"os"
	"path/filepath"
	"testing"
)

// CorpusDir returns where the shared corpus of real skills lives: the
// folder shared/corpus beside the module's root (found from the working
// folder up), whether or not it exists. Tests and benchmarks read it in
// place, never copy it into the repository.
func CorpusDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared", "corpus")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Corpus returns CorpusDir for a test that needs it: when the folder is
// absent the test is skipped, or fails if SKILLMUX_REQUIRE_CORPUS=1.
func Corpus(tb testing.TB) string {
	tb.Helper()
	dir := CorpusDir()
	if st, err := os.Stat(dir); dir == "" || err != nil || !st.IsDir() {
		if os.Getenv("SKILLMUX_REQUIRE_CORPUS") == "1" {
			tb.Fatalf("shared corpus not present at %q and SKILLMUX_REQUIRE_CORPUS=1", dir)
		}
		tb.Skipf("shared corpus not present at %q", dir)
	}
	return dir
}
