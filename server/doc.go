// Package server is skillmux's MCP surface, on the official Go SDK: the
// skill tool, the per-session instructions, and the stdio framing guard.
// It is the only package that imports the SDK.
//
// The server reads the catalog through a [Catalog] (in practice a
// *resolver.Resolver) on every request, so a request sees the snapshot that
// was current when it started. When the resolver swaps in a new snapshot,
// [Server.Refresh] updates the tool description, which makes the SDK send
// notifications/tools/list_changed.
//
// One file per tool or concern: skill.go (the skill tool and the text it
// returns), session.go (instructions and panic recovery), roots.go (the
// client's workspace folders), stdio.go (line framing: -32700 for
// malformed lines, batches, one writer for every reply).
package server
