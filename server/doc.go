// Package server is skillmux's MCP surface, on the official Go SDK. It is
// the only package that imports the SDK.
//
// The server reads the catalog through a [Catalog] (in practice a
// *resolver.Resolver) on every request, so a request sees the snapshot that
// was current when it started. Each session sees a view of that snapshot
// made for its client: the skill folders a client loads natively (by its
// clientInfo name) are left out of its catalog. When the resolver swaps in
// a new snapshot, [Server.Refresh] compares each session's view with what
// the session last saw and announces a change only to the sessions it
// concerns.
//
// One file per tool or concern:
//   - skill.go: the skill tool and the text it returns;
//   - session.go: per-session views, their instructions and tool
//     description, the filtering of list_changed, panic recovery;
//   - clients.go: which client loads which skill folders itself;
//   - changes.go: the note a skill answer carries after the catalog changed;
//   - roots.go: following the client's workspace folders;
//   - errors.go: JSON-RPC codes for the errors the SDK would send as 0;
//   - stdio.go: line framing (-32700 for malformed lines, batches refused,
//     ids echoed exactly, back-pressure, bounded lines, one writer, a
//     shutdown bounded in time whatever the client does).
package server
