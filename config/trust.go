package config

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/knadh/koanf/v2"

	"github.com/skillmux/skillmux/internal/fspath"
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
				if fspath.Within(d, r) {
					return true
				}
			}
		}
	}
	return false
}

// confine applies to fk, the layer of the untrusted workspace file file,
// and to fo, its origins, what such a file may not do, given k and
// origins, the layers below it. It returns one warning for each setting it
// set aside, and how many of the sources from then on are the file's
// (Config.UntrustedSources). An untrusted workspace file adds sources, and
// does nothing else:
//   - it starts no source plugin: each is left out of its sources;
//   - its "user" and "claude-plugins" sources, the user's own skills, and
//     its "project" sources, which serve the project skills of every root
//     (trusted ones too), are left to the built-in ones, which rank above
//     every source of the file (it cannot rank, rename, filter or turn
//     them off);
//   - its dir sources serve folders inside its own folder only, each once,
//     maxUntrustedPaths at most (walled; at every scan, Source.Within);
//   - its sources come after those of the user file rather than replacing
//     them, and after the command line's (see UntrustedSources);
//   - its sources choose no namespace (a plugin-dir entry, whose plugins
//     name theirs, is not served): a name such as "user:deploy" reaches
//     the user's own shadowed skill, and a served name beats it;
//   - every other setting of it (the catalog's visibility, the tools,
//     defaults.builtin...) is set aside: how the user's skills are offered
//     is the user's to say.
func confine(k, fk *koanf.Koanf, fo, origins map[string]Origin, file, userFile string, untrusted []string) (warnings []string, theirs int) {
	dir := filepath.Dir(file)
	quoted := make([]string, len(untrusted))
	for i, d := range untrusted {
		quoted[i] = strconv.Quote(d)
	}
	how := fmt.Sprintf("to allow it, trust the folder in your user file %s (trust: [%s])", userFile, strings.Join(quoted, ", "))
	if !slices.Contains(untrusted, dir) {
		// The file's own folder is trusted; the client's other roots,
		// whose project skills it would rank, are not.
		how = fmt.Sprintf("it is read with the client's other workspace folders, which you have not trusted: to allow it, trust them in your user file %s (trust: [%s])", userFile, strings.Join(quoted, ", "))
	} else if len(untrusted) > 1 {
		how = fmt.Sprintf("to allow it, trust the folders it is read with in your user file %s (trust: [%s])", userFile, strings.Join(quoted, ", "))
	}
	var found []*Error
	warn := func(key, what string) {
		found = append(found, &Error{File: file, Line: firstLine(fo, key), Key: key, Message: what + "; " + how})
	}
	defer func() {
		// In the order of the file, as its errors are told.
		slices.SortStableFunc(found, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
		for _, e := range found {
			warnings = append(warnings, e.Error())
		}
	}()
	for _, key := range fk.Keys() {
		if key == "sources" {
			continue
		}
		warn(key, "set aside: a workspace file you have not trusted adds sources, and sets nothing else")
		fk.Delete(key)
	}
	for o := range fo {
		if o != "sources" && !strings.HasPrefix(o, "sources[") {
			delete(fo, o) // the maps that held what was set aside too
		}
	}
	items, ok := fk.Get("sources").([]any)
	if !ok {
		return warnings, 0
	}
	own, _ := k.Get("sources").([]any) // the user file's, if it has any
	list := append([]any(nil), own...)
	moved := map[string]Origin{}
	for key, o := range origins {
		if strings.HasPrefix(key, "sources[") {
			moved[key] = o // the own sources keep their places, first
		}
	}
	w := &walled{dir: dir, fo: fo, budget: maxUntrustedPaths}
	for i, item := range items {
		m, _ := item.(map[string]any)
		key := fmt.Sprintf("sources[%d]", i)
		switch m["type"] {
		case TypePlugin:
			name, _ := m["name"].(string)
			warn(key, fmt.Sprintf("source plugin %q is not started: a workspace file you have not trusted would run %s", name, commandLine(m["command"])))
			continue
		case TypeUser, TypeClaudePlugins:
			// Left to the built-in source, above the file's. That changes
			// nothing for a plain entry at the top of the file's list.
			if theirs > 0 || len(m) > 1 {
				warn(key, fmt.Sprintf("your own skills (%s) keep their place, above this file's sources, and their settings: a workspace file you have not trusted cannot rank other skills above them, rename, filter or turn them off", m["type"]))
			}
			continue
		case TypeProject:
			// Left to the built-in project source too: it serves the
			// project skills of every root the user serves, trusted ones
			// included, which the file must not filter or turn off.
			if len(m) > 1 {
				warn(key, "the project source keeps its place and its settings: a workspace file you have not trusted cannot filter, rename or turn off the project skills of the folders you serve")
			}
			continue
		case TypeDir:
			if !w.admit(m, key, warn) {
				continue
			}
		case TypePluginDir:
			// A plugin's manifest names its skills' namespace: the
			// repository would choose names such as "user:deploy", which
			// reach the user's own skills when shadowed.
			warn(key, "not served: a Claude Code plugin folder names the namespace of its skills, and a workspace file you have not trusted cannot choose names that may reach your own skills")
			continue
		}
		if ns, ok := m["namespace"].(string); ok && ns != "" {
			// Likewise: "user:deploy" may be the name that reaches the
			// user's second deploy (an alias); the file's skills keep
			// their plain names, which the user's own outrank.
			warn(key+".namespace", fmt.Sprintf("%q set aside: a workspace file you have not trusted cannot choose names that may reach your own skills (such as user:deploy); its skills keep their plain names", ns))
			delete(m, "namespace")
		}
		theirs++
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
	return warnings, theirs
}

// maxUntrustedPaths bounds the folders the dir sources of an untrusted
// workspace file may add: each is a tree of its own, walked and watched.
const maxUntrustedPaths = 16

// walled keeps the dir sources of an untrusted workspace file inside the
// file's folder (the repository), within a bound on their paths.
type walled struct {
	dir    string            // the workspace file's folder
	real   string            // its real path, once looked up
	fo     map[string]Origin // the file's origins, renumbered with the paths
	budget int               // paths the file may still add
	seen   map[string]bool
}

// admit keeps, of the dir source m (at key), the paths inside the
// workspace file's folder, once each and within the bound, warning of
// the others; it reports whether any is left.
func (w *walled) admit(m map[string]any, key string, warn func(key, what string)) bool {
	if w.real == "" {
		w.real = w.dir
		if r, err := filepath.EvalSymlinks(w.dir); err == nil {
			w.real = r
		}
	}
	keep := func(p string, at string) bool {
		real := p
		if r, err := filepath.EvalSymlinks(p); err == nil {
			real = r
		}
		switch {
		case !fspath.Within(filepath.Clean(p), w.dir) || !fspath.Within(real, w.real):
			warn(at, fmt.Sprintf("%s is set aside: a workspace file you have not trusted serves skills from its own folder (%s), not from elsewhere", strconv.Quote(p), w.dir))
			return false
		case w.seen[real]:
			return false // named already: one tree is enough
		case w.budget == 0:
			warn(at, fmt.Sprintf("%s is set aside: a workspace file you have not trusted adds at most %d folders", strconv.Quote(p), maxUntrustedPaths))
			return false
		}
		if w.seen == nil {
			w.seen = map[string]bool{}
		}
		w.seen[real] = true
		w.budget--
		return true
	}
	kept := false
	if p, ok := m["path"].(string); ok {
		if keep(p, key+".path") {
			kept = true
		} else {
			delete(m, "path")
		}
	}
	if ps, ok := m["paths"].([]any); ok {
		var left []any
		renumbered := map[string]Origin{}
		for i, p := range ps {
			at := fmt.Sprintf("%s.paths[%d]", key, i)
			s, _ := p.(string)
			if !keep(s, at) {
				continue
			}
			if o, ok := w.fo[at]; ok {
				renumbered[fmt.Sprintf("%s.paths[%d]", key, len(left))] = o
			}
			left = append(left, p)
		}
		for k := range w.fo {
			if strings.HasPrefix(k, key+".paths[") {
				delete(w.fo, k)
			}
		}
		maps.Copy(w.fo, renumbered)
		if len(left) > 0 {
			m["paths"], kept = left, true
		} else {
			delete(m, "paths")
		}
	}
	return kept
}

// firstLine is the line of key in origins, or the first line of the keys
// below it (a map's, a list's).
func firstLine(origins map[string]Origin, key string) int {
	if o, ok := origins[key]; ok && o.Line > 0 {
		return o.Line
	}
	line := 0
	for k, o := range origins {
		if (strings.HasPrefix(k, key+".") || strings.HasPrefix(k, key+"[")) && o.Line > 0 && (line == 0 || o.Line < line) {
			line = o.Line
		}
	}
	return line
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
