package dirtree

import "io/fs"

// dirent is one entry of a folder: its name and its type as the folder
// listing gives it (0 for a regular file; fs.ModeIrregular when the file
// system did not say, and a stat must).
type dirent struct {
	name string
	typ  fs.FileMode
}
