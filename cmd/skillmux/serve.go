package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/skillmux/skillmux/internal/logwriter"
	"github.com/skillmux/skillmux/internal/watch"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/server"
)

// steadyStateGC sets the collector for the long life of a session, once
// start-up is over. Every request makes short-lived garbage (the SDK
// decodes each line with fresh buffers), and at the default the heap may
// grow to twice the live catalog between collections: 40 MB of resident
// memory for ten thousand skills. Headroom of about 8 MB, and never less
// than half the live heap, is plenty for requests; small catalogs keep the
// default. GOGC, when set, wins.
func steadyStateGC(logger *slog.Logger) {
	if os.Getenv("GOGC") != "" {
		return
	}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	// The heap in use now (the catalog and the scan's uncollected garbage)
	// stands in for the live heap: an overestimate errs toward less memory.
	if heap := sample[0].Value.Uint64(); heap > 0 {
		percent := int(min(100, max(50, (8<<20)*100/heap)))
		debug.SetGCPercent(percent)
		logger.Debug("garbage collection set for serving", "heap_bytes", heap, "gogc", percent)
	}
}

// startGOGC is the collector's setting while a small catalog is read and
// the client's first request answered: with the default, a collection or
// two falls inside the start of a thousand skills, and on a two-core
// machine half such starts took 45 ms instead of 20 (measured from
// outside; none with the collector off). smallStart is the heap past
// which the catalog is no longer small and the default comes back, so a
// large catalog's start peaks no higher than it would.
const (
	startGOGC  = 400
	smallStart = 24 << 20
)

// lazyStartGC sets the collector for the start (see startGOGC) unless
// GOGC is set, and returns the function that ends that setting, which
// steadyStateGC follows. It looks at the heap every 10 ms meanwhile (every
// millisecond, the wakeups alone made one start in five slow).
func lazyStartGC() (end func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	prev := debug.SetGCPercent(startGOGC)
	done := make(chan struct{})
	var stopped sync.WaitGroup
	stopped.Go(func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		defer debug.SetGCPercent(prev)
		sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 || sample[0].Value.Uint64() > smallStart {
				return
			}
		}
	})
	return sync.OnceFunc(func() {
		close(done)
		stopped.Wait()
	})
}

// greetWait bounds how long the watching of the catalog waits for the
// client's first handshake (see afterGreeting).
const greetWait = time.Second

// stopGrace bounds how long serve, ending, waits for its own work (the
// search index, following the roots) before it closes the sources under
// it: a source plugin's read ends then, not at the plugin's timeout.
const stopGrace = 500 * time.Millisecond

// afterGreeting waits until greeted is closed, or greetWait has passed,
// and reports whether ctx is still live.
func afterGreeting(ctx context.Context, greeted <-chan struct{}) bool {
	t := time.NewTimer(greetWait)
	defer t.Stop()
	select {
	case <-greeted:
	case <-t.C:
	case <-ctx.Done():
	}
	return ctx.Err() == nil
}

// interval turns refresh.interval, where 0 means off, into the resolver's
// RunOptions.Interval, where a negative value does.
func interval(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

func newServeCmd(e *env) *cobra.Command {
	var f catalogFlags
	cmd := &cobra.Command{
		Use:     "serve [DIR...]",
		Aliases: []string{"mcp-server"},
		Short:   "Run the MCP server on stdio",
		Long: `Run the MCP server on stdin/stdout. Stdout carries JSON-RPC only; logs go to
stderr. The server ends with status 0 at the end of stdin, when the client
stops reading stdout, on SIGINT or on SIGTERM.

Skills come from, in precedence order for equal names:
  - your own folders: ~/.claude/skills (or $CLAUDE_CONFIG_DIR/skills),
    ~/.agents/skills, ~/.codex/skills (or $CODEX_HOME/skills),
    ~/.cursor/skills, ~/.copilot/skills and /etc/codex/skills;
  - the project: .claude/skills, .agents/skills, .cursor/skills and
    .github/skills at each level from the working folder up to the
    repository root, nearest first; skills/ at the repository root; then
    every .claude/skills below the working folder, within the repository
    (when the client declares MCP roots, its roots are the project instead);
  - the sources of the configuration files: your own
    (~/.config/skillmux/config.yaml), then the workspace's .skillmux.yaml
    (see --config and the README's Trust), source plugins among them;
  - the folders given as arguments or with --root (repeatable), else
    $SKILLS_DIR (paths separated by ':' or ',');
  - Claude Code plugins: those given with --plugin-dir and those installed
    and enabled in Claude Code, named "<plugin>:<skill>".

The tools served are those of tools.profile (default: skill, skills_search, skill_resource),
with tools.enable and tools.disable; each skill is also a prompt. A tool
the profile names that this version does not serve is reported on stderr.

An invalid configuration stops the server before it starts, with exit
status 2; an invalid workspace file the user file does not trust is set
aside instead, with its problems as warnings.`,
		Example: `  skillmux serve --root examples/skills
  skillmux serve ~/skills ~/team-skills
  skillmux serve --no-builtin --root ~/team-skills
  SKILLS_DIR=~/skills:./more skillmux serve`,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			start := time.Now()
			endStartGC := lazyStartGC()
			defer endStartGC()
			// Folders as arguments, as skill-jack users type them, come
			// before those given with --root.
			f.roots = append(args, f.roots...)
			// Logs never stop the server, even when the client does not
			// read its stderr, or closes it: with SIGPIPE received here,
			// a write to a pipe nobody reads fails with EPIPE instead of
			// ending the process (Go's default for stdout and stderr).
			// A handled signal, unlike an ignored one, is not passed on
			// to the processes the server starts. It stays received until
			// the process ends: a log line or an error message written
			// after serve returns fails, and does not change the exit
			// status into a death by signal.
			pipe := make(chan os.Signal, 1)
			signal.Notify(pipe, syscall.SIGPIPE)
			lw := logwriter.New(e.stderr, 0)
			defer lw.Close(time.Second)
			e := *e
			e.stderr = lw
			// The configuration files are looked at before they are read,
			// so that an edit made meanwhile is one the watch sees.
			look := watch.NewFilePoll(configFiles(&e, &f, e.workdir))
			s, err := newSetup(cmd, &e, &f, e.workdir, true)
			if err != nil {
				return err
			}
			logger := s.logger
			logger.Info("skillmux starting", "version", version(), "workdir", e.workdir, "config", s.cfg.Files())
			for _, w := range s.cfg.Warnings() {
				logger.Warn(w)
			}
			res, err := s.openCatalog(ctx)
			if err != nil {
				if ctx.Err() != nil {
					// A signal before the catalog was read: a stop as
					// any other, not a failure.
					logger.Info("stopping on signal, before serving")
					return nil
				}
				return err
			}
			l := &live{cmd: cmd, e: &e, f: &f, logger: logger, res: res, level: s.level, started: s.cfg, s: s, workspaces: []string{e.workdir}, look: look}
			catalog, err := catalogOptions(s.cfg)
			if err != nil {
				return err
			}
			srv := server.New(res, &server.Options{
				Version:       version(),
				Catalog:       catalog,
				Tools:         &server.ToolsOptions{Profile: s.cfg.Tools.Profile, Enable: s.cfg.Tools.Enable, Disable: s.cfg.Tools.Disable},
				Logger:        logger,
				IncludeNative: includeNative(s.cfg),
				OnRoots:       l.setWorkspaces,
				MaxFileSize:   int64(s.cfg.Resources.MaxFileSize),
				AllowDirs:     s.cfg.Resources.AllowDirs,
				IndexAfter:    res.Settled(),
			})
			res.OnSwap(func(_, _ *resolver.Snapshot) { srv.Refresh() })
			if n := res.Snapshot().Len(); n == 0 {
				logger.Warn("no skills found; run `skillmux list --all` with the same arguments to see where skillmux looked")
			}
			// Keep the catalog, and with it the sources, current until the
			// session ends.
			runCtx, stopRun := context.WithCancel(ctx)
			var running sync.WaitGroup
			// Watching starts once the first handshake is answered (or
			// greetWait after the start, for a client slow to send it):
			// setting up thousands of watches is work the client does not
			// wait for, and the edits made meanwhile are found by the
			// first look at the folders that the watching begins with.
			running.Go(func() {
				greeted := afterGreeting(runCtx, srv.Greeted())
				endStartGC()
				steadyStateGC(logger)
				if !greeted {
					return
				}
				// The user's own configuration, which the edits of a
				// workspace file are told from (see live.apply).
				l.mu.Lock()
				if l.own == nil { // not set by a change of roots already
					l.own = l.ownConfig(e.workdir)
				}
				l.mu.Unlock()
				// The configuration files are polled, not watched: they
				// are followed with refresh.watch off too.
				running.Go(func() { l.watchConfig(runCtx) })
				res.Run(runCtx, &resolver.RunOptions{Interval: interval(s.cfg.Refresh.Interval), NoWatch: !s.cfg.Refresh.Watch})
			})
			defer func() {
				// The server's own work (following the client's roots,
				// which may replace the sources and wait for a plugin to
				// start; the search index, which reads through them) is
				// stopped with the refreshes, so that none waits for the
				// other, and is given stopGrace to end before the sources
				// close; past it they are closed under it, which ends its
				// reads through a plugin, and closed again once it has
				// ended, in case it set new ones meanwhile.
				stopRun()
				stopped := make(chan struct{})
				go func() {
					srv.Close()
					running.Wait()
					close(stopped)
				}()
				select {
				case <-stopped:
				case <-time.After(stopGrace):
					// A read through a source plugin that does not answer
					// (the search index's) holds that work for the
					// plugin's timeout, up to minutes: closing the sources
					// ends such reads.
					logger.Debug("stopping: closing the sources under work still reading through them")
				}
				res.Close() // plugin processes end with the server
				<-stopped
				res.Close() // any the roots' following set after the first
			}()
			logger.Info("serving MCP on stdio", "skills", res.Snapshot().Len(), "startup", time.Since(start).Round(time.Microsecond))
			if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
				// Run by hand: say what it waits for, not look hung.
				logger.Info("stdin is a terminal: serve waits for an MCP client's JSON-RPC messages there; start it from a client (see the README's Connect a client), or run skillmux list to see the catalog; Ctrl-C ends it")
			}
			err = srv.ServeStdio(ctx, e.stdin, e.stdout)
			switch {
			case errors.Is(err, server.ErrOutputFailed):
				// The client stopped reading: as ordinary an end as
				// closing stdin.
				logger.Info("stdout closed; stopping", "err", err)
			case err != nil:
				logger.Error("stdin failed", "err", err)
			case ctx.Err() != nil:
				logger.Info("stopping on signal")
			default:
				logger.Info("stdin closed; stopping")
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().Int("budget", resolver.DefaultBudget, "size limit of the tool description and of the instructions, in characters (catalog.budget)")
	return cmd
}
