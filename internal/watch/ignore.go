package watch

import "strings"

// ignoredName reports whether a file or folder named name is never reported
// nor watched, whatever Options.Ignore says.
//
// Editors' side files change on every keystroke or save and are never
// skills: vim's swap files (.swp, .swo after a crash, .swx while probing),
// its "4913" write probe, backups ending in "~", emacs lock files (.#name) and
// auto-saves (#name#), and macOS Finder's .DS_Store. Version-control and
// package folders can hold tens of thousands of sub-folders that a checkout
// or an install churns, and hold no skills the sources serve.
func ignoredName(name string) bool {
	switch name {
	case ".git", ".hg", ".svn", "node_modules", ".DS_Store", "4913":
		return true
	}
	switch {
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
