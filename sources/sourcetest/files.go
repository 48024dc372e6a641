package sourcetest

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteFile writes content at path, creating its folders, or fails the
// test: the way provider tests lay out fake homes and repositories.
func WriteFile(t testing.TB, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
