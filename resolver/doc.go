// Package resolver merges the listings of every source into one immutable
// [Snapshot]: qualified names, precedence between sources, shadowing,
// lookup with ambiguity and suggestions, the catalog text shown to agents
// under a size budget (catalog.go: the fill, its order, visibility.go,
// usage.go), search (find.go, over the index of resolver/search), and the
// skill:// URIs of skills and their files, made and parsed in one place
// (uri.go).
//
// A [Resolver] owns the current Snapshot. Reload lists every source (in
// parallel; a failing source is reported and skipped), builds a new
// Snapshot off to the side and swaps it in atomically, so a request that
// started on the old one finishes on it. The resolver knows nothing of MCP
// or of configuration files.
package resolver
