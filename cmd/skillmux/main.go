// Command skillmux serves every Agent Skill a person has to any MCP client.
// See the README for usage; `skillmux --help` lists the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		var ex *exitError
		if errors.As(err, &ex) {
			if ex.err != nil {
				fmt.Fprintln(os.Stderr, "skillmux:", ex.err)
			}
			stop()
			os.Exit(ex.code)
		}
		fmt.Fprintln(os.Stderr, "skillmux:", err)
		stop()
		os.Exit(1)
	}
}
