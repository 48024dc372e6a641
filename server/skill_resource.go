package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

// SkillResourceToolName is the name of the tool that reads a skill's
// files, for clients that only call tools.
const SkillResourceToolName = "skill_resource"

const skillResourceDescription = "Read a file of a skill: the references, scripts, templates and assets its " +
	"instructions point to. Give the skill's name, as for the skill tool, and the file's path relative to the " +
	"skill's folder (\"references/forms.md\"); leave the path out to list the skill's files with their sizes. " +
	"A text file comes back as its text; a binary file as its size and type, with the file attached."

var skillResourceInputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"skill": map[string]any{
			"type":        "string",
			"description": "The skill's name, as the skill tool takes it: \"pdf\" or \"example-skills:pdf\".",
		},
		"path": map[string]any{
			"type":        "string",
			"description": "The file's path relative to the skill folder, with '/' between folders (\"scripts/fill.py\"). Empty: list the skill's files. A folder: list the files in it.",
		},
	},
	"required":             []string{"skill"},
	"additionalProperties": false,
}

// skillResourceTool is the skill_resource tool. Other servers' users know
// it as get_skill_resource (skills-mcp) and skill-resource (skill-jack):
// their profiles serve it under those names, with the same arguments.
func (s *Server) skillResourceTool() *tool { return s.skillResourceToolNamed(SkillResourceToolName) }

func (s *Server) skillResourceToolNamed(name string) *tool {
	return &tool{def: &mcp.Tool{
		Name:        name,
		Title:       "Read a skill's file",
		Description: skillResourceDescription,
		InputSchema: skillResourceInputSchema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, handle: func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return s.callSkillResource(ctx, req, name)
	}}
}

// callSkillResource answers a call of the tool served as tool, the name
// its answers point back to.
func (s *Server) callSkillResource(ctx context.Context, req *mcp.CallToolRequest, tool string) (*mcp.CallToolResult, error) {
	name, rel, err := skillResourceArguments(req.Params.Arguments)
	if err != nil {
		return nil, err
	}
	m, err := findDuringStart(ctx, s.started, func() (resolver.Match, error) { return s.lookup(s.viewOf(req), name) })
	if err != nil {
		return errorResult(err.Error()), nil
	}
	sk := m.Skill
	u, ok := resolver.URIOf(m)
	if !ok || sk.Files == nil {
		return errorResult(fmt.Sprintf("the files of skill %s cannot be served", m.Ref)), nil
	}
	if goneLocal(sk) {
		return errorResult(goneMessage(m)), nil
	}
	rel = s.pathArgument(sk, rel)
	if rel == "" || rel == "." {
		return s.listSkillFiles(m, u, "", tool)
	}
	if err := sources.CheckPath(rel); err != nil {
		// The lists quote a name with control characters as Go does
		// ("new\nline.md"), which a model may pass back as it reads; a
		// Windows path ("references\forms.md") is not such a name when
		// the skill has no file of that reading.
		// What is never served is never looked for: whether it exists
		// is not told.
		q, ok := unquotedPath(rel)
		if !ok || hiddenFile(q) || !s.allowed(sk, q, false) {
			return errorResult(err.Error()), nil
		}
		if _, serr := fs.Stat(sk.Files, q); serr != nil {
			return errorResult(err.Error()), nil
		}
		rel = q
	} else if strings.HasPrefix(rel, `"`) {
		// A name the lists quote for the white space it begins or ends
		// with (" lead.md"), passed back with its quotes.
		if q, ok := unquotedPath(rel); ok && !hiddenFile(q) && s.allowed(sk, q, false) {
			if _, err := fs.Stat(sk.Files, rel); errors.Is(err, fs.ErrNotExist) {
				if _, err := fs.Stat(sk.Files, q); err == nil {
					rel = q
				}
			}
		}
	}
	if rel == resolver.EntryName {
		rel = sk.EntryFile()
	}
	notFound := fmt.Sprintf("skill %s has no file %q; call %s with only the skill's name to list its files", m.Ref, rel, tool)
	if sk.Kind == sources.KindLearned && rel != sk.EntryFile() || hiddenFile(rel) {
		return errorResult(notFound), nil
	}
	info, err := fs.Stat(sk.Files, rel)
	if err == nil && info.IsDir() {
		if inSkippedDir(rel + "/") {
			return errorResult(notFound), nil
		}
		if !s.allowed(sk, rel, true) {
			return errorResult((&sources.PathError{Path: rel, Rule: sources.RuleNotAllowed}).Error()), nil
		}
		return s.listSkillFiles(m, u, rel, tool)
	}
	if !s.allowed(sk, rel, false) {
		return errorResult((&sources.PathError{Path: rel, Rule: sources.RuleNotAllowed}).Error()), nil
	}
	var size int64
	if err == nil {
		size = min(info.Size(), s.maxFileSize)
	}
	handled, err := s.reads.acquire(ctx, size)
	if err != nil {
		return nil, err
	}
	defer handled()
	data, err := sources.ReadFileLimit(sk.Files, rel, s.maxFileSize)
	var pe *sources.PathError
	switch err = sources.Confine(rel, err); {
	case err == nil:
	case errors.As(err, &pe):
		return errorResult(pe.Error()), nil
	case entryGone(sk, err):
		return errorResult(goneMessage(m)), nil
	case errors.Is(err, fs.ErrNotExist):
		return errorResult(notFound), nil
	case errors.Is(err, sources.ErrTooLarge):
		return errorResult(fmt.Sprintf("%s of skill %s is not served: %v (resources.max_file_size sets the limit)", rel, m.Ref, unwrapPathError(err))), nil
	default:
		return errorResult(fmt.Sprintf("cannot read %s of skill %s: %v", rel, m.Ref, unwrapPathError(err))), nil
	}
	c := contentsOf(u.File(rel), rel, data)
	if n := contentsLen(c); n > maxContents {
		return errorResult(fmt.Sprintf("%s of skill %s is not served: its %d bytes make %s%s", rel, m.Ref, len(data), tooLong(n), onDisk(m, rel))), nil
	}
	text := c.Blob == nil
	if len(data) == 0 {
		_, text = mimeOf(rel, data) // an empty text file is sent as text
	}
	if text {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
	}
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: fmt.Sprintf("%s is a binary file of %d bytes (%s), attached.", rel, len(data), c.MIMEType)},
		&mcp.EmbeddedResource{Resource: c},
	}}, nil
}

// pathArgument is the file or folder of sk that the tool's path argument
// names, less a leading "./" and a trailing "/": the path as given when sk
// serves a file or folder of that name (" x.md" is not "x.md"), else the
// path with the white space at its ends trimmed, which a model may add.
func (s *Server) pathArgument(sk *sources.Skill, rel string) string {
	clean := func(p string) string { return strings.TrimSuffix(strings.TrimPrefix(p, "./"), "/") }
	trimmed := clean(strings.TrimSpace(rel))
	if exact := clean(rel); exact != trimmed && !hiddenFile(exact) && sources.CheckPath(exact) == nil {
		if info, err := fs.Stat(sk.Files, exact); err == nil && s.allowed(sk, exact, info.IsDir()) {
			return exact
		}
	}
	return trimmed
}

// listSkillFiles answers with the files of the skill, or of one of its
// folders, and their sizes.
func (s *Server) listSkillFiles(m resolver.Match, u resolver.SkillURI, under, tool string) (*mcp.CallToolResult, error) {
	sk := m.Skill
	fsys, done := sources.Pin(sk.Files)
	defer done()
	if under != "" {
		// The walk passes over a folder it cannot read; the folder asked
		// for is not passed over in silence.
		if _, err := fs.ReadDir(fsys, under); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return errorResult(fmt.Sprintf("cannot list %s/ of skill %s: %v", under, m.Ref, unwrapPathError(sources.Confine(under, err)))), nil
		}
	}
	files, truncated, err := sources.WalkFiles(fsys, &sources.WalkOptions{Allow: s.walkAllow(sk, under)})
	if entryGone(sk, err) {
		return errorResult(goneMessage(m)), nil
	}
	if err != nil {
		return errorResult(fmt.Sprintf("cannot list the files of skill %s: %v", m.Ref, unwrapPathError(err))), nil
	}
	var b strings.Builder
	where := "the skill folder"
	if under != "" {
		where = under + "/"
	}
	fmt.Fprintf(&b, "Files of skill %s in %s (paths relative to %s):", m.Ref, where, sources.Shown(sk.Dir))
	for _, f := range files {
		p := f.Path
		if p == sk.EntryFile() {
			p = resolver.EntryName
		}
		fmt.Fprintf(&b, "\n%s (%d bytes)", sources.Shown(p), f.Size)
	}
	if len(files) == 0 {
		b.WriteString("\n(none)")
	}
	if truncated {
		fmt.Fprintf(&b, "\n(only the first %d files are listed)", sources.MaxListedFiles)
	}
	fmt.Fprintf(&b, "\nRead one with %s and its path, or as the resource %s/<path>.", tool, u.Root())
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, nil
}

// skillResourceArguments extracts "skill" (required) and "path", or
// returns the -32602 error a client expects for bad arguments.
func skillResourceArguments(raw json.RawMessage) (skill, path string, err error) {
	a, err := parseArgs(raw, "skill", "path")
	if err != nil {
		return "", "", err
	}
	if skill, err = a.query("skill", `a skill name, e.g. {"skill": "pdf", "path": "references/forms.md"}`); err != nil {
		return "", "", err
	}
	if path, err = a.str("path"); err != nil {
		return "", "", err
	}
	return skill, path, nil
}

// unquotedPath is the name a path quoted as sources.Shown quotes it stands
// for, with its quotes or without them, when that is a path.
func unquotedPath(p string) (string, bool) {
	if !strings.HasPrefix(p, `"`) {
		p = `"` + p + `"`
	}
	q, err := strconv.Unquote(p)
	if err != nil || sources.CheckPath(q) != nil {
		return "", false
	}
	return q, true
}
