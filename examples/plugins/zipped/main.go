// Command zipped is a skillmux source plugin that serves the skills packed
// in the bundles of a folder: .zip and .skill files, the packaging Claude
// uses (a zip of a skill folder). It follows the folder, so a bundle
// added, replaced or removed reaches the catalog within a second.
//
// Configure it in skillmux:
//
//	sources:
//	  - type: plugin
//	    name: bundles
//	    command: [/usr/local/bin/zipped, /home/me/skill-bundles]
//
// A bundle is read with care, for bundles come from elsewhere: an entry
// whose path would leave its skill (zip slip: "..", an absolute path, a
// backslash), a symlink entry, a file larger than 16 MiB, a bundle that
// unpacks to more than 64 MiB or holds more than 10,000 entries, an entry
// compressed more than 200 times (a zip bomb), a name that is not UTF-8:
// each is skipped and reported, and the rest of the bundle is served.
// Sizes are checked against the bytes actually inflated, not only against
// what the archive says.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/skillmux/skillmux/plugins"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: zipped FOLDER (a folder of .zip and .skill bundles); skillmux starts it as a source plugin")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	src := NewBundles(os.Args[1], nil)
	// skillmux stops a plugin with SIGTERM, which ends ctx: a clean stop.
	if err := plugins.Serve(ctx, src, &plugins.ServeOptions{Version: "1.0.0"}); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "zipped:", err)
		os.Exit(1)
	}
}
