package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillmux/skillmux/server"
)

func newShowCmd(e *env) *cobra.Command {
	var f catalogFlags
	cmd := &cobra.Command{
		Use:   "show NAME",
		Short: "Print what the skill tool returns for NAME",
		Long: `Print exactly what the MCP skill tool returns for NAME: "Loading:" and the
qualified name, the base directory and the whole SKILL.md, then a blank line and the skill's other
files. NAME is looked up as the server does: case-insensitive, qualified
("plugin:skill") or short when only one skill has it.`,
		Example: `  skillmux show --root examples/skills release-notes`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("show takes one skill NAME (got %d arguments); for example: skillmux show release-notes", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			snap, s, err := loadCatalog(cmd, e, &f, true)
			if err != nil {
				return err
			}
			defer s.Close()
			m, err := snap.Lookup(args[0])
			if err != nil {
				return err
			}
			blocks, err := server.RenderSkill(m, s.cfg.Resources.AllowDirs)
			if err != nil {
				return fmt.Errorf("read %s: %w", m.Ref, err)
			}
			for i, b := range blocks {
				if i > 0 {
					fmt.Fprintln(e.stdout)
				}
				fmt.Fprint(e.stdout, b)
				if !strings.HasSuffix(b, "\n") {
					fmt.Fprintln(e.stdout)
				}
			}
			return nil
		},
	}
	f.register(cmd)
	return cmd
}
