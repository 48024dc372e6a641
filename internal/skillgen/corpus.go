package skillgen

import (
	"os"
	"path/filepath"
	"testing"
)

// Corpus returns the shared corpus of real skills, the folder
// ../shared/corpus beside the module's root, for tests and benchmarks to
// read in place (never to copy into the repository). When it is absent
// the test is skipped, or fails if SKILLMUX_REQUIRE_CORPUS=1.
func Corpus(tb testing.TB) string {
	tb.Helper()
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("no go.mod above the working folder")
		}
		dir = parent
	}
	corpus := filepath.Join(filepath.Dir(dir), "shared", "corpus")
	if st, err := os.Stat(corpus); err != nil || !st.IsDir() {
		if os.Getenv("SKILLMUX_REQUIRE_CORPUS") == "1" {
			tb.Fatalf("corpus not present at %s and SKILLMUX_REQUIRE_CORPUS=1", corpus)
		}
		tb.Skip("corpus not present:", corpus)
	}
	return corpus
}
