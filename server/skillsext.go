package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/internal/leftover"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

// The MCP Skills extension (io.modelcontextprotocol/skills, SEP-2640):
// skills/list and skills/get return each skill's entry (the URI of its
// SKILL.md, its front matter as JSON, and every file with its SHA-256
// digest and size), and resources/directory/read lists a folder. They
// are registered with mcp.AddReceivingCustomMethod, so they work on every
// transport and every protocol version, and go through the middleware
// (panic recovery first) like the standard methods.
//
// A skill's entry must be one a client can verify: the last segment of
// its URI equals the front matter's name, which is an Agent Skills name;
// the description is there and within 1,024 characters; the front matter
// is YAML that JSON can carry; it has at most 512 files and 16 MiB; and
// each file's URI leads back to the file. A skill that breaks one of
// these is still served (the skill tool, resources/read), but has no
// entry: skills/list leaves it out and skills/get refuses it, and a
// warning that names the skill and the reason is logged once.

// SkillsExtension is the extension's identifier in the capabilities.
const SkillsExtension = "io.modelcontextprotocol/skills"

// The extension's limits for one skill.
const (
	maxSkillResources = 512
	maxSkillBytes     = 16 << 20
)

// skillEntry is the extension's Skill.
type skillEntry struct {
	URI         string          `json:"uri"`
	Frontmatter json.RawMessage `json:"frontmatter"`
	Resources   []skillResource `json:"resources"`
}

// skillResource is the extension's SkillResource.
type skillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

// cacheFields are the caching attributes of protocol 2026-07-28, left out
// for earlier versions, which do not define them.
type cacheFields struct {
	TTLMs      *int   `json:"ttlMs,omitempty"`
	CacheScope string `json:"cacheScope,omitempty"`
}

func (s *Server) cacheFor(ss *mcp.ServerSession, ttl int) cacheFields {
	if !s.modern(ss) {
		return cacheFields{}
	}
	return cacheFields{TTLMs: &ttl, CacheScope: cacheScope}
}

type listSkillsParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type listSkillsResult struct {
	mcp.ResultBase
	ResultType string        `json:"resultType"`
	Skills     []*skillEntry `json:"skills"`
	NextCursor string        `json:"nextCursor,omitempty"`
	cacheFields
}

type getSkillParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

type getSkillResult struct {
	mcp.ResultBase
	ResultType string      `json:"resultType"`
	Skill      *skillEntry `json:"skill"`
	cacheFields
}

type readDirectoryParams struct {
	mcp.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

type readDirectoryResult struct {
	mcp.ResultBase
	ResultType string          `json:"resultType"`
	Resources  []*mcp.Resource `json:"resources"`
	NextCursor string          `json:"nextCursor,omitempty"`
	cacheFields
}

// addSkillsExtension registers the extension's methods.
func (s *Server) addSkillsExtension() {
	for _, err := range []error{
		mcp.AddReceivingCustomMethod(s.mcp, "skills/list", s.listSkills),
		mcp.AddReceivingCustomMethod(s.mcp, "skills/get", s.getSkill),
		mcp.AddReceivingCustomMethod(s.mcp, "resources/directory/read", s.readDirectory),
	} {
		if err != nil { // the SDK has made the method standard: it answers it
			s.logger.Error("a Skills extension method is not served by skillmux", "err", err)
		}
	}
}

// listSkills returns a page of entries, in URI order; a skill without an
// entry is skipped, and an entry is never split across pages.
func (s *Server) listSkills(ctx context.Context, ss *mcp.ServerSession, p *listSkillsParams) (*listSkillsResult, error) {
	v := s.viewOfSession(ss)
	s.listedResources(ss, v.snap)
	items := v.snap.Addresses()
	cursor := ""
	if p != nil {
		cursor = p.Cursor
	}
	i, err := pageStart("skills/list", cursor, len(items), func(i int) string { return items[i].URI.Path() })
	if err != nil {
		return nil, err
	}
	res := &listSkillsResult{ResultType: "complete", Skills: []*skillEntry{}, cacheFields: s.cacheFor(ss, listTTL)}
	for ; i < len(items) && len(res.Skills) < s.pageSize; i++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e, why := s.entry(v.snap, items[i])
		if why != nil {
			s.warnOnce(items[i].URI.Entry()+why.msg, "skill left out of skills/list", "skill", items[i].Match.Ref.String(), "uri", items[i].URI.Entry(), "why", why.msg)
			continue
		}
		res.Skills = append(res.Skills, e)
	}
	if i < len(items) {
		res.NextCursor = encodeCursor("skills/list", items[i-1].URI.Path())
	}
	return res, nil
}

// getSkill returns the entry of the skill whose SKILL.md has the URI
// given, listed or not.
func (s *Server) getSkill(ctx context.Context, ss *mcp.ServerSession, p *getSkillParams) (*getSkillResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("skills/get needs the uri of a skill's SKILL.md")
	}
	a, snap, err := s.resolveDuringStart(ctx, func() *view { return s.viewOfSession(ss) }, p.URI)
	if err != nil || a.Match.Skill == nil || a.Slash || a.File != a.Match.Skill.EntryFile() {
		msg := fmt.Sprintf("No skill is served at %s", clipURI(p.URI))
		if err == nil && a.Match.Skill != nil {
			msg += fmt.Sprintf("; the skill there is %s", a.URI.Entry())
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
	}
	e, why := s.entry(snap, resolver.Addressed{URI: a.URI, Match: a.Match})
	if why != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("No skill is served at %s as the Skills extension defines one: %s (%s)", clipURI(p.URI), why.msg, s.otherReaders(why.noURI))}
	}
	return &getSkillResult{ResultType: "complete", Skill: e, cacheFields: s.cacheFor(ss, readTTL)}, nil
}

// notAString names v, a front matter value of the extension's JSON that is
// not a string, and how to make it one: "a number, not a string; quote
// it".
func notAString(v any) string {
	switch v.(type) {
	case []any:
		return "a list, not a string; write it as text"
	case map[string]any:
		return "a map, not a string; write it as text"
	case bool:
		return "a boolean, not a string; quote it"
	case string:
		return "an empty string"
	}
	return "a number, not a string; quote it"
}

// entry builds the extension's entry for a skill of snap, or says why it
// has none. Digests come from the cache for files that did not change.
func (s *Server) entry(snap *resolver.Snapshot, a resolver.Addressed) (*skillEntry, *refusal) {
	sk := a.Match.Skill
	raw, fields, err := s.fronts.get(sk.FrontMatter)
	if err != nil {
		return nil, refused(fmt.Sprintf("its front matter cannot be published as JSON as written: %v", err))
	}
	name, _ := fields["name"].(string)
	switch {
	case name == "" && fields["name"] != nil:
		return nil, refused("its name is " + notAString(fields["name"]) + " (the extension requires a string, equal to the last segment of its URI)")
	case name == "":
		return nil, refused("its front matter has no name (the extension requires one, equal to the last segment of its URI)")
	case name != a.Match.Ref.Name:
		return nil, refused(fmt.Sprintf("its front matter names it %q, but it is served as %q", name, a.Match.Ref.Name))
	case !sources.ValidName(name):
		return nil, refused(fmt.Sprintf("%q is not an Agent Skills name (1-%d lowercase letters, digits and single hyphens)", name, sources.MaxNameLen))
	}
	desc, _ := fields["description"].(string)
	switch n := utf8.RuneCountInString(desc); {
	case desc == "" && fields["description"] != nil:
		return nil, refused("its description is " + notAString(fields["description"]))
	case strings.TrimSpace(desc) == "":
		return nil, refused("its front matter has no description")
	case n > sources.MaxDescriptionLen:
		return nil, refused(fmt.Sprintf("its description is %d characters, over the %d an Agent Skills description may have", n, sources.MaxDescriptionLen))
	}
	if sk.Files == nil {
		return nil, refused("its files cannot be read")
	}
	fsys, done := sources.Pin(sk.Files)
	defer done()
	var closed unreadable
	files, truncated, err := sources.WalkFiles(fsys, &sources.WalkOptions{MaxFiles: maxSkillResources, Allow: s.walkAllow(sk, ""), Unreadable: closed.note})
	switch {
	case err != nil:
		return nil, refused(fmt.Sprintf("its files cannot be listed: %v", unwrapPathError(err)))
	case closed.dir != "":
		// A host copies the files an entry lists: it would get the skill
		// without those.
		return nil, refused(closed.String())
	case truncated:
		return nil, refused(fmt.Sprintf("it has more than %d files, the extension's limit for one skill", maxSkillResources))
	}
	var total int64
	hasEntry := false
	for _, f := range files {
		total += f.Size
		hasEntry = hasEntry || f.Path == sk.EntryFile()
		if f.Size > s.maxFileSize {
			// A host must be able to read every file its entry lists.
			return nil, refused(fmt.Sprintf("its file %s is %d bytes, over the %d bytes resources/read serves (resources.max_file_size)", f.Path, f.Size, s.maxFileSize))
		}
	}
	switch {
	case total > maxSkillBytes:
		return nil, refused(fmt.Sprintf("its files hold %d bytes, over the extension's limit of %d for one skill", total, maxSkillBytes))
	case !hasEntry:
		return nil, refused("its SKILL.md cannot be read")
	}
	e := &skillEntry{URI: a.URI.Entry(), Frontmatter: raw, Resources: make([]skillResource, 0, len(files))}
	for _, f := range files {
		uri := a.URI.File(f.Path)
		if back, err := snap.Resolve(uri); err != nil || back.Match.Ref != a.Match.Ref || back.File != f.Path {
			return nil, &refusal{fmt.Sprintf("its file %s cannot be addressed: %s belongs to %s", f.Path, uri, back.Match.Ref), true}
		}
		sum, size, err := s.digests.Sum(fsys, sk.Dir, f)
		if err != nil {
			return nil, refused(fmt.Sprintf("its file %s cannot be read: %v", f.Path, unwrapPathError(err)))
		}
		e.Resources = append(e.Resources, skillResource{URI: uri, Digest: sum.String(), Size: size})
	}
	return e, nil
}

// frontCache remembers front matter rendered as JSON, by the front
// matter's text: a listing renders each skill's once, not at every call.
// The zero value is ready.
type frontCache struct {
	// mu guards m.
	mu sync.Mutex
	m  map[string]*frontJSON
}

type frontJSON struct {
	raw    json.RawMessage
	fields map[string]any // not modified once rendered
	err    error
}

// maxFronts bounds the cache; past it the cache starts afresh.
const maxFronts = 1 << 15

func (c *frontCache) get(front []byte) (json.RawMessage, map[string]any, error) {
	c.mu.Lock()
	e, ok := c.m[string(front)]
	c.mu.Unlock()
	if !ok {
		e = &frontJSON{}
		e.raw, e.fields, e.err = sources.FrontMatterJSON(front)
		c.mu.Lock()
		if c.m == nil || len(c.m) >= maxFronts {
			c.m = map[string]*frontJSON{}
		}
		c.m[string(front)] = e
		c.mu.Unlock()
	}
	return e.raw, e.fields, e.err
}

// readDirectory lists the direct children of a folder: a skill's folder
// or one of its sub-folders, with files as resources and folders as
// inode/directory; or skill:// and the folders above skills, whose
// children are folders that lead to skills.
func (s *Server) readDirectory(ctx context.Context, ss *mcp.ServerSession, p *readDirectoryParams) (*readDirectoryResult, error) {
	if p == nil || p.URI == "" {
		return nil, invalidParams("resources/directory/read needs the uri of a folder")
	}
	a, snap, err := s.resolveDuringStart(ctx, func() *view {
		v := s.viewOfSession(ss)
		s.listedResources(ss, v.snap)
		return v
	}, p.URI)
	if err != nil {
		var pe *sources.PathError
		if errors.As(err, &pe) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: pathMessage(p.URI, pe)}
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s: no folder is served at this URI", clipURI(p.URI))}
	}
	children, err := s.dirPages.get(snap, p.URI, s.pageSize, func() ([]*mcp.Resource, error) { return s.children(snap, a) })
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s %v", clipURI(p.URI), err)}
	}
	// A cursor names its folder too: one of another folder is refused,
	// not read as a place in this one.
	list := "resources/directory/read of " + clipURI(p.URI)
	start, err := pageStart(list, p.Cursor, len(children), func(i int) string { return children[i].URI })
	if err != nil {
		return nil, err
	}
	end := min(start+s.pageSize, len(children))
	page := children[start:end]
	if page == nil {
		page = []*mcp.Resource{} // the extension's schema has an array, never null
	}
	res := &readDirectoryResult{ResultType: "complete", Resources: page, cacheFields: s.cacheFor(ss, listTTL)}
	if end < len(children) {
		res.NextCursor = encodeCursor(list, children[end-1].URI)
	}
	return res, nil
}

// dirPages keeps the children of the last folder of more than a page
// that was listed, so that reading it page by page lists it once, not once
// a page: every page listed and looked at every file of the folder, and
// 500 pages of a folder of 50,000 files took 237 s. What it keeps is good
// for one snapshot and for dirPagesTTL.
type dirPages struct {
	mu       sync.Mutex
	snap     *resolver.Snapshot
	uri      string
	at       time.Time
	children []*mcp.Resource // read only: pages are cut of it
}

// dirPagesTTL bounds how long the children kept are served: a file edited
// in a skill changes its size, which no new snapshot may tell.
const dirPagesTTL = 10 * time.Second

// get returns the children of the folder at uri in snap: those kept, or
// list's, kept when they are more than a page.
func (d *dirPages) get(snap *resolver.Snapshot, uri string, page int, list func() ([]*mcp.Resource, error)) ([]*mcp.Resource, error) {
	d.mu.Lock()
	if d.snap == snap && d.uri == uri && time.Since(d.at) < dirPagesTTL {
		children := d.children
		d.mu.Unlock()
		return children, nil
	}
	d.mu.Unlock()
	children, err := list()
	if err == nil && len(children) > page {
		d.mu.Lock()
		d.snap, d.uri, d.at, d.children = snap, uri, time.Now(), children
		d.mu.Unlock()
	}
	return children, err
}

// children returns the direct children of the folder a names, sorted by
// URI, or an error that completes the sentence "<uri> ...".
func (s *Server) children(snap *resolver.Snapshot, a resolver.Address) ([]*mcp.Resource, error) {
	var out []*mcp.Resource
	seen := map[string]bool{}
	folder := func(uri, name string) {
		if !seen[uri] {
			seen[uri] = true
			out = append(out, &mcp.Resource{URI: uri, Name: name, MIMEType: mimeDirectory})
		}
	}
	base := a.Prefix // the encoded path whose URI children extend
	if sk := a.Match.Skill; sk != nil {
		if sk.Files == nil {
			return nil, fmt.Errorf("is not a directory resource: the skill's files cannot be read")
		}
		fsys, done := sources.Pin(sk.Files)
		defer done()
		dir := a.File
		if dir == "" {
			dir = "."
		} else if info, err := fs.Stat(fsys, dir); err != nil || !info.IsDir() || !s.allowed(sk, dir, true) || inSkippedDir(dir+"/") {
			if err == nil && !info.IsDir() {
				return nil, fmt.Errorf("is not a directory resource")
			}
			return nil, fmt.Errorf("is not a directory resource: no folder is served at this URI")
		}
		if sk.Kind == sources.KindLearned {
			if info, err := fs.Stat(fsys, sk.EntryFile()); err == nil {
				out = append(out, &mcp.Resource{URI: a.URI.Entry(), Name: sources.SkillFile, MIMEType: mimeMarkdown, Size: info.Size()})
			}
			return out, nil
		}
		entries, err := fs.ReadDir(fsys, dir)
		if err != nil {
			return nil, fmt.Errorf("cannot be listed: %v", unwrapPathError(sources.Confine(dir, err)))
		}
		allow := s.walkAllow(sk, "")
		above := enclosing(fsys, dir)
		for _, e := range entries {
			p := e.Name()
			if dir != "." {
				p = dir + "/" + p
			}
			info, err := fs.Stat(fsys, p) // follows a symlink only inside the folder
			if err != nil {
				continue
			}
			switch {
			case info.IsDir() && e.Type()&fs.ModeSymlink != 0 && above(info):
				// A link to this folder or one above it, which
				// WalkFiles does not follow either: followed, it would
				// make the folder endless.
			case info.IsDir() && !sources.SkipDir(e.Name()) && allow(p, true):
				folder(a.URI.File(p), e.Name())
			case info.Mode().IsRegular() && !leftover.Is(e.Name()) && allow(p, false):
				uri := a.URI.File(p)
				name := e.Name()
				if uri == a.URI.Entry() {
					name = sources.SkillFile
				}
				seen[uri] = true
				out = append(out, &mcp.Resource{URI: uri, Name: name, MIMEType: mimeByName(name), Size: info.Size()})
			}
		}
		base = strings.TrimPrefix(a.URI.File(a.File), "skill://")
	} else if a.IsSchemeRoot() {
		base = ""
	}
	// Skills whose URIs lie below this folder: a plugin skill pdf:forms is
	// a folder of skill://pdf.
	for _, name := range snap.Children(base) {
		uri := "skill://" + name
		if base != "" {
			uri = "skill://" + base + "/" + name
		}
		folder(uri, decodedName(name))
	}
	sortResources(out)
	return out, nil
}

// enclosing returns a function that reports whether a folder is dir of
// fsys or one of the folders above it, up to fsys's root.
func enclosing(fsys fs.FS, dir string) func(fs.FileInfo) bool {
	var keys []sources.FileKey
	for d := dir; ; d = path.Dir(d) {
		if info, err := fs.Stat(fsys, d); err == nil {
			keys = append(keys, sources.KeyOf(info))
		}
		if d == "." {
			break
		}
	}
	return func(info fs.FileInfo) bool { return slices.ContainsFunc(keys, sources.KeyOf(info).SameFile) }
}

// decodedName is the name an encoded URI segment stands for.
func decodedName(enc string) string {
	if p, err := resolver.ParseURI("skill://" + enc); err == nil && len(p.Segments) == 1 {
		return p.Segments[0]
	}
	return enc
}

func sortResources(rs []*mcp.Resource) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].URI < rs[j].URI })
}

// refusal is why entry gives no entry of a skill.
type refusal struct {
	msg   string
	noURI bool // a file of the skill has no URI: resources/read cannot serve it
}

func refused(msg string) *refusal { return &refusal{msg: msg} }

// otherReaders says what may still serve the files of a skill that
// skills/get refuses: resources/read, unless some file has no URI, and
// the tools served that read a skill's files.
func (s *Server) otherReaders(noURI bool) string {
	var ways []string
	if !noURI {
		ways = append(ways, "resources/read")
	}
	if s.tools.has(SkillResourceToolName) {
		ways = append(ways, "the "+SkillResourceToolName+" tool")
	}
	files := "its files may still be read with " + strings.Join(ways, " or ") + ", within their own size limits"
	switch {
	case len(ways) == 0 && s.tools.has(SkillToolName):
		return "the " + SkillToolName + " tool still loads its SKILL.md"
	case len(ways) == 0:
		return "nothing this server serves reads its files"
	case s.tools.has(SkillToolName):
		return files + "; the " + SkillToolName + " tool loads its SKILL.md"
	}
	return files
}
