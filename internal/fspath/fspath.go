// Package fspath holds what the packages that walk, watch and bound folders
// ask of file paths alike.
package fspath

import (
	"path/filepath"
	"strings"
)

// Within reports whether path is dir or lies below it, both clean and
// absolute, compared as written: a link on the way is not followed
// (resolve both first when that matters).
func Within(path, dir string) bool {
	if !strings.HasPrefix(path, dir) {
		return false
	}
	// path is dir, or below it: the next byte is a separator (dir may
	// end in one, as the file system's root does).
	return len(path) == len(dir) || strings.HasSuffix(dir, string(filepath.Separator)) || path[len(dir)] == filepath.Separator
}
