package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"
)

// env is what every command gets from run: the process's streams and
// environment, passed in so tests can drive the commands in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

// exitError carries a specific exit status; err, when set, is printed.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit status %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// run builds the command tree and executes it with args.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, getenv: osGetenv}
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return root.ExecuteContext(ctx)
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:   "skillmux",
		Short: "Serve every Agent Skill you have to any MCP client",
		Long: `skillmux merges Agent Skills (folders with a SKILL.md) from many places into
one catalog and serves it over MCP on stdio: a "skill" tool whose description
lists what is there, and server instructions with the same catalog.

Start with:
  skillmux list --root examples/skills      what the server would serve
  skillmux serve --root examples/skills     run the MCP server on stdio`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate("skillmux {{.Version}}\n")
	root.AddCommand(newServeCmd(e), newListCmd(e), newShowCmd(e), newValidateCmd(e), newVersionCmd(e))
	return root
}

// newLogger logs to stderr: stdout belongs to the protocol.
func newLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level}))
}
