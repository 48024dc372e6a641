package config

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"
	"go.yaml.in/yaml/v3"

	"github.com/skillmux/skillmux/internal/editdist"
)

// Error is one configuration problem: where, which key, what is wrong and
// what would be right.
type Error struct {
	// File is the file, environment variable or flag; empty for defaults.
	File string
	// Line is the line in File, when known.
	Line int
	// Key is the dotted key, such as "sources[1].type".
	Key     string
	Message string
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			fmt.Fprintf(&b, ":%d", e.Line)
		}
		b.WriteString(": ")
	}
	if e.Key != "" {
		b.WriteString(e.Key)
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	return b.String()
}

type kind int

const (
	kString kind = iota
	kInt
	kBool
	kStrings
	kMap
	kList // a list of maps
)

// field is the schema of one key.
type field struct {
	kind   kind
	fields map[string]*field // kMap, and the elements of kList
}

var sourceSchema = map[string]*field{
	"type": {kind: kString}, "name": {kind: kString}, "path": {kind: kString}, "paths": {kind: kStrings},
	"namespace": {kind: kString}, "enabled": {kind: kBool}, "include": {kind: kStrings}, "exclude": {kind: kStrings},
}

var schema = &field{kind: kMap, fields: map[string]*field{
	"sources":  {kind: kList, fields: sourceSchema},
	"defaults": {kind: kMap, fields: map[string]*field{"builtin": {kind: kBool}}},
	"catalog":  {kind: kMap, fields: map[string]*field{"budget": {kind: kInt}}},
	"log":      {kind: kMap, fields: map[string]*field{"level": {kind: kString}, "format": {kind: kString}}},
}}

// scalars are the keys that environment variables and flags may set.
var scalars = map[string]kind{"defaults.builtin": kBool, "catalog.budget": kInt, "log.level": kString, "log.format": kString}

// checker walks a YAML document against the schema.
type checker struct {
	file, layer string
	errs        []error
	origins     map[string]Origin
}

func (c *checker) fail(n *yaml.Node, key, format string, args ...any) {
	c.errs = append(c.errs, &Error{File: c.file, Line: n.Line, Key: key, Message: fmt.Sprintf(format, args...)})
}

func (c *checker) walk(n *yaml.Node, f *field, key string) {
	c.origins[key] = Origin{Layer: c.layer, File: c.file, Line: n.Line}
	switch f.kind {
	case kMap:
		if n.Kind != yaml.MappingNode {
			c.fail(n, key, "must be a map of keys to values, got %s", nodeKind(n))
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			sub, ok := f.fields[kn.Value]
			child := join(key, kn.Value)
			if !ok {
				c.fail(kn, child, "unknown key%s; known keys here: %s", suggest(kn.Value, sortedKeys(f.fields)), strings.Join(sortedKeys(f.fields), ", "))
				continue
			}
			c.walk(vn, sub, child)
		}
	case kList:
		if n.Kind != yaml.SequenceNode {
			c.fail(n, key, "must be a list (each item starting with \"- \"), got %s", nodeKind(n))
			return
		}
		for i, e := range n.Content {
			c.walk(e, &field{kind: kMap, fields: f.fields}, fmt.Sprintf("%s[%d]", key, i))
		}
	case kStrings:
		if n.Kind != yaml.SequenceNode {
			c.fail(n, key, "must be a list of strings, such as [\"a\", \"b\"], got %s", nodeKind(n))
			return
		}
		for i, e := range n.Content {
			ek := fmt.Sprintf("%s[%d]", key, i)
			c.origins[ek] = Origin{Layer: c.layer, File: c.file, Line: e.Line}
			if e.Kind != yaml.ScalarNode || e.Tag != "!!str" {
				c.fail(e, ek, "must be a string, got %s", nodeKind(e))
			}
		}
	case kString:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!str" {
			c.fail(n, key, "must be a string, got %s (quote it)", nodeKind(n))
		}
	case kInt:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			c.fail(n, key, "must be an integer, got %s", nodeKind(n))
		}
	case kBool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			c.fail(n, key, "must be true or false, got %s", nodeKind(n))
		}
	}
}

func nodeKind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a map"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!str":
			return fmt.Sprintf("the string %q", n.Value)
		case "!!null":
			return "nothing (null)"
		}
		return fmt.Sprintf("%q", n.Value)
	}
	return "an alias or document"
}

func join(key, child string) string {
	if key == "" {
		return child
	}
	return key + "." + child
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

// loadFile reads one YAML file into its own koanf layer after checking it
// alone. Relative paths of sources become relative to the file's folder.
func loadFile(file, layer, home string) (*koanf.Koanf, map[string]Origin, error) {
	if st, err := os.Stat(file); err == nil && !st.Mode().IsRegular() {
		return nil, nil, &Error{File: file, Message: "not a regular file"}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", file, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		e := &Error{File: file, Message: "not valid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			e.Line, _ = strconv.Atoi(m[1])
			e.Message = "not valid YAML: " + err.Error()[len(m[0]):]
		}
		return nil, nil, e
	}
	c := &checker{file: file, layer: layer, origins: map[string]Origin{}}
	k := koanf.New(".")
	if len(doc.Content) == 0 {
		return k, c.origins, nil // an empty file sets nothing
	}
	root := doc.Content[0]
	c.walk(root, schema, "")
	delete(c.origins, "")
	if len(c.errs) > 0 {
		return nil, nil, errors.Join(c.errs...)
	}
	var m map[string]any
	if err := root.Decode(&m); err != nil {
		return nil, nil, &Error{File: file, Message: err.Error()}
	}
	if list, ok := m["sources"].([]any); ok {
		base := filepath.Dir(file)
		var errs []error
		resolve := func(key, p string) string {
			if home == "" && (p == "~" || strings.HasPrefix(p, "~/")) {
				o := c.origins[key]
				errs = append(errs, &Error{File: file, Line: o.Line, Key: key, Message: "~ stands for the home folder, which is not known here (HOME is not set); write the path out"})
			}
			return resolvePath(p, base, home)
		}
		for i, item := range list {
			src, _ := item.(map[string]any)
			key := fmt.Sprintf("sources[%d]", i)
			if p, ok := src["path"].(string); ok {
				src["path"] = resolve(key+".path", p)
			}
			if ps, ok := src["paths"].([]any); ok {
				for j, p := range ps {
					ps[j] = resolve(fmt.Sprintf("%s.paths[%d]", key, j), p.(string))
				}
			}
		}
		if len(errs) > 0 {
			return nil, nil, errors.Join(errs...)
		}
	}
	if err := k.Load(confmap.Provider(m, ""), nil); err != nil {
		return nil, nil, &Error{File: file, Message: err.Error()}
	}
	return k, c.origins, nil
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

// EnvPrefix starts every environment variable skillmux reads.
const EnvPrefix = "SKILLMUX_"

// EnvName is the environment variable for a dotted key.
func EnvName(key string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "__"))
}

func loadEnv(env []string) (*koanf.Koanf, map[string]Origin, error) {
	k := koanf.New(".")
	origins := map[string]Origin{}
	var errs []error
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, EnvPrefix) {
			continue
		}
		key := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(name, EnvPrefix), "__", "."))
		v, err := scalar(key, val)
		if err != nil {
			errs = append(errs, &Error{File: name, Message: err.Error()})
			continue
		}
		k.Set(key, v)
		origins[key] = Origin{Layer: "env", File: name}
	}
	return k, origins, errors.Join(errs...)
}

// FlagValue is a value given on the command line.
type FlagValue struct {
	Key   string // dotted key, such as "catalog.budget"
	Flag  string // the flag, such as "--budget"
	Value string
}

func loadFlags(flags []FlagValue) (*koanf.Koanf, map[string]Origin, error) {
	k := koanf.New(".")
	origins := map[string]Origin{}
	var errs []error
	for _, f := range flags {
		v, err := scalar(f.Key, f.Value)
		if err != nil {
			errs = append(errs, &Error{File: f.Flag, Message: err.Error()})
			continue
		}
		k.Set(f.Key, v)
		origins[f.Key] = Origin{Layer: "flag", File: f.Flag}
	}
	return k, origins, errors.Join(errs...)
}

// scalar converts a string from the environment or a flag to the type of
// key.
func scalar(key, val string) (any, error) {
	kd, ok := scalars[key]
	if !ok {
		if key == "sources" || strings.HasPrefix(key, "sources.") {
			return nil, fmt.Errorf("sources cannot be set from the environment or flags; list them in a configuration file")
		}
		names := make([]string, 0, len(scalars))
		for k := range scalars {
			names = append(names, EnvName(k))
		}
		return nil, fmt.Errorf("unknown setting%s; known: %s", suggest(EnvName(key), names), strings.Join(sortedKeys(nameSet(names)), ", "))
	}
	switch kd {
	case kInt:
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("must be an integer, got %q", val)
		}
		return n, nil
	case kBool:
		b, err := strconv.ParseBool(strings.TrimSpace(val))
		if err != nil {
			return nil, fmt.Errorf("must be true or false, got %q", val)
		}
		return b, nil
	}
	return val, nil
}

func nameSet(names []string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// suggest returns ` (did you mean "x"?)` for the candidate closest to s,
// or "" when none is close.
func suggest(s string, candidates []string) string {
	if best := editdist.Closest(s, candidates, max(2, len(s)/3)); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

var (
	namespacePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	sourceNamePat    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// validate checks values and relations that the schema cannot: allowed
// words, ranges, required paths, unique names, glob syntax.
func (c *Config) validate() error {
	var errs []error
	fail := func(key, format string, args ...any) {
		o := c.Origin(key)
		errs = append(errs, &Error{File: o.File, Line: o.Line, Key: key, Message: fmt.Sprintf(format, args...)})
	}
	names := map[string]string{}
	for i, s := range c.Sources {
		key := fmt.Sprintf("sources[%d]", i)
		switch s.Type {
		case "":
			fail(key+".type", "missing; use one of %s", strings.Join(SourceTypes, ", "))
		case TypeDir, TypePluginDir:
			if len(s.AllPaths()) == 0 {
				fail(key+".path", "a %s source needs path (or paths): the folder to read", s.Type)
			}
		case TypeUser, TypeProject, TypeClaudePlugins:
			if len(s.AllPaths()) > 0 {
				fail(key+".path", "a %s source finds its folders itself and takes no path; use type dir for a folder of your own", s.Type)
			}
		case TypePlugin:
			fail(key+".type", "source plugins (separate processes) are not supported by this version; use dir or plugin-dir")
		default:
			fail(key+".type", "%q is not a source type%s; use one of %s", s.Type, suggest(s.Type, SourceTypes), strings.Join(SourceTypes, ", "))
		}
		if s.Namespace != "" {
			if s.Type != TypeDir {
				fail(key+".namespace", "only dir sources take a namespace; plugin skills are named after their plugin")
			} else if !namespacePattern.MatchString(s.Namespace) {
				fail(key+".namespace", "%q must be lowercase letters, digits, '.', '_' or '-', starting with a letter or digit", s.Namespace)
			}
		}
		if s.Name != "" {
			if !sourceNamePat.MatchString(s.Name) {
				fail(key+".name", "%q must be letters, digits, '.', '_' or '-' (no ':' or spaces)", s.Name)
			}
			if prev, dup := names[s.Name]; dup {
				fail(key+".name", "%q is already the name of %s; names must be unique", s.Name, prev)
			}
			names[s.Name] = key
		}
		for j, p := range s.Include {
			if _, err := path.Match(p, "x"); err != nil {
				fail(fmt.Sprintf("%s.include[%d]", key, j), "%q is not a valid pattern (use * and ? and [a-z])", p)
			}
		}
		for j, p := range s.Exclude {
			if _, err := path.Match(p, "x"); err != nil {
				fail(fmt.Sprintf("%s.exclude[%d]", key, j), "%q is not a valid pattern (use * and ? and [a-z])", p)
			}
		}
	}
	if b := c.Catalog.Budget; b < 200 || b > 1_000_000 {
		fail("catalog.budget", "must be an integer between 200 and 1000000, got %d", b)
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		fail("log.level", "%q is not a level%s; use debug, info, warn or error", c.Log.Level, suggest(c.Log.Level, []string{"debug", "info", "warn", "error"}))
	}
	switch c.Log.Format {
	case "text", "json":
	default:
		fail("log.format", "%q is not a format; use text or json", c.Log.Format)
	}
	return errors.Join(errs...)
}
