package config

import (
	"cmp"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

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
		if strings.ContainsFunc(e.File, unicode.IsControl) {
			b.WriteString(strconv.Quote(e.File)) // keep the problem on one line
		} else {
			b.WriteString(e.File)
		}
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

// previewLen is how many characters of a value a message shows.
const previewLen = 60

// preview renders a value for a message: quoted, on one line whatever it
// holds, and, when longer than previewLen characters, cut with "…" and
// followed by its full length, so that a huge value cannot flood the
// terminal or a log.
func preview(s string) string {
	n := 0
	for i := range s {
		if n == previewLen {
			q := strconv.Quote(s[:i])
			return fmt.Sprintf("%s…\" (%d bytes)", q[:len(q)-1], len(s))
		}
		n++
	}
	return strconv.Quote(s)
}

// keyLabel renders a name that came from the input (a key, a variable):
// as is when it is a short plain name, else as a preview.
func keyLabel(s string) string {
	if s == "" || len(s) > previewLen || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == '"' || r > '~' }) {
		return preview(s)
	}
	return s
}

// joinByLine joins the problems of one file, first line first; a problem
// of the whole file (line 0) comes before them.
func joinByLine(errs []*Error) error {
	if len(errs) == 0 {
		return nil
	}
	slices.SortStableFunc(errs, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = e
	}
	return errors.Join(out...)
}

type kind int

const (
	kString kind = iota
	kInt
	kBool
	kStrings
	kMap
	kList     // a list of maps
	kDuration // a string such as "200ms" or "30s", or the integer 0
	kRules    // a map of free keys (checked by keyCheck) to strings (checked by check)
	kEnv      // a map of environment variable names to strings
)

// field is the schema of one key: its type and the checks on its value.
// Every check lives here, so that a file, a variable and a flag are held to
// the same rules, and every problem of a file is found in one walk.
type field struct {
	kind   kind
	fields map[string]*field // kMap, and the elements of kList
	// check says what is wrong with a string (a kString, or each element
	// of a kStrings), or "" when nothing is.
	check func(string) string
	// paths marks a kStrings of paths, where ~ is the home folder.
	paths bool
	// words are the only values a kString (or each element of a kStrings,
	// or each value of a kRules) may take, when check is among's.
	words []string
	// keyCheck says what is wrong with a key of a kRules.
	keyCheck func(string) string
	// min and max bound a kInt when either is set.
	min, max int
	// dmin and dmax bound a kDuration; a kDuration of 0 is always allowed
	// when zeroOff is set (it turns something off).
	dmin, dmax time.Duration
	zeroOff    bool
	// whole checks a kList's elements together, once each has been
	// checked alone: relations between keys, unique names.
	whole func(c *checker, list *yaml.Node, key string)
}

var (
	namespacePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	sourceNamePat    = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	envNamePattern   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

var sourceSchema = map[string]*field{
	"type": {kind: kString, check: checkSourceType},
	"name": {kind: kString, check: func(s string) string {
		if sourceNamePat.MatchString(s) {
			return ""
		}
		return preview(s) + " must be letters, digits, '.', '_' or '-' (no ':' or spaces)"
	}},
	"path":  {kind: kString, check: notEmpty},
	"paths": {kind: kStrings, check: notEmpty},
	"namespace": {kind: kString, check: func(s string) string {
		if s == "" || namespacePattern.MatchString(s) { // "" is for plugin sources only: checkSources
			return ""
		}
		return preview(s) + " must be lowercase letters, digits, '.', '_' or '-', starting with a letter or digit"
	}},
	"enabled": {kind: kBool},
	"include": {kind: kStrings, check: checkPattern},
	"exclude": {kind: kStrings, check: checkPattern},
	// plugin sources
	"command": {kind: kStrings, check: notEmpty},
	"env":     {kind: kEnv},
	"timeout": {kind: kDuration, dmin: 100 * time.Millisecond, dmax: 10 * time.Minute},
	"grace":   {kind: kDuration, dmin: 100 * time.Millisecond, dmax: 24 * time.Hour, zeroOff: true},
}

// pluginKeys are the keys only plugin sources take.
var pluginKeys = []string{"command", "env", "timeout", "grace"}

var schema = &field{kind: kMap, fields: map[string]*field{
	"sources": {kind: kList, fields: sourceSchema, whole: checkSources},
	"defaults": {kind: kMap, fields: map[string]*field{
		"builtin": {kind: kBool},
		"native":  (&field{kind: kString}).among("a choice for native", NativeExclude, NativeInclude),
	}},
	"catalog": {kind: kMap, fields: map[string]*field{
		"budget":     {kind: kInt, min: 200, max: 1_000_000},
		"pin":        {kind: kStrings, check: checkPattern},
		"visibility": (&field{kind: kRules, keyCheck: checkPattern}).among("a visibility", VisibilityValues...),
		"channel":    (&field{kind: kString}).among("a channel", Channels...),
	}},
	"tools": {kind: kMap, fields: map[string]*field{
		"profile": (&field{kind: kString}).among("a tool profile", ToolProfiles...),
		"enable":  (&field{kind: kStrings}).among("a tool", ToolNames...),
		"disable": (&field{kind: kStrings}).among("a tool", ToolNames...),
	}},
	"refresh": {kind: kMap, fields: map[string]*field{
		"watch":    {kind: kBool},
		"debounce": {kind: kDuration, dmin: 10 * time.Millisecond, dmax: 10 * time.Second},
		"interval": {kind: kDuration, dmin: time.Second, dmax: 24 * time.Hour, zeroOff: true},
	}},
	"resources": {kind: kMap, fields: map[string]*field{
		"max_file_size": {kind: kInt, min: 1 << 10, max: 1 << 30},
		"allow_dirs":    {kind: kStrings, check: checkAllowDir},
	}},
	"log": {kind: kMap, fields: map[string]*field{
		"level":  (&field{kind: kString}).among("a level", "debug", "info", "warn", "error"),
		"format": (&field{kind: kString}).among("a format", "text", "json"),
	}},
	"trust": {kind: kStrings, check: notEmpty, paths: true},
}}

// among makes f accept only words, each value being noun ("a level").
func (f *field) among(noun string, words ...string) *field {
	f.words = words
	f.check = func(s string) string {
		if slices.Contains(words, s) {
			return ""
		}
		return fmt.Sprintf("%s is not %s%s; use %s", preview(s), noun, suggest(s, words), orList(words))
	}
	return f
}

// orList renders "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

func notEmpty(s string) string {
	if s == "" {
		return "must not be empty"
	}
	return ""
}

func checkPattern(p string) string {
	if _, err := path.Match(p, "x"); err != nil {
		return preview(p) + " is not a valid pattern (use * and ? and [a-z])"
	}
	return ""
}

// checkAllowDir accepts a folder of a skill, relative to the skill
// folder: "scripts", "assets/fonts".
func checkAllowDir(s string) string {
	d := strings.TrimSuffix(s, "/")
	switch {
	case d == "" || d == ".":
		return "must name a folder inside the skill folder, such as \"scripts\" (leave allow_dirs out to serve the whole folder)"
	case strings.ContainsAny(d, "\\\x00"):
		return preview(s) + " must separate folders with '/'"
	case strings.HasPrefix(d, "/"):
		return preview(s) + " must be relative to the skill folder, such as \"scripts\""
	case path.Clean(d) != d || d == ".." || strings.HasPrefix(d, "../"):
		return preview(s) + " must be a plain relative path, without \".\", \"..\" or \"//\""
	}
	return ""
}

// supportedTypes are the source types this version serves.
var supportedTypes = []string{TypeUser, TypeProject, TypeDir, TypeClaudePlugins, TypePluginDir, TypePlugin}

func checkSourceType(t string) string {
	switch {
	case !slices.Contains(supportedTypes, t):
		return fmt.Sprintf("%s is not a source type%s; use one of %s", preview(t), suggest(t, supportedTypes), orList(supportedTypes))
	}
	return ""
}

// checkSources checks what one source's keys say together, and that names
// are unique. A key whose own value is wrong has been reported already and
// is not looked at again.
func checkSources(c *checker, list *yaml.Node, key string) {
	names := map[string]string{} // name → the source that has it
	for i, item := range list.Content {
		if item.Kind != yaml.MappingNode {
			continue
		}
		sk := fmt.Sprintf("%s[%d]", key, i)
		if k, v := lookupKey(item, "name"); v != nil && isString(v) && sourceSchema["name"].check(v.Value) == "" {
			if prev, dup := names[v.Value]; dup {
				c.fail(v, sk+".name", "%s is already the name of %s; names must be unique", preview(v.Value), prev)
			} else {
				names[v.Value] = fmt.Sprintf("%s (line %d)", sk, k.Line)
			}
		}
		pk, pv := lookupKey(item, "path")
		psk, psv := lookupKey(item, "paths")
		if c.home == "" {
			c.checkTilde(pv, sk+".path")
			if psv != nil && psv.Kind == yaml.SequenceNode {
				for j, e := range psv.Content {
					c.checkTilde(e, fmt.Sprintf("%s.paths[%d]", sk, j))
				}
			}
		}
		_, tv := lookupKey(item, "type")
		if tv == nil {
			c.fail(item, sk+".type", "missing; use one of %s", orList(supportedTypes))
			continue
		}
		if !isString(tv) || checkSourceType(tv.Value) != "" {
			continue
		}
		t := tv.Value
		if t == TypePlugin {
			checkPluginSource(c, item, sk)
		} else {
			for _, name := range pluginKeys {
				if k, _ := lookupKey(item, name); k != nil {
					c.fail(k, sk+"."+name, "only plugin sources take %s", name)
				}
			}
		}
		switch t {
		case TypePlugin:
			for _, p := range []struct {
				k    *yaml.Node
				name string
			}{{pk, "path"}, {psk, "paths"}} {
				if p.k != nil {
					c.fail(p.k, sk+"."+p.name, "a plugin source takes no %s; give its program in command (and the folder as an argument, if it needs one)", p.name)
				}
			}
		case TypeDir, TypePluginDir:
			if pv == nil && (psv == nil || psv.Kind == yaml.SequenceNode && len(psv.Content) == 0) {
				c.fail(item, sk+".path", "a %s source needs path (or paths): the folder to read", t)
			}
		default:
			for _, p := range []struct {
				k    *yaml.Node
				name string
			}{{pk, "path"}, {psk, "paths"}} {
				if p.k != nil {
					c.fail(p.k, sk+"."+p.name, "a %s source finds its folders itself and takes no %s; use type dir for a folder of your own", t, p.name)
				}
			}
		}
		nk, nv := lookupKey(item, "namespace")
		switch {
		case nk != nil && t != TypeDir && t != TypePlugin:
			c.fail(nk, sk+".namespace", "only dir and plugin sources take a namespace; Claude Code plugin skills are named after their plugin")
		case nk != nil && t == TypeDir && isString(nv) && nv.Value == "":
			c.fail(nv, sk+".namespace", "must not be empty; leave namespace out for plain names")
		}
	}
}

// checkPluginSource checks what a plugin source needs: a name (its
// skills' namespace unless namespace says otherwise) and a command.
func checkPluginSource(c *checker, item *yaml.Node, sk string) {
	nk, nv := lookupKey(item, "name")
	switch {
	case nk == nil:
		c.fail(item, sk+".name", "a plugin source needs a name: it names the source in logs and, unless namespace says otherwise, qualifies its skills (\"<name>:<skill>\")")
	case isString(nv) && sourceSchema["name"].check(nv.Value) == "" && !namespacePattern.MatchString(nv.Value):
		if k, _ := lookupKey(item, "namespace"); k == nil {
			c.fail(nv, sk+".name", "%s qualifies the plugin's skills, so it must be lowercase letters, digits, '.', '_' or '-'; rename it or set namespace", preview(nv.Value))
		}
	}
	ck, cv := lookupKey(item, "command")
	switch {
	case ck == nil:
		c.fail(item, sk+".command", "a plugin source needs command: the program to run and its arguments, such as [\"/usr/local/bin/my-plugin\", \"--flag\"]")
	case cv.Kind == yaml.SequenceNode && len(cv.Content) == 0:
		c.fail(cv, sk+".command", "must name the program to run, such as [\"/usr/local/bin/my-plugin\"]")
	case cv.Kind == yaml.SequenceNode && c.home == "":
		c.checkTilde(cv.Content[0], sk+".command[0]")
	}
}

// checkTilde refuses a path starting with ~ when no home folder is known:
// resolvePath would make it relative to the file, quietly.
func (c *checker) checkTilde(n *yaml.Node, key string) {
	if n != nil && isString(n) && (n.Value == "~" || strings.HasPrefix(n.Value, "~/")) {
		c.fail(n, key, "~ stands for the home folder, which is not known here (HOME is not set); write the path out")
	}
}

// lookupKey returns the key and value nodes of name in the map m, or nils.
func lookupKey(m *yaml.Node, name string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := m.Content[i]; k.Kind == yaml.ScalarNode && k.Value == name {
			return k, m.Content[i+1]
		}
	}
	return nil, nil
}

func isString(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!str" }

// checker walks a YAML document against the schema.
type checker struct {
	file, layer string
	home        string // "" when unknown
	errs        []*Error
	origins     map[string]Origin
}

func (c *checker) fail(n *yaml.Node, key, format string, args ...any) {
	c.errs = append(c.errs, &Error{File: c.file, Line: n.Line, Key: key, Message: fmt.Sprintf(format, args...)})
}

// walk checks n against f and every value beneath it, reporting each
// problem and going on: one wrong value never hides another.
func (c *checker) walk(n *yaml.Node, f *field, key string) {
	c.origins[key] = Origin{Layer: c.layer, File: c.file, Line: n.Line}
	switch f.kind {
	case kMap:
		if n.Kind != yaml.MappingNode {
			c.fail(n, key, "must be a map of keys to values, got %s", nodeKind(n))
			return
		}
		seen := map[string]int{} // key → its line
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			if kn.Kind != yaml.ScalarNode {
				c.fail(kn, key, "a key must be a plain name, got %s", nodeKind(kn))
				continue
			}
			child := join(key, keyLabel(kn.Value))
			if line, dup := seen[kn.Value]; dup {
				c.fail(kn, child, "set twice, here and on line %d; keep one", line)
				continue
			}
			seen[kn.Value] = kn.Line
			sub, ok := f.fields[kn.Value]
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
		if f.whole != nil {
			f.whole(c, n, key)
		}
	case kStrings:
		if n.Kind != yaml.SequenceNode {
			c.fail(n, key, "must be a list of strings, such as [\"a\", \"b\"], got %s", nodeKind(n))
			return
		}
		for i, e := range n.Content {
			ek := fmt.Sprintf("%s[%d]", key, i)
			c.origins[ek] = Origin{Layer: c.layer, File: c.file, Line: e.Line}
			c.walk(e, &field{kind: kString, check: f.check, words: f.words}, ek)
			if f.paths && c.home == "" {
				c.checkTilde(e, ek)
			}
		}
	case kRules:
		if n.Kind != yaml.MappingNode {
			c.fail(n, key, "must be a map of patterns to values, such as {\"example-skills:*\": off}, got %s", nodeKind(n))
			return
		}
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			child := join(key, keyLabel(kn.Value))
			if !isString(kn) {
				c.fail(kn, key, "a pattern must be a string, got %s%s", nodeKind(kn), quoteIt(kn))
				continue
			}
			if line, dup := seen[kn.Value]; dup {
				c.fail(kn, child, "set twice, here and on line %d; keep one", line)
				continue
			}
			seen[kn.Value] = kn.Line
			c.origins[child] = Origin{Layer: c.layer, File: c.file, Line: kn.Line}
			if msg := f.keyCheck(kn.Value); msg != "" {
				c.fail(kn, child, "%s", msg)
				continue
			}
			c.walk(vn, &field{kind: kString, check: f.check, words: f.words}, child)
		}
	case kString:
		if !isString(n) {
			c.fail(n, key, "must be a string, got %s%s%s", nodeKind(n), quoteIt(n), choices(f))
		} else if f.check != nil {
			if msg := f.check(n.Value); msg != "" {
				c.fail(n, key, "%s", msg)
			}
		}
	case kInt:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
			c.fail(n, key, "must be an integer, got %s", nodeKind(n))
			return
		}
		var v int
		if err := n.Decode(&v); err != nil || !f.inRange(v) {
			c.fail(n, key, "must be an integer between %d and %d, got %s", f.min, f.max, n.Value)
		}
	case kBool:
		if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
			c.fail(n, key, "must be true or false, got %s", nodeKind(n))
		}
	case kEnv:
		if n.Kind != yaml.MappingNode {
			c.fail(n, key, "must be a map of environment variable names to strings, such as {TOKEN: \"abc\"}, got %s", nodeKind(n))
			return
		}
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			kn, vn := n.Content[i], n.Content[i+1]
			child := join(key, keyLabel(kn.Value))
			switch {
			case kn.Kind != yaml.ScalarNode || !envNamePattern.MatchString(kn.Value):
				c.fail(kn, child, "%s is not an environment variable name: use letters, digits and '_', not starting with a digit", preview(kn.Value))
			case seen[kn.Value] > 0:
				c.fail(kn, child, "set twice, here and on line %d; keep one", seen[kn.Value])
			case !isString(vn):
				c.fail(vn, child, "must be a string, got %s%s", nodeKind(vn), quoteIt(vn))
			}
			seen[kn.Value] = kn.Line
			c.origins[child] = Origin{Layer: c.layer, File: c.file, Line: kn.Line}
		}
	case kDuration:
		switch {
		case n.Kind == yaml.ScalarNode && n.Tag == "!!int" && n.Value == "0":
			if !f.zeroOff {
				c.fail(n, key, "0 is out of range; %s", f.durationRange())
			}
		case !isString(n):
			c.fail(n, key, "must be a duration such as \"200ms\" or \"30s\", got %s", nodeKind(n))
		default:
			if _, msg := f.duration(n.Value); msg != "" {
				c.fail(n, key, "%s", msg)
			}
		}
	}
}

// duration parses and checks a kDuration written as a string.
func (f *field) duration(s string) (time.Duration, string) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Sprintf("%s is not a duration; write it like \"200ms\", \"2s\" or \"1m\"", preview(s))
	}
	if d == 0 && f.zeroOff {
		return 0, ""
	}
	if d < f.dmin || d > f.dmax {
		return 0, fmt.Sprintf("%s is out of range; %s", preview(s), f.durationRange())
	}
	return d, ""
}

func (f *field) durationRange() string {
	msg := fmt.Sprintf("use a duration from %s to %s", f.dmin, f.dmax)
	if f.zeroOff {
		msg += ", or 0 to turn it off"
	}
	return msg
}

func (f *field) inRange(v int) bool {
	return f.min == 0 && f.max == 0 || f.min <= v && v <= f.max
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
			return "the string " + preview(n.Value)
		case "!!null":
			return "nothing (null)"
		}
		return preview(n.Value)
	case yaml.AliasNode:
		return "an alias (*" + keyLabel(n.Value) + "); aliases are not supported here, write the value out"
	}
	return "a document"
}

// quoteIt is the advice for a value that must be a string: a number or
// a boolean is one once quoted; a map, a list or nothing is not.
func quoteIt(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && n.Tag != "!!null" {
		return " (quote it)"
	}
	return ""
}

// choices is "; use a, b or c" for a string field that takes only some
// words (see among), else "".
func choices(f *field) string {
	if len(f.words) == 0 {
		return ""
	}
	return "; use " + orList(f.words)
}

func join(key, child string) string {
	if key == "" {
		return child
	}
	return key + "." + child
}

// EnvPrefix starts every environment variable skillmux reads.
const EnvPrefix = "SKILLMUX_"

// EnvName is the environment variable for a dotted key.
func EnvName(key string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "__"))
}

// loadEnv reads the SKILLMUX_ variables; a variable set twice counts
// once, with its last value, as in the process environment. A name that
// looks like a setting (it has the "__" separator, or its first word is a
// section) and is not one is an error, so that a misspelt setting is not
// quietly ignored; any other SKILLMUX_ name (SKILLMUX_BIN, from a user's
// own scripts) is not skillmux's to refuse, and is only warned about.
func loadEnv(env []string) (k *koanf.Koanf, origins map[string]Origin, warnings []string, err error) {
	k = koanf.New(".")
	origins = map[string]Origin{}
	last := map[string]int{}
	for i, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		last[name] = i
	}
	var errs []error
	for i, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, EnvPrefix) || last[name] != i {
			continue
		}
		key := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(name, EnvPrefix), "__", "."))
		if strings.TrimSpace(val) == "" {
			continue // set empty is unset, as a shell script may leave it, whatever its name
		}
		_, known := scalarKeys[key]
		if !known && !settingLike(strings.TrimPrefix(name, EnvPrefix)) {
			warnings = append(warnings, (&Error{File: keyLabel(name), Message: "not a setting of skillmux, so ignored; settings are " + EnvPrefix + "<SECTION>__<KEY>, such as " + EnvName("catalog.budget")}).Error())
			continue
		}
		v, err := scalar(key, val)
		if err != nil {
			err.File = keyLabel(name)
			errs = append(errs, err)
			continue
		}
		k.Set(key, v)
		origins[key] = Origin{Layer: "env", File: name}
	}
	return k, origins, warnings, errors.Join(errs...)
}

// settingLike reports whether the part of a variable's name after
// EnvPrefix is meant as a setting: it has the "__" that separates a
// section from its key, or its first word is a section, as in
// SKILLMUX_LOG_LEVEL.
func settingLike(name string) bool {
	first, _, _ := strings.Cut(name, "_")
	_, section := schema.fields[strings.ToLower(first)]
	return section || strings.Contains(name, "__")
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
			err.File = f.Flag
			errs = append(errs, err)
			continue
		}
		k.Set(f.Key, v)
		origins[f.Key] = Origin{Layer: "flag", File: f.Flag}
	}
	return k, origins, errors.Join(errs...)
}

// scalarKeys are the keys that environment variables and flags may set:
// every key of the schema outside lists.
var scalarKeys = func() map[string]*field {
	out := map[string]*field{}
	var add func(prefix string, f *field)
	add = func(prefix string, f *field) {
		for name, sub := range f.fields {
			switch sub.kind {
			case kMap:
				add(join(prefix, name), sub)
			case kString, kInt, kBool, kDuration:
				out[join(prefix, name)] = sub
			}
		}
	}
	add("", schema)
	return out
}()

// scalar converts a string from the environment or a flag to the type of
// key and checks it as a file's value is checked. The error has no File:
// the caller knows the variable or the flag.
func scalar(key, val string) (any, *Error) {
	f, ok := scalarKeys[key]
	if !ok {
		if key == "sources" || strings.HasPrefix(key, "sources.") {
			return nil, &Error{Message: "sources cannot be set from the environment or flags; list them in a configuration file"}
		}
		if at, noun := listOrMap(key); noun != "" {
			return nil, &Error{Message: fmt.Sprintf("%s cannot be set from the environment or flags: it is a %s, and lists and maps can only be set in a configuration file", at, noun)}
		}
		names := make([]string, 0, len(scalarKeys))
		for k := range scalarKeys {
			names = append(names, EnvName(k))
		}
		slices.Sort(names)
		return nil, &Error{Message: fmt.Sprintf("unknown setting%s; known: %s", suggest(EnvName(key), names), strings.Join(names, ", "))}
	}
	fail := func(format string, args ...any) (any, *Error) {
		return nil, &Error{Key: key, Message: fmt.Sprintf(format, args...)}
	}
	switch f.kind {
	case kInt:
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil {
			return fail("must be an integer, got %s", preview(val))
		}
		if !f.inRange(n) {
			return fail("must be an integer between %d and %d, got %d", f.min, f.max, n)
		}
		return n, nil
	case kBool:
		b, err := strconv.ParseBool(strings.TrimSpace(val))
		if err != nil {
			return fail("must be true or false, got %s", preview(val))
		}
		return b, nil
	case kDuration:
		if strings.TrimSpace(val) == "0" && f.zeroOff {
			return "0s", nil
		}
		if _, msg := f.duration(val); msg != "" {
			return fail("%s", msg)
		}
		return strings.TrimSpace(val), nil
	}
	if f.check != nil {
		if msg := f.check(val); msg != "" {
			return fail("%s", msg)
		}
	}
	return val, nil
}

// listOrMap returns the list or map of the schema that key is or is
// inside of, and "list" or "map"; "" when there is none.
func listOrMap(key string) (at, noun string) {
	f := schema
	for part := range strings.SplitSeq(key, ".") {
		sub, ok := f.fields[part]
		if !ok {
			return "", ""
		}
		at, f = join(at, part), sub
		switch f.kind {
		case kStrings, kList:
			return at, "list"
		case kRules, kEnv:
			return at, "map"
		case kMap:
			continue
		}
		return "", ""
	}
	return "", ""
}

// maxSuggest bounds the length of a word that suggest looks at: every
// candidate is shorter than half of it.
const maxSuggest = 64

// suggest returns ` (did you mean "x"?)` for the candidate closest to s,
// or "" when none is close.
func suggest(s string, candidates []string) string {
	if len(s) > maxSuggest {
		return "" // far from every candidate, and slow to measure
	}
	if best := editdist.Closest(s, candidates, max(2, len(s)/3)); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}
