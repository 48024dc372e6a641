package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillmux/skillmux/config"
	"github.com/skillmux/skillmux/internal/watch"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
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
	// level is the level of logger, which every part of the server logs
	// with: log.level is followed by setting it.
	level *slog.LevelVar
	// started is the configuration the server started with: it keeps
	// every setting of it but those appliedLive names.
	started *config.Config

	// mu guards the fields below, and serializes the changes.
	mu          sync.Mutex
	s           *setup          // the configuration in force
	own         *config.Config  // the user's own configuration (no workspace file) when s was applied; nil if unknown
	ownAlone    bool            // s is the user's own configuration alone, the workspace's file being refused
	restartTold []string        // the settings that apply only at a start last warned of
	workspaces  []string        // the workspace folders: the working folder, or the client's roots
	look        *watch.FilePoll // the configuration files, as they were before the last load
	repoll      func()          // makes watchConfig take up look again
}

// watchConfig follows the configuration files until ctx is done: an edit,
// a new file or a removed one is applied as configChanged says. The files
// to watch change with the workspace, so each load (apply) starts the
// watch over from the look it took of the files before it read them.
func (l *live) watchConfig(ctx context.Context) {
	for ctx.Err() == nil {
		pctx, cancel := context.WithCancel(ctx)
		l.mu.Lock()
		look := l.look
		l.repoll = cancel
		l.mu.Unlock()
		look.Run(pctx, 0, func(changed []string) {
			l.logger.Info("configuration file changed", "files", changed)
			l.secondLook(pctx, changed)
			if pctx.Err() != nil {
				return // stopping, or a change of roots read the files since
			}
			l.configChanged(ctx)
		})
		cancel()
	}
}

// secondLookFor bounds how long a configuration file in force that is
// gone or empty is waited for before that is applied.
const secondLookFor = 2 * time.Second

// secondLook waits, for at most secondLookFor, while one of the changed
// files in force is gone or empty: an editor that moves the old file
// away before it writes the new one, or a writer that truncates first,
// leaves it so for a moment, and applying that moment would drop every
// source it configures and stop its source plugins, to start them again
// a second later.
func (l *live) secondLook(ctx context.Context, changed []string) {
	l.mu.Lock()
	inForce := l.s.cfg.Files()
	l.mu.Unlock()
	blank := func() bool {
		for _, f := range changed {
			if !slices.Contains(inForce, f) {
				continue
			}
			if st, err := os.Stat(f); err != nil || st.Size() == 0 {
				return true
			}
		}
		return false
	}
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for end := time.Now().Add(secondLookFor); blank() && time.Now().Before(end); {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// setWorkspaces follows the client's roots: the workspace configuration
// is read again from the first root, and the sources are rebuilt for the
// new folders, with the configuration in force if the new one is invalid.
func (l *live) setWorkspaces(ctx context.Context, dirs []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.workspaces = dirs
	l.apply(ctx, "the client's roots changed", true)
}

// configChanged follows an edit of a configuration file.
func (l *live) configChanged(ctx context.Context) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.apply(ctx, "a configuration file changed", false)
}

// apply loads the configuration for the current workspace and, when it is
// valid, rebuilds the sources from it. When it is not:
//   - a workspace file is refused, after a move of the workspace or an
//     edit of the user's own configuration: the user's own configuration
//     is applied alone;
//   - the user's own file is invalid at a move: the user's configuration
//     as it last was valid is applied alone, never the previous
//     workspace's file;
//   - the workspace file in force was removed and another is invalid (a
//     checkout): the user's own configuration is applied alone, never the
//     removed file's;
//   - an edit made a workspace file invalid, or a new one nearer is
//     invalid yet, the user's own being as it was: the configuration in
//     force stays, as for any half-typed save;
//   - otherwise the error is logged and the configuration in force stays,
//     over the new folders when the workspace moved, since the project's
//     skills are the client's roots', whatever the configuration says.
//
// Either way the files watched from now on are those of the new
// workspace, so that fixing its file applies it. l.mu must be held.
func (l *live) apply(ctx context.Context, why string, moved bool) {
	prev := l.s // its sources are kept where the new configuration has the same
	workspace := l.e.workdir
	if len(l.workspaces) > 0 {
		workspace = l.workspaces[0]
	}
	// The files are looked at before they are read: an edit made while
	// they are read is one the watch sees.
	l.look = watch.NewFilePoll(configFiles(l.e, l.f, workspace))
	if l.repoll != nil {
		l.repoll()
	}
	// The workspace file is trusted only when the user trusts every root
	// whose project skills it ranks.
	var others []string
	if len(l.workspaces) > 1 {
		others = l.workspaces[1:]
	}
	s, err := newSetupWith(l.cmd, l.e, l.f, &config.Options{WorkDir: workspace, AlsoServes: others}, true)
	own := l.ownConfig(workspace)
	ownAlone := false
	inForce := workspaceFileOf(l.s.cfg)
	if err != nil && (moved || l.ownAlone || own != nil && !sameSettings(l.own, own) || inForce != "" && !exists(inForce)) && l.f.configPath(l.e) == "" {
		// The workspace's file is refused. Its folders are served with
		// the user's own configuration alone: after a move, never with
		// the one of the workspace before, which the user may trust and
		// this one not; when the file in force was removed (a checkout
		// that brings another, invalid), not with the removed file's;
		// and an edit of the user's own configuration is applied, rather
		// than refused for the workspace's file.
		if own != nil { // loaded above: not read a third time
			l.logger.Error("the workspace's configuration is not applied; its folders are served with your own configuration alone (user file, environment, flags)", "why", why, "err", err)
			s, err, ownAlone = setupOf(l.e, l.f, own, workspace, true), nil, true
		}
	}
	if err != nil && moved && l.own != nil && l.f.configPath(l.e) == "" {
		// The user's own configuration is invalid too: the new root is
		// served with it as it last was valid, never with the previous
		// root's workspace file, which the user may trust and this root
		// not.
		l.logger.Error("configuration not applied; the new root is served with your own configuration as it last was valid, without any workspace file, until it is fixed", "why", why, "err", err)
		s, err, own, ownAlone = setupOf(l.e, l.f, l.own, workspace, true), nil, l.own, true
	}
	switch {
	case err != nil && !moved:
		l.logger.Error("configuration not applied; the previous one stays in force", "why", why, "err", err)
		return
	case err == nil && !moved && s.cfg.SetAside() != "" && keepsInForce(inForce, s.cfg.SetAside()) && sameSettings(l.own, own):
		// An edit made the workspace file invalid (a save half typed), or
		// a new one nearer, which is read in its place, is invalid yet:
		// as for any other file, the sources in force stay until it is
		// fixed, rather than leave the catalog at each such save. An edit
		// of the user's own configuration meanwhile is applied, without
		// that file, which its warning names.
		var problems []string
		for _, w := range s.cfg.Warnings() {
			if strings.Contains(w, s.cfg.SetAside()) {
				problems = append(problems, strings.TrimSuffix(w, config.SetAsideNote))
			}
		}
		l.logger.Error("configuration not applied; the previous one stays in force, its workspace file's sources with it, until the file is fixed", "why", why, "err", errors.New(strings.Join(problems, "\n")))
		return
	case err != nil:
		l.logger.Error("configuration not applied; the previous one stays in force, over the client's new roots", "why", why, "err", err)
		s = l.s
	default:
		// The sources built from now on log as the server does, in the
		// format it started with, at the level now configured.
		l.level.Set(s.level.Level())
		s.logger, s.level, s.plan.trees.Logger, s.plan.logger = l.logger, l.level, l.logger, l.logger
		s.plan.warn = func(w string) { l.logger.Warn(w) }
		// What the new configuration sets aside (an untrusted workspace
		// file's plugin sources) is told when it is new: at a move to
		// another workspace, or an edit.
		for _, w := range s.cfg.Warnings() {
			if !slices.Contains(l.s.cfg.Warnings(), w) {
				l.logger.Warn(w)
			}
		}
		// Told once for each set of settings that differ, not again at
		// every change of roots or edit that leaves them so.
		if keys := restartOnly(l.started, s.cfg); len(keys) > 0 && !slices.Equal(keys, l.restartTold) {
			if moved {
				l.logger.Warn("the new workspace's configuration has settings that apply only at a start; the server keeps the values it started with (start it in that folder, or give its file with --config, to have them), and the sources and the log level follow now", "settings", keys)
			} else {
				l.logger.Warn("settings changed that apply only after a restart; until then the server keeps the values it started with, and the sources and the log level follow now", "settings", keys)
			}
			l.restartTold = keys
		} else if len(keys) == 0 {
			l.restartTold = nil
		}
		l.s, l.own, l.ownAlone = s, own, ownAlone
	}
	s.plan.reuse, s.plan.warned = prev.plan.built, prev.plan.warned
	// A source made now is listed whole before it is served: a first
	// listing without the nested skills would take them from the
	// catalog until the scan that finds them (Defer is for the start,
	// which a client waits for).
	s.plan.trees.Defer = false
	l.res.SetSources(s.plan.sources(l.workspaces))
	// The sources kept are listed as their watchers say; the new ones now.
	if _, err := l.res.Refresh(ctx); err != nil {
		l.logger.Warn("reload failed; keeping the catalog", "why", why, "err", err)
		return
	}
	l.logger.Info("catalog reloaded", "why", why, "config", s.cfg.Files(), "workspaces", sources.ClipList(l.workspaces))
}

// ownConfig is the user's own configuration (user file, environment,
// flags) for workspace, without its workspace file; nil when it is
// invalid.
func (l *live) ownConfig(workspace string) *config.Config {
	cfg, err := config.Load(l.e.configOptions(l.cmd, l.f, &config.Options{WorkDir: workspace, NoWorkspace: true}))
	if err != nil {
		return nil
	}
	return cfg
}

// keepsInForce reports whether the workspace file in force (inForce, ""
// for none) stays in force while setAside, an invalid one, is not read:
// when setAside is it, made invalid by an edit, or a new one nearer that
// is read in its place while it is still there. One removed is not kept
// for another file's sake.
func keepsInForce(inForce, setAside string) bool {
	if inForce == "" {
		return false
	}
	return inForce == setAside || exists(inForce)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// workspaceFileOf is the workspace file (.skillmux.yaml) cfg was read
// from, or "".
func workspaceFileOf(cfg *config.Config) string {
	for _, f := range cfg.Files() {
		if filepath.Base(f) == config.WorkspaceFileName {
			return f
		}
	}
	return ""
}

// sameSettings reports whether a and b, both known, set every setting
// alike.
func sameSettings(a, b *config.Config) bool {
	if a == nil || b == nil {
		return false
	}
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	for i := range va.NumField() {
		if va.Type().Field(i).IsExported() && !sameSetting(va.Field(i), vb.Field(i)) {
			return false
		}
	}
	return true
}

// configFiles returns the configuration files a load for workspace reads,
// and the places a new one would be read from: the user file, and the
// file given with --config or else the workspace file's places.
func configFiles(e *env, f *catalogFlags, workspace string) []string {
	files := []string{config.UserFile(e.home(), e.environ)}
	if path := f.configPath(e); path != "" {
		return append(files, path)
	}
	return append(files, config.WorkspaceFiles(workspace)...)
}

// appliedLive are the settings, by key, that a running server follows:
// those that decide its sources, and the level of its logs. It keeps the
// others from its start.
var appliedLive = map[string]bool{"sources": true, "defaults.builtin": true, "log.level": true, "trust": true}

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
