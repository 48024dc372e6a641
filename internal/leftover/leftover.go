// Package leftover tells the files editors and file managers leave beside
// the files a person edits (swap, backup and lock files, .DS_Store) from
// the files themselves: the watcher does not report them, and a skill's
// file list does not offer them.
package leftover

import "strings"

// Is reports whether a file with this base name is such a leftover: vim's
// swap files (*.swp, *.swo, *.swx), backups (*~), Emacs's lock and
// auto-save files (.#*, #*#), and macOS's .DS_Store.
func Is(name string) bool {
	switch {
	case name == ".DS_Store":
		return true
	case strings.HasSuffix(name, ".swp"), strings.HasSuffix(name, ".swo"), strings.HasSuffix(name, ".swx"):
		return true
	case strings.HasSuffix(name, "~"):
		return true
	case strings.HasPrefix(name, ".#"):
		return true
	case len(name) >= 2 && name[0] == '#' && name[len(name)-1] == '#':
		return true
	}
	return false
}
