package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// env is what every command gets from run: the process's streams and
// environment, passed in so tests can drive the commands in-process.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	// environ is the environment as KEY=VALUE.
	environ []string
	// workdir is the working folder: where the workspace is looked for.
	workdir string
}

// getenv looks a variable up in e.environ; the last one wins, as in the
// process environment.
func (e *env) getenv(key string) string {
	for i := len(e.environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e.environ[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// home is the home folder: $HOME, else the system's idea of it.
func (e *env) home() string {
	if h := e.getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
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
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr, environ: os.Environ(), workdir: wd}
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
	root.AddCommand(newServeCmd(e), newListCmd(e), newShowCmd(e), newValidateCmd(e), newConfigCmd(e), newVersionCmd(e))
	return root
}

// newLogger logs to stderr: stdout belongs to the protocol.
func newLogger(w io.Writer, level slog.Level, format string) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
