package main

import (
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/server"
)

func newServeCmd(e *env) *cobra.Command {
	var f catalogFlags
	var budget int
	cmd := &cobra.Command{
		Use:     "serve",
		Aliases: []string{"mcp-server"},
		Short:   "Run the MCP server on stdio",
		Long: `Run the MCP server on stdin/stdout. Stdout carries JSON-RPC only; logs go to
stderr. The server ends with status 0 at the end of stdin, on SIGINT or on
SIGTERM.

Skills come from the folders given with --root (repeatable; the first root
wins when two hold the same skill name), else from $SKILLS_DIR (paths
separated by ':' or ','), else from ./skills.`,
		Example: `  skillmux serve --root examples/skills
  SKILLS_DIR=~/skills:./skills skillmux serve`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			start := time.Now()
			logger := newLogger(e.stderr, f.level(slog.LevelInfo))
			logger.Info("skillmux starting", "version", version(), "roots", f.rootDirs(e))
			res, err := openCatalog(ctx, e, &f, logger)
			if err != nil {
				return err
			}
			srv := server.New(res, &server.Options{Version: version(), Budget: budget, Logger: logger})
			res.OnSwap(func(_, _ *resolver.Snapshot) { srv.Refresh() })
			logger.Info("serving MCP on stdio", "skills", res.Snapshot().Len(), "startup", time.Since(start).Round(time.Microsecond))
			err = srv.ServeStdio(ctx, e.stdin, e.stdout)
			switch {
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
	cmd.Flags().IntVar(&budget, "budget", resolver.DefaultBudget, "size limit of the tool description and the instructions, in characters")
	return cmd
}
