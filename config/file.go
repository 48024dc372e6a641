package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"
	"go.yaml.in/yaml/v3"

	"github.com/skillmux/skillmux/internal/yamlerr"
)

// MaxFileSize bounds a configuration file, in bytes: 1 MiB, hundreds of
// times what a configuration needs, so that a wrong file (a log, a
// binary) is refused before it is read whole into memory.
const MaxFileSize = 1 << 20

// readFile reads a regular file of at most MaxFileSize bytes. The error
// wraps the system's, so a missing file is fs.ErrNotExist.
func readFile(file string) ([]byte, error) {
	tooLarge := &Error{File: file, Message: fmt.Sprintf("larger than %d bytes (1 MiB), the most a configuration file may hold; is it the right file?", MaxFileSize)}
	st, err := os.Stat(file)
	if err != nil {
		if target, lerr := os.Readlink(file); lerr == nil && errors.Is(err, fs.ErrNotExist) {
			return nil, &Error{File: file, Message: fmt.Sprintf("a symbolic link to %s, which does not exist; fix or remove the link", target)}
		}
		return nil, pathError(file, err)
	}
	switch {
	case st.IsDir():
		return nil, &Error{File: file, Message: "a folder, not a configuration file"}
	case !st.Mode().IsRegular():
		return nil, &Error{File: file, Message: "not a regular file"}
	case st.Size() > MaxFileSize:
		return nil, tooLarge
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, pathError(file, err)
	}
	defer f.Close()
	// The file may have grown since Stat: read one byte past the limit.
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, pathError(file, err)
	}
	if len(data) > MaxFileSize {
		return nil, tooLarge
	}
	return data, nil
}

// pathError is "file: reason", without the operation and the path that
// fs.PathError repeats.
func pathError(file string, err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		err = pe.Err
	}
	return fmt.Errorf("%s: %w", file, err)
}

// loadFile reads one YAML file into its own koanf layer after checking it
// alone; the error holds every problem of the file, first line first.
// Relative paths of sources become relative to the file's folder.
func loadFile(file, layer, home string) (*koanf.Koanf, map[string]Origin, error) {
	data, err := readFile(file)
	if err != nil {
		return nil, nil, err
	}
	if line, msg := yamlerr.BadChar(data); line > 0 {
		return nil, nil, &Error{File: file, Line: line, Message: msg}
	}
	doc, second, err := parseYAML(data)
	if err != nil {
		return nil, nil, syntaxError(file, data, err, func(b []byte) error { _, _, err := parseYAML(b); return err })
	}
	c := &checker{file: file, layer: layer, home: home, origins: map[string]Origin{}}
	if second > 0 {
		c.errs = append(c.errs, &Error{File: file, Line: second, Message: "a second YAML document starts here; a configuration file holds one document: move its keys into the first and remove the \"---\" line"})
	}
	k := koanf.New(".")
	var root *yaml.Node
	if len(doc.Content) > 0 && doc.Content[0].Tag != "!!null" {
		root = doc.Content[0] // else the file sets nothing
		c.walk(root, schema, "")
		delete(c.origins, "")
	}
	if err := joinByLine(c.errs); err != nil {
		return nil, nil, err
	}
	if root == nil {
		return k, c.origins, nil
	}
	var m map[string]any
	if err := root.Decode(&m); err != nil {
		return nil, nil, &Error{File: file, Message: err.Error()}
	}
	if list, ok := m["sources"].([]any); ok {
		base := filepath.Dir(file)
		for _, item := range list {
			src, _ := item.(map[string]any)
			if p, ok := src["path"].(string); ok {
				src["path"] = resolvePath(p, base, home)
			}
			if ps, ok := src["paths"].([]any); ok {
				for i, p := range ps {
					ps[i] = resolvePath(p.(string), base, home)
				}
			}
			if src["type"] == TypePlugin {
				pluginDefaults(src, base, home)
			}
		}
	}
	if list, ok := m["trust"].([]any); ok {
		for i, p := range list {
			list[i] = resolvePath(p.(string), filepath.Dir(file), home)
		}
	}
	visibilityAsList(m)
	if err := k.Load(confmap.Provider(m, ""), nil); err != nil {
		return nil, nil, &Error{File: file, Message: err.Error()}
	}
	return k, c.origins, nil
}

// visibilityAsList turns catalog.visibility, a map of patterns to values,
// into a list of {pattern, value} sorted by pattern: koanf splits keys at
// dots, and a pattern may hold one.
func visibilityAsList(m map[string]any) {
	cat, _ := m["catalog"].(map[string]any)
	vis, ok := cat["visibility"].(map[string]any)
	if !ok {
		return
	}
	list := make([]any, 0, len(vis))
	for _, p := range sortedKeys(vis) {
		list = append(list, map[string]any{"pattern": p, "value": vis[p]})
	}
	cat["visibility"] = list
}

// parseYAML parses data, which must hold one YAML document; an empty data
// is an empty document. second is the line where a second document
// starts, or 0.
func parseYAML(data []byte) (doc *yaml.Node, second int, err error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	doc = &yaml.Node{}
	if err := dec.Decode(doc); err != nil {
		if errors.Is(err, io.EOF) {
			return doc, 0, nil
		}
		return nil, 0, err
	}
	var next yaml.Node
	err = dec.Decode(&next)
	switch {
	case errors.Is(err, io.EOF):
		return doc, 0, nil
	case err == nil:
		return doc, next.Line, nil
	}
	// The second document is broken; that it exists matters more. Its
	// "---" is the first one at the start of a line after the first
	// document began: no content line can start with one.
	from := doc.Line
	if len(doc.Content) > 0 {
		from = max(from, doc.Content[0].Line)
	}
	for i, l := range bytes.Split(data, []byte("\n")) {
		if i+1 > from && bytes.HasPrefix(l, []byte("---")) && (len(l) == 3 || strings.ContainsRune(" \t\r", rune(l[3]))) {
			return doc, i + 1, nil
		}
	}
	return nil, 0, err
}

// pluginDefaults fills in what a plugin source leaves out (namespace,
// timeout, grace), and makes a program given as a relative path with a
// slash relative to the file's folder; a bare name is looked up in PATH
// when the plugin starts.
func pluginDefaults(src map[string]any, base, home string) {
	if _, ok := src["namespace"]; !ok {
		src["namespace"] = src["name"]
	}
	if _, ok := src["timeout"]; !ok {
		src["timeout"] = DefaultPluginTimeout.String()
	}
	if _, ok := src["grace"]; !ok {
		src["grace"] = DefaultPluginGrace.String()
	} else if src["grace"] == 0 {
		src["grace"] = "0s"
	}
	if cmd, ok := src["command"].([]any); ok && len(cmd) > 0 {
		if p, ok := cmd[0].(string); ok && (strings.HasPrefix(p, "~/") || strings.ContainsRune(p, '/') && !filepath.IsAbs(p)) {
			cmd[0] = resolvePath(p, base, home)
		}
	}
}

// resolvePath expands a leading ~ and makes p absolute against base.
func resolvePath(p, base, home string) string {
	switch {
	case p == "~":
		p = home
	case strings.HasPrefix(p, "~/"):
		p = filepath.Join(home, p[2:])
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	return filepath.Clean(p)
}
