package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"
	"go.yaml.in/yaml/v3"
)

// loadFile reads one YAML file into its own koanf layer after checking it
// alone; the error holds every problem of the file, first line first.
// Relative paths of sources become relative to the file's folder.
func loadFile(file, layer, home string) (*koanf.Koanf, map[string]Origin, error) {
	if st, err := os.Stat(file); err == nil && !st.Mode().IsRegular() {
		return nil, nil, &Error{File: file, Message: "not a regular file"}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	if line, msg := badChar(data); line > 0 {
		return nil, nil, &Error{File: file, Line: line, Message: msg}
	}
	doc, err := firstDocument(data)
	if err != nil {
		return nil, nil, syntaxError(file, data, err, func(b []byte) error { _, err := firstDocument(b); return err })
	}
	c := &checker{file: file, layer: layer, home: home, origins: map[string]Origin{}}
	k := koanf.New(".")
	if len(doc.Content) == 0 || doc.Content[0].Tag == "!!null" {
		return k, c.origins, nil // an empty file sets nothing
	}
	root := doc.Content[0]
	c.walk(root, schema, "")
	delete(c.origins, "")
	if err := joinByLine(c.errs); err != nil {
		return nil, nil, err
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
		}
	}
	if err := k.Load(confmap.Provider(m, ""), nil); err != nil {
		return nil, nil, &Error{File: file, Message: err.Error()}
	}
	return k, c.origins, nil
}

// firstDocument parses the first YAML document of data; an empty data is
// an empty document.
func firstDocument(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(data)).Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return &doc, nil
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
