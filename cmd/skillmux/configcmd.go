package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillmux/skillmux/config"
)

func newConfigCmd(e *env) *cobra.Command {
	var f catalogFlags
	var check string
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration, or check a configuration file",
		Long: `Print the effective configuration: every value with where it came from
(default, the user file, the workspace file, an environment variable or a
flag), then the sources the server would use, in precedence order.

With --check FILE, check one configuration file alone and report every
problem with its file, line and key; the exit status is 1 when it is invalid.

Layers, lowest first: built-in defaults; the user file
($XDG_CONFIG_HOME/skillmux/config.yaml, else ~/.config/skillmux/config.yaml);
the workspace file .skillmux.yaml (the nearest from the working folder up to
the repository root; outside a git repository, only the working folder's), or
the file given with --config; environment variables
SKILLMUX_<SECTION>__<KEY> such as SKILLMUX_CATALOG__BUDGET; flags.

A workspace file whose folder the user file does not trust (trust: [DIR])
only adds sources, below all of yours; what it sets beyond that is set
aside, each setting a warning on stderr that names its line and the trust
line to add.`,
		Example: `  skillmux config
  skillmux config --check .skillmux.yaml
  SKILLMUX_LOG__LEVEL=debug skillmux config`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cmd.Flags().Changed("check") {
				if strings.TrimSpace(check) == "" {
					// Likely --check "$F" with F unset: printing the
					// configuration instead would pass a CI check.
					return usageError("--check is empty; give the configuration file to check, such as --check .skillmux.yaml")
				}
				if err := config.CheckFile(expandHome(check, e.home()), &config.Options{WorkDir: e.workdir, Home: e.home(), Env: e.environ}); err != nil {
					return &exitError{code: 1, err: err}
				}
				fmt.Fprintf(e.stdout, "%s: valid\n", check)
				return nil
			}
			s, err := newSetup(cmd, e, &f, e.workdir, false)
			if err != nil {
				return err
			}
			fmt.Fprint(e.stdout, s.cfg.Describe())
			fmt.Fprintf(e.stdout, "\n# sources in precedence order, for %s:\n", e.workdir)
			for i, src := range s.plan.sources([]string{e.workdir}) {
				fmt.Fprintf(e.stdout, "#  %d. %s\n", i+1, src.Name())
			}
			return nil
		},
	}
	f.register(cmd)
	cmd.Flags().StringVar(&check, "check", "", "check this configuration file and exit")
	cmd.Flags().Int("budget", 0, "catalog.budget, as serve takes it")
	return cmd
}
