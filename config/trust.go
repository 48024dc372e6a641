package config

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/knadh/koanf/v2"
)

// A workspace file comes with the folder it is found in: a repository
// someone cloned, a download. Only the user's own files (the user file,
// the file given with --config, the environment and flags) may start a
// program or decide over the user's own skills; a workspace file does so
// only for a folder the user file trusts. An untrusted one is confined
// (confine), never refused: what it may do is applied, and what it may not
// is named in a warning that says how to trust the folder.

// Trusted reports whether the workspace files found in dir (a folder
// holding one) are trusted by trust, the folders the user file names: dir
// is one of them or below one.
func Trusted(dir string, trust []string) bool {
	dirs := []string{filepath.Clean(dir)}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dirs[0] {
		dirs = append(dirs, real)
	}
	for _, t := range trust {
		roots := []string{filepath.Clean(t)}
		if real, err := filepath.EvalSymlinks(t); err == nil && real != roots[0] {
			roots = append(roots, real)
		}
		for _, d := range dirs {
			for _, r := range roots {
				if within(d, r) {
					return true
				}
			}
		}
	}
	return false
}

// within reports whether the clean path p is root or below it.
func within(p, root string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}

// confine applies to fk, the layer of the untrusted workspace file file,
// and to fo, its origins, what such a file may not do, given k and
// origins, the layers below it; it returns one warning for each setting it
// set aside. An untrusted workspace file
//   - starts no source plugin: each is left out of its sources;
//   - cannot turn off the user's own skill folders (defaults.builtin:
//     false is ignored), nor rank anything above them: its "user" source,
//     wherever it is and whatever it sets, is left to the built-in one,
//     which comes first;
//   - adds its sources after those of the user file rather than replacing
//     them.
func confine(k, fk *koanf.Koanf, fo, origins map[string]Origin, file, userFile string) []string {
	dir := filepath.Dir(file)
	how := fmt.Sprintf("to allow it, trust the folder in your user file %s (trust: [%s])", userFile, strconv.Quote(dir))
	var warnings []string
	warn := func(key, what string) {
		e := &Error{File: file, Line: fo[key].Line, Key: key, Message: what + "; " + how}
		warnings = append(warnings, e.Error())
	}
	if fk.Exists("defaults.builtin") && !fk.Bool("defaults.builtin") {
		warn("defaults.builtin", "false is ignored: a workspace file you have not trusted cannot turn off your own skill folders")
		fk.Delete("defaults.builtin")
		delete(fo, "defaults.builtin")
	}
	items, ok := fk.Get("sources").([]any)
	if !ok {
		return warnings
	}
	own, _ := k.Get("sources").([]any) // the user file's, if it has any
	list := append([]any(nil), own...)
	moved := map[string]Origin{}
	for key, o := range origins {
		if strings.HasPrefix(key, "sources[") {
			moved[key] = o // the own sources keep their places, first
		}
	}
	kept := 0 // the file's sources kept so far
	for i, item := range items {
		m, _ := item.(map[string]any)
		key := fmt.Sprintf("sources[%d]", i)
		switch m["type"] {
		case TypePlugin:
			name, _ := m["name"].(string)
			warn(key, fmt.Sprintf("source plugin %q is not started: a workspace file you have not trusted would run %s", name, commandLine(m["command"])))
			continue
		case TypeUser:
			// Left to the built-in user source, first. That changes
			// nothing for a plain "user" at the top of the file's list.
			if kept > 0 || len(m) > 1 {
				warn(key, "your own skill folders keep their place, first, and their settings: a workspace file you have not trusted cannot rank other skills above them, rename or filter them")
			}
			continue
		}
		kept++
		to := fmt.Sprintf("sources[%d]", len(list))
		for k, o := range fo {
			if rest, ok := strings.CutPrefix(k, key); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
				moved[to+rest] = o
			}
		}
		list = append(list, item)
	}
	for key := range fo {
		if strings.HasPrefix(key, "sources[") {
			delete(fo, key)
		}
	}
	for key, o := range moved {
		fo[key] = o
	}
	fk.Set("sources", list)
	return warnings
}

// commandLine renders a plugin source's command for a warning.
func commandLine(v any) string {
	args, _ := v.([]any)
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = strconv.Quote(fmt.Sprint(a))
	}
	if len(words) == 0 {
		return "its command"
	}
	return strings.Join(words, " ")
}
