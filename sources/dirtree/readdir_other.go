//go:build !linux

package dirtree

import "os"

// readDir lists the folder at path.
func readDir(path string) ([]dirent, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	out := make([]dirent, len(entries))
	for i, e := range entries {
		out[i] = dirent{name: e.Name(), typ: e.Type()}
	}
	return out, err
}
