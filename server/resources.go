package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/internal/leftover"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

// Every file of every skill is a resource skill://<skill-path>/<file-path>
// (resolver/uri.go has the rules). resources/list lists each skill's
// SKILL.md; two resource templates cover the other files; resources/read
// reads any of them, and the collections of the earlier convention
// (skill-jack's): skill://<skill-path> is the skill's SKILL.md,
// skill://<skill-path>/ every file of the skill, skill:// every SKILL.md.
//
// resources/list is answered by a receiving middleware (resourceMethods)
// rather than from resources registered with the SDK: each session sees
// its own view of the catalog, and the list follows the catalog without
// registering ten thousand resources at each change. resources/read goes
// through the SDK, which hands every URI its templates match to
// readResource (and completes the result for each protocol version); the
// templates match every URI whose characters RFC 3986 allows, and the
// middleware answers the others (a raw backslash, space or control
// character) with the rule they break.

const (
	mimeMarkdown  = "text/markdown"
	mimeDirectory = "inode/directory"

	// defaultPageSize is the default number of items in a page of
	// resources/list, skills/list and resources/directory/read.
	defaultPageSize = 100

	// maxCollectionFiles and maxCollectionBytes bound a collection read:
	// the Skills extension's limits for one skill.
	maxCollectionFiles = 512
	maxCollectionBytes = 16 << 20

	// listTTL and readTTL are the ttlMs of results that carry one. The
	// catalog follows edits live: a listing may be kept for a while (a
	// client that is told of a change by list_changed lists again anyway),
	// a read or a skill's entry is current only as it is sent.
	listTTL = 30_000
	readTTL = 0
	// cacheScope is "private": a listing is one person's skills, in the
	// view of one kind of client.
	cacheScope = "private"

	// codeResourceNotFound is the error of a read of an unknown resource
	// before protocol 2026-07-28, which uses -32602 instead (SEP-2164).
	codeResourceNotFound = -32002
)

// resourceTemplates cover every file of every skill, and the forms of
// the earlier convention.
var resourceTemplates = []*mcp.ResourceTemplate{
	{
		Name:        "skill-file",
		Title:       "A file of a skill",
		URITemplate: "skill://{+skill}/{+path}",
		Description: "Any file of a skill: skill is the skill's name, or namespace/name for a plugin's skill " +
			"(skill://example-skills/pdf/SKILL.md); path is the file's path in the skill folder " +
			"(references/forms.md). SKILL.md holds the skill's instructions; resources/list lists each skill's SKILL.md.",
	},
	{
		Name:        "skill-files",
		Title:       "Every file of a skill",
		URITemplate: "skill://{+skill}/",
		Description: "Every file of a skill in one read: SKILL.md and its references, scripts and assets.",
	},
	{
		Name:        "skill",
		Title:       "A skill's instructions",
		URITemplate: "skill://{+skill}",
		Description: "A skill's folder, which reads as its SKILL.md; skill:// reads as the SKILL.md of every skill.",
		MIMEType:    mimeMarkdown,
	},
}

// addResourceTemplates registers the templates with the SDK, which lists
// them. Registering one again makes the SDK announce
// notifications/resources/list_changed (see subscribe.go).
func (s *Server) addResourceTemplates() {
	for _, t := range resourceTemplates {
		s.mcp.AddResourceTemplate(t, s.readTemplate)
	}
}

// readTemplate is the SDK's handler for every template.
func (s *Server) readTemplate(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	return s.readResource(ctx, req)
}

// resourceMethods answers resources/list, and the reads that no template
// matches.
func (s *Server) resourceMethods(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "resources/list":
			if r, ok := req.(*mcp.ListResourcesRequest); ok {
				res, err := s.listResources(ctx, r)
				if err != nil {
					return nil, err
				}
				return res, nil
			}
		case "resources/read":
			res, err := next(ctx, method, req)
			if r, ok := req.(*mcp.ReadResourceRequest); ok && r.Params != nil && isSDKNotFound(err) {
				// No template took the URI: say why in the terms of
				// readResource.
				_, snap, rerr := s.resolve(s.viewOf(req), r.Params.URI)
				if rerr == nil {
					rerr = sources.ErrNotFound
				}
				return nil, s.uriError(req, snap, r.Params.URI, rerr)
			}
			return res, err
		case "resources/subscribe":
			// A snapshot swapped in while the subscription took its
			// first look at the resource had its refresh before the
			// subscription was recorded (by subscribe, then by the SDK,
			// which sends the notifications): it is told now.
			base := s.catalog.Snapshot()
			res, err := next(ctx, method, req)
			if cur := s.catalog.Snapshot(); err == nil && cur != base {
				s.refreshResources(cur)
			}
			return res, err
		case "resources/templates/list":
			// The templates fit in one page: no cursor is one this list
			// gave. The SDK would say only "invalid params".
			if r, ok := req.(*mcp.ListResourceTemplatesRequest); ok && r.Params != nil && r.Params.Cursor != "" {
				return nil, invalidParams(fmt.Sprintf("the cursor is not one %s gave: its templates fit in one page; pass no cursor", method))
			}
		}
		return next(ctx, method, req)
	}
}

// isSDKNotFound reports whether err is the SDK's own answer to a read of
// a URI that no resource or template matches.
func isSDKNotFound(err error) bool {
	var je *jsonrpc.Error
	return errors.As(err, &je) && je.Code == mcp.CodeResourceNotFound && je.Message == "Resource not found"
}

// listResources lists the SKILL.md of every skill of the session's view,
// served and shadowed, sorted by URI.
func (s *Server) listResources(ctx context.Context, req *mcp.ListResourcesRequest) (*mcp.ListResourcesResult, error) {
	v := s.viewOf(req)
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
		s.listedResources(ss, v.snap)
	}
	items := v.snap.Addresses()
	cursor := ""
	if req.Params != nil {
		cursor = req.Params.Cursor
	}
	start, err := pageStart("resources/list", cursor, len(items), func(i int) string { return items[i].URI.Path() })
	if err != nil {
		return nil, err
	}
	end := min(start+s.pageSize, len(items))
	res := &mcp.ListResourcesResult{Resources: make([]*mcp.Resource, 0, end-start)}
	for _, a := range items[start:end] {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		res.Resources = append(res.Resources, skillMDResource(a))
	}
	if end < len(items) {
		res.NextCursor = encodeCursor("resources/list", items[end-1].URI.Path())
	}
	res.Cacheable = mcp.Cacheable{TTLMs: listTTL, CacheScope: cacheScope}
	return res, nil
}

// skillMDResource describes a skill's SKILL.md: its name is the skill's
// (the last segment of its URI), its title the qualified name that
// reaches it.
func skillMDResource(a resolver.Addressed) *mcp.Resource {
	sk := a.Match.Skill
	r := &mcp.Resource{URI: a.URI.Entry(), Name: a.Match.Ref.Name, Description: listedText(sk.Description), MIMEType: mimeMarkdown}
	if q := a.Match.Ref.String(); q != r.Name {
		r.Title = q
	}
	if sk.Files != nil {
		if info, err := fs.Stat(sk.Files, sk.EntryFile()); err == nil {
			r.Size = info.Size()
		}
	}
	return r
}

// readResource reads a file, or one of the collections.
func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	a, snap, err := s.resolveDuringStart(ctx, func() *view { return s.viewOf(req) }, uri)
	if err != nil {
		return nil, s.uriError(req, snap, uri, err)
	}
	if sk := a.Match.Skill; sk != nil && goneLocal(sk) {
		// Its files are no longer a skill's, though the catalog has not
		// caught up yet: none is served, as the skill tool serves none.
		return nil, s.notFoundBecause(req, uri, fmt.Sprintf("%s: %s", clipURI(uri), goneMessage(a.Match)))
	}
	var contents []*mcp.ResourceContents
	switch sk := a.Match.Skill; {
	case sk == nil && (a.Slash || a.IsSchemeRoot()):
		contents, err = s.readEntries(ctx, snap, a.Prefix, uri)
	case sk == nil:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is a folder of skills: list it with resources/directory/read, or read %s/ for the SKILL.md of each", clipURI(uri), clipURI(uri))}
	case a.Slash:
		contents, err = s.readFiles(ctx, snap, a, uri)
	case a.File == "":
		// The earlier convention: a skill's root reads as its SKILL.md.
		a.File = sk.EntryFile()
		var c *mcp.ResourceContents
		c, err = s.readFile(ctx, a, a.URI.Entry())
		contents = []*mcp.ResourceContents{c}
	default:
		var c *mcp.ResourceContents
		c, err = s.readFile(ctx, a, uri)
		contents = []*mcp.ResourceContents{c}
	}
	if err != nil {
		return nil, s.readError(req, snap, uri, a, err)
	}
	return &mcp.ReadResourceResult{Contents: contents, Cacheable: mcp.Cacheable{TTLMs: readTTL, CacheScope: cacheScope}}, nil
}

// resolve finds what uri names in the session's view; a skill the view
// leaves out because the client loads it itself is found in the whole
// catalog, as the skill tool finds it by name. It returns the snapshot
// the address belongs to.
func (s *Server) resolve(v *view, uri string) (resolver.Address, *resolver.Snapshot, error) {
	a, err := v.snap.Resolve(uri)
	if errors.Is(err, sources.ErrNotFound) {
		if full := s.catalog.Snapshot(); full != v.snap {
			if fa, ferr := full.Resolve(uri); ferr == nil && fa.Match.Skill != nil {
				return fa, full, nil
			}
		}
	}
	return a, v.snap, err
}

// resolveDuringStart resolves uri in the view viewOf returns, again once
// the start is complete when no skill is found there (findDuringStart).
func (s *Server) resolveDuringStart(ctx context.Context, viewOf func() *view, uri string) (resolver.Address, *resolver.Snapshot, error) {
	if strings.ContainsAny(uri, "?#") {
		// A query or a fragment names no skill's file, whatever the
		// start brings.
		return s.resolve(viewOf(), uri)
	}
	type found struct {
		a    resolver.Address
		snap *resolver.Snapshot
	}
	f, err := findDuringStart(ctx, s.started, func() (found, error) {
		a, snap, err := s.resolve(viewOf(), uri)
		return found{a, snap}, err
	})
	return f.a, f.snap, err
}

// addressable narrows allow, a walk's filter of the files of a's skill, to
// those whose URIs lead back to it: a folder whose URI is another skill's
// root (skill team's folder deploy/, when skill://team/deploy is a skill
// deploy of a source named team) is that skill's by URI, and no URI
// reaches the files in it as team's.
func addressable(snap *resolver.Snapshot, a resolver.Address, allow func(p string, dir bool) bool) func(p string, dir bool) bool {
	if !snap.HasSkillsUnder(a.URI) {
		return allow // as nearly always: every path of the skill is its own
	}
	return func(p string, dir bool) bool {
		if !allow(p, dir) {
			return false
		}
		back, err := snap.Resolve(a.URI.File(p))
		return err == nil && back.Match.Ref == a.Match.Ref
	}
}

// readFile reads the file a names, as contents with the given URI.
func (s *Server) readFile(ctx context.Context, a resolver.Address, uri string) (*mcp.ResourceContents, error) {
	sk := a.Match.Skill
	if hiddenFile(a.File) {
		return nil, fs.ErrNotExist
	}
	if !s.allowed(sk, a.File, false) {
		return nil, &sources.PathError{Path: a.File, Rule: sources.RuleNotAllowed}
	}
	if sk.Files == nil {
		return nil, fs.ErrNotExist
	}
	f, handled, err := s.reads.openRead(ctx, sk, a.File, s.maxFileSize,
		func() (*sources.File, error) { return sources.OpenFile(sk.Files, a.File) })
	if handled != nil {
		defer handled()
	}
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && handled == nil {
			return nil, cerr // the request ended while the read waited
		}
		return nil, sources.Confine(a.File, err)
	}
	defer f.Close()
	data, err := f.ReadInto(s.maxFileSize, nil)
	if err != nil {
		return nil, sources.Confine(a.File, err)
	}
	c := contentsOf(uri, a.File, data)
	if n := contentsLen(c); n > maxContents {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is not served: its %d bytes make %s%s", clipURI(uri), len(data), tooLong(n), onDisk(a.Match, a.File))}
	}
	return c, nil
}

// onDisk says where file of m's skill is on this machine, for a client
// that can read it there, or nothing for a skill a source plugin serves.
func onDisk(m resolver.Match, file string) string {
	dir, ok := localDir(m)
	if !ok {
		return ""
	}
	return "; read it from " + sources.Shown(filepath.Join(dir, filepath.FromSlash(file)))
}

// contentsOf is a file's bytes as resource contents: text when they are
// text, else a base64 blob (an empty file too: an empty text would read
// as no content at all). A blob keeps data, which the caller must not
// change after.
func contentsOf(uri, name string, data []byte) *mcp.ResourceContents {
	mt, text := mimeOf(name, data)
	c := &mcp.ResourceContents{URI: uri, MIMEType: mt}
	switch {
	case text && len(data) > 0:
		c.Text = string(data)
	case data == nil:
		c.Blob = []byte{} // nil would leave the blob out
	default:
		c.Blob = data // the caller's own bytes: no copy
	}
	return c
}

// readFiles reads every file of a skill, or of a folder of it: the
// collection skill://<skill-path>/ of the earlier convention.
func (s *Server) readFiles(ctx context.Context, snap *resolver.Snapshot, a resolver.Address, uri string) ([]*mcp.ResourceContents, error) {
	sk := a.Match.Skill
	if sk.Files == nil {
		return nil, fs.ErrNotExist
	}
	fsys, done := sources.Pin(sk.Files)
	defer done()
	if a.File != "" {
		if !s.allowed(sk, a.File, true) {
			return nil, &sources.PathError{Path: a.File, Rule: sources.RuleNotAllowed}
		}
		info, err := fs.Stat(fsys, a.File)
		if err != nil {
			return nil, sources.Confine(a.File, err)
		}
		if !info.IsDir() {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is a file, not a folder: read it without the trailing '/'", clipURI(uri))}
		}
	}
	var closed unreadable
	files, truncated, err := sources.WalkFiles(fsys, &sources.WalkOptions{MaxFiles: maxCollectionFiles, Allow: addressable(snap, a, s.walkAllow(sk, a.File)), Unreadable: closed.note})
	if err != nil {
		return nil, sources.Confine(a.File, err)
	}
	if closed.dir != "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is not served whole: %s; read the other files one by one (resources/directory/read lists them)", clipURI(uri), closed.String())}
	}
	if truncated {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s holds more than %d files: read them one by one (resources/directory/read lists them)", clipURI(uri), maxCollectionFiles)}
	}
	var total int64
	for _, f := range files {
		total += f.Size
	}
	if total > maxCollectionBytes {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s holds %d bytes, more than the %d one read returns: read its files one by one", clipURI(uri), total, maxCollectionBytes)}
	}
	handled, err := s.reads.acquire(ctx, total)
	if err != nil {
		return nil, err
	}
	defer handled()
	out := make([]*mcp.ResourceContents, 0, len(files))
	size := 0 // of out in the answer
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		data, err := sources.ReadFileLimit(fsys, f.Path, s.maxFileSize)
		if errors.Is(err, sources.ErrTooLarge) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is not served whole: its file %s is too large (%v; resources.max_file_size sets the limit); read the other files one by one (resources/directory/read lists them)", clipURI(uri), f.Path, unwrapPathError(err))}
		}
		if errors.Is(err, fs.ErrPermission) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is not served whole: its file %s cannot be read by the user skillmux runs as (permission denied); read the other files one by one (resources/directory/read lists them)", clipURI(uri), f.Path)}
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Path, sources.Confine(f.Path, err))
		}
		c := contentsOf(a.URI.File(f.Path), f.Path, data)
		if size += contentsLen(c); size > maxContents {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is not served whole: its files make more JSON than %s; read them one by one (resources/directory/read lists them)", clipURI(uri), messageLimit(mib(maxContents)))}
		}
		out = append(out, c)
	}
	return out, nil
}

// readEntries reads the SKILL.md of every skill below the encoded prefix
// ("" for all): the collection skill:// of the earlier convention.
func (s *Server) readEntries(ctx context.Context, snap *resolver.Snapshot, prefix, uri string) ([]*mcp.ResourceContents, error) {
	var items []resolver.Addressed
	for _, a := range snap.Addresses() {
		if prefix == "" || strings.HasPrefix(a.URI.Path(), prefix+"/") {
			items = append(items, a)
		}
	}
	if len(items) > maxCollectionFiles {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s holds %d skills, more than one read returns: list them with resources/list and read each SKILL.md", clipURI(uri), len(items))}
	}
	var weight int64
	for _, a := range items {
		if sk := a.Match.Skill; sk.Files != nil {
			weight += min(sources.EntrySize(sk), s.maxFileSize)
		}
	}
	handled, err := s.reads.acquire(ctx, min(weight, maxCollectionBytes))
	if err != nil {
		return nil, err
	}
	defer handled()
	out := make([]*mcp.ResourceContents, 0, len(items))
	var total int64
	size := 0 // of out in the answer
	for _, a := range items {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		sk := a.Match.Skill
		data, err := sources.ReadEntry(sk, s.maxFileSize)
		if err != nil {
			s.logger.Warn("cannot read a SKILL.md for a collection", "uri", a.URI.Entry(), "err", err)
			continue
		}
		if total += int64(len(data)); total > maxCollectionBytes {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s holds more than %d bytes of SKILL.md files: list them with resources/list and read each", clipURI(uri), maxCollectionBytes)}
		}
		c := contentsOf(a.URI.Entry(), sources.SkillFile, data)
		if size += contentsLen(c); size > maxContents {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is not served whole: its SKILL.md files make more JSON than %s; list them with resources/list and read each", clipURI(uri), messageLimit(mib(maxContents)))}
		}
		out = append(out, c)
	}
	return out, nil
}

// allowed reports whether resources.allow_dirs lets the file or folder p
// of sk through: the entry file always, anything when no folders are
// set, else what is in one of them (and, for a folder, what leads to
// one).
func (s *Server) allowed(sk *sources.Skill, p string, dir bool) bool {
	return allowedIn(s.allowDirs, sk, p, dir)
}

// allowedIn is Server.allowed for the folders allowDirs (slash paths
// without a trailing '/'; none allows everything). A path allowed as
// written must also be where its links lead: a link in an allowed folder
// to a file outside the allowed ones is not served.
func allowedIn(allowDirs []string, sk *sources.Skill, p string, dir bool) bool {
	if len(allowDirs) == 0 {
		return true
	}
	if !allowedAsWritten(allowDirs, sk, p, dir) {
		return false
	}
	if sk.Scope == sources.ScopeSourcePlugin || sk.Dir == "" {
		return true // no links to follow
	}
	top, err := filepath.EvalSymlinks(sk.Dir)
	if err != nil {
		return true // the read fails on its own
	}
	real, err := filepath.EvalSymlinks(filepath.Join(sk.Dir, filepath.FromSlash(p)))
	if err != nil {
		return true // gone, or a link leading nowhere: the read says so
	}
	rel, err := filepath.Rel(top, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return true // outside the skill: refused by the read as leading out
	}
	return allowedAsWritten(allowDirs, sk, filepath.ToSlash(rel), dir)
}

// allowedAsWritten is allowedIn for the path p as it is written.
func allowedAsWritten(allowDirs []string, sk *sources.Skill, p string, dir bool) bool {
	if !dir && p == sk.EntryFile() {
		return true
	}
	for _, d := range allowDirs {
		if within(p, d) || dir && within(d, p) {
			return true
		}
	}
	return false
}

// walkAllow is the filter of a walk of sk's files below the folder under
// ("" for all): what allowed lets through, and only names a URI can
// carry (sources.CheckPath).
func (s *Server) walkAllow(sk *sources.Skill, under string) func(p string, dir bool) bool {
	return func(p string, dir bool) bool {
		if sources.CheckPath(p) != nil {
			return false
		}
		if under != "" && !within(p, under) && !(dir && within(under, p)) {
			return false
		}
		return s.allowed(sk, p, dir)
	}
}

// hiddenFile reports whether the slash path p of a file is never part of a
// skill: in a folder such as .git (inSkippedDir), or an editor's leftover
// (SKILL.md~, a swap file). Such files are not served, as they are not
// listed.
func hiddenFile(p string) bool {
	return inSkippedDir(p) || leftover.Is(path.Base(p))
}

// inSkippedDir reports whether the slash path p lies in a folder that is
// never part of a skill (.git, node_modules).
func inSkippedDir(p string) bool {
	dir, _, found := strings.Cut(p, "/")
	for found {
		if sources.SkipDir(dir) {
			return true
		}
		p = p[len(dir)+1:]
		dir, _, found = strings.Cut(p, "/")
	}
	return false
}

// within reports whether the slash path p is dir or inside it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}

// uriError is the JSON-RPC error for a URI that names nothing served in
// snap: a broken rule is -32602 and names the rule; an unknown resource is
// the not-found error, which names the URI meant when the skill's name
// is spelled as lookups take names (see nearURI).
func (s *Server) uriError(req mcp.Request, snap *resolver.Snapshot, uri string, err error) error {
	var pe *sources.PathError
	if errors.As(err, &pe) {
		msg := pathMessage(uri, pe)
		if pe.Rule == sources.RuleEncoded {
			// A name's own "%2F" (x%2Fy.md), written as it is.
			if near, why := s.literalURI(snap, uri); near != "" {
				msg += fmt.Sprintf("; did you mean %s?%s", clipURI(near), why)
			}
		}
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
	}
	return s.notFoundNear(req, snap, uri)
}

// notFoundNear is the not-found error for uri, which names the URI meant
// when snap has one (see nearURI and literalURI).
func (s *Server) notFoundNear(req mcp.Request, snap *resolver.Snapshot, uri string) error {
	near := nearURI(snap, uri)
	why := ""
	if near == "" {
		near, why = s.literalURI(snap, uri)
	}
	if near != "" {
		return s.notFoundBecause(req, uri, fmt.Sprintf("resource not found: %s; did you mean %s?%s", clipURI(uri), clipURI(near), why))
	}
	if p, err := resolver.ParseURI(uri); err == nil && len(p.Segments) > 0 {
		// skill://<namespace>/...: a source plugin's skill, its plugin down.
		if f, ok := snap.FailedNamespace(p.Segments[0]); ok {
			return s.notFoundBecause(req, uri, fmt.Sprintf("resource not found: %s; the source %s serves no skill now: %v", clipURI(uri), f.Source, f.Err))
		}
	}
	return s.notFound(req, uri)
}

// literalURI is the URI of the file or folder that uri names when it is
// read otherwise than as a URI: with its '%' encoded again, as clients
// whose template expansion encodes the values that completion gave (RFC
// 6570's {+var} keeps them), or with the '?', '#' and '%' of a file's name
// written as they are, as a model writes a path it was listed. It returns
// "" when neither names a file the client may read, and else says which
// it was.
func (s *Server) literalURI(snap *resolver.Snapshot, uri string) (near, why string) {
	rest, ok := strings.CutPrefix(uri, "skill://")
	if !ok || len(rest) > maxNearURI {
		return "", ""
	}
	try := func(cand string) string {
		a, err := snap.Resolve(cand)
		sk := a.Match.Skill
		if err == nil && sk != nil && a.File == "" {
			// A skill's root, or its collection.
			u := a.URI.Root()
			if a.Slash {
				u += "/"
			}
			if u == uri {
				return ""
			}
			return u
		}
		if err != nil || sk == nil || sk.Files == nil || sk.Scope == sources.ScopeSourcePlugin || a.File == "" {
			return "" // a plugin's files are not looked for: each look is a call
		}
		// What a read would refuse is not hinted at: whether it exists
		// is not told.
		if hiddenFile(a.File) || !s.allowed(sk, a.File, false) {
			return ""
		}
		if _, err := fs.Stat(sk.Files, a.File); err != nil {
			return ""
		}
		if u := a.URI.File(a.File); u != uri {
			return u
		}
		return ""
	}
	if strings.Contains(rest, "%25") {
		if once, err := url.PathUnescape(rest); err == nil {
			if near := try("skill://" + once); near != "" {
				return near, " (its '%' was encoded twice, as %25)"
			}
		}
	}
	if strings.ContainsAny(rest, "?#%") {
		// '?' and '#' are a name's wherever they are; a '%' is taken
		// as the file name's own, not as an encoding.
		literal := strings.NewReplacer("?", "%3F", "#", "%23").Replace(rest)
		dir, name := "", literal
		if i := strings.LastIndexByte(literal, '/'); i >= 0 {
			dir, name = literal[:i+1], literal[i+1:]
		}
		for _, cand := range []string{literal, dir + strings.ReplaceAll(name, "%", "%25")} {
			if near := try("skill://" + cand); near != "" {
				return near, " (in a URI, a name's '?', '#' and '%' are written %3F, %23 and %25)"
			}
		}
	}
	return "", ""
}

// nearURI is the URI of the skill that uri names as the skill tool takes
// names (in another case, with its accents written as combining marks, by
// a plugin skill's short name), followed by the rest of uri; "" when no
// skill is named so, or uri is that skill's own. URIs are exact, as
// clients take them from lists: "skill://PDF/forms.md" is not pdf's.
func nearURI(snap *resolver.Snapshot, uri string) string {
	rest, ok := strings.CutPrefix(uri, "skill://")
	if !ok || len(rest) > maxNearURI || strings.ContainsAny(rest, "?#") {
		return "" // a query or a fragment would spoil the URI meant too
	}
	segs := strings.Split(rest, "/")
	for k := min(len(segs), maxNameSegments); k > 0; k-- {
		names := make([]string, k)
		for i, seg := range segs[:k] {
			names[i], _ = url.PathUnescape(seg)
		}
		if slices.Contains(names, "") {
			continue // a segment empty or not decoded: no name
		}
		m, ok := snap.Find(strings.Join(names, ":"))
		if !ok {
			continue
		}
		u, ok := resolver.URIOf(m)
		if !ok {
			return ""
		}
		near := strings.Join(append([]string{u.Root()}, segs[k:]...), "/")
		if near == uri {
			return "" // the skill's own: the file is not there
		}
		return near
	}
	return ""
}

// maxNearURI bounds the URIs nearURI looks into, and maxNameSegments the
// segments it takes for a name ("plugin-dir:example-skills:pdf" is three):
// every name tried costs a look-up.
const (
	maxNearURI      = 1024
	maxNameSegments = 8
)

// pathMessage names the URI and the rule it breaks.
func pathMessage(uri string, pe *sources.PathError) string {
	if pe.Path == uri {
		return pe.Error()
	}
	return fmt.Sprintf("%s: %v", clipURI(uri), pe)
}

// readError is the JSON-RPC error for a failed read of what a names.
func (s *Server) readError(req mcp.Request, snap *resolver.Snapshot, uri string, a resolver.Address, err error) error {
	var je *jsonrpc.Error
	var pe *sources.PathError
	switch {
	case errors.As(err, &je):
		return je
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	case errors.As(err, &pe):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: pathMessage(uri, pe)}
	case errors.Is(err, sources.ErrTooLarge):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is not served: %v (resources.max_file_size sets the limit)", clipURI(uri), unwrapPathError(err))}
	case errors.Is(err, sources.ErrNotRegular):
		if a.Match.Skill != nil && a.Match.Skill.Files != nil {
			if info, serr := fs.Stat(a.Match.Skill.Files, a.File); serr == nil && info.IsDir() {
				return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is a folder: list it with resources/directory/read, or read %s/ for every file in it", clipURI(uri), clipURI(uri))}
			}
		}
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is not served: %v", clipURI(uri), unwrapPathError(err))}
	case errors.Is(err, fs.ErrNotExist):
		return s.notFoundNear(req, snap, uri)
	case errors.Is(err, fs.ErrPermission):
		// The user's files, not the server, are at fault: the file, or
		// a folder on its way, is closed to the user skillmux runs as.
		s.logger.Warn("reading a resource: permission denied", "uri", uri, "err", err)
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is not served: permission denied (the file, or a folder on its path, cannot be read by the user skillmux runs as)", clipURI(uri))}
	case filesFault(err):
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("%s is not served: %v", clipURI(uri), unwrapPathError(err))}
	}
	level := slog.LevelError
	if sk := a.Match.Skill; sk != nil && sk.Scope == sources.ScopeSourcePlugin {
		level = slog.LevelWarn // the plugin's doing (it hangs, it is busy, it crashed), not the server's
	}
	s.logger.Log(context.Background(), level, "reading a resource failed", "uri", uri, "err", err)
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("cannot read %s: %v", clipURI(uri), unwrapPathError(err))}
}

// filesFault reports whether err, from opening or reading a skill's file,
// is the doing of the files themselves rather than the server's: a link
// out of the skill folder, a file too large, one gone (or gone and back
// while it was read, as in a checkout) or closed to the user skillmux runs
// as, what is there is no file (a FIFO, a folder, a socket), a link that
// loops, a folder on the way that is a file. The answer says so as bad
// params, and the server logs no error of its own.
func filesFault(err error) bool {
	return errors.Is(err, sources.ErrBadPath) || errors.Is(err, sources.ErrTooLarge) || errors.Is(err, sources.ErrNotRegular) ||
		errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) ||
		errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, syscall.EISDIR) ||
		errors.Is(err, syscall.ENAMETOOLONG) || errors.Is(err, syscall.ENXIO)
}

// unwrapPathError drops the operation and path an *fs.PathError adds: the
// message names the URI already.
func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// notFound is the error for a resource that does not exist: -32002 up to
// protocol 2025-11-25, -32602 from 2026-07-28 (SEP-2164), with the URI in
// the message and in the data.
func (s *Server) notFound(req mcp.Request, uri string) error {
	return s.notFoundBecause(req, uri, "resource not found: "+clipURI(uri))
}

// notFoundBecause is notFound with a message that says why.
func (s *Server) notFoundBecause(req mcp.Request, uri, msg string) error {
	code := int64(codeResourceNotFound)
	if s.modern(req.GetSession()) {
		code = jsonrpc.CodeInvalidParams
	}
	data, _ := json.Marshal(map[string]string{"uri": uri})
	return &jsonrpc.Error{Code: code, Message: msg, Data: data}
}

// modern reports whether a session speaks protocol 2026-07-28 or later:
// the version negotiated in initialize when the session had one (a client
// that asks initialize for 2026-07-28 is answered 2025-11-25, and speaks
// that), else the version its handshake (server/discover) carried.
func (s *Server) modern(ss mcp.Session) bool {
	sss, ok := ss.(*mcp.ServerSession)
	if !ok || sss == nil {
		return false
	}
	if v, ok := s.negotiated.Load(sss); ok {
		return v.(string) >= "2026-07-28"
	}
	p := sss.InitializeParams()
	return p != nil && p.ProtocolVersion >= "2026-07-28"
}

// clipURI shortens a URI, or any name a client sent, echoed in a
// message, quoted when it holds what would garble it (see sources.Shown).
func clipURI(uri string) string { return sources.Clip(sources.Shown(uri), 300) }

// encodeCursor and pageStart implement the opaque cursors of the lists:
// a cursor is the sort key of the last item of the page before, so a page
// boundary survives a change of the catalog. It is tagged with the method
// that gave it, so that a cursor of another list, or one made up, is
// refused rather than read as a key.
func encodeCursor(method, key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(method + "\x00" + key))
}

// pageStart returns the index of the first of n items (sorted by key)
// after the cursor's, which method must have given.
func pageStart(method, cursor string, n int, key func(int) string) (int, error) {
	if cursor == "" {
		return 0, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(cursor)
	k, ok := bytes.CutPrefix(b, []byte(method+"\x00"))
	if err != nil || !ok {
		return 0, invalidParams(fmt.Sprintf("the cursor is not one %s gave: pass a nextCursor as it came, or none for the first page", method))
	}
	return sort.Search(n, func(i int) bool { return key(i) > string(k) }), nil
}

// cacheFieldsByVersion leaves ttlMs and cacheScope, which the SDK sends
// with every list and read, out of the answers to a session that speaks a
// version before 2026-07-28, which does not define them.
func (s *Server) cacheFieldsByVersion(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if err != nil || s.modern(req.GetSession()) {
			return res, err
		}
		switch r := res.(type) {
		case *mcp.ReadResourceResult:
			return &readResultBefore2026{ResultBase: mcp.ResultBase{Meta: r.Meta}, Contents: r.Contents}, nil
		case *mcp.ListToolsResult, *mcp.ListPromptsResult, *mcp.ListResourcesResult, *mcp.ListResourceTemplatesResult:
			return &withoutCacheFields{Result: res}, nil
		}
		return res, nil
	}
}

// withoutCacheFields is a small result without its ttlMs and cacheScope.
type withoutCacheFields struct{ mcp.Result }

func (r *withoutCacheFields) MarshalJSON() ([]byte, error) {
	data, err := json.Marshal(r.Result)
	if err != nil {
		return nil, err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(data, &members); err != nil {
		return nil, err
	}
	delete(members, "ttlMs")
	delete(members, "cacheScope")
	return json.Marshal(members)
}

// readResultBefore2026 is a read's result as versions before 2026-07-28
// define it: a plain struct, encoded once (see plainResults), not decoded
// and encoded again: a read may be megabytes.
type readResultBefore2026 struct {
	mcp.ResultBase
	Contents []*mcp.ResourceContents `json:"contents"`
}

// unreadable is the first folder of a skill that a walk could not read
// (sources.WalkOptions.Unreadable), and why.
type unreadable struct {
	dir string
	err error
}

func (u *unreadable) note(dir string, err error) {
	if u.dir == "" {
		u.dir, u.err = dir, err
	}
}

func (u *unreadable) String() string {
	what := "its folder " + u.dir
	if u.dir == "." {
		what = "its own folder"
	}
	if errors.Is(u.err, fs.ErrPermission) {
		return what + " cannot be read by the user skillmux runs as (permission denied)"
	}
	return fmt.Sprintf("%s cannot be read (%v)", what, unwrapPathError(u.err))
}
