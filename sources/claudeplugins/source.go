package claudeplugins

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skillmux/skillmux/sources"
)

// Options configures a Source. A nil *Options means the defaults.
type Options struct {
	// Name is the source name; default "claude-plugins" for Installed and
	// "plugin-dir" for Dirs.
	Name string
	// ProjectDirs are the workspace folders: their .claude/settings.json
	// and .claude/settings.local.json can enable plugins, and plugins
	// installed for a project are served only in that project.
	ProjectDirs []string
}

// Source lists the skills of Claude Code plugins.
type Source struct {
	name     string
	home     string   // for Installed; empty for Dirs
	dirs     []string // for Dirs
	projects []string
}

var _ sources.Source = (*Source)(nil)

// Installed returns the Source of the plugins installed in the Claude Code
// of the home folder home (~/.claude/plugins/installed_plugins.json) and
// enabled in its settings.
func Installed(home string, opts *Options) *Source {
	s := newSource("claude-plugins", opts)
	s.home = home
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
	s := &Source{name: name}
	if opts != nil {
		if opts.Name != "" {
			s.name = opts.Name
		}
		for _, p := range opts.ProjectDirs {
			if abs, err := filepath.Abs(p); err == nil {
				s.projects = append(s.projects, filepath.Clean(abs))
			}
		}
	}
	return s
}

// Name implements sources.Source.
func (s *Source) Name() string { return s.name }

// List implements sources.Source: it reads the manifests and the skills
// now.
func (s *Source) List(ctx context.Context) (*sources.Listing, error) {
	var plugins []plugin
	var probs []sources.Diagnostic
	if s.home != "" {
		plugins, probs = s.installed()
	}
	for _, d := range s.dirs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if _, err := os.Stat(d); err != nil {
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: d, Rule: "root-missing", Message: "plugin folder does not exist; no skills served from it"})
			continue
		}
		ps, p := pluginsAt(d, "")
		plugins = append(plugins, ps...)
		probs = append(probs, p...)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	l := listPlugins(plugins, s.name)
	l.Problems = append(probs, l.Problems...)
	return l, nil
}

// installRecord is one entry of installed_plugins.json.
type installRecord struct {
	Scope       string `json:"scope"`
	InstallPath string `json:"installPath"`
	Version     string `json:"version"`
	ProjectPath string `json:"projectPath"`
}

// installedFile is ~/.claude/plugins/installed_plugins.json: version 2
// maps "plugin@marketplace" to a list of install records; version 1 to
// one record.
type installedFile struct {
	Version int                        `json:"version"`
	Plugins map[string]json.RawMessage `json:"plugins"`
}

// InstalledFile is the path of Claude Code's install records under home.
func InstalledFile(home string) string {
	return filepath.Join(home, ".claude", "plugins", "installed_plugins.json")
}

func (s *Source) installed() ([]plugin, []sources.Diagnostic) {
	path := InstalledFile(s.home)
	var f installedFile
	found, err := readJSON(path, &f)
	if err != nil {
		return nil, []sources.Diagnostic{jsonProblem(path, err)}
	}
	if !found {
		return nil, nil
	}
	enabled, probs := s.enabled()
	var plugins []plugin
	for _, key := range slices.Sorted(maps.Keys(f.Plugins)) {
		if !enabled[key] {
			continue
		}
		var records []installRecord
		if err := json.Unmarshal(f.Plugins[key], &records); err != nil {
			var one installRecord
			if err := json.Unmarshal(f.Plugins[key], &one); err != nil {
				probs = append(probs, sources.Diagnostic{Severity: sources.Error, Path: path, Field: "plugins." + key, Rule: "plugin-json",
					Message: "must be a list of install records with installPath; this plugin is not served"})
				continue
			}
			records = []installRecord{one}
		}
		rec, ok := s.pick(records)
		if !ok {
			continue
		}
		if rec.InstallPath == "" {
			probs = append(probs, sources.Diagnostic{Severity: sources.Error, Path: path, Field: "plugins." + key + ".installPath", Rule: "plugin-json", Message: "missing; this plugin is not served"})
			continue
		}
		if _, err := os.Stat(rec.InstallPath); err != nil {
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: path, Field: "plugins." + key + ".installPath", Rule: "missing-path",
				Message: fmt.Sprintf("%s does not exist; reinstall the plugin in Claude Code", rec.InstallPath)})
			continue
		}
		name := key // "plugin@marketplace"
		if i := strings.LastIndex(key, "@"); i > 0 {
			name = key[:i]
		}
		ps, p := pluginsAt(rec.InstallPath, name)
		plugins = append(plugins, ps...)
		probs = append(probs, p...)
	}
	return plugins, probs
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

func (s *Source) inProject(p string) bool {
	p = filepath.Clean(p)
	for _, proj := range s.projects {
		if proj == p {
			return true
		}
	}
	return false
}

// enabled merges enabledPlugins from the user's settings, then each
// project's settings and local settings, later ones overriding.
func (s *Source) enabled() (map[string]bool, []sources.Diagnostic) {
	files := []string{filepath.Join(s.home, ".claude", "settings.json")}
	for _, p := range s.projects {
		files = append(files, filepath.Join(p, ".claude", "settings.json"), filepath.Join(p, ".claude", "settings.local.json"))
	}
	out := map[string]bool{}
	var probs []sources.Diagnostic
	for _, f := range files {
		var settings struct {
			EnabledPlugins map[string]bool `json:"enabledPlugins"`
		}
		if _, err := readJSON(f, &settings); err != nil {
			probs = append(probs, sources.Diagnostic{Severity: sources.Warning, Path: f, Field: "enabledPlugins", Rule: "settings-json",
				Message: err.Error() + "; its enabledPlugins are ignored (expected a map of \"plugin@marketplace\" to true or false)"})
			continue
		}
		for k, v := range settings.EnabledPlugins {
			out[k] = v
		}
	}
	return out, probs
}
