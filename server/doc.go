// Package server is skillmux's MCP surface, on the official Go SDK: the
// skill tool, the per-session instructions, every skill file as a
// skill:// resource with the MCP Skills extension, and the stdio framing
// guard. It is the only package that imports the SDK.
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
// The tools served are chosen by a profile (tools.go: a map from tool name
// to the function that makes the tool, and the profiles over it; adding a
// tool is adding its file and its line there).
//
// One file per tool family or concern:
//   - tools.go: the tool registry and the profiles;
//   - skill.go: the skill tool and the text it returns;
//   - search.go: skills_search and the search index, built in the
//     background and following each snapshot;
//   - list.go: skills_list;
//   - sk.go: skills.list and skills.search of the sk profile;
//   - catalogtools.go: search_skills, check_skill_exists, cite_skill and
//     suggest_skills of the catalog profile;
//   - prompts.go: every skill a prompt, answered per session, and the
//     completion of skill names;
//   - completion.go: completion/complete, by kind of reference;
//   - args.go: reading tool arguments, with -32602 for bad ones;
//   - session.go: per-session views, their instructions and tool
//     description, the filtering of list_changed, panic recovery;
//   - clients.go: which client loads which skill folders itself;
//   - changes.go: the note a skill answer carries after the catalog changed;
//   - roots.go: following the client's workspace folders;
//   - errors.go: JSON-RPC codes for the errors the SDK would send as 0;
//   - resources.go: every skill file as a skill:// resource:
//     resources/list, the templates, resources/read and its collections,
//     the errors of URIs;
//   - skillsext.go: the Skills extension (skills/list, skills/get,
//     resources/directory/read);
//   - skill_resource.go: the tool that reads a skill's files;
//   - subscribe.go: subscriptions, and the resource notifications after a
//     refresh;
//   - complete.go: completion of the resource templates' arguments;
//   - mimetype.go: the MIME types of skill files;
//   - stdio.go: line framing (-32700 for malformed lines, batches refused,
//     ids echoed exactly, back-pressure, bounded lines, one writer, a
//     shutdown bounded in time whatever the client does).
package server
