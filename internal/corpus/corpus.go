// Package corpus finds the shared corpus of real-world skills for the tests
// that read it. The corpus is test data kept outside the repository, in
// shared/corpus beside the checkout (../shared/corpus from the module root),
// and tests read it in place: nothing of it is copied into the code.
//
// A test that needs the corpus calls Dir. Where the corpus is absent, as on
// a fresh clone without the shared folder, the test is skipped and says
// why; where SKILLMUX_REQUIRE_CORPUS=1, as in CI, it fails instead, so a
// missing corpus can never pass for a green run.
package corpus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// RequireEnv names the environment variable that, set to 1, turns a
// missing corpus from a skip into a failure.
const RequireEnv = "SKILLMUX_REQUIRE_CORPUS"

// Dir returns the absolute path of the corpus folder. When the corpus is
// absent it skips the test, saying where it looked, or fails it if
// RequireEnv is set to 1.
func Dir(t testing.TB) string {
	t.Helper()
	dir, err := find()
	if err != nil {
		required(t, err)
		t.Skipf("%v; skipped (set %s=1 to make this a failure)", err, RequireEnv)
	}
	return dir
}

// Lookup is Dir for a test that reads the corpus for part of its work
// only: when the corpus is absent it logs why and reports false, and the
// test goes on without it; if RequireEnv is set to 1, it fails the test
// as Dir does.
func Lookup(t testing.TB) (string, bool) {
	t.Helper()
	dir, err := find()
	if err != nil {
		required(t, err)
		t.Logf("%v; the parts that read it are left out (set %s=1 to make this a failure)", err, RequireEnv)
		return "", false
	}
	return dir, true
}

// required fails the test when the environment asks for the corpus.
func required(t testing.TB, err error) {
	t.Helper()
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%v; %s=1 requires it", err, RequireEnv)
	}
}

// find looks for shared/corpus beside the module root, which it finds by
// walking up from the working folder (a package's folder under go test)
// to go.mod; past a module nested in the repository (one of its own, for
// a benchmark with other dependencies), up to the next go.mod.
func find() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("corpus: %w", err)
	}
	first := ""
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			dir := filepath.Join(filepath.Dir(d), "shared", "corpus")
			if first == "" {
				first = dir
			}
			if st, err := os.Stat(dir); err == nil {
				if !st.IsDir() {
					return "", fmt.Errorf("corpus: %s is not a folder", dir)
				}
				return dir, nil
			}
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	if first == "" {
		return "", errors.New("corpus: no go.mod above " + wd)
	}
	return "", fmt.Errorf("corpus not present at %s (the shared folder belongs beside the checkout)", first)
}
