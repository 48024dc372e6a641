package main

import (
	"context"
	"log/slog"
	"reflect"
	"sync"

	"github.com/spf13/cobra"

	"github.com/skillmux/skillmux/config"
	"github.com/skillmux/skillmux/internal/watch"
	"github.com/skillmux/skillmux/resolver"
)

// live keeps the sources of a running server in step with what they
// depend on: the client's workspace folders (MCP roots) and the
// configuration files. It is wiring: the decisions are the config and
// resolver packages'.
type live struct {
	cmd    *cobra.Command
	e      *env
	f      *catalogFlags
	logger *slog.Logger
	res    *resolver.Resolver
	// started is the configuration the server started with: it keeps
	// every setting of it but those that decide the sources.
	started *config.Config

	// mu guards the fields below, and serializes the changes.
	mu         sync.Mutex
	s          *setup   // the configuration in force
	workspaces []string // the workspace folders: the working folder, or the client's roots
	repoll     func()   // makes watchConfig look at the files to watch again
}

// watchConfig follows the configuration files until ctx is done: an edit,
// a new file or a removed one is applied as configChanged says. The files
// to watch change with the workspace, so each change starts the watch
// over on the files of the configuration then in force.
func (l *live) watchConfig(ctx context.Context) {
	for ctx.Err() == nil {
		pctx, cancel := context.WithCancel(ctx)
		l.mu.Lock()
		l.repoll = cancel
		l.mu.Unlock()
		watch.PollFiles(pctx, l.configFiles(), 0, func(changed []string) {
			l.logger.Info("configuration file changed", "files", changed)
			l.configChanged(ctx)
		})
		cancel()
	}
}

// setWorkspaces follows the client's roots: the workspace configuration
// is read again from the first root, and the sources are rebuilt for the
// new folders.
func (l *live) setWorkspaces(ctx context.Context, dirs []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.workspaces = dirs
	l.apply(ctx, "the client's roots changed")
}

// configChanged follows an edit of a configuration file.
func (l *live) configChanged(ctx context.Context) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.apply(ctx, "a configuration file changed")
}

// apply loads the configuration for the current workspace and, when it is
// valid, rebuilds the sources from it; an invalid one is logged and the
// configuration in force stays. l.mu must be held.
func (l *live) apply(ctx context.Context, why string) {
	workspace := l.e.workdir
	if len(l.workspaces) > 0 {
		workspace = l.workspaces[0]
	}
	s, err := newSetup(l.cmd, l.e, l.f, workspace, true)
	if err != nil {
		l.logger.Error("configuration not applied; the previous one stays in force", "why", why, "err", err)
		return
	}
	s.logger = l.logger
	if keys := restartOnly(l.started, s.cfg); len(keys) > 0 {
		l.logger.Warn("settings changed that apply only after a restart; until then the server keeps the values it started with, and the sources follow now", "settings", keys)
	}
	l.s = s
	if l.repoll != nil {
		l.repoll() // the files to watch may be others now
	}
	l.res.SetSources(s.plan.sources(l.workspaces))
	if _, err := l.res.Reload(ctx); err != nil {
		l.logger.Warn("reload failed; keeping the catalog", "why", why, "err", err)
		return
	}
	l.logger.Info("catalog reloaded", "why", why, "config", s.cfg.Files(), "workspaces", l.workspaces)
}

// configFiles returns the configuration files to watch: those read, and
// the places a new one would be read from.
func (l *live) configFiles() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	files := map[string]bool{config.UserFile(l.e.home(), l.e.environ): true}
	for _, f := range l.s.cfg.Files() {
		files[f] = true
	}
	if l.f.configFile == "" && len(l.workspaces) > 0 {
		// The first workspace's file is the one read (apply).
		for _, f := range config.WorkspaceFiles(l.workspaces[0]) {
			files[f] = true
		}
	}
	var out []string
	for f := range files {
		out = append(out, f)
	}
	return out
}

// appliedLive are the settings, by key, that a running server follows:
// those that decide its sources. It keeps the others from its start.
var appliedLive = map[string]bool{"sources": true, "defaults.builtin": true}

// restartOnly returns the keys (such as "catalog.budget") of the settings
// that differ between old and new and that a running server applies only
// after a restart, in the order of Config's fields. Every setting not in
// appliedLive is one, so that a new setting cannot be forgotten here.
func restartOnly(old, new *config.Config) []string {
	var keys []string
	var walk func(prefix string, a, b reflect.Value)
	walk = func(prefix string, a, b reflect.Value) {
		for i := range a.NumField() {
			f := a.Type().Field(i)
			key := f.Tag.Get("koanf")
			if !f.IsExported() || key == "" {
				continue
			}
			key = prefix + key
			switch x, y := a.Field(i), b.Field(i); {
			case appliedLive[key]:
			case f.Type.Kind() == reflect.Struct:
				walk(key+".", x, y)
			case !sameSetting(x, y):
				keys = append(keys, key)
			}
		}
	}
	walk("", reflect.ValueOf(old).Elem(), reflect.ValueOf(new).Elem())
	return keys
}

// sameSetting is reflect.DeepEqual, except that an empty list or map is
// the same whether nil or not: a file that says "pin: []" sets what one
// without the key does.
func sameSetting(a, b reflect.Value) bool {
	if k := a.Kind(); (k == reflect.Slice || k == reflect.Map) && a.Len() == 0 && b.Len() == 0 {
		return true
	}
	return reflect.DeepEqual(a.Interface(), b.Interface())
}
