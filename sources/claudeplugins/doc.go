// Package claudeplugins is the source provider for Claude Code plugin
// packages: the plugins installed in Claude Code and enabled in its
// settings ([Installed]), and plugin folders named explicitly ([Dirs]).
//
// A plugin's skills are <plugin>/skills/*/SKILL.md plus the paths its
// .claude-plugin/plugin.json lists under "skills". A folder holding a
// .claude-plugin/marketplace.json and no plugin.json defines several
// plugins: each entry whose source is a local folder, with the skills it
// lists explicitly or those of that folder. Every skill is served as
// <namespace>:<name>, the namespace being the manifest's name, else the
// marketplace entry's name, else the folder's name.
//
// Problems (a malformed JSON file, a listed path that does not exist) are
// diagnostics in the listing, never errors: other plugins and other
// sources keep working.
package claudeplugins
