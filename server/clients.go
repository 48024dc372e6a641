package server

import (
	"strings"

	"github.com/skillmux/skillmux/sources"
)

// A client loads some skill folders itself. Serving those skills again
// through skillmux would list each of them twice in the model's context,
// so by default a session's catalog leaves out the folders its client
// loads natively (Options.IncludeNative turns this off). A client is known
// by the clientInfo.name of its initialize request. Clients not in the
// table (Claude Desktop, VS Code, the MCP Inspector, unknown ones) get
// everything: VS Code's Copilot reads skill folders only when its agent
// skills setting is on, which a server cannot see.
//
// The README's table of clients is this table; keep them in step.
var nativeClients = []nativeClient{
	{
		Title: "Claude Code",
		Names: []string{"claude-code"},
		Conventions: []string{
			sources.ConventionClaudeUser, sources.ConventionClaudeProject, sources.ConventionClaudePlugins,
		},
	},
	{
		Title: "Codex",
		Names: []string{"codex-mcp-client"},
		Conventions: []string{
			sources.ConventionAgentsUser, sources.ConventionAgentsProject,
			sources.ConventionCodexUser, sources.ConventionCodexAdmin,
		},
	},
	{
		Title: "Cursor",
		Names: []string{"cursor-vscode"},
		Conventions: []string{
			sources.ConventionCursorUser, sources.ConventionCursorProject,
			sources.ConventionAgentsUser, sources.ConventionAgentsProject,
			sources.ConventionClaudeUser, sources.ConventionClaudeProject,
			sources.ConventionCodexUser,
		},
	},
	{
		Title: "GitHub Copilot CLI",
		Names: []string{"github-copilot-developer"},
		Conventions: []string{
			sources.ConventionCopilotUser, sources.ConventionCopilotProject,
			sources.ConventionAgentsUser, sources.ConventionAgentsProject,
			sources.ConventionClaudeProject,
		},
	},
	{
		Title: "Gemini CLI",
		Names: []string{"gemini-cli-mcp-client"},
		Conventions: []string{
			sources.ConventionAgentsUser, sources.ConventionAgentsProject,
		},
	},
}

// nativeClient is one row of the table: a client, the clientInfo names
// it announces itself with, and the skill folders it loads itself.
type nativeClient struct {
	Title       string
	Names       []string
	Conventions []string
}

// NativeClientNames returns the clientInfo names of the table, in its
// order: the clients whose own folders are left out of their catalog.
func NativeClientNames() []string {
	var out []string
	for _, c := range nativeClients {
		out = append(out, c.Names...)
	}
	return out
}

// nativeFor returns the row for a clientInfo name, matched without regard
// to case, or nil.
func nativeFor(clientName string) *nativeClient {
	name := strings.ToLower(strings.TrimSpace(clientName))
	for i, c := range nativeClients {
		for _, n := range c.Names {
			if name == n {
				return &nativeClients[i]
			}
		}
	}
	return nil
}

// NativeFolders returns, for a clientInfo name, the client's title and the
// conventions (see sources.Skill.Convention) of the skill folders it loads
// itself, which its catalog leaves out by default; nil for a client not in
// the table.
func NativeFolders(clientName string) (title string, conventions []string) {
	c := nativeFor(clientName)
	if c == nil {
		return "", nil
	}
	return c.Title, c.Conventions
}
