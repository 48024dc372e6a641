package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

// SkillToolName is the name of the tool that loads a skill.
const SkillToolName = "skill"

var skillInputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name": map[string]any{
			"type":        "string",
			"description": "The skill's name as listed, e.g. \"pdf\" or \"example-skills:pdf\". Case does not matter; a short name works when only one skill has it.",
		},
	},
	"required":             []string{"name"},
	"additionalProperties": false,
}

// SkillSearchHint is the skill tool's anthropic/searchHint: what Claude
// Code's tool search matches when it looks for a tool.
const SkillSearchHint = "agent skills: load specialized instructions and workflows by name (skill catalog)"

// skillTool makes the skill tool with the catalog of the current snapshot;
// sessionViews gives each session its own view's description.
func (s *Server) skillTool() *tool {
	return s.skillToolWith(s.catalog.Snapshot().ToolDescription(&s.catalogOpts))
}

// skillToolWith makes the skill tool with description.
func (s *Server) skillToolWith(description string) *tool {
	return &tool{def: &mcp.Tool{
		Name:        SkillToolName,
		Title:       "Load a skill",
		Description: description,
		InputSchema: skillInputSchema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
		// Claude Code defers the descriptions of MCP tools behind its tool
		// search unless told to load them: the catalog is in this one.
		Meta: mcp.Meta{"anthropic/alwaysLoad": true, "anthropic/searchHint": SkillSearchHint},
	}, handle: s.callSkill}
}

// addSkillTool registers the skill tool with description, again after a
// change: the SDK then announces tools/list_changed.
func (s *Server) addSkillTool(description string) {
	t := s.skillToolWith(description)
	s.mcp.AddTool(t.def, toolErrors(t.handle))
}

func (s *Server) callSkill(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	name, err := nameArgument(req.Params.Arguments)
	if err != nil {
		return nil, err
	}
	var v *view
	m, err := findDuringStart(ctx, s.started, func() (resolver.Match, error) {
		v = s.viewOf(req)
		return s.lookup(v, name)
	})
	note := s.changeNote(req, v)
	if err != nil {
		return errorResult(err.Error(), note), nil
	}
	entry, handled, err := s.reads.openRead(ctx, m.Skill, m.Skill.EntryFile(), MaxSkillFileSize,
		func() (*sources.File, error) { return sources.OpenEntry(m.Skill) })
	if handled != nil {
		defer handled()
	}
	if cerr := ctx.Err(); cerr != nil && handled == nil {
		return nil, cerr // the request ended while the read waited
	}
	var blocks []string
	if entry != nil {
		blocks, err = renderEntry(m, baseDirectory(m, s.tools.has(SkillResourceToolName)), entry, s.allowDirs)
	}
	if entryGone(m.Skill, err) {
		s.logger.Debug("skill gone before the catalog's refresh", "name", m.Ref.String(), "path", m.Skill.Path, "err", err)
		return errorResult(goneMessage(m), note), nil
	}
	if err = sources.Confine(m.Skill.EntryFile(), err); err != nil {
		level := slog.LevelError
		if filesFault(err) || m.Skill.Scope == sources.ScopeSourcePlugin {
			level = slog.LevelWarn // the user's files, or a plugin, not the server, are at fault
		}
		s.logger.Log(ctx, level, "cannot read skill", "name", m.Ref.String(), "path", m.Skill.Path, "err", err)
		return errorResult(fmt.Sprintf("cannot load skill %s: %v", m.Ref, err), note), nil
	}
	if n := blocksLen(blocks); n > maxContents {
		return errorResult(fmt.Sprintf("skill %s is not sent: its %s makes %s%s", m.Ref, m.Skill.EntryFile(), tooLong(n), onDisk(m, m.Skill.EntryFile())), note), nil
	}
	if note != "" {
		blocks = append(blocks, note)
	}
	s.usage.Record(m.Skill.Ref.Key())
	res := &mcp.CallToolResult{}
	for _, b := range blocks {
		res.Content = append(res.Content, &mcp.TextContent{Text: b})
	}
	return res, nil
}

// lookup finds a skill in the session's view of the catalog. A skill left
// out of the view because the client loads it itself is still found by
// its name (the view's Lookup is the whole catalog's): being asked for,
// it is wanted.
func (s *Server) lookup(v *view, name string) (resolver.Match, error) {
	return v.snap.Lookup(name)
}

// baseDirectory is the folder an agent is told to read the skill's files
// from: the skill folder, or a source plugin's skill's local copy (made
// by the first read of one of its files). A plugin's skill without one (no
// cache, or a copy that could not be made) has no folder on this
// machine, and the line says how to read its files instead: with the
// skill_resource tool when resourceTool says it is served.
func baseDirectory(m resolver.Match, resourceTool bool) string {
	if dir, ok := localDir(m); ok {
		return sources.Shown(dir)
	}
	how := "as MCP resources"
	if u, ok := resolver.URIOf(m); ok {
		how = fmt.Sprintf("as the MCP resources under %s/", u.Root())
	}
	if resourceTool {
		how = "with the " + SkillResourceToolName + " tool"
	}
	return fmt.Sprintf("none on this machine: a source plugin serves this skill's files; read them %s", how)
}

// localDir is the folder of m's skill on this machine, and whether it has
// one: a source plugin's skill has one once its copy is made.
func localDir(m resolver.Match) (string, bool) {
	sk := m.Skill
	if sk.Scope != sources.ScopeSourcePlugin {
		return sk.Dir, true
	}
	st, err := os.Stat(sk.Dir)
	return sk.Dir, err == nil && st.IsDir()
}

// goneMessage is the answer of every method about a skill the catalog
// still lists whose entry file was removed since the catalog was read:
// the refresh that drops the skill waits out refresh.debounce. The race
// is expected, so it is logged at debug level at most.
func goneMessage(m resolver.Match) string {
	return fmt.Sprintf("skill %s is gone: its %s was removed since the catalog was read", m.Ref, m.Skill.EntryFile())
}

// entryMissing reports whether the entry file of skill sk (its SKILL.md)
// is gone from disk, which makes every file of the skill gone with it.
func entryMissing(sk *sources.Skill) bool {
	if sk.Files == nil {
		return false
	}
	_, err := fs.Stat(sk.Files, sk.EntryFile())
	return errors.Is(err, fs.ErrNotExist)
}

// goneLocal is entryMissing for a skill in a local folder, where asking
// costs a stat; a source plugin's skill is left to its source.
func goneLocal(sk *sources.Skill) bool {
	return sk.Scope != sources.ScopeSourcePlugin && entryMissing(sk)
}

// entryGone reports whether err, met while reading skill sk, is the
// skill's entry file (and maybe its folder) being gone, rather than a
// file of the skill missing or a read failing.
func entryGone(sk *sources.Skill, err error) bool {
	return errors.Is(err, fs.ErrNotExist) && entryMissing(sk)
}

// nameArgument extracts the required string argument "name", or returns
// the -32602 error a client expects for bad arguments.
func nameArgument(raw json.RawMessage) (string, error) {
	a, err := parseArgs(raw, "name")
	if err != nil {
		return "", err
	}
	return a.query("name", `a skill name, e.g. {"name": "pdf"}`)
}

// errorResult is a tool error: the model reads msg, and the notes after
// it.
func errorResult(msg string, notes ...string) *mcp.CallToolResult {
	res := &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: msg}}}
	for _, n := range notes {
		if n != "" {
			res.Content = append(res.Content, &mcp.TextContent{Text: n})
		}
	}
	return res
}

// MaxSkillFileSize bounds the SKILL.md the skill tool returns: clients
// read a whole answer as one line, and a larger file is a mistake. The
// local sources refuse to list a larger one (sources.MaxEntrySize); one a
// source plugin serves, or that grew since it was listed, is refused here.
const MaxSkillFileSize = sources.MaxEntrySize

// RenderSkill returns the text blocks the skill tool answers with: first
// "Loading: <name>" (the qualified name that reached the skill: its own,
// or the alias of a shadowed one), "Base directory: <folder>", a blank
// line and the whole entry file byte for byte, read now; then the list of
// the skill's other files, those in allowDirs when it is not empty (the
// configuration's resources.allow_dirs: what the server serves). `skillmux
// show` prints the same.
func RenderSkill(m resolver.Match, allowDirs []string) ([]string, error) {
	entry, err := sources.OpenEntry(m.Skill)
	if err != nil {
		return nil, err
	}
	return renderEntry(m, baseDirectory(m, true), entry, allowDirs)
}

// tooLarge says a file is too large to serve; it matches
// sources.ErrTooLarge, which tells the files' doing from the server's.
type tooLarge string

func (e tooLarge) Error() string { return string(e) }
func (e tooLarge) Unwrap() error { return sources.ErrTooLarge }

// renderEntry is RenderSkill with the skill's entry file open; it closes
// it.
func renderEntry(m resolver.Match, base string, entry *sources.File, allowDirs []string) ([]string, error) {
	sk := m.Skill
	body, err := entry.ReadInto(MaxSkillFileSize, nil)
	entry.Close()
	if errors.Is(err, sources.ErrTooLarge) {
		return nil, tooLarge(fmt.Sprintf("%s is over %d MiB; skills that large are not loaded", sk.EntryFile(), MaxSkillFileSize>>20))
	}
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	b.Grow(len(body) + len(base) + 64)
	fmt.Fprintf(&b, "Loading: %s\nBase directory: %s\n\n", m.Ref, base)
	b.Write(body)

	files, truncated := sk.FileList, sk.FileListTruncated
	if files == nil && sk.Kind != sources.KindLearned && sk.Files != nil {
		// The source has not listed the folder (yet): read it now.
		fsys, done := sources.Pin(sk.Files)
		defer done()
		files, truncated, err = sources.ListFiles(fsys, sk.EntryFile())
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if len(allowDirs) > 0 {
		dirs := make([]string, len(allowDirs))
		for i, d := range allowDirs {
			dirs[i] = strings.TrimSuffix(d, "/")
		}
		files = slices.DeleteFunc(slices.Clone(files), func(f string) bool { return !allowedIn(dirs, sk, f, false) })
	}
	return []string{b.String(), fileList(files, truncated)}, nil
}

func fileList(files []string, truncated bool) string {
	if len(files) == 0 {
		return "This skill has no other files."
	}
	var b strings.Builder
	b.WriteString("Files in this skill (relative to the base directory):")
	for _, f := range files {
		b.WriteString("\n")
		b.WriteString(sources.Shown(f))
	}
	if truncated {
		// The walk stops at the bound in the order folders list their
		// entries: these are some of the files, not the first by name.
		fmt.Fprintf(&b, "\n(only %d of the skill's files are listed)", sources.MaxListedFiles)
	}
	return b.String()
}
