package claudeplugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/skillmux/skillmux/internal/jsonkind"
	"github.com/skillmux/skillmux/sources"
)

// manifest is the part of .claude-plugin/plugin.json skillmux reads.
type manifest struct {
	Name   string    `json:"name"`
	Skills pathsList `json:"skills"`
}

// marketplace is the part of .claude-plugin/marketplace.json skillmux
// reads.
type marketplace struct {
	Name     string  `json:"name"`
	Plugins  []entry `json:"plugins"`
	Metadata struct {
		// PluginRoot is the folder that relative sources are in
		// ("./plugins" makes "formatter" ./plugins/formatter).
		PluginRoot string `json:"pluginRoot"`
	} `json:"metadata"`
}

// underRoot says, for a message of a missing folder, where else it was
// looked for: under metadata.pluginRoot.
func (mk *marketplace) underRoot() string {
	if mk.Metadata.PluginRoot == "" {
		return ""
	}
	return fmt.Sprintf(" (nor under metadata.pluginRoot, %s)", mk.Metadata.PluginRoot)
}

// dirOf is the folder of the local source src of the marketplace in root:
// under metadata.pluginRoot when one is set and the folder is there, as
// Claude Code reads it; else under root.
func (mk *marketplace) dirOf(root, src string) string {
	if pr := mk.Metadata.PluginRoot; pr != "" && !filepath.IsAbs(pr) && !strings.Contains(pr, "://") {
		if dir := filepath.Join(root, pr, src); isDir(dir) {
			return dir
		}
	}
	return filepath.Join(root, src)
}

type entry struct {
	Name   string          `json:"name"`
	Source json.RawMessage `json:"source"`
	Skills pathsList       `json:"skills"`

	bad *jsonError // the entry cannot be read: this plugin alone is not served
}

// pluginLabel names an entry's plugin in front of a message: "plugin
// "x": ", or nothing for an entry of no name.
func pluginLabel(name string) string {
	if name == "" {
		return ""
	}
	return fmt.Sprintf("plugin %q: ", name)
}

// UnmarshalJSON reads an entry; one that cannot be read is kept with its
// problem (bad), so that the marketplace's other plugins are served.
func (e *entry) UnmarshalJSON(b []byte) error {
	type plain entry // without this method
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		var named struct {
			Name string `json:"name"`
		}
		json.Unmarshal(b, &named)
		bad := newJSONError(b, err)
		bad.line, bad.col = 0, 0 // within the entry, not the file
		*e = entry{Name: named.Name, bad: bad}
		return nil
	}
	*e = entry(p)
	return nil
}

// localSource returns the entry's source when it is a local folder
// ("./plugins/x"); sources fetched from elsewhere are objects or URLs.
func (e entry) localSource() (string, bool) {
	var s string
	if json.Unmarshal(e.Source, &s) != nil || strings.Contains(s, "://") || filepath.IsAbs(s) {
		return "", false
	}
	return s, true
}

// pathsList accepts a string or a list of strings.
type pathsList []string

func (p *pathsList) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		*p = pathsList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		// A type error, so that the decoder names the field.
		kind := strings.TrimPrefix(strings.TrimPrefix(jsonkind.Of(b), "an "), "a ") // in the words of UnmarshalTypeError.Value
		if kind == "array" {
			kind = "list holding something other than a path" // a list, but not of strings
		}
		return &json.UnmarshalTypeError{Value: kind, Type: reflect.TypeFor[pathsList]()}
	}
	*p = many
	return nil
}

const (
	pluginFile      = ".claude-plugin/plugin.json"
	marketplaceFile = ".claude-plugin/marketplace.json"
)

// plugin is one plugin to list: its folder, its namespace, and the skill
// paths it names explicitly (relative to base, from the file listedIn).
type plugin struct {
	root      string
	namespace string
	defaults  bool // also <root>/skills/*
	base      string
	listed    []string
	listedIn  string // the file that lists them
	field     string // and the key that does, such as "plugins[2].skills"
	pkg       int    // index of its Package in the listing
}

// maxJSONFile bounds the Claude Code files read: settings, install
// records and manifests are kilobytes; the largest marketplace known is a
// few hundred.
const maxJSONFile = 16 << 20

// readJSON decodes a JSON file; a missing file is (false, nil). A file
// that is not valid JSON gives a *jsonError with the line. The file must
// be a regular one of at most maxJSONFile bytes: a project's settings may
// come from a repository cloned as it is, with its settings file a link
// to /dev/zero or to /dev/stdin.
func readJSON(path string, v any) (bool, error) {
	data, err := sources.ReadRegularFile(path, maxJSONFile)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return true, newJSONError(data, err)
	}
	return true, nil
}

// jsonError is a JSON file that cannot be decoded, located.
type jsonError struct {
	line, col int
	msg       string
	shape     bool // valid JSON, of the wrong shape
}

func (e *jsonError) Error() string {
	what := "not valid JSON"
	if e.shape {
		what = "not what Claude Code reads"
	}
	if e.col > 0 {
		return fmt.Sprintf("%s at column %d: %s", what, e.col, e.msg)
	}
	return what + ": " + e.msg
}

// newJSONError locates err in data by line and column, and says what a
// trailing comma, the most common slip in a hand-edited file, looks like.
func newJSONError(data []byte, err error) *jsonError {
	var offset int64
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		offset = syn.Offset
	case errors.As(err, &typ):
		offset = typ.Offset
	}
	e := &jsonError{msg: strings.TrimPrefix(err.Error(), "json: ")}
	if syn != nil && syn.Offset == 1 && bytes.HasPrefix(data, []byte("\ufeff")) {
		// An editor's byte-order mark, invisible in it: "invalid
		// character 'ï'" would not say what to mend.
		e.line, e.col = 1, 1
		e.msg = "the file starts with a byte-order mark (U+FEFF), which JSON does not allow; save it as UTF-8 without BOM"
		return e
	}
	if typ != nil && typ.Type != nil {
		// Said in JSON's words, not Go's ("cannot unmarshal array into
		// Go struct field installedFile.plugins of type map[...]...").
		want := jsonKind(typ.Type)
		if typ.Type == reflect.TypeFor[pathsList]() {
			want = "a path or a list of paths"
		}
		e.msg, e.shape = fmt.Sprintf("must be %s, not %s", want, article(typ.Value)), true
		if typ.Field != "" {
			e.msg = strconv.Quote(typ.Field) + " " + e.msg
		}
	}
	if offset <= 0 || offset > int64(len(data)) {
		return e
	}
	// The offset is just past the byte in error.
	before := data[:offset-1]
	e.line = 1 + bytes.Count(before, []byte("\n"))
	e.col = int(offset-1) - bytes.LastIndexByte(before, '\n')
	if syn != nil {
		if prev := bytes.TrimRight(before, " \t\r\n"); bytes.HasSuffix(prev, []byte(",")) && (data[offset-1] == '}' || data[offset-1] == ']') {
			e.msg += " (remove the trailing comma before it)"
		}
	}
	return e
}

// jsonDiagnostic is a warning about a JSON file that cannot be read, with
// its line when known.
func jsonDiagnostic(path string, err error) sources.Diagnostic {
	msg := err.Error()
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		msg = pe.Err.Error() // the diagnostic names the file already
	}
	d := sources.Diagnostic{Severity: sources.Warning, Path: path, Rule: "json", Message: msg}
	var je *jsonError
	if errors.As(err, &je) {
		d.Line = je.line
	}
	return d
}

func jsonProblem(path string, err error) sources.Diagnostic {
	d := jsonDiagnostic(path, err)
	d.Severity = sources.Error
	d.Rule = "plugin-json"
	d.Message += "; its plugins are not served"
	return d
}

// pluginsAt finds the plugins a folder holds. name is the plugin's name as
// Claude Code knows it (from installed_plugins.json), or "" for a folder
// given explicitly; with a name, only that plugin of a marketplace folder
// is returned.
func pluginsAt(root, name string) ([]plugin, []sources.Diagnostic) {
	return pluginsIn(root, name, &marketWalk{onPath: map[string]bool{}, read: map[string]bool{}})
}

// marketWalk is what the reading of marketplaces that lead to others has
// done: an entry that leads back to a folder on its way (a loop) is not
// followed, with a warning, and one that leads to a folder read already
// (two entries, or two marketplaces, for one plugin) is not read again.
type marketWalk struct {
	onPath map[string]bool // the folders on the way to this one
	read   map[string]bool // every folder read
}

// pluginsIn is pluginsAt for a folder that a marketplace's entries may
// have led to from others.
func pluginsIn(root, name string, walk *marketWalk) ([]plugin, []sources.Diagnostic) {
	walk.onPath[filepath.Clean(root)] = true
	walk.read[filepath.Clean(root)] = true
	defer delete(walk.onPath, filepath.Clean(root))
	var m manifest
	found, err := readJSON(filepath.Join(root, pluginFile), &m)
	if err != nil {
		return nil, []sources.Diagnostic{jsonProblem(filepath.Join(root, pluginFile), err)}
	}
	// The marketplace file is read once, and only when it may serve: with
	// no plugin.json, or beside one of a plugin of no skills.
	var mk marketplace
	mpath := filepath.Join(root, marketplaceFile)
	market, merr := false, error(nil)
	if !found || len(m.Skills) == 0 && !isDir(filepath.Join(root, "skills")) {
		market, merr = readJSON(mpath, &mk)
	}
	// A plugin of no skills that is also a marketplace of other plugins
	// (a repository of plugins, whose own manifest is for its commands or
	// hooks) serves those plugins' skills.
	if found && (merr != nil || !market || !mk.listsOthers(root)) {
		var probs []sources.Diagnostic
		if m.Name != "" && !sources.UsableName(m.Name) {
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: filepath.Join(root, pluginFile), Field: "name", Rule: "name-unusable",
				Message: fmt.Sprintf("%q cannot name the plugin's skills: it %s; the folder's name is used", m.Name, sources.WhyUnusable(m.Name))})
		}
		ns := firstOf(m.Name, name, filepath.Base(root))
		return []plugin{{root: root, namespace: ns, defaults: true, base: root, listed: m.Skills, listedIn: filepath.Join(root, pluginFile), field: "skills"}}, probs
	}
	if merr != nil {
		return nil, []sources.Diagnostic{jsonProblem(mpath, merr)}
	}
	if !market {
		return []plugin{{root: root, namespace: firstOf(name, filepath.Base(root)), defaults: true}}, nil
	}
	var out []plugin
	var probs []sources.Diagnostic
	for i, e := range mk.Plugins {
		if name != "" && e.Name != name {
			continue
		}
		if e.bad != nil {
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: mpath, Field: fmt.Sprintf("plugins[%d]", i), Rule: "plugin-json",
				Message: fmt.Sprintf("%s%s; it is not served (the marketplace's other plugins are)", pluginLabel(e.Name), e.bad)})
			continue
		}
		src, local := e.localSource()
		if !local {
			continue // fetched from elsewhere: not on this disk
		}
		dir := mk.dirOf(root, src)
		if _, err := os.Stat(dir); err != nil {
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: mpath, Field: fmt.Sprintf("plugins[%d].source", i), Rule: "missing-path",
				Message: fmt.Sprintf("%sfolder %s does not exist%s; its skills are not served", pluginLabel(e.Name), src, mk.underRoot())})
			continue
		}
		if len(e.Skills) > 0 {
			out = append(out, plugin{root: dir, namespace: firstOf(e.Name, filepath.Base(dir)), base: dir, listed: e.Skills, listedIn: mpath, field: fmt.Sprintf("plugins[%d].skills", i)})
			continue
		}
		if filepath.Clean(dir) == filepath.Clean(root) {
			// The marketplace's own folder, with no plugin.json: a plugin
			// of the default layout.
			out = append(out, plugin{root: root, namespace: firstOf(e.Name, name, filepath.Base(root)), defaults: true})
			continue
		}
		switch {
		case walk.onPath[filepath.Clean(dir)]:
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: mpath, Field: fmt.Sprintf("plugins[%d].source", i), Rule: "plugin-loop",
				Message: fmt.Sprintf("%sfolder %s leads back to a marketplace it is listed from; not read again", pluginLabel(e.Name), src)})
			continue
		case walk.read[filepath.Clean(dir)]:
			continue // its plugins are in the listing once already
		}
		sub, p := pluginsIn(dir, "", walk)
		probs = append(probs, p...)
		for _, pl := range sub {
			if pl.namespace == filepath.Base(dir) && e.Name != "" {
				pl.namespace = e.Name // no manifest name: the entry's name
			}
			out = append(out, pl)
		}
	}
	if name != "" && len(out) == 0 && len(probs) == 0 {
		out = append(out, plugin{root: root, namespace: name, defaults: true})
	}
	return out, probs
}

// firstOf returns the first of names usable as a namespace: a plugin's
// manifest may say anything.
func firstOf(names ...string) string {
	for _, v := range names {
		if sources.UsableName(v) {
			return strings.TrimSpace(v)
		}
	}
	return "plugin"
}

// skillFiles returns the SKILL.md files of a plugin, in order, whatever
// each is (its load says what is wrong with one that is not a file), and
// the problems of the paths it lists and of the folders that hold a
// SKILL.md in other letter cases.
func (p plugin) skillFiles() ([]string, []sources.Diagnostic) {
	var files []string
	var probs []sources.Diagnostic
	// A skill folder reached twice is one skill. Folders, not files, are
	// told apart: a SKILL.md that links to another folder's is refused
	// when loaded, and must not take the place of that folder.
	seen := map[string]bool{}
	add := func(path string) {
		real, err := filepath.EvalSymlinks(filepath.Dir(path))
		if err != nil {
			real = filepath.Dir(path)
		}
		if !seen[real] {
			seen[real] = true
			files = append(files, path)
		}
	}
	// folderOfSkills adds dir/*/SKILL.md. A SKILL.md that is not a file
	// (a link that leads nowhere, a folder) is added all the same, for its
	// load to say what is wrong, as in a folder of skills; a folder whose
	// SKILL.md is written in other letter cases is a warning.
	folderOfSkills := func(dir string) {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			f := filepath.Join(dir, e.Name(), sources.SkillFile)
			if _, err := os.Lstat(f); err == nil {
				add(f)
				continue
			}
			misnamedIn(filepath.Join(dir, e.Name()), &probs)
		}
	}
	if p.defaults {
		folderOfSkills(filepath.Join(p.root, "skills"))
	}
	for i, rel := range p.listed {
		path := filepath.Join(p.base, filepath.FromSlash(rel))
		if filepath.IsAbs(rel) || strings.HasPrefix(rel, "/") {
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: p.listedIn, Field: fmt.Sprintf("%s[%d]", p.field, i), Rule: "path-outside",
				Message: fmt.Sprintf("%q is an absolute path; list a path relative to the plugin folder, such as \"./skills/%s\"", rel, filepath.Base(rel))})
			continue
		}
		if !strings.HasPrefix(path+string(filepath.Separator), p.base+string(filepath.Separator)) {
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: p.listedIn, Field: fmt.Sprintf("%s[%d]", p.field, i), Rule: "path-outside",
				Message: fmt.Sprintf("%q points outside the plugin folder; list paths inside it", rel)})
			continue
		}
		st, err := os.Stat(path)
		switch {
		case err != nil:
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: p.listedIn, Field: fmt.Sprintf("%s[%d]", p.field, i), Rule: "missing-path",
				Message: fmt.Sprintf("plugin %q lists %q, which does not exist; that skill is not served", p.namespace, rel)})
		case st.Mode().IsRegular() && filepath.Base(path) == sources.SkillFile:
			add(path)
		case st.IsDir():
			if _, err := os.Lstat(filepath.Join(path, sources.SkillFile)); err == nil {
				add(filepath.Join(path, sources.SkillFile)) // whatever it is, its load says what is wrong
			} else if !misnamedIn(path, &probs) {
				folderOfSkills(path)
			}
		default:
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: p.listedIn, Field: fmt.Sprintf("%s[%d]", p.field, i), Rule: "missing-path",
				Message: fmt.Sprintf("%q is neither a skill folder nor a folder of skills", rel)})
		}
	}
	return files, probs
}

// listPlugins loads the skills of plugins, sorted by namespace without
// regard to case, as names are compared, so that of two plugins whose
// names differ only in case the one given first stays first, and wins;
// it counts each plugin's skills in its Package. A SKILL.md that did not
// change since the last listing is not parsed again.
func (s *Source) listPlugins(plugins []plugin, pkgs []sources.Package, touched func(dir string) bool) *sources.Listing {
	sort.SliceStable(plugins, func(i, j int) bool {
		return strings.ToLower(plugins[i].namespace) < strings.ToLower(plugins[j].namespace)
	})
	l := &sources.Listing{}
	first := map[string]int{} // the package of the first plugin of each name
	for _, p := range plugins {
		key := sources.NameKey(p.namespace)
		if j, ok := first[key]; !ok {
			first[key] = p.pkg
		} else if j != p.pkg {
			// Two plugins of one name, from two marketplaces: the one
			// sorted first wins every name they share.
			pkgs[p.pkg].Reason = fmt.Sprintf("its skills are shadowed by those of %s, a plugin of the same name", pkgs[j].Name)
			l.Problems = append(l.Problems, sources.Diagnostic{Severity: sources.Warning, Path: p.root, Rule: "plugin-name",
				Message: fmt.Sprintf("plugins %s and %s are both named %q: the skills of %s are shadowed by those of %s (skillmux list --all says how to reach them); disable one of them in Claude Code's settings",
					pkgs[j].Name, pkgs[p.pkg].Name, p.namespace, pkgs[p.pkg].Name, pkgs[j].Name)})
		}
		files, probs := p.skillFiles()
		l.Problems = append(l.Problems, probs...)
		var skills []*sources.Skill
		for _, f := range files {
			sk, err := s.cache.Load(f, sources.LoadOptions{Namespace: p.namespace, Source: s.name, Scope: sources.ScopePlugin, Convention: s.convention})
			if err != nil {
				l.Problems = append(l.Problems, sources.AsDiagnostic(f, err))
				continue
			}
			skills = append(skills, s.withFiles(f, sk, touched))
			pkgs[p.pkg].Skills++
		}
		sort.SliceStable(skills, func(i, j int) bool { return skills[i].Ref.Key() < skills[j].Ref.Key() })
		l.Skills = append(l.Skills, skills...)
	}
	return l
}

// withFiles returns sk, loaded from path, with its file list as it is
// now: a file that appears in a plugin's skill, or goes, changes the
// skill's resources, which clients are told of by comparing lists. The
// same Skill comes back while its list is the same. When the watch
// reported changes, a list made before is kept unless one is in the
// skill's folder (touched): listing every skill's folder costs a
// marketplace of a thousand skills 170 ms, and an edit of one skill
// should not.
func (s *Source) withFiles(path string, sk *sources.Skill, touched func(dir string) bool) *sources.Skill {
	if sk.Files == nil || sk.Kind == sources.KindLearned || sk.FileList != nil && !touched(sk.Dir) {
		return sk
	}
	fsys, done := sources.Pin(sk.Files)
	files, truncated, err := sources.ListFiles(fsys, sk.EntryFile())
	done()
	if err != nil {
		return sk // listed when it is read, as before
	}
	if files == nil {
		files = []string{}
	}
	if sk.FileList != nil && sk.FileListTruncated == truncated && slices.Equal(sk.FileList, files) {
		return sk
	}
	c := *sk
	c.FileList, c.FileListTruncated = files, truncated
	s.cache.Replace(path, sk, &c)
	return &c
}

// misnamedIn reports whether the folder dir holds a SKILL.md written in
// other letter cases, and adds the warning that says so to probs.
func misnamedIn(dir string, probs *[]sources.Diagnostic) bool {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if sources.MisnamedSkillFile(e.Name()) {
			*probs = append(*probs, sources.MisnamedDiagnostic(sources.Warning, filepath.Join(dir, e.Name())))
			return true
		}
	}
	return false
}

// jsonKind names, in JSON's words, what a value decoded into t must be.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Name() == "RawMessage" {
			return "a JSON value"
		}
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	case reflect.Interface:
		return "a JSON value"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "an integer"
}

// article puts "a" or "an" before a JSON kind as encoding/json names it
// ("array", "object", "number", "string", "bool"); a number it names with
// its value ("number 2.5") is that value.
func article(kind string) string {
	if n, ok := strings.CutPrefix(kind, "number "); ok {
		return n // "number 2.5": a number it could not take
	}
	switch kind {
	case "array", "object":
		return "an " + kind
	case "bool":
		return "true or false"
	}
	return "a " + kind
}

// listsOthers reports whether mk, the marketplace of root, lists a plugin
// on this disk in another folder than root.
func (mk *marketplace) listsOthers(root string) bool {
	for _, e := range mk.Plugins {
		if src, local := e.localSource(); local && filepath.Clean(mk.dirOf(root, src)) != filepath.Clean(root) {
			return true
		}
	}
	return false
}

// isDir reports whether path is a folder, links followed.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}
