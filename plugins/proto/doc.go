// Package pluginpb is the generated Go code of skillmux's source plugin
// protocol, skillsource.proto (package skillmux.plugin.v1). Plugin
// authors in Go use package plugins instead; authors in other languages
// generate their own code from skillsource.proto.
package pluginpb

//go:generate bash generate.sh
