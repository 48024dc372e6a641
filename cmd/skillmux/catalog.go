package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

func osGetenv(k string) string { return os.Getenv(k) }

// catalogFlags are the flags of every command that reads the catalog.
type catalogFlags struct {
	roots    []string
	logLevel string
}

func (f *catalogFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.roots, "root", nil, "a folder of skills (repeatable, in precedence order); default $SKILLS_DIR, else ./skills")
	cmd.Flags().StringVar(&f.logLevel, "log-level", "", "log level on stderr: debug, info, warn or error")
}

// rootDirs returns the folders to scan: --root, else SKILLS_DIR (paths
// separated by the OS list separator or commas), else ./skills.
func (f *catalogFlags) rootDirs(e *env) []string {
	if len(f.roots) > 0 {
		return f.roots
	}
	if v := e.getenv("SKILLS_DIR"); strings.TrimSpace(v) != "" {
		var dirs []string
		for _, part := range strings.Split(v, string(os.PathListSeparator)) {
			for _, d := range strings.Split(part, ",") {
				if d = strings.TrimSpace(d); d != "" {
					dirs = append(dirs, d)
				}
			}
		}
		return dirs
	}
	return []string{"skills"}
}

// sources turns the folders into Sources, named after each folder so that
// a shadowed skill is reachable as "<folder>:<name>".
func (f *catalogFlags) sources(e *env) []sources.Source {
	var out []sources.Source
	used := map[string]int{}
	for _, dir := range f.rootDirs(e) {
		dir = expandHome(dir)
		name := filepath.Base(filepath.Clean(dir))
		if abs, err := filepath.Abs(dir); err == nil {
			name = filepath.Base(abs)
		}
		if n := used[name]; n > 0 {
			used[name] = n + 1
			name = name + "-" + strconv.Itoa(n+1)
		} else {
			used[name] = 1
		}
		out = append(out, dirtree.New(dir, &dirtree.Options{Name: name}))
	}
	return out
}

func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

func (f *catalogFlags) level(def slog.Level) slog.Level {
	var l slog.Level
	if f.logLevel != "" && l.UnmarshalText([]byte(f.logLevel)) == nil {
		return l
	}
	return def
}

// openCatalog builds the resolver over the configured sources and loads
// the first snapshot.
func openCatalog(ctx context.Context, e *env, f *catalogFlags, logger *slog.Logger) (*resolver.Resolver, error) {
	res := resolver.New(f.sources(e), &resolver.Options{Logger: logger})
	if _, err := res.Reload(ctx); err != nil {
		return nil, err
	}
	return res, nil
}
