//go:build !linux

package sources

// readDirAt has no fast path here: folders are read the portable way.
func (r rootFS) readDirAt(dir string) (out []statEntry, ok bool, err error) {
	return nil, false, nil
}
