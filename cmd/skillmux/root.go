package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/skillmux/skillmux/internal/editdist"
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
	h := e.getenv("HOME")
	if h == "" {
		if u, err := user.Current(); err == nil {
			h = u.HomeDir
		}
	}
	if !filepath.IsAbs(h) {
		// A relative one would be the working folder's: a repository's
		// files taken for the user's own.
		return ""
	}
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

// usageError is a command line that cannot be run as given: exit status
// 2, like an invalid configuration.
func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

// noArgs refuses arguments, naming the command whose help to read.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageError("%s takes no arguments, got %q; see '%s --help'", strings.TrimPrefix(cmd.CommandPath(), "skillmux "), args[0], cmd.CommandPath())
	}
	return nil
}

// flagError turns pflag's errors into usage errors that suggest the flag
// meant: "unknown flag: --rot" becomes "unknown flag --rot (did you mean
// --root?)".
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "unknown flag: --"); ok {
		var names []string
		cmd.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		hint := ""
		if best := editdist.Closest(name, names, max(2, len(name)/3)); best != "" {
			hint = fmt.Sprintf(" (did you mean --%s?)", best)
		}
		return usageError("unknown flag --%s%s; see '%s --help'", name, hint, cmd.CommandPath())
	}
	if m := badValue.FindStringSubmatch(msg); m != nil {
		why := m[3]
		if f := cmd.Flags().Lookup(strings.TrimPrefix(m[2], "--")); f != nil && why == "invalid syntax" {
			// strconv's words; the flag's type says what would be right.
			switch f.Value.Type() {
			case "int", "int64", "uint", "uint64":
				why = "must be an integer"
			case "bool":
				why = "must be true or false"
			case "duration":
				why = "must be a duration, such as 200ms or 30s"
			}
		}
		return usageError("invalid value %q for %s: %s; see '%s --help'", m[1], m[2], why, cmd.CommandPath())
	}
	if m := unknownShorthand.FindStringSubmatch(msg); m != nil {
		return usageError("unknown flag %s; see '%s --help' (an argument that begins with '-' goes after --: '%s -- %s')", m[1], cmd.CommandPath(), cmd.CommandPath(), m[1])
	}
	return usageError("%s; see '%s --help'", msg, cmd.CommandPath())
}

// unknownShorthand matches pflag's message for an argument that begins
// with '-' and is no flag: a skill named "-x", say.
var unknownShorthand = regexp.MustCompile(`^unknown shorthand flag: '.+' in (-\S+)$`)

// badValue matches pflag's message for a value of the wrong type.
var badValue = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?(--[\w-]+)" flag: (?:strconv\.Parse\w+: parsing ".*": )?(.*)$`)

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
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			return unknownCommand(cmd, args[0])
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetHelpCommand(&cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(cmd *cobra.Command, args []string) error {
			// Cobra's own help command shows the general help, with
			// exit status 0, for a command that does not exist.
			target, rest, err := cmd.Root().Find(args)
			if err != nil {
				return err
			}
			if target == cmd.Root() && len(rest) > 0 {
				return unknownCommand(target, rest[0])
			}
			return target.Help()
		},
	})
	root.SuggestionsMinimumDistance = 2
	root.SetFlagErrorFunc(flagError)
	root.SetVersionTemplate("skillmux {{.Version}}\n")
	root.AddCommand(newServeCmd(e), newListCmd(e), newSearchCmd(e), newShowCmd(e), newValidateCmd(e), newConfigCmd(e), newVersionCmd(e))
	// Cobra's completion command shows its help, with status 0, for a
	// shell it does not know.
	root.InitDefaultCompletionCmd()
	if c, _, err := root.Find([]string{"completion"}); err == nil && c != root {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError("completion: unknown shell %q; give one of bash, zsh, fish or powershell, such as 'skillmux completion bash'", args[0])
			}
			return nil
		}
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		for _, shell := range c.Commands() {
			shell.Args = noArgs
		}
	}
	return root
}

// unknownCommand is the usage error for a command name that root does
// not have, with the one meant when it is close.
func unknownCommand(root *cobra.Command, name string) error {
	hint := ""
	if s := root.SuggestionsFor(name); len(s) > 0 {
		hint = fmt.Sprintf(" (did you mean %q?)", s[0])
	}
	return usageError("unknown command %q%s; run 'skillmux --help' for the commands", name, hint)
}

// newLogger logs to stderr: stdout belongs to the protocol.
func newLogger(w io.Writer, level slog.Leveler, format string) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}
