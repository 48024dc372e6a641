// Package server is skillmux's MCP surface, on the official Go SDK: the
// skill tool, the per-session instructions, every skill file as a
// skill:// resource with the MCP Skills extension, and the stdio framing
// guard. It is the only package that imports the SDK.
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
// malformed lines, batches, one writer for every reply); and for skill
// files: resources.go (resources/list, the templates, resources/read and
// its collections, the errors of URIs), skillsext.go (the Skills
// extension: skills/list, skills/get, resources/directory/read),
// skill_resource.go (the tool of that name), subscribe.go (subscriptions
// and the resource notifications after a refresh), complete.go
// (completion of the templates' arguments), mimetype.go (types of files).
package server
