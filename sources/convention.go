package sources

// The well-known skill folders, as Skill.Convention names them: where a
// skill was found, in the words a client's documentation uses, so that a
// client that loads some of these folders itself can be served the rest.
const (
	ConventionClaudeUser     = "~/.claude/skills"
	ConventionClaudeProject  = ".claude/skills" // at any level of the project, nested ones included
	ConventionClaudePlugins  = "claude-plugins" // plugins installed and enabled in Claude Code
	ConventionAgentsUser     = "~/.agents/skills"
	ConventionAgentsProject  = ".agents/skills"
	ConventionCodexUser      = "~/.codex/skills" // or $CODEX_HOME/skills
	ConventionCodexAdmin     = "/etc/codex/skills"
	ConventionCursorUser     = "~/.cursor/skills"
	ConventionCursorProject  = ".cursor/skills"
	ConventionCopilotUser    = "~/.copilot/skills"
	ConventionCopilotProject = ".github/skills"
)
