package watch

import "github.com/skillmux/skillmux/internal/leftover"

// ignoredName reports whether a file or folder named name is never reported
// nor watched, whatever Options.Ignore says.
//
// Editors' side files change on every keystroke or save and are never
// skills (leftover.Is), nor is vim's "4913" write probe. Version-control
// and package folders can hold tens of thousands of sub-folders that a
// checkout or an install churns, and hold no skills the sources serve.
func ignoredName(name string) bool {
	switch name {
	case ".git", ".hg", ".svn", "node_modules", "4913":
		return true
	}
	return leftover.Is(name)
}
