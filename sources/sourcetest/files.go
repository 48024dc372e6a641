package sourcetest

import (
	"os"
	"path/filepath"
	"runtime"
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

// WriteFiles writes files, by slash-separated path relative to root, with
// WriteFile.
func WriteFiles(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		WriteFile(t, filepath.Join(root, filepath.FromSlash(rel)), content)
	}
}

// Chmod sets the mode of path for the rest of the test, and gives it back
// its mode at the end, so that the test's folder can be removed. A test
// of permissions cannot fail where they do not bind: it is skipped as root
// and on Windows.
func Chmod(t testing.TB, path string, mode os.FileMode) {
	t.Helper()
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs a user that permissions bind")
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(path, info.Mode().Perm()) })
}
