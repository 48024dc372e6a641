//go:build !linux

package sources

import "os"

func readFolder(path string, withKey bool) ([]DirEntry, FileKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, FileKey{}, err
	}
	defer f.Close()
	var key FileKey
	if withKey {
		fi, err := f.Stat()
		if err != nil {
			return nil, FileKey{}, err
		}
		key = keyOf(fi)
	}
	entries, err := f.ReadDir(-1)
	out := make([]DirEntry, len(entries))
	for i, e := range entries {
		out[i] = DirEntry{Name: e.Name(), Type: e.Type()}
	}
	return out, key, err
}
