package config

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/go-viper/mapstructure/v2"
	"github.com/knadh/koanf/providers/confmap"
	"github.com/knadh/koanf/v2"
)

// Source types.
const (
	TypeUser          = "user"
	TypeProject       = "project"
	TypeDir           = "dir"
	TypeClaudePlugins = "claude-plugins"
	TypePluginDir     = "plugin-dir"
	TypePlugin        = "plugin"
)

// SourceTypes lists the valid values of sources[].type.
var SourceTypes = []string{TypeUser, TypeProject, TypeDir, TypeClaudePlugins, TypePluginDir, TypePlugin}

// Config is the effective configuration. Treat it as read-only: a change
// of configuration is a new Load.
type Config struct {
	// Sources are the skill sources in precedence order.
	Sources   []Source  `koanf:"sources"`
	Defaults  Defaults  `koanf:"defaults"`
	Catalog   Catalog   `koanf:"catalog"`
	Refresh   Refresh   `koanf:"refresh"`
	Resources Resources `koanf:"resources"`
	Tools     Tools     `koanf:"tools"`
	Log       Log       `koanf:"log"`
	// Trust are the folders whose workspace files may do what only the
	// user's own files may (see Trusted); read from the user file only.
	Trust []string `koanf:"trust"`

	origins   map[string]Origin
	files     []string
	warnings  []string
	untrusted int
	setAside  string // see SetAside
}

// UntrustedSources is how many of Sources, the last ones, come from a
// workspace file the user file does not trust: they rank below every
// source of the user's own, the command line's and the built-in ones
// included, so that they cannot take the place of the user's skills.
func (c *Config) UntrustedSources() int { return c.untrusted }

// SetAsideNote ends each warning about a workspace file set aside (see
// SetAside): what becomes of it.
const SetAsideNote = " (the file is not read: a workspace file you have not trusted only adds sources, and your own configuration applies without it)"

// SetAside is the workspace file the user does not trust that was not
// read because it is invalid (its problems are among Warnings), or "".
func (c *Config) SetAside() string { return c.setAside }

// Source configures one skill source.
type Source struct {
	// Type is one of SourceTypes.
	Type string `koanf:"type"`
	// Name identifies the source in logs and in names of shadowed skills.
	Name string `koanf:"name"`
	// Path and Paths are the folders of dir and plugin-dir sources,
	// absolute after Load.
	Path  string   `koanf:"path"`
	Paths []string `koanf:"paths"`
	// Namespace qualifies the skills of a dir source.
	Namespace string `koanf:"namespace"`
	// Enabled is false to keep a source listed but unused; nil means true.
	Enabled *bool `koanf:"enabled"`
	// Include and Exclude filter skills by name with path.Match patterns.
	Include []string `koanf:"include"`
	Exclude []string `koanf:"exclude"`
	// Command is a plugin source's program and its arguments; a program
	// given as a relative path with a slash is relative to the file.
	Command []string `koanf:"command"`
	// Env is a plugin source's whole environment: skillmux's own is not
	// passed on.
	Env map[string]string `koanf:"env"`
	// Timeout bounds a plugin's start, up to its handshake, and every
	// call to it; default DefaultPluginTimeout.
	Timeout time.Duration `koanf:"timeout"`
	// Grace is how long the skills of a plugin that is down stay served;
	// 0 drops them at once; default DefaultPluginGrace.
	Grace time.Duration `koanf:"grace"`
	// Within is, for a dir source of a workspace file the user does not
	// trust, the folder of that file: its paths must lead inside it, also
	// through links made after the file was read. Set by Load, never by a
	// file.
	Within string `koanf:"-"`
}

// Defaults of plugin sources, filled in by Load when a file leaves the
// key out. A plugin source's namespace is its name unless the file says
// otherwise (an empty namespace: plain names).
const (
	DefaultPluginTimeout = 10 * time.Second
	DefaultPluginGrace   = 10 * time.Second
)

// IsEnabled reports whether the source is used.
func (s Source) IsEnabled() bool { return s.Enabled == nil || *s.Enabled }

// AllPaths returns Path and Paths together.
func (s Source) AllPaths() []string {
	var out []string
	if s.Path != "" {
		out = append(out, s.Path)
	}
	return append(out, s.Paths...)
}

// Defaults says which sources are added without being listed, and which
// skills each client is served.
type Defaults struct {
	// Builtin adds the built-in sources (user, project, claude-plugins)
	// that Sources does not list: user and project first, claude-plugins
	// last.
	Builtin bool `koanf:"builtin"`
	// Native is NativeExclude or NativeInclude. skillmux serves over MCP
	// the skills of every source, but some clients already load some of
	// those folders themselves (Claude Code loads ~/.claude/skills, the
	// project's .claude/skills and its enabled plugins; Codex loads
	// .agents/skills, ~/.agents/skills and ~/.codex/skills; the server's
	// table of clients has the rest). NativeExclude, the default, leaves
	// out for such a client the skills it loads natively, so that they are
	// not doubled in the model's context; NativeInclude serves them anyway.
	Native string `koanf:"native"`
}

// Values of Defaults.Native.
const (
	NativeExclude = "exclude"
	NativeInclude = "include"
)

// Refresh configures how the catalog follows changes on disk while the
// server runs.
type Refresh struct {
	// Watch follows file events (inotify and the like) to refresh the
	// catalog as soon as a skill or a configuration file changes.
	Watch bool `koanf:"watch"`
	// Debounce is the quiet time after a burst of changes before the
	// catalog is refreshed; a long burst ends in one refresh within 2 s
	// anyway.
	Debounce time.Duration `koanf:"debounce"`
	// Interval is the period of full rescans, the fallback for file
	// systems that deliver no events (network and some container mounts);
	// 0 turns them off.
	Interval time.Duration `koanf:"interval"`
}

// Resources configures how the files of skills are served: as MCP
// resources (skill://), through the Skills extension and through the
// skill_resource tool.
type Resources struct {
	// MaxFileSize is the largest file served, in bytes; a larger one is
	// refused with an error that says so.
	MaxFileSize int `koanf:"max_file_size"`
	// AllowDirs, when set, limits the files served to those in these
	// folders of each skill (such as "scripts", "references", "assets"),
	// besides SKILL.md; by default, or set empty ([], which lifts the
	// limit of a lower layer), every file of the skill folder is.
	AllowDirs []string `koanf:"allow_dirs"`
}

// DefaultMaxFileSize is the default of resources.max_file_size: 10 MiB.
const DefaultMaxFileSize = 10 << 20

// Catalog configures the text that lists skills to agents.
type Catalog struct {
	// Budget bounds the tool description and the instructions, in
	// characters.
	Budget int `koanf:"budget"`
	// Pin lists patterns (path.Match, without regard to case) of qualified
	// names whose skills come first in the catalog.
	Pin []string `koanf:"pin"`
	// Visibility maps patterns of qualified names to how their skills are
	// shown: VisibilityOn, VisibilityNameOnly or VisibilityOff. A file
	// writes it as a map; it is kept as a list sorted by pattern, so that
	// a pattern with a dot stays one key. A higher layer replaces it whole.
	Visibility []VisibilityRule `koanf:"visibility"`
	// Channel is where the catalog goes: ChannelBoth, ChannelTool or
	// ChannelInstructions.
	Channel string `koanf:"channel"`
}

// VisibilityRule is one entry of catalog.visibility.
type VisibilityRule struct {
	Pattern string `koanf:"pattern"`
	Value   string `koanf:"value"`
}

// VisibilityMap returns the rules as a map, pattern to value.
func (c Catalog) VisibilityMap() map[string]string {
	m := make(map[string]string, len(c.Visibility))
	for _, r := range c.Visibility {
		m[r.Pattern] = r.Value
	}
	return m
}

// Values of Catalog.Visibility's rules.
const (
	VisibilityOn       = "on"
	VisibilityNameOnly = "name-only"
	VisibilityOff      = "off"
)

// VisibilityValues lists them.
var VisibilityValues = []string{VisibilityOn, VisibilityNameOnly, VisibilityOff}

// Values of Catalog.Channel.
const (
	ChannelBoth         = "both"
	ChannelTool         = "tool"
	ChannelInstructions = "instructions"
)

// Channels lists them.
var Channels = []string{ChannelBoth, ChannelTool, ChannelInstructions}

// Tools chooses the MCP tools served.
type Tools struct {
	// Profile is one of ToolProfiles: a set of tools named as a known
	// skill server names them.
	Profile string `koanf:"profile"`
	// Enable adds tools to the profile's; Disable removes some.
	Enable  []string `koanf:"enable"`
	Disable []string `koanf:"disable"`
}

// ToolProfiles are the values of tools.profile, and ToolNames those of
// tools.enable and tools.disable: the server's profiles and tools (the
// server package defines them; a test checks that the lists agree).
var (
	ToolProfiles = []string{"all", "catalog", "default", "sk", "skill-jack", "skills-mcp"}
	ToolNames    = []string{
		"check_skill_exists", "cite_skill", "execute_skill_script", "get_skill_resource", "search_skills", "skill",
		"skill-resource", "skill_resource", "skills.list", "skills.search", "skills_list", "skills_search", "suggest_skills",
	}
)

// Log configures the logs on stderr.
type Log struct {
	Level  string `koanf:"level"`  // debug, info, warn or error
	Format string `koanf:"format"` // text or json
}

// Origin says where a value came from.
type Origin struct {
	// Layer is "default", "user file", "workspace file", "config file",
	// "env" or "flag".
	Layer string
	// File is the file, the environment variable or the flag.
	File string
	// Line is the line in File, when known.
	Line int
}

func (o Origin) String() string {
	switch {
	case o.Line > 0:
		return fmt.Sprintf("%s %s:%d", o.Layer, o.File, o.Line)
	case o.File != "":
		return o.Layer + " " + o.File
	}
	return o.Layer
}

// Options says where to look. A nil *Options means the process's own
// working folder, home folder and environment.
type Options struct {
	// WorkDir is where the workspace file search starts; default the
	// working folder.
	WorkDir string
	// Home is the home folder; default $HOME of Env. One that is not an
	// absolute path is none: no user file is read, and ~ is refused.
	Home string
	// Env is the environment as KEY=VALUE; default os.Environ.
	Env []string
	// ConfigFile replaces the workspace file search; it must exist. A
	// relative path is relative to WorkDir.
	ConfigFile string
	// NoWorkspace leaves the workspace file out: the configuration of the
	// user's own files, environment and flags alone.
	NoWorkspace bool
	// AlsoServes are the other folders (the client's other roots) whose
	// project skills are served with this configuration: the workspace
	// file is trusted only when each of them is trusted too, since its
	// sources' order ranks their skills as well.
	AlsoServes []string
	// Flags are values given on the command line.
	Flags []FlagValue
}

// Defaults of the built-in layer.
var defaults = map[string]any{
	"defaults.builtin":        true,
	"defaults.native":         NativeExclude,
	"catalog.budget":          2048,
	"catalog.channel":         ChannelBoth,
	"tools.profile":           "default",
	"refresh.watch":           true,
	"refresh.debounce":        "200ms",
	"refresh.interval":        "30s",
	"resources.max_file_size": DefaultMaxFileSize,
	"log.level":               "info",
	"log.format":              "text",
}

// Load reads every layer, checks each alone, merges them and decodes the
// result. The error, if any, holds every problem of every layer, a layer
// at a time from the lowest, each file's first line first; each problem
// names the file (or variable, or flag), the line where known, the key and
// what would be right.
func Load(opts *Options) (*Config, error) {
	o, err := fill(opts)
	if err != nil {
		return nil, err
	}
	k := koanf.New(".")
	origins := map[string]Origin{}
	k.Load(confmap.Provider(defaults, "."), nil)
	for key := range defaults {
		origins[key] = Origin{Layer: "default"}
	}
	var files []string
	var errs []error
	layers := []struct{ layer, path string }{{"user file", UserFile(o.Home, o.env)}}
	if o.ConfigFile != "" {
		if p := absFrom(o.WorkDir, o.ConfigFile); !sameFile(p, layers[0].path) {
			layers = append(layers, struct{ layer, path string }{"config file", p})
		}
		// else the user file given with --config: read once, as the
		// user file, so that each problem is told once.
	} else if ws := WorkspaceFile(o.WorkDir); ws != "" && !o.NoWorkspace {
		layers = append(layers, struct{ layer, path string }{"workspace file", ws})
	}
	var warnings []string
	var setAside error // the problems of an untrusted workspace file, not read
	setAsideAt := 0    // where they go among errs
	setAsidePath := "" // and the file
	untrusted := 0     // the sources, last of the list, of an untrusted workspace file
	untrustedDir := "" // and its folder
	userFile := layers[0].path
	if o.Home == "" {
		what := "your skill folders and your Claude Code plugins are"
		if userFile == "" {
			userFile, what = "(none: no home folder is known)", "your user file, your skill folders and your Claude Code plugins are"
		}
		warnings = append(warnings, "no home folder is known (HOME is not an absolute path, or is not set and the system names none for the account): "+what+" not read")
	}
	for _, l := range layers {
		if l.path == "" {
			continue // no user file: no home folder is known
		}
		fk, fo, err := loadFile(l.path, l.layer, o.Home)
		if errors.Is(err, os.ErrNotExist) && l.layer == "user file" {
			continue
		}
		trusted := l.layer != "workspace file" || o.trusts(filepath.Dir(l.path), k.Strings("trust"))
		if err != nil && !trusted {
			// Refused whole, it would stop every command: an untrusted
			// file only adds sources, and a repository must not decide
			// whether the user's own skills are served. Its problems
			// are told all the same, and are errors among others when
			// the configuration fails anyway.
			setAside, setAsideAt, setAsidePath = err, len(errs), l.path
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if l.layer != "user file" && fk.Exists("trust") {
			e := &Error{File: l.path, Line: fo["trust"].Line, Key: "trust", Message: "ignored: only your user file " + userFile + " can trust a folder"}
			warnings = append(warnings, e.Error())
			fk.Delete("trust")
			delete(fo, "trust")
		}
		if !trusted {
			w, n := confine(k, fk, fo, origins, l.path, userFile, o.untrusted(filepath.Dir(l.path), k.Strings("trust")))
			warnings, untrusted, untrustedDir = append(warnings, w...), n, filepath.Dir(l.path)
		}
		k.Merge(fk)
		replaceOrigins(origins, fo)
		files = append(files, l.path)
	}
	ek, eo, envWarnings, err := loadEnv(o.env)
	warnings = append(warnings, envWarnings...)
	if err != nil {
		errs = append(errs, err)
	}
	k.Merge(ek)
	replaceOrigins(origins, eo)
	fk, fo, err := loadFlags(o.Flags)
	if err != nil {
		errs = append(errs, err)
	}
	k.Merge(fk)
	replaceOrigins(origins, fo)
	if setAside != nil && len(errs) > 0 {
		errs = slices.Insert(errs, setAsideAt, setAside) // in layer order
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if setAside != nil {
		for _, line := range strings.Split(setAside.Error(), "\n") {
			warnings = append(warnings, line+SetAsideNote)
		}
	}

	// Every value has been checked in its layer and the defaults are
	// valid, so the merge is valid too; decoding only moves it into c.
	c := &Config{origins: origins, files: files, warnings: warnings, untrusted: untrusted, setAside: setAsidePath}
	if err := decode(k, c); err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	for i := len(c.Sources) - untrusted; i < len(c.Sources); i++ {
		c.Sources[i].Within = untrustedDir
	}
	return c, nil
}

// CheckFile checks one configuration file alone, as Load checks each
// file, and returns every problem found, first line first. It reads opts
// as Load does, but only WorkDir (against which a relative path is taken)
// and Home (which ~ in the file's paths stands for) matter; a nil opts
// means the process's own.
func CheckFile(path string, opts *Options) error {
	o, err := fill(opts)
	if err != nil {
		return err
	}
	_, _, err = loadFile(absFrom(o.WorkDir, path), "config file", o.Home)
	return err
}

// decode fills c from k, refusing any key the struct does not have: the
// schema check has already named such keys with their lines, so this is a
// safety net for keys from other layers.
func decode(k *koanf.Koanf, c *Config) error {
	return k.UnmarshalWithConf("", c, koanf.UnmarshalConf{DecoderConfig: &mapstructure.DecoderConfig{
		Result:      c,
		TagName:     "koanf",
		ErrorUnused: true,
		DecodeHook:  mapstructure.StringToTimeDurationHookFunc(),
	}})
}

// replaceOrigins records a layer's keys; a list set by the layer drops the
// origins of the elements it replaced.
func replaceOrigins(dst, src map[string]Origin) {
	for k := range src {
		if !strings.Contains(k, "[") {
			prefix := k + "["
			for old := range dst {
				if strings.HasPrefix(old, prefix) {
					delete(dst, old)
				}
			}
		}
	}
	for k, v := range src {
		dst[k] = v
	}
}

type filled struct {
	Options
	env []string
}

// untrusted returns, of dir (a workspace file's folder) and the other
// folders served with it (Options.AlsoServes), those that trust, the
// user file's, does not cover.
func (o *filled) untrusted(dir string, trust []string) []string {
	var out []string
	for _, d := range append([]string{dir}, o.AlsoServes...) {
		if !Trusted(d, trust) && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

// trusts reports whether trust trusts the workspace file in dir, for
// every folder it serves.
func (o *filled) trusts(dir string, trust []string) bool { return len(o.untrusted(dir, trust)) == 0 }

// sameFile reports whether paths a and b name one file that exists.
func sameFile(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// absFrom makes p absolute against dir, which fill has made absolute.
func absFrom(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

func fill(opts *Options) (*filled, error) {
	var o filled
	if opts != nil {
		o.Options = *opts
	}
	var err error
	if o.WorkDir == "" {
		if o.WorkDir, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	if o.WorkDir, err = filepath.Abs(o.WorkDir); err != nil {
		return nil, err
	}
	o.env = o.Env
	if o.env == nil {
		o.env = os.Environ()
	}
	if o.Home == "" {
		o.Home = lookup(o.env, "HOME")
	}
	if !filepath.IsAbs(o.Home) {
		o.Home = "" // a relative one would be the working folder's
	}
	return &o, nil
}

// UserFile is the user's configuration file, whether it exists or not:
// $XDG_CONFIG_HOME/skillmux/config.yaml, else
// ~/.config/skillmux/config.yaml. It is "" when neither folder is an
// absolute path (the XDG specification says to ignore a relative one):
// a relative path would be the working folder's, a repository's file
// taken for the user's own, which may start programs.
func UserFile(home string, env []string) string {
	if x := lookup(env, "XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "skillmux", "config.yaml")
	}
	if !filepath.IsAbs(home) {
		return ""
	}
	return filepath.Join(home, ".config", "skillmux", "config.yaml")
}

// CacheDir is the folder where skillmux keeps what it can compute again:
// $XDG_CACHE_HOME/skillmux, else ~/.cache/skillmux; "" (no cache) when
// neither is an absolute path.
func CacheDir(home string, env []string) string {
	if x := lookup(env, "XDG_CACHE_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "skillmux")
	}
	if !filepath.IsAbs(home) {
		return ""
	}
	return filepath.Join(home, ".cache", "skillmux")
}

// WorkspaceFileName is the name of the workspace configuration file.
const WorkspaceFileName = ".skillmux.yaml"

// WorkspaceFile returns the nearest .skillmux.yaml from dir up to the
// repository root (the nearest folder holding .git), or "" when there is
// none. Outside a repository only dir itself is looked at. Whatever has
// the name counts, so that a link that leads nowhere or a folder is an
// error that names it, not a workspace without configuration.
func WorkspaceFile(dir string) string {
	for _, f := range WorkspaceFiles(dir) {
		if _, err := os.Lstat(f); err == nil {
			return f
		}
	}
	return ""
}

// WorkspaceFiles returns the places WorkspaceFile looks at for dir,
// nearest first: a file made at any of them is the workspace's (when no
// nearer one exists).
func WorkspaceFiles(dir string) []string {
	top := dir
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			top = d
			break
		}
		if d == filepath.Dir(d) {
			break
		}
	}
	var files []string
	for d := dir; ; d = filepath.Dir(d) {
		files = append(files, filepath.Join(d, WorkspaceFileName))
		if d == top || d == filepath.Dir(d) {
			return files
		}
	}
}

func lookup(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// Origin returns where the value of a dotted key ("catalog.budget",
// "sources[1].path") came from. A value not set where it is comes with
// the value above it ("sources[1].paths[0]" with "sources[1].paths"),
// except a field of a list's item: one that its item leaves out, such as a
// plugin's timeout, is a default.
func (c *Config) Origin(key string) Origin {
	if o, ok := c.origins[key]; ok {
		return o
	}
	if i := strings.LastIndexAny(key, ".["); i > 0 && !(key[i] == '.' && strings.HasSuffix(key[:i], "]")) {
		return c.Origin(key[:i])
	}
	return Origin{Layer: "default"}
}

// Files returns the configuration files that were read, lowest layer
// first.
func (c *Config) Files() []string { return slices.Clone(c.files) }

// Warnings returns what Load found odd but did not refuse, one sentence
// each, naming the file and line or the variable: SKILLMUX_ variables
// that are not settings, and what an untrusted workspace file may not do.
func (c *Config) Warnings() []string { return slices.Clone(c.warnings) }

// Describe renders the effective configuration as YAML, each value
// followed by a comment that says where it came from: read back as a
// configuration file, it means the same, but for the environment of
// plugin sources, whose values it does not show.
func (c *Config) Describe() string {
	var b strings.Builder
	line := func(indent, text, key string) {
		fmt.Fprintf(&b, "%-44s # %s\n", indent+text, c.Origin(key))
	}
	if len(c.files) == 0 {
		b.WriteString("# no configuration file; built-in defaults\n")
	}
	for _, f := range c.files {
		fmt.Fprintf(&b, "# read %s\n", show(f))
	}
	if len(c.Sources) == 0 {
		line("", "sources: []", "sources")
	} else {
		b.WriteString("sources:\n")
	}
	for i, s := range c.Sources {
		key := fmt.Sprintf("sources[%d]", i)
		line("  - ", "type: "+s.Type, key+".type")
		if s.Name != "" {
			line("    ", "name: "+show(s.Name), key+".name")
		}
		if s.Path != "" {
			line("    ", "path: "+show(s.Path), key+".path")
		}
		if len(s.Paths) > 0 {
			// A list of its own, an element a line: each has its origin,
			// and the output stays a configuration skillmux reads back.
			line("    ", "paths:", key+".paths")
			for j, p := range s.Paths {
				line("      ", "- "+show(p), fmt.Sprintf("%s.paths[%d]", key, j))
			}
		}
		if s.Namespace != "" {
			line("    ", "namespace: "+s.Namespace, key+".namespace")
		}
		if s.Enabled != nil {
			line("    ", fmt.Sprintf("enabled: %v", *s.Enabled), key+".enabled")
		}
		if len(s.Include) > 0 {
			line("    ", "include: "+showList(s.Include), key+".include")
		}
		if len(s.Exclude) > 0 {
			line("    ", "exclude: "+showList(s.Exclude), key+".exclude")
		}
		if s.Type == TypePlugin {
			if s.Namespace == "" {
				line("    ", `namespace: ""`, key+".namespace")
			}
			line("    ", "command: "+showList(s.Command), key+".command")
			if len(s.Env) > 0 {
				// A comment, not a key: the values may be secrets, and a
				// map without them would not mean the same.
				line("    ", "# env: "+showList(sortedKeys(s.Env))+" (values not shown)", key+".env")
			}
			line("    ", "timeout: "+s.Timeout.String(), key+".timeout")
			line("    ", "grace: "+s.Grace.String(), key+".grace")
		}
	}
	b.WriteString("defaults:\n")
	line("  ", fmt.Sprintf("builtin: %v", c.Defaults.Builtin), "defaults.builtin")
	line("  ", "native: "+c.Defaults.Native, "defaults.native")
	b.WriteString("catalog:\n")
	line("  ", fmt.Sprintf("budget: %d", c.Catalog.Budget), "catalog.budget")
	// Lists and maps left empty are shown too, so that every key can be
	// found here.
	line("  ", "pin: "+showList(c.Catalog.Pin), "catalog.pin")
	if len(c.Catalog.Visibility) == 0 {
		line("  ", "visibility: {}", "catalog.visibility")
	} else {
		b.WriteString("  visibility:\n")
		for _, r := range c.Catalog.Visibility {
			line("    ", show(r.Pattern)+": "+r.Value, "catalog.visibility."+keyLabel(r.Pattern))
		}
	}
	line("  ", "channel: "+c.Catalog.Channel, "catalog.channel")
	b.WriteString("refresh:\n")
	line("  ", fmt.Sprintf("watch: %v", c.Refresh.Watch), "refresh.watch")
	line("  ", "debounce: "+c.Refresh.Debounce.String(), "refresh.debounce")
	line("  ", "interval: "+c.Refresh.Interval.String(), "refresh.interval")
	b.WriteString("resources:\n")
	line("  ", fmt.Sprintf("max_file_size: %d", c.Resources.MaxFileSize), "resources.max_file_size")
	line("  ", "allow_dirs: "+showList(c.Resources.AllowDirs), "resources.allow_dirs")
	b.WriteString("log:\n")
	line("  ", "level: "+c.Log.Level, "log.level")
	line("  ", "format: "+c.Log.Format, "log.format")
	b.WriteString("tools:\n")
	line("  ", "profile: "+c.Tools.Profile, "tools.profile")
	line("  ", "enable: "+showList(c.Tools.Enable), "tools.enable")
	line("  ", "disable: "+showList(c.Tools.Disable), "tools.disable")
	line("", "trust: "+showList(c.Trust), "trust")
	return b.String()
}

// show renders a string for Describe: as is when YAML would read it back
// unchanged on one line, else quoted.
func show(s string) string {
	if s == "" || strings.TrimSpace(s) != s || strings.ContainsFunc(s, unicode.IsControl) ||
		strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@`") || strings.Contains(s, ": ") || strings.Contains(s, " #") {
		return strconv.Quote(s)
	}
	return s
}

func showList(list []string) string {
	out := make([]string, len(list))
	for i, s := range list {
		if out[i] = show(s); out[i] == s && strings.ContainsAny(s, ",[]{}") {
			out[i] = strconv.Quote(s) // would split or end the flow list
		}
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
