// Package sources is the model of an Agent Skill and the contract between
// skillmux and the places skills come from.
//
// A [Skill] is one SKILL.md folder (or one flat "learned" note) with its
// qualified [Ref], its description, the verbatim front matter and a way to
// read its files. A [Source] lists skills; providers live in sub-packages
// (dirtree for folder trees, user, project, claudeplugins), and [Concat]
// and [Filter] compose them. Optional powers (watching for changes, when
// it comes) will be separate interfaces found by type assertion.
//
// The package also holds the SKILL.md parser ([ParseFrontMatter],
// [ReadFrontMatter]), the lenient checks applied when serving ([Load]) and
// the strict checks of the Agent Skills specification ([Validate]).
// Serving needs only a few fields of the front matter; a scanner of its
// own (scan.go) reads them without the YAML library, and hands over to it
// whenever it is not sure what YAML makes of the text. Serving a skill's
// files needs the rules a path inside a skill folder keeps ([CheckPath]),
// a walk of every file of a skill ([WalkFiles]), their SHA-256 digests,
// cached by [FileKey] ([Digests]), and the front matter as JSON
// ([FrontMatterJSON]).
//
// This package is the public contract for source plugin authors: it imports
// no MCP, configuration or RPC types.
package sources
