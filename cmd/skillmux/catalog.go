package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/skillmux/skillmux/config"
	"github.com/skillmux/skillmux/plugins"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/claudeplugins"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/project"
	"github.com/skillmux/skillmux/sources/user"
)

// catalogFlags are the flags of every command that reads the catalog.
type catalogFlags struct {
	roots      []string
	pluginDirs []string
	configFile string
	logLevel   string
	logFormat  string
	noBuiltin  bool
}

func (f *catalogFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.StringArrayVar(&f.roots, "root", nil, "a folder of skills to serve besides the built-in sources (repeatable, in precedence order); default $SKILLS_DIR")
	fl.StringArrayVar(&f.pluginDirs, "plugin-dir", nil, "a Claude Code plugin folder (or marketplace folder) to serve (repeatable)")
	fl.StringVar(&f.configFile, "config", "", "configuration file to use instead of the workspace's .skillmux.yaml")
	fl.StringVar(&f.logLevel, "log-level", "", "log level on stderr: debug, info, warn or error")
	fl.StringVar(&f.logFormat, "log-format", "", "log format on stderr: text, or json for one JSON object per line")
	fl.BoolVar(&f.noBuiltin, "no-builtin", false, "serve only the sources named in the configuration and on the command line, not the user, project and Claude Code plugin sources")
}

// checkEmpty refuses a flag given an empty value: left as it is, an empty
// path would be the working folder, which a client may have set to / or
// the home folder, and an empty setting would quietly be the default (a
// variable the shell left unset, as in --config "$F").
func (f *catalogFlags) checkEmpty(cmd *cobra.Command) error {
	for _, r := range f.roots {
		if strings.TrimSpace(r) == "" {
			return usageError("--root (or a folder argument) is empty; give a folder of skills, such as --root ~/skills")
		}
	}
	for _, d := range f.pluginDirs {
		if strings.TrimSpace(d) == "" {
			return usageError("--plugin-dir is empty; give a Claude Code plugin folder (or a marketplace folder), such as --plugin-dir ~/src/my-claude-plugin")
		}
	}
	for _, fl := range []struct{ name, right string }{
		{"config", "give a configuration file, such as --config .skillmux.yaml"},
		{"log-level", "use debug, info, warn or error"},
		{"log-format", "use text or json"},
	} {
		if cmd.Flags().Changed(fl.name) && strings.TrimSpace(cmd.Flags().Lookup(fl.name).Value.String()) == "" {
			return usageError("--%s is empty; %s", fl.name, fl.right)
		}
	}
	return nil
}

// flagValues turns the flags that override configuration keys into the
// configuration's flag layer.
func (f *catalogFlags) flagValues(cmd *cobra.Command) []config.FlagValue {
	var out []config.FlagValue
	if f.logLevel != "" {
		out = append(out, config.FlagValue{Key: "log.level", Flag: "--log-level", Value: f.logLevel})
	}
	if f.logFormat != "" {
		out = append(out, config.FlagValue{Key: "log.format", Flag: "--log-format", Value: f.logFormat})
	}
	if f.noBuiltin {
		out = append(out, config.FlagValue{Key: "defaults.builtin", Flag: "--no-builtin", Value: "false"})
	}
	if fl := cmd.Flags().Lookup("budget"); fl != nil && fl.Changed {
		out = append(out, config.FlagValue{Key: "catalog.budget", Flag: "--budget", Value: fl.Value.String()})
	}
	return out
}

// configPath returns the absolute path of --config, taken relative to
// the working folder, or "" without it. A leading ~ is the home folder,
// as for --root: clients pass arguments without a shell.
func (f *catalogFlags) configPath(e *env) string {
	if f.configFile == "" {
		return ""
	}
	return absFrom(e.workdir, expandHome(f.configFile, e.home()))
}

// rootDirs returns the extra folders to scan: --root, else SKILLS_DIR
// (paths separated by the OS list separator or commas).
func (f *catalogFlags) rootDirs(e *env) []string {
	if len(f.roots) > 0 {
		return f.roots
	}
	var dirs []string
	for _, part := range strings.Split(e.getenv("SKILLS_DIR"), string(os.PathListSeparator)) {
		for _, d := range strings.Split(part, ",") {
			if d = strings.TrimSpace(d); d != "" {
				dirs = append(dirs, d)
			}
		}
	}
	return dirs
}

// setup is what every catalog command starts from: the configuration,
// the logger it asks for, and the plan of sources.
type setup struct {
	cfg    *config.Config
	logger *slog.Logger
	// level is the logger's: a running server sets it anew when an
	// edit changes log.level.
	level *slog.LevelVar
	plan  *plan
	// hints explain, by absolute path, folders given as relative paths.
	hints map[string]string
	res   *resolver.Resolver // once loadCatalog opened it
}

// newSetup loads the configuration of the workspace folder (e.workdir,
// or the client's first root); an invalid one is exit status 2, and
// nothing starts half-configured. The paths of the command line are
// relative to e.workdir, whatever the workspace: the client's roots do
// not move what the server was started with. Commands other than serve
// print results and human sentences, not logs, unless --log-level asks
// for them; serve logs, and its folder trees follow changes as refresh
// configures.
func newSetup(cmd *cobra.Command, e *env, f *catalogFlags, workspace string, serving bool) (*setup, error) {
	return newSetupWith(cmd, e, f, &config.Options{WorkDir: workspace}, serving)
}

// configOptions are the options of a configuration load for o.WorkDir,
// with o's NoWorkspace and AlsoServes.
func (e *env) configOptions(cmd *cobra.Command, f *catalogFlags, o *config.Options) *config.Options {
	return &config.Options{WorkDir: o.WorkDir, Home: e.home(), Env: e.environ, ConfigFile: f.configPath(e), Flags: f.flagValues(cmd), NoWorkspace: o.NoWorkspace, AlsoServes: o.AlsoServes}
}

// newSetupWith is newSetup with the configuration read as o says (its
// WorkDir is the workspace); the rest of o is filled from e and f.
func newSetupWith(cmd *cobra.Command, e *env, f *catalogFlags, o *config.Options, serving bool) (*setup, error) {
	workspace := o.WorkDir
	if err := f.checkEmpty(cmd); err != nil {
		return nil, err
	}
	cfg, err := config.Load(e.configOptions(cmd, f, o))
	if err != nil {
		return nil, &exitError{code: 2, err: fmt.Errorf("invalid configuration:\n%w", err)}
	}
	return setupOf(e, f, cfg, workspace, serving), nil
}

// setupOf is the setup of the configuration cfg, loaded for workspace.
func setupOf(e *env, f *catalogFlags, cfg *config.Config, workspace string, serving bool) *setup {
	level := new(slog.LevelVar)
	level.UnmarshalText([]byte(cfg.Log.Level))
	logger := newLogger(e.stderr, level, cfg.Log.Format)
	if !serving && f.logLevel == "" {
		logger = slog.New(slog.DiscardHandler)
	}
	// serve logs them once at start, not at every reload. The other
	// commands print them, or log them when asked for logs: at the level
	// and in the format asked for.
	sayWarning := func(w string) { fmt.Fprintln(e.stderr, "warning:", w) }
	if !serving && f.logLevel != "" {
		sayWarning = func(w string) { logger.Warn(w) }
	}
	if !serving {
		for _, w := range cfg.Warnings() {
			sayWarning(w)
		}
	}
	given := f.rootDirs(e)
	p := &plan{cfg: cfg, home: e.home(), codexHome: e.getenv("CODEX_HOME"), claudeDir: e.getenv("CLAUDE_CONFIG_DIR"), workdir: workspace}
	// A relative one would be the working folder's: the default (~/.codex,
	// ~/.claude) stands.
	if !filepath.IsAbs(p.codexHome) {
		p.codexHome = ""
	}
	if !filepath.IsAbs(p.claudeDir) {
		p.claudeDir = ""
	}
	if serving {
		// A watched tree answers its first listing without looking inside
		// skill folders, and its watcher completes the picture.
		p.trees = dirtree.Options{Defer: cfg.Refresh.Watch, Debounce: cfg.Refresh.Debounce, Logger: logger, CacheDir: config.CacheDir(e.home(), e.environ)}
		if cfg.Refresh.Watch {
			// Only a watched plugin tells the catalog when it answers
			// late; without, its skills would wait for a rescan.
			p.pluginFirstWait = pluginFirstWait
		}
	}
	p.logger = logger
	p.warn = func(w string) { logger.Warn(w) }
	if !serving {
		p.warn = sayWarning
	}
	for _, r := range given {
		p.roots = append(p.roots, absFrom(e.workdir, expandHome(r, e.home())))
	}
	for _, d := range f.pluginDirs {
		p.pluginDirs = append(p.pluginDirs, absFrom(e.workdir, expandHome(d, e.home())))
	}
	return &setup{cfg: cfg, logger: logger, level: level, plan: p, hints: relativeHints(slices.Concat(given, f.pluginDirs), e.workdir)}
}

// loadCatalog is what list and show start with: the configuration, then
// the catalog as the server would serve it. Unless the caller prints them
// itself (report false), the problems found go to stderr as sentences.
func loadCatalog(cmd *cobra.Command, e *env, f *catalogFlags, report bool) (*resolver.Snapshot, *setup, error) {
	s, err := newSetup(cmd, e, f, e.workdir, false)
	if err != nil {
		return nil, nil, err
	}
	res, err := s.openCatalog(cmd.Context())
	if err != nil {
		return nil, nil, err
	}
	s.res = res
	if report {
		reportProblems(e.stderr, res.Snapshot(), s.hints)
	}
	return res.Snapshot(), s, nil
}

// Close releases what the sources hold (source plugins' processes) once a
// command is done with the catalog.
func (s *setup) Close() {
	if s.res != nil {
		s.res.Close()
	}
}

// openCatalog builds the resolver over the planned sources for the
// working folder and loads the first snapshot.
func (s *setup) openCatalog(ctx context.Context) (*resolver.Resolver, error) {
	res := resolver.New(s.plan.sources([]string{s.plan.workdir}), &resolver.Options{Logger: s.logger})
	if _, err := res.Reload(ctx); err != nil {
		res.Close() // a plugin started meanwhile ends
		return nil, err
	}
	return res, nil
}

// plan turns the configuration and the flags into sources for a given
// set of workspace folders; the workspace changes when a client declares
// its roots.
type plan struct {
	cfg        *config.Config
	home       string
	codexHome  string
	claudeDir  string // $CLAUDE_CONFIG_DIR, Claude Code's folder in place of ~/.claude
	workdir    string
	roots      []string        // --root or SKILLS_DIR
	pluginDirs []string        // --plugin-dir
	trees      dirtree.Options // the base of every folder tree's options
	// pluginFirstWait bounds the first listing of a source plugin
	// (plugins.Options.FirstWait): a watching serve's, so that one slow
	// to start holds up no client's first answer; 0 for the commands
	// that list once, and for a serve that does not watch (nothing would
	// tell it when the plugin answers).
	pluginFirstWait time.Duration
	// logger receives the life of source plugins and what they log,
	// under every command: `list --log-level debug` is how an author
	// sees a plugin at work.
	logger *slog.Logger
	// reuse are the sources an earlier plan built, by sourceKey, which
	// sources takes rather than build them again; built are those it
	// made or took last.
	reuse, built map[string]sources.Source
	// warned are the warnings of sourceNames already said, which a plan
	// made after it for the same server takes over.
	warned map[string]bool
	// warn says what in the configuration was not taken as written, as
	// the configuration's own warnings are said: printed by list and
	// show, logged by serve.
	warn func(string)
}

// specs returns the source configurations in precedence order: the
// configured ones, with the built-in ones they do not name (user first,
// project just after the user source, wherever the configuration puts it,
// so that the user's own skills win over the project's; claude-plugins
// after the others), and the command line's roots and plugin folders; last,
// the sources of a workspace file the user does not trust, which outrank
// none of the user's.
func (p *plan) specs() []config.Source {
	own := p.cfg.Sources[:len(p.cfg.Sources)-p.cfg.UntrustedSources()]
	theirs := p.cfg.Sources[len(own):]
	named := map[string]bool{} // by the user: an untrusted file's sources name no built-in one away
	for _, s := range own {
		named[s.Type] = true
	}
	var out []config.Source
	builtin := p.cfg.Defaults.Builtin
	if builtin && !named[config.TypeUser] {
		out = append(out, config.Source{Type: config.TypeUser})
	}
	for _, s := range own {
		if s.IsEnabled() {
			out = append(out, s)
		}
	}
	if builtin && !named[config.TypeProject] {
		at := 1 + slices.IndexFunc(out, func(s config.Source) bool { return s.Type == config.TypeUser })
		out = slices.Insert(out, at, config.Source{Type: config.TypeProject})
	}
	for _, r := range p.roots {
		out = append(out, config.Source{Type: config.TypeDir, Path: r})
	}
	if len(p.pluginDirs) > 0 {
		out = append(out, config.Source{Type: config.TypePluginDir, Paths: p.pluginDirs})
	}
	if builtin && !named[config.TypeClaudePlugins] {
		out = append(out, config.Source{Type: config.TypeClaudePlugins})
	}
	for _, s := range theirs {
		if s.IsEnabled() {
			out = append(out, s)
		}
	}
	return out
}

// sources builds the sources for the workspace folders. A source of
// p.reuse built from the same configuration, for the same folders if it
// depends on them, is taken as it is: a change of the client's roots or of
// a configuration file keeps the sources it does not touch, with their
// scans, watches and plugin processes. p.built records the sources made.
func (p *plan) sources(workspaces []string) []sources.Source {
	var out []sources.Source
	projects := projectDirs(workspaces)
	specs := p.specs()
	names := p.sourceNames(specs)
	p.built = map[string]sources.Source{}
	for i, spec := range specs {
		name := names[i]
		key := p.sourceKey(spec, name, workspaces, projects)
		if src, ok := p.reuse[key]; ok {
			p.built[key] = src
			out = append(out, src)
			continue
		}
		var src sources.Source
		switch spec.Type {
		case config.TypeUser:
			if p.home == "" {
				continue // no home folder is known, which config has said
			}
			src = user.New(p.home, &user.Options{Name: name, CodexHome: p.codexHome, ClaudeDir: p.claudeDir, Trees: p.trees})
		case config.TypeProject:
			src = project.New(workspaces, &project.Options{Name: name, Home: p.home, ClaudeDir: p.claudeDir, Trees: p.trees})
		case config.TypeClaudePlugins:
			if p.home == "" {
				continue
			}
			src = claudeplugins.Installed(p.home, &claudeplugins.Options{Name: name, ProjectDirs: projects, Debounce: p.trees.Debounce, Logger: p.trees.Logger, ConfigDir: p.claudeDir})
		case config.TypePluginDir:
			src = claudeplugins.Dirs(spec.AllPaths(), &claudeplugins.Options{Name: name, ProjectDirs: projects, Debounce: p.trees.Debounce, Logger: p.trees.Logger})
		case config.TypeDir:
			var trees []sources.Source
			for _, dir := range spec.AllPaths() {
				o := p.trees
				o.Name, o.Namespace, o.Within = name, spec.Namespace, spec.Within
				trees = append(trees, dirtree.New(dir, &o))
			}
			src = sources.Concat(name, trees...)
		case config.TypePlugin:
			ns := spec.Namespace
			if ns == spec.Name {
				// Its skills' namespace is its name, which may have had
				// to change: a plugin named project serves project-2:pdf,
				// not the built-in project source's project:pdf.
				ns = name
			}
			ps, err := plugins.New(name, spec.Command, &plugins.Options{
				Env: spec.Env, Namespace: ns, PlainNames: ns == "",
				Timeout: spec.Timeout, Grace: pluginGrace(spec.Grace), FirstWait: p.pluginFirstWait, HostVersion: version(), Logger: p.logger,
				CacheDir: pluginCacheDir(p.trees.CacheDir),
			})
			if err != nil {
				continue // config has refused a plugin without a command already
			}
			src = ps
		default:
			continue // config has refused other types already
		}
		src = sources.Filter(src, spec.Include, spec.Exclude)
		p.built[key] = src
		out = append(out, src)
	}
	return out
}

// sourceKey identifies what a source is built from: its configuration,
// its name, the settings of folder trees (but Defer, which decides only
// how the first listing is made), and the workspace folders (or their
// repositories) for the sources that serve them.
func (p *plan) sourceKey(spec config.Source, name string, workspaces, projects []string) string {
	var depends []string
	switch spec.Type {
	case config.TypeProject:
		depends = workspaces
	case config.TypeClaudePlugins, config.TypePluginDir:
		depends = projects
	}
	conf, _ := json.Marshal(spec) // plain data: it cannot fail
	return fmt.Sprintf("%s\x00%s\x00%q\x00%v %q", conf, name, depends, p.trees.Debounce, p.trees.CacheDir)
}

// pluginFirstWait is how long serve waits for a source plugin's first
// listing before it answers a client without the plugin's skills, which
// come with a list_changed once the plugin answers: clients give a server
// a few seconds to start (Codex 10 by default), and one plugin slow to
// start must not cost every other skill.
const pluginFirstWait = 3 * time.Second

// pluginCacheDir is where plugin skills are copied: in skillmux's cache
// folder, as the parse cache is; "" (the plugins default) without one.
func pluginCacheDir(cache string) string {
	if cache == "" {
		return ""
	}
	return filepath.Join(cache, "plugin-skills")
}

// pluginGrace turns a plugin source's grace, where 0 means none, into
// plugins.Options.Grace, where a negative value does.
func pluginGrace(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// projectDirs are the folders whose .claude settings and installs are
// the project's: each workspace folder's repository root, then the
// folder itself when it is below it, since Claude Code started there reads
// that folder's (and installs for a project there), the nearer last.
func projectDirs(workspaces []string) []string {
	var out []string
	for _, ws := range workspaces {
		for _, d := range []string{project.RepoRoot(ws), ws} {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

func sourceName(s config.Source) string {
	if s.Name != "" {
		return s.Name
	}
	if s.Type == config.TypeDir {
		if paths := s.AllPaths(); len(paths) > 0 {
			return folderSourceName(filepath.Base(paths[0]))
		}
	}
	return s.Type
}

// folderSourceName is the name of a source after its folder: the folder's
// name, with '-' for what would break the names of its shadowed skills
// (the ':' of "source:skill", the '~' of "source~2:skill", a slash, white
// space, a control or formatting character), or "dir" when what is left
// would not show as it reads (see sources.UsableName).
func folderSourceName(base string) string {
	name := strings.Map(func(r rune) rune {
		// Cf holds the bidirectional controls and the zero-width ones.
		if r == ':' || r == '~' || r == '/' || r == '\\' || unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError || unicode.Is(unicode.Cf, r) {
			return '-'
		}
		return r
	}, base)
	if strings.Trim(name, "-.") == "" || !sources.UsableName(name) {
		return "dir"
	}
	return name
}

// sourceNames names the sources of one catalog, each once, so that
// "<source>:<skill>" reaches exactly one shadowed skill. The built-in
// sources keep their names (user, project, claude-plugins) wherever they
// rank; a name a configuration gives that must change is said, with the
// name it gets.
func (p *plan) sourceNames(specs []config.Source) []string {
	builtin := func(s config.Source) bool {
		return s.Name == "" && (s.Type == config.TypeUser || s.Type == config.TypeProject || s.Type == config.TypeClaudePlugins)
	}
	used := map[string]bool{} // by sources.NameKey, as lookups compare names
	names := make([]string, len(specs))
	// The built-in sources first, then those a configuration names, then
	// those named after their folders or types: each keeps its name when
	// it can, and the renamed take names no source has.
	tiers := []func(config.Source) bool{builtin, func(s config.Source) bool { return s.Name != "" }, func(config.Source) bool { return true }}
	for _, first := range tiers {
		for i, s := range specs {
			if k := sources.NameKey(sourceName(s)); names[i] == "" && first(s) && !used[k] {
				names[i], used[k] = sourceName(s), true
			}
		}
	}
	for _, first := range tiers {
		for i, s := range specs {
			if names[i] == "" && first(s) {
				names[i] = uniqueName(used, sourceName(s))
			}
		}
	}
	for i, s := range specs {
		if s.Name == "" || names[i] == s.Name {
			continue // a built-in source, one named after its folder, or one that kept its name
		}
		what := s.Type + " source"
		if paths := s.AllPaths(); len(paths) > 0 {
			what += " of " + strings.Join(paths, ", ")
		}
		taken := "another source's"
		if i := slices.IndexFunc(specs, func(o config.Source) bool { return builtin(o) && o.Type == sources.NameKey(s.Name) }); i >= 0 {
			taken = "the built-in " + specs[i].Type + " source's"
		}
		w := fmt.Sprintf("source name %q is %s; the %s is named %q", s.Name, taken, what, names[i])
		if !p.warned[w] { // once, not at every edit or change of roots
			if p.warned == nil {
				p.warned = map[string]bool{}
			}
			p.warned[w] = true
			p.warn(w)
		}
	}
	return names
}

// uniqueName makes name unique among the sources of one catalog, as
// lookups compare names (used holds their sources.NameKey), so that
// "<source>:<skill>" reaches exactly one shadowed skill: name-2, or name-3
// if a source has that name already, and so on.
func uniqueName(used map[string]bool, name string) string {
	unique := name
	for n := 2; used[sources.NameKey(unique)]; n++ {
		unique = name + "-" + strconv.Itoa(n)
	}
	used[sources.NameKey(unique)] = true
	return unique
}

func expandHome(p, home string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[1:])
	}
	return p
}

func absFrom(base, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(base, p)
}

// includeNative reports whether the configuration serves every client the
// skill folders it loads itself too (defaults.native: include).
func includeNative(cfg *config.Config) bool { return cfg.Defaults.Native == config.NativeInclude }
