package claudeplugins

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/skillmux/skillmux/internal/editdist"
	"github.com/skillmux/skillmux/internal/jsonkind"
	"github.com/skillmux/skillmux/internal/watch"
	"github.com/skillmux/skillmux/sources"
)

// Options configures a Source. A nil *Options means the defaults.
type Options struct {
	// Name is the source name; default "claude-plugins" for Installed and
	// "plugin-dir" for Dirs.
	Name string
	// ProjectDirs are the project's folders (a workspace's repository
	// root, then the workspace folder when it is below it): their
	// .claude/settings.json and .claude/settings.local.json can enable
	// plugins, and plugins installed for a project are served only in
	// that project.
	ProjectDirs []string
	// Debounce is the quiet time Watch waits after a change in a plugin's
	// folder before it reports one; default 200 ms.
	Debounce time.Duration
	// Logger receives the watcher's warnings; default discards.
	Logger *slog.Logger
	// ConfigDir replaces ~/.claude for Installed, as $CLAUDE_CONFIG_DIR
	// does for Claude Code: its install records and settings are there.
	ConfigDir string
}

// Source lists the skills of Claude Code plugins.
type Source struct {
	name     string
	home     string   // for Installed; empty for Dirs
	claude   string   // for Installed: Claude Code's folder, ~/.claude or Options.ConfigDir
	dirs     []string // for Dirs
	projects []string
	// realProjects are the real paths of the projects reached through a
	// link (see inProject).
	realProjects []string
	convention   string // sources.ConventionClaudePlugins for Installed
	debounce     time.Duration
	logger       *slog.Logger
	cache        sources.Cache

	// mu guards the fields below.
	mu      sync.Mutex
	roots   []string       // the folders the last listing depends on (see follow)
	outside []string       // and the files it read outside them
	watcher *watch.Watcher // while Watch runs
	looks   *watch.FilePoll
	// touched are the paths in the plugins' folders the watch reported
	// since the last listing, whose skills' file lists it lists again
	// (see withFiles); all is set when every list must be.
	touched []string
	all     bool
}

var (
	_ sources.Source  = (*Source)(nil)
	_ sources.Watcher = (*Source)(nil)
)

// Installed returns the Source of the plugins installed in the Claude Code
// of the home folder home (~/.claude/plugins/installed_plugins.json) and
// enabled in its settings.
func Installed(home string, opts *Options) *Source {
	s := newSource("claude-plugins", opts)
	s.home, s.claude = home, filepath.Join(home, ".claude")
	if opts != nil && opts.ConfigDir != "" {
		s.claude = opts.ConfigDir
	}
	s.convention = sources.ConventionClaudePlugins
	return s
}

// Dirs returns the Source of plugin folders given explicitly (a plugin, or
// a marketplace folder of plugins); they are served whatever Claude Code's
// settings say.
func Dirs(dirs []string, opts *Options) *Source {
	s := newSource("plugin-dir", opts)
	for _, d := range dirs {
		if abs, err := filepath.Abs(d); err == nil {
			d = abs
		}
		s.dirs = append(s.dirs, d)
	}
	return s
}

func newSource(name string, opts *Options) *Source {
	s := &Source{name: name, logger: slog.New(slog.DiscardHandler)}
	if opts != nil {
		if opts.Name != "" {
			s.name = opts.Name
		}
		s.debounce = opts.Debounce
		if opts.Logger != nil {
			s.logger = opts.Logger
		}
		for _, p := range opts.ProjectDirs {
			if abs, err := filepath.Abs(p); err == nil {
				s.projects = append(s.projects, filepath.Clean(abs))
				if real, err := filepath.EvalSymlinks(abs); err == nil && real != filepath.Clean(abs) {
					s.realProjects = append(s.realProjects, real)
				}
			}
		}
	}
	return s
}

// Name implements sources.Source.
func (s *Source) Name() string { return s.name }

// List implements sources.Source: it reads the manifests and the skills
// now. Every plugin considered is in the listing's Packages, served or not,
// with the reason.
func (s *Source) List(ctx context.Context) (*sources.Listing, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var plugins []plugin
	var probs []sources.Diagnostic
	var pkgs []sources.Package
	if s.home != "" {
		plugins, probs, pkgs = s.installed()
	}
	given := map[string]bool{} // the real folders given, each read once
	for _, d := range s.dirs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if real, err := filepath.EvalSymlinks(d); err == nil {
			if given[real] {
				continue // given twice, or through a link: one folder is one plugin
			}
			given[real] = true
		}
		st, err := os.Stat(d)
		if err != nil {
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: d, Rule: "root-missing", Message: "plugin folder does not exist; no skills served from it"})
			pkgs = append(pkgs, sources.Package{Name: filepath.Base(d), Source: s.name, Path: d, State: sources.PackageMissing, Reason: "the folder does not exist"})
			continue
		}
		if !st.IsDir() {
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: d, Rule: "root-not-folder",
				Message: "is a file, not a folder; a plugin folder is expected (one with .claude-plugin/plugin.json or a skills folder, or a marketplace folder); no skills served from it"})
			pkgs = append(pkgs, sources.Package{Name: filepath.Base(d), Source: s.name, Path: d, State: sources.PackageMissing, Reason: "a file, not a folder"})
			continue
		}
		if skillsNotPlugin(d) {
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: d, Rule: "not-a-plugin",
				Message: "holds skill folders but no plugin (no .claude-plugin folder, no skills folder); for a folder of skills, use --root (or a dir source) instead"})
			pkgs = append(pkgs, sources.Package{Name: filepath.Base(d), Source: s.name, Path: d, State: sources.PackageInvalid, Reason: "a folder of skills, not a plugin: give it with --root"})
			continue
		}
		ps, p := pluginsAt(d, "")
		for _, pl := range ps {
			pl.pkg = len(pkgs)
			pkgs = append(pkgs, sources.Package{Name: pl.namespace, Source: s.name, Namespace: pl.namespace, Path: pl.root, State: sources.PackageServed})
			plugins = append(plugins, pl)
		}
		probs = append(probs, p...)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := s.listPlugins(plugins, pkgs, s.takeTouched())
	l.Problems = append(probs, l.Problems...)
	l.Packages = pkgs
	s.follow(plugins, pkgs)
	return l, nil
}

// skillsNotPlugin reports whether dir, given as a plugin folder, is
// rather a folder of skills: it has neither .claude-plugin nor skills, and
// one of its folders holds a SKILL.md.
func skillsNotPlugin(dir string) bool {
	for _, name := range []string{".claude-plugin", "skills"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return false
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name(), sources.SkillFile)); err == nil {
			return true
		}
	}
	return false
}

// Places returns Claude Code's install records for Installed, and the
// folders given for Dirs (see sources.Places).
func (s *Source) Places() []string {
	if s.home != "" {
		return []string{s.installedFile()}
	}
	return slices.Clone(s.dirs)
}

// files are the files whose edits change what is served: Claude Code's
// install records and settings, and the folders given explicitly.
func (s *Source) files() []string {
	var out []string
	if s.home != "" {
		out = append(out, s.installedFile(), s.knownMarketsFile())
		out = append(out, s.settingsFiles()...)
	}
	for _, d := range s.dirs {
		out = append(out, filepath.Join(d, pluginFile), filepath.Join(d, marketplaceFile))
	}
	return out
}

// follow records the folders a listing depends on and, while Watch runs,
// watches the new ones and stops watching the others: the folders of the
// plugins served, and those of the plugins that would be served but for
// their folder (missing, or holding no plugin yet: an install under way,
// a cache being filled again), so that their coming is seen within the
// debounce. A plugin's old version, or one uninstalled, is not watched
// any longer, however long the folder stays.
//
// The manifests read outside those folders are looked at every second
// while Watch runs: Claude Code's copy of a marketplace whose entry lists
// a plugin's skills, and the marketplace of an install record that names
// a marketplace's folder rather than one plugin's.
func (s *Source) follow(plugins []plugin, pkgs []sources.Package) {
	var roots, read []string
	for _, p := range plugins {
		roots = append(roots, p.root)
		if p.listedIn != "" {
			read = append(read, p.listedIn)
		}
	}
	for _, p := range pkgs {
		if !filepath.IsAbs(p.Path) {
			continue
		}
		if p.State == sources.PackageMissing || p.State == sources.PackageInvalid {
			roots = append(roots, p.Path)
		}
		if p.State == sources.PackageServed {
			read = append(read, filepath.Join(p.Path, pluginFile), filepath.Join(p.Path, marketplaceFile))
		}
	}
	slices.Sort(roots)
	roots = slices.Compact(roots)
	outside := read[:0]
	for _, f := range read {
		if !underAny(f, roots) {
			outside = append(outside, f)
		}
	}
	slices.Sort(outside)
	outside = slices.Compact(outside)
	s.mu.Lock()
	old := s.roots
	s.roots, s.outside = roots, outside
	w, looks := s.watcher, s.looks
	s.mu.Unlock()
	if looks != nil {
		looks.Set(outside)
	}
	if w == nil {
		return // Watch adds them all when it starts
	}
	for _, r := range old {
		if _, found := slices.BinarySearch(roots, r); !found {
			w.Remove(r)
		}
	}
	for _, r := range roots {
		w.Add(r) // a folder watched already costs nothing
	}
}

// underAny reports whether path is inside one of the folders dirs.
func underAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if strings.HasPrefix(path, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// Watch implements sources.Watcher: it watches the folders of the plugins
// served, and the files that decide which plugins are served (install
// records, settings, manifests), until ctx is done. Those files are
// watched in their folders, one level deep, so that an install or an
// enable is seen within the debounce, as an edit of a skill is; a folder
// that does not exist yet (~/.claude in a fresh home) is waited for. A
// look every second at the same files stays for the file systems that
// send no events.
func (s *Source) Watch(ctx context.Context, changed func()) error {
	w, err := watch.New(&watch.Options{Debounce: s.debounce, Unit: sources.HoldsSkill, Logger: s.logger.With("source", s.name)})
	if err != nil {
		return err
	}
	defer w.Close()
	files := s.files()
	wanted := map[string]bool{}
	for _, f := range files {
		wanted[filepath.Base(f)] = true
	}
	// Every other name, folders included, is ignored: ~/.claude holds
	// much that is not for this source, and none of it is walked.
	records, err := watch.New(&watch.Options{Debounce: s.debounce, Ignore: func(name string) bool { return !wanted[name] }, Logger: s.logger.With("source", s.name)})
	if err != nil {
		return err
	}
	defer records.Close()
	for _, f := range files {
		if err := records.Add(filepath.Dir(f)); err != nil {
			s.logger.Debug("record files not watched; looked at every second", "source", s.name, "err", err)
		}
	}
	s.mu.Lock()
	s.watcher = w
	roots := s.roots
	looks := watch.NewFilePoll(s.outside)
	s.looks = looks
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.watcher, s.looks = nil, nil
		s.mu.Unlock()
	}()
	for _, r := range roots {
		w.Add(r)
	}
	// A listing meanwhile may have let go of some of these (its follow
	// removed them before they were added here): let go of them again.
	s.mu.Lock()
	now := s.roots
	s.mu.Unlock()
	for _, r := range roots {
		if _, found := slices.BinarySearch(now, r); !found {
			w.Remove(r)
		}
	}
	poll := watch.NewFilePoll(files)
	// What changed between the last listing and the watches being set is
	// seen by the listing this asks for.
	changed()
	var polling sync.WaitGroup
	defer polling.Wait()
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	polling.Go(func() {
		poll.Run(pctx, recordPoll, func([]string) { changed() })
	})
	polling.Go(func() {
		looks.Run(pctx, 0, func([]string) { changed() })
	})
	polling.Go(func() {
		records.Run(pctx, func(watch.Batch) { changed() })
	})
	w.Run(ctx, func(b watch.Batch) {
		s.touch(b)
		changed()
	})
	return nil
}

// touch records what the watch of the plugins' folders reported, for the
// next listing (see withFiles).
func (s *Source) touch(b watch.Batch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b.Rescan {
		s.all = true
		return
	}
	s.touched = append(s.touched, b.Paths...)
}

// takeTouched returns what the watch reported since the last listing as
// a test of a skill folder: whether its file list must be made again.
// Every list is when no watch runs, and when the watch reported nothing:
// a listing asked for by the periodic rescan, the fallback for file
// systems that send no events, or by an edit of Claude Code's records.
func (s *Source) takeTouched() func(dir string) bool {
	s.mu.Lock()
	touched, all := s.touched, s.all || s.watcher == nil || len(s.touched) == 0
	s.touched, s.all = nil, false
	s.mu.Unlock()
	if all {
		return func(string) bool { return true }
	}
	// A skill folder is touched by a path in it (found by a search of the
	// sorted paths) or by a folder around it (a look-up of each parent).
	slices.Sort(touched)
	at := make(map[string]bool, len(touched))
	for _, p := range touched {
		at[p] = true
	}
	return func(dir string) bool {
		in := dir + string(filepath.Separator) // "one/" sorts after "one-two/", unlike "one"
		if i, _ := slices.BinarySearch(touched, in); i < len(touched) && strings.HasPrefix(touched[i], in) {
			return true
		}
		for d := dir; ; d = filepath.Dir(d) {
			if at[d] {
				return true
			}
			if d == filepath.Dir(d) {
				return false
			}
		}
	}
}

// recordPoll is how often Watch looks at the install records and settings
// besides watching them (0: watch.FilePoll's default, every second); tests
// set it long, to tell that the watch reports a change.
var recordPoll time.Duration

// installRecord is one entry of installed_plugins.json.
type installRecord struct {
	Scope       string `json:"scope"`
	InstallPath string `json:"installPath"`
	Version     string `json:"version"`
	ProjectPath string `json:"projectPath"`
}

// knownMarkets reads, once and when first asked, Claude Code's copies of
// the marketplaces the plugins were installed from:
// plugins/known_marketplaces.json names each one's folder.
type knownMarkets struct {
	file  string // known_marketplaces.json
	read  bool
	where map[string]string       // marketplace → its folder
	got   map[string]*marketplace // marketplace → its marketplace.json, nil if unreadable
}

// entry is the entry of the plugin name in the marketplace of key
// ("plugin@marketplace"), the marketplace file and the entry's index.
func (k *knownMarkets) entry(key, name string) (entry, string, int, bool) {
	i := strings.LastIndex(key, "@")
	if i < 0 {
		return entry{}, "", 0, false
	}
	market := key[i+1:]
	if !k.read {
		k.read = true
		var known map[string]struct {
			InstallLocation string `json:"installLocation"`
		}
		if _, err := readJSON(k.file, &known); err == nil {
			k.where, k.got = map[string]string{}, map[string]*marketplace{}
			for m, v := range known {
				if filepath.IsAbs(v.InstallLocation) {
					k.where[m] = v.InstallLocation
				}
			}
		}
	}
	dir, ok := k.where[market]
	if !ok {
		return entry{}, "", 0, false
	}
	mpath := filepath.Join(dir, marketplaceFile)
	mk, seen := k.got[market]
	if !seen {
		mk = &marketplace{}
		if found, err := readJSON(mpath, mk); !found || err != nil {
			mk = nil
		}
		k.got[market] = mk
	}
	if mk == nil {
		return entry{}, "", 0, false
	}
	for j, e := range mk.Plugins {
		if e.Name == name {
			return e, mpath, j, true
		}
	}
	return entry{}, "", 0, false
}

// installedFile is ~/.claude/plugins/installed_plugins.json: version 2
// maps "plugin@marketplace" to a list of install records; version 1 to
// one record.
type installedFile struct {
	Version int                        `json:"version"`
	Plugins map[string]json.RawMessage `json:"plugins"`
}

// installedIn is the path of the install records of Claude Code's folder
// claude.
func installedIn(claude string) string {
	return filepath.Join(claude, "plugins", "installed_plugins.json")
}

func (s *Source) installedFile() string { return installedIn(s.claude) }

// knownMarketsFile names the folders of Claude Code's copies of the
// marketplaces (see knownMarkets).
func (s *Source) knownMarketsFile() string {
	return filepath.Join(s.claude, "plugins", "known_marketplaces.json")
}

// settingsFiles are the settings files that enable plugins, lowest first:
// the user's, then every project folder's shared settings, then every
// one's local settings (a person's own, above what a repository commits),
// each in the projects' order. A project's that is the user's (a project
// in the home folder) is read once.
func (s *Source) settingsFiles() []string {
	files := []string{filepath.Join(s.claude, "settings.json")}
	for _, name := range []string{"settings.json", "settings.local.json"} {
		for _, p := range s.projects {
			if f := filepath.Join(p, ".claude", name); !slices.Contains(files, f) {
				files = append(files, f)
			}
		}
	}
	return files
}

// installed reads the install records and the settings: the plugins to
// serve, the problems found, and every plugin considered with its state.
func (s *Source) installed() ([]plugin, []sources.Diagnostic, []sources.Package) {
	path := s.installedFile()
	markets := &knownMarkets{file: s.knownMarketsFile()}
	var f installedFile
	found, err := readJSON(path, &f)
	if err != nil {
		d := jsonDiagnostic(path, err)
		d.Severity = sources.Error
		d.Message += "; no installed plugin is served until it is fixed (reinstalling a plugin in Claude Code rewrites it)"
		return nil, []sources.Diagnostic{d}, nil
	}
	enabled, broken, probs := s.enabled()
	if !found {
		f.Plugins = nil
	}
	var plugins []plugin
	var pkgs []sources.Package
	consider := func(key string, state sources.PackageState, path, reason string) {
		pkgs = append(pkgs, sources.Package{Name: key, Source: s.name, Path: path, State: state, Reason: reason})
	}
	for _, key := range slices.Sorted(maps.Keys(f.Plugins)) {
		var records []installRecord
		if err := json.Unmarshal(f.Plugins[key], &records); err != nil {
			var one installRecord
			if err := json.Unmarshal(f.Plugins[key], &one); err != nil {
				probs = append(probs, sources.Diagnostic{Severity: sources.Error, Path: path, Field: "plugins." + key, Rule: "plugin-json",
					Message: "must be a list of install records with installPath; this plugin is not served"})
				consider(key, sources.PackageInvalid, "", "its install record in "+path+" cannot be read")
				continue
			}
			records = []installRecord{one}
		}
		if len(records) == 0 {
			// [] or null: Claude Code writes neither, but a hand edit or
			// an interrupted write may leave one; it is this plugin's
			// problem, not every plugin's.
			probs = append(probs, sources.Diagnostic{Severity: sources.Error, Path: path, Field: "plugins." + key, Rule: "plugin-json",
				Message: "holds no install record; this plugin is not served (reinstalling it in Claude Code rewrites it)"})
			consider(key, sources.PackageInvalid, "", "its install record in "+path+" is empty")
			continue
		}
		rec, ok := s.pick(records)
		switch set, listed := enabled[key]; {
		case !listed && len(broken) > 0:
			// The file that cannot be read may well list it.
			consider(key, sources.PackageDisabled, rec.InstallPath, strings.Join(broken, " and ")+" cannot be read as settings (see its warning), and no other settings file enables it")
			continue
		case !listed:
			consider(key, sources.PackageDisabled, rec.InstallPath, "enabledPlugins in Claude Code's settings does not list it")
			continue
		case !set.on:
			consider(key, sources.PackageDisabled, rec.InstallPath, "enabledPlugins in "+set.file+" sets it to false")
			continue
		case !ok:
			consider(key, sources.PackageOtherProject, records[0].InstallPath, "installed for "+projectsOf(records)+", not for this workspace")
			continue
		case rec.InstallPath == "":
			probs = append(probs, sources.Diagnostic{Severity: sources.Error, Path: path, Field: "plugins." + key + ".installPath", Rule: "plugin-json", Message: "missing; this plugin is not served"})
			consider(key, sources.PackageInvalid, "", "its install record has no installPath")
			continue
		}
		if !filepath.IsAbs(rec.InstallPath) {
			// Claude Code writes absolute paths; a relative one would
			// name a folder by where skillmux happens to start.
			probs = append(probs, sources.Diagnostic{Severity: sources.Error, Path: path, Field: "plugins." + key + ".installPath", Rule: "plugin-json",
				Message: fmt.Sprintf("%q is not an absolute path; this plugin is not served (reinstalling it in Claude Code rewrites it)", rec.InstallPath)})
			consider(key, sources.PackageInvalid, rec.InstallPath, "its installPath is not an absolute path")
			continue
		}
		// Cleaned, so that the paths a plugin lists are found inside it
		// when the record's path ends in a separator.
		rec.InstallPath = filepath.Clean(rec.InstallPath)
		if fi, err := os.Stat(rec.InstallPath); err != nil {
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: path, Field: "plugins." + key + ".installPath", Rule: "missing-path",
				Message: fmt.Sprintf("%s does not exist; reinstall the plugin in Claude Code", rec.InstallPath)})
			consider(key, sources.PackageMissing, rec.InstallPath, "its folder does not exist; reinstall it in Claude Code")
			continue
		} else if !fi.IsDir() {
			probs = append(probs, sources.Diagnostic{Severity: sources.Error, Path: path, Field: "plugins." + key + ".installPath", Rule: "plugin-json",
				Message: fmt.Sprintf("%s is a file, not the plugin's folder; this plugin is not served (reinstall it in Claude Code)", rec.InstallPath)})
			consider(key, sources.PackageInvalid, rec.InstallPath, "its installPath is a file, not a folder")
			continue
		}
		name := key // "plugin@marketplace"
		if i := strings.LastIndex(key, "@"); i > 0 {
			name = key[:i]
		}
		ps, p := pluginsAt(rec.InstallPath, name)
		probs = append(probs, p...)
		if len(ps) == 1 && len(ps[0].listed) == 0 {
			// A marketplace entry may list the plugin's skills itself
			// (with "strict": false it is the whole definition): Claude
			// Code installs the plugin's folder alone, and reads the
			// list from its copy of the marketplace.
			if e, mpath, i, ok := markets.entry(key, name); ok && len(e.Skills) > 0 {
				ps[0].base, ps[0].listed, ps[0].listedIn, ps[0].field = rec.InstallPath, e.Skills, mpath, fmt.Sprintf("plugins[%d].skills", i)
			}
		}
		if len(ps) == 0 {
			consider(key, sources.PackageInvalid, rec.InstallPath, "its folder holds no plugin that can be read")
			continue
		}
		for _, pl := range ps {
			pl.pkg = len(pkgs)
			plugins = append(plugins, pl)
		}
		pkgs = append(pkgs, sources.Package{Name: key, Source: s.name, Namespace: ps[0].namespace, Path: rec.InstallPath, State: sources.PackageServed})
	}
	// An installed plugin that no setting enables is what a mistyped
	// enabledPlugins key meant, when their names are close.
	unenabled := sync.OnceValue(func() []string {
		var keys []string
		for _, key := range slices.Sorted(maps.Keys(f.Plugins)) {
			if set, ok := enabled[key]; !ok || !set.on {
				keys = append(keys, key)
			}
		}
		return keys
	})
	for _, key := range slices.Sorted(maps.Keys(enabled)) {
		if _, installed := f.Plugins[key]; !installed && enabled[key].on {
			reason := enabled[key].file + " enables it, but Claude Code has no install record for it"
			plugin, _, _ := strings.Cut(key, "@")
			if near := editdist.Closest(key, unenabled(), max(1, len(plugin)/4)); near != "" {
				reason += "; did you mean " + near + ", which is installed?"
			}
			consider(key, sources.PackageNotInstalled, "", reason)
		}
	}
	return plugins, probs, pkgs
}

func projectsOf(records []installRecord) string {
	var ps []string
	for _, r := range records {
		if r.ProjectPath != "" {
			ps = append(ps, r.ProjectPath)
		}
	}
	if len(ps) == 0 {
		return "another scope"
	}
	return strings.Join(ps, ", ")
}

// pick chooses the install record that applies here: one made for a
// current project first, else a user-wide one.
func (s *Source) pick(records []installRecord) (installRecord, bool) {
	for _, r := range records {
		if r.Scope != "user" && r.ProjectPath != "" && s.inProject(r.ProjectPath) {
			return r, true
		}
	}
	for _, r := range records {
		if r.Scope == "user" || r.Scope == "" {
			return r, true
		}
	}
	return installRecord{}, false
}

// inProject reports whether p, an install record's projectPath, is one of
// the workspace's projects. Claude Code records the folder it ran in as
// the system names it, with every link resolved, while a workspace may be
// reached through a link (~/work -> /data/work): both sides are compared
// by their real paths too.
func (s *Source) inProject(p string) bool {
	p = filepath.Clean(p)
	if slices.Contains(s.projects, p) || slices.Contains(s.realProjects, p) {
		return true
	}
	if !filepath.IsAbs(p) {
		return false // Claude Code records absolute paths; this one names no folder
	}
	real, err := filepath.EvalSymlinks(p)
	return err == nil && (slices.Contains(s.projects, real) || slices.Contains(s.realProjects, real))
}

// setting is one plugin's value in enabledPlugins, and the file that set
// it last.
type setting struct {
	on   bool
	file string
}

// enabled merges enabledPlugins from the user's settings, then each
// project's settings and local settings, later ones overriding.
func (s *Source) enabled() (map[string]setting, []string, []sources.Diagnostic) {
	files := s.settingsFiles()
	out := map[string]setting{}
	var broken []string
	var probs []sources.Diagnostic
	for _, f := range files {
		var settings struct {
			EnabledPlugins map[string]json.RawMessage `json:"enabledPlugins"`
		}
		if _, err := readJSON(f, &settings); err != nil {
			d := jsonDiagnostic(f, err)
			d.Message += "; the plugins it enables are not served until it is fixed (Claude Code reads this file too)"
			probs = append(probs, d)
			broken = append(broken, f)
			continue
		}
		// One value that is not a boolean is that plugin's problem: the
		// file's other settings stand, and this one is as if not written.
		for _, k := range slices.Sorted(maps.Keys(settings.EnabledPlugins)) {
			var on bool
			raw := settings.EnabledPlugins[k]
			if err := json.Unmarshal(raw, &on); err != nil || string(bytes.TrimSpace(raw)) == "null" {
				probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: f, Field: "enabledPlugins." + k, Rule: "json",
					Message: "must be true or false, not " + jsonkind.Of(raw) + "; this file's setting for the plugin is ignored"})
				continue
			}
			out[k] = setting{on: on, file: f}
		}
	}
	return out, broken, probs
}
