package corpus_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillmux/skillmux/internal/corpus"
)

// childEnv marks the test binary run by TestMissingCorpus as the child.
const childEnv = "SKILLMUX_CORPUS_TEST_CHILD"

// TestDirInACheckout runs, in a child process, in a checkout without the
// shared folder; see TestMissingCorpus.
func TestDirInACheckout(t *testing.T) {
	if os.Getenv(childEnv) != "1" {
		t.Skip("run as a child process by TestMissingCorpus")
	}
	dir := corpus.Dir(t)
	t.Log("found", dir)
}

// A missing corpus skips the tests that need it, and fails them when
// SKILLMUX_REQUIRE_CORPUS=1, as CI sets it.
func TestMissingCorpus(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	checkout := filepath.Join(t.TempDir(), "skillmux")
	pkg := filepath.Join(checkout, "sources", "dirtree")
	if err := os.MkdirAll(pkg, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(checkout, "go.mod"), []byte("module example.com/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(filepath.Dir(checkout), "shared", "corpus")
	for _, tt := range []struct {
		require  string
		wantFail bool
		want     string
	}{
		{"", false, "--- SKIP: TestDirInACheckout"},
		{"0", false, "--- SKIP: TestDirInACheckout"},
		{"1", true, "--- FAIL: TestDirInACheckout"},
	} {
		cmd := exec.Command(exe, "-test.run=^TestDirInACheckout$", "-test.v")
		cmd.Dir = pkg
		cmd.Env = append(os.Environ(), childEnv+"=1", corpus.RequireEnv+"="+tt.require)
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != tt.wantFail {
			t.Errorf("%s=%q: exit %v, want failure %v:\n%s", corpus.RequireEnv, tt.require, err, tt.wantFail, out)
		}
		if !strings.Contains(string(out), tt.want) || !strings.Contains(string(out), want) {
			t.Errorf("%s=%q: output lacks %q or the path looked at (%s):\n%s", corpus.RequireEnv, tt.require, tt.want, want, out)
		}
	}

	// With the shared folder beside the checkout, the corpus is found from
	// any package folder.
	if err := os.MkdirAll(want, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestDirInACheckout$", "-test.v")
	cmd.Dir = pkg
	cmd.Env = append(os.Environ(), childEnv+"=1", corpus.RequireEnv+"=1")
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "found "+want) {
		t.Errorf("corpus beside the checkout: %v\n%s", err, out)
	}
}
