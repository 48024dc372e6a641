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
		Long: `Print exactly what the MCP skill tool returns for NAME: "Loading:", the base
directory and the whole SKILL.md, then a blank line and the skill's other
files. NAME is looked up as the server does: case-insensitive, qualified
("plugin:skill") or short when only one skill has it.`,
		Example: `  skillmux show --root examples/skills release-notes`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			snap, err := loadCatalog(cmd, e, &f)
			if err != nil {
				return err
			}
			sk, err := snap.Lookup(args[0])
			if err != nil {
				return err
			}
			blocks, err := server.RenderSkill(sk)
			if err != nil {
				return fmt.Errorf("read %s: %w", sk.Ref, err)
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
