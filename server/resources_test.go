package server_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

func TestResourceCapabilities(t *testing.T) {
	srv := server.New(newResolver(t, dirtree.New(newResourceTree(t).root, nil)), nil)
	for _, version := range []string{"2026-07-28", "2025-11-25", "2025-06-18", "2024-11-05"} {
		caps := connect(t, srv, version, nil).InitializeResult().Capabilities
		if caps.Resources == nil || !caps.Resources.Subscribe || !caps.Resources.ListChanged {
			t.Errorf("%s: resources capability %+v", version, caps.Resources)
		}
		ext, _ := caps.Extensions[server.SkillsExtension].(map[string]any)
		if ext["directoryRead"] != true {
			t.Errorf("%s: extensions %+v", version, caps.Extensions)
		}
		if caps.Completions == nil {
			t.Errorf("%s: no completions capability", version)
		}
	}
}

// resources/list lists each skill's SKILL.md, paginated, and templates
// cover the other files.
func TestResourceList(t *testing.T) {
	rt := newResourceTree(t)
	plugins := &sourcetest.Fake{SourceName: "plugins", Namespace: "example-skills", Skills: []sourcetest.FakeSkill{{Name: "pdf", Description: "The plugin's."}}}
	shadow := &sourcetest.Fake{SourceName: "project", Skills: []sourcetest.FakeSkill{{Name: "docx", Description: "The project's docx."}}}
	srv := server.New(newResolver(t, dirtree.New(rt.root, nil), plugins, shadow), &server.Options{PageSize: 2})
	cs := connect(t, srv, "2025-11-25", nil)
	var got []*mcp.Resource
	pages := 0
	for r, err := range cs.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r)
	}
	res, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for cursor := ""; ; pages++ {
		res, err := cs.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil || len(res.Resources) > 2 {
			t.Fatal(err, len(res.Resources))
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if pages < 2 || res.NextCursor == "" {
		t.Errorf("%d pages of 2", pages+1)
	}
	want := []*mcp.Resource{
		{URI: "skill://docx/SKILL.md", Name: "docx", Description: "Edit Word documents.", MIMEType: "text/markdown", Size: size(t, rt.root, "docx/SKILL.md")},
		{URI: "skill://example-skills/pdf/SKILL.md", Name: "pdf", Title: "example-skills:pdf", Description: "The plugin's.", MIMEType: "text/markdown", Size: int64(len("---\nname: pdf\ndescription: The plugin's.\n---\n"))},
		{URI: "skill://nested/SKILL.md", Name: "nested", Description: "A skill inside another.", MIMEType: "text/markdown", Size: size(t, rt.root, "pdf/nested/SKILL.md")},
		{URI: "skill://pdf/SKILL.md", Name: "pdf", Description: "Fill and read PDF forms.", MIMEType: "text/markdown", Size: size(t, rt.root, "pdf/SKILL.md")},
		{URI: "skill://project/docx/SKILL.md", Name: "docx", Title: "project:docx", Description: "The project's docx.", MIMEType: "text/markdown", Size: int64(len("---\nname: docx\ndescription: The project's docx.\n---\n"))},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
	if _, err := cs.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: "not a cursor!"}); rpcCode(err) != jsonrpc.CodeInvalidParams {
		t.Errorf("a bad cursor: %v", err)
	}
	// tools/list, whose cursors the SDK makes, refuses one in the same words.
	if _, err := cs.ListTools(context.Background(), &mcp.ListToolsParams{Cursor: "garbage"}); rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "the cursor is not one tools/list gave") {
		t.Errorf("a bad tools/list cursor: %v", err)
	}
	if _, err := cs.ListResourceTemplates(context.Background(), &mcp.ListResourceTemplatesParams{Cursor: "bogus"}); rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "pass no cursor") {
		t.Errorf("a bad templates cursor: %v", err)
	}
	tmpl, err := cs.ListResourceTemplates(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var templates []string
	for _, rt := range tmpl.ResourceTemplates {
		templates = append(templates, rt.URITemplate)
	}
	if diff := cmp.Diff([]string{"skill://{+skill}", "skill://{+skill}/", "skill://{+skill}/{+path}"}, templates); diff != "" {
		t.Errorf("templates (-want +got):\n%s", diff)
	}
}

func size(t *testing.T, parts ...string) int64 {
	t.Helper()
	info, err := os.Stat(filepath.Join(parts...))
	if err != nil {
		t.Fatal(err)
	}
	return info.Size()
}

// resources/read gives text as text and anything else as a blob, byte
// for byte.
func TestResourceRead(t *testing.T) {
	rt := newResourceTree(t)
	srv := server.New(newResolver(t, dirtree.New(rt.root, nil)), nil)
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		cs := connect(t, srv, version, nil)
		for _, tt := range []struct {
			uri, file, mime string
			text            bool
		}{
			{"skill://pdf/SKILL.md", "pdf/SKILL.md", "text/markdown", true},
			{"skill://pdf/forms.md", "pdf/forms.md", "text/markdown", true},
			{"skill://pdf/scripts/fill.py", "pdf/scripts/fill.py", "text/x-python", true},
			{"skill://pdf/assets/logo.png", "pdf/assets/logo.png", "image/png", false},
			{"skill://pdf/assets/latin1.txt", "pdf/assets/latin1.txt", "text/plain", false}, // not UTF-8: a blob
			{"skill://pdf/empty.txt", "pdf/empty.txt", "text/plain", false},
			{"skill://pdf/link-in.md", "pdf/forms.md", "text/markdown", true},
			{"skill://pdf/nested/SKILL.md", "pdf/nested/SKILL.md", "text/markdown", true},
			{"skill://nested/SKILL.md", "pdf/nested/SKILL.md", "text/markdown", true},
			{"skill://pdf/%2e%2egit", "", "", false}, // a name, not a dot segment: not found
		} {
			res, err := read(cs, tt.uri)
			if tt.file == "" {
				if err == nil {
					t.Errorf("%s: %+v", tt.uri, res)
				}
				continue
			}
			if err != nil {
				t.Errorf("%s %s: %v", version, tt.uri, err)
				continue
			}
			want, _ := os.ReadFile(filepath.Join(rt.root, filepath.FromSlash(tt.file)))
			c := res.Contents[0]
			got := []byte(c.Text)
			if !tt.text {
				got = c.Blob
			}
			if len(res.Contents) != 1 || c.URI != tt.uri || c.MIMEType != tt.mime || string(got) != string(want) || (c.Text != "") != tt.text {
				t.Errorf("%s %s: %+v, want %q as %s", version, tt.uri, c, want, tt.mime)
			}
		}
	}
}

// The corpus's fonts are served as blobs and its largest text files as
// text, byte for byte.
func TestResourceReadCorpus(t *testing.T) {
	dir := filepath.Join(corpus.Dir(t), "anthropics-skills", "skills")
	cs := connect(t, server.New(newResolver(t, dirtree.New(dir, nil)), nil), "2025-11-25", nil)
	for uri, file := range map[string]string{
		"skill://canvas-design/canvas-fonts/BigShoulders-Bold.ttf": "canvas-design/canvas-fonts/BigShoulders-Bold.ttf",
		"skill://canvas-design/canvas-fonts/ArsenalSC-Regular.ttf": "canvas-design/canvas-fonts/ArsenalSC-Regular.ttf",
		"skill://claude-api/shared/model-migration.md":             "claude-api/shared/model-migration.md",
		"skill://theme-factory/theme-showcase.pdf":                 "theme-factory/theme-showcase.pdf",
	} {
		res, err := read(cs, uri)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		want, _ := os.ReadFile(filepath.Join(dir, file))
		c := res.Contents[0]
		got := c.Blob
		if c.Text != "" {
			got = []byte(c.Text)
		}
		if string(got) != string(want) || len(want) < 90_000 {
			t.Errorf("%s: %d bytes (%s), want %d", uri, len(got), c.MIMEType, len(want))
		}
		if strings.HasSuffix(uri, ".ttf") && (c.MIMEType != "font/ttf" || c.Text != "") {
			t.Errorf("%s: a font is sent as %s text=%v", uri, c.MIMEType, c.Text != "")
		}
	}
}

// A large text file (an .xsd schema of 250 kB, like those of the document
// skills) is read whole under the cap, and refused over it.
func TestResourceReadLargeAndCapped(t *testing.T) {
	dir := t.TempDir()
	sourcetest.WriteFile(t, filepath.Join(dir, "docx", "SKILL.md"), "---\nname: docx\ndescription: Word.\n---\n")
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?>` + "\n<xsd:schema>\n")
	for i := 0; b.Len() < 250_000; i++ {
		fmt.Fprintf(&b, "  <xsd:element name=\"e%d\" type=\"xsd:string\"/>\n", i)
	}
	b.WriteString("</xsd:schema>\n")
	sourcetest.WriteFile(t, filepath.Join(dir, "docx", "ooxml", "schemas", "wml.xsd"), b.String())
	r := newResolver(t, dirtree.New(dir, nil))
	cs := connect(t, server.New(r, nil), "2025-11-25", nil)
	res, err := read(cs, "skill://docx/ooxml/schemas/wml.xsd")
	if err != nil || res.Contents[0].Text != b.String() || res.Contents[0].MIMEType != "application/xml" {
		t.Fatalf("%v", err)
	}
	capped := connect(t, server.New(r, &server.Options{MaxFileSize: 100_000}), "2025-11-25", nil)
	_, err = read(capped, "skill://docx/ooxml/schemas/wml.xsd")
	if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "resources.max_file_size") || !strings.Contains(err.Error(), "the limit is 100000") {
		t.Errorf("over the cap: %v", err)
	}
	// Read whole, the skill's refusal names the file.
	_, err = read(capped, "skill://docx/")
	if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "its file ooxml/schemas/wml.xsd is too large") || !strings.Contains(err.Error(), "the limit is 100000") {
		t.Errorf("the whole skill, over the cap: %v", err)
	}
}

// An unknown URI is the not-found error with the URI in its message:
// -32002 before 2026-07-28, -32602 from then on (SEP-2164).
func TestResourceNotFound(t *testing.T) {
	srv := server.New(newResolver(t, dirtree.New(newResourceTree(t).root, nil)), nil)
	for version, code := range map[string]int64{"2024-11-05": -32002, "2025-06-18": -32002, "2025-11-25": -32002, "2026-07-28": jsonrpc.CodeInvalidParams} {
		cs := connect(t, srv, version, nil)
		for _, uri := range []string{"skill://nope/SKILL.md", "skill://pdf/no-such.md", "skill://pdf/.git/config", "file:///etc/passwd", "skill://pdf/SKILL.md?x"} {
			_, err := read(cs, uri)
			if rpcCode(err) != code || !strings.Contains(err.Error(), uri) {
				t.Errorf("%s %s: %v, want code %d naming the URI", version, uri, err, code)
			}
		}
	}
}

// Every way out of a skill folder is refused, by a named rule, and
// nothing of the outside is read or disclosed, not even whether it
// exists.
func TestResourceTraversal(t *testing.T) {
	rt := newResourceTree(t)
	srv := server.New(newResolver(t, dirtree.New(rt.root, nil)), nil)
	cs := connect(t, srv, "2025-11-25", nil)
	for uri, rule := range map[string]sources.PathRule{
		"skill://pdf/../../outside/secret.txt":           sources.RuleParent,
		"skill://pdf/..":                                 sources.RuleParent,
		"skill://pdf/%2e%2e/%2e%2e/outside":              sources.RuleEncoded,
		"skill://pdf/%2E%2E%2Foutside":                   sources.RuleEncoded,
		"skill://pdf/..%2f..%2foutside":                  sources.RuleEncoded,
		`skill://pdf/..\..\outside`:                      sources.RuleBackslash,
		"skill://pdf/a%5c..%5c":                          sources.RuleEncoded,
		"skill://pdf/forms.md%00.png":                    sources.RuleNUL,
		"skill://pdf//" + rt.secret:                      sources.RuleEmpty,
		"skill:///" + rt.secret:                          sources.RuleEmpty,
		"skill://pdf/" + strings.Repeat("a/", 600) + "x": sources.RuleTooLong,
		"skill://pdf/" + strings.Repeat("a", 300):        sources.RuleTooLong,
		"skill://pdf/link-out.txt":                       sources.RuleOutside,
		"skill://pdf/link-out-rel":                       sources.RuleOutside,
		"skill://pdf/missing-out.txt":                    sources.RuleOutside, // the same answer as for one that exists
		"skill://pdf/dir-out/secret.txt":                 sources.RuleOutside,
		"skill://pdf/dir-out/inner/key.txt":              sources.RuleOutside,
		"skill://pdf/dir-out/no-such":                    sources.RuleOutside,
		"skill://pdf/a b.md":                             sources.RuleRaw,
	} {
		res, err := read(cs, uri)
		noSecret(t, rt, uri, res)
		noSecret(t, rt, uri, err)
		if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "rule "+string(rule)) {
			t.Errorf("%.70s: %v, want -32602 naming rule %s", uri, err, rule)
		}
	}
	// The collections never take in what lies outside.
	for _, uri := range []string{"skill://pdf/", "skill://", "skill://pdf"} {
		res, err := read(cs, uri)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		noSecret(t, rt, uri, res)
	}
}

// The collections of the earlier convention.
func TestResourceCollections(t *testing.T) {
	rt := newResourceTree(t)
	srv := server.New(newResolver(t, dirtree.New(rt.root, nil)), nil)
	cs := connect(t, srv, "2025-11-25", nil)
	uris := func(res *mcp.ReadResourceResult) []string {
		var out []string
		for _, c := range res.Contents {
			out = append(out, c.URI)
		}
		return out
	}
	// Editors' leftovers are no part of the skill: not listed, not read.
	for _, uri := range []string{"skill://pdf/SKILL.md~", "skill://pdf/references/.guide.md.swp", "skill://pdf/.DS_Store"} {
		if _, err := read(cs, uri); rpcCode(err) != -32002 {
			t.Errorf("%s: %v; want not found", uri, err)
		}
	}
	res, err := read(cs, "skill://pdf")
	if err != nil || len(res.Contents) != 1 || res.Contents[0].URI != "skill://pdf/SKILL.md" || !strings.HasPrefix(res.Contents[0].Text, "---\nname: pdf") {
		t.Errorf("skill://pdf: %v %+v", err, res)
	}
	res, err = read(cs, "skill://pdf/")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"skill://pdf/SKILL.md", "skill://pdf/assets/latin1.txt", "skill://pdf/assets/logo.png", "skill://pdf/empty.txt",
		"skill://pdf/forms.md", "skill://pdf/link-in.md", "skill://pdf/nested/SKILL.md", "skill://pdf/nested/ref.md",
		"skill://pdf/references/guide.md", "skill://pdf/scripts/fill.py",
	}
	if diff := cmp.Diff(want, uris(res)); diff != "" {
		t.Errorf("skill://pdf/ (-want +got):\n%s", diff)
	}
	res, err = read(cs, "skill://pdf/assets/")
	if diff := cmp.Diff([]string{"skill://pdf/assets/latin1.txt", "skill://pdf/assets/logo.png"}, uris(res)); err != nil || diff != "" {
		t.Errorf("skill://pdf/assets/: %v %s", err, diff)
	}
	res, err = read(cs, "skill://")
	if diff := cmp.Diff([]string{"skill://docx/SKILL.md", "skill://nested/SKILL.md", "skill://pdf/SKILL.md"}, uris(res)); err != nil || diff != "" {
		t.Errorf("skill://: %v %s", err, diff)
	}
	for _, uri := range []string{"skill://pdf/assets", "skill://pdf/forms.md/"} {
		if _, err := read(cs, uri); rpcCode(err) != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: %v", uri, err)
		}
	}
}

// resources.allow_dirs serves SKILL.md and the folders it names, and
// nothing else, in every way a file can be reached.
func TestResourceAllowDirs(t *testing.T) {
	rt := newResourceTree(t)
	// Links in an allowed folder to what is not allowed serve nothing.
	for link, target := range map[string]string{"references/forms-link.md": "../forms.md", "references/assets-link": "../assets"} {
		if err := os.Symlink(target, filepath.Join(rt.root, "pdf", filepath.FromSlash(link))); err != nil {
			t.Skip("no symlinks here:", err)
		}
	}
	srv := server.New(newResolver(t, dirtree.New(rt.root, nil)), &server.Options{AllowDirs: []string{"scripts/", "references"}})
	cs := extClient(t, srv, "2025-11-25", nil)
	for uri, ok := range map[string]bool{
		"skill://pdf/SKILL.md":                        true,
		"skill://pdf/scripts/fill.py":                 true,
		"skill://pdf/references/guide.md":             true,
		"skill://pdf/forms.md":                        false,
		"skill://pdf/nested/SKILL.md":                 false,
		"skill://pdf/references/forms-link.md":        false,
		"skill://pdf/references/assets-link/logo.png": false,
	} {
		_, err := read(cs, uri)
		if ok != (err == nil) || !ok && !strings.Contains(err.Error(), "rule not-allowed") {
			t.Errorf("%s: %v", uri, err)
		}
	}
	res, err := getSkill(cs, "skill://pdf/SKILL.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Skill.Resources {
		got = append(got, r.URI)
	}
	if diff := cmp.Diff([]string{"skill://pdf/SKILL.md", "skill://pdf/references/guide.md", "skill://pdf/scripts/fill.py"}, got); diff != "" {
		t.Errorf("the entry (-want +got):\n%s", diff)
	}
	dir, err := readDir(cs, "skill://pdf", "")
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	for _, r := range dir.Resources {
		got = append(got, r.URI)
	}
	if diff := cmp.Diff([]string{"skill://pdf/SKILL.md", "skill://pdf/references", "skill://pdf/scripts"}, got); diff != "" {
		t.Errorf("the folder (-want +got):\n%s", diff)
	}
	call, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "skill_resource", Arguments: map[string]any{"skill": "pdf", "path": "forms.md"}})
	if err != nil || !call.IsError || !strings.Contains(text(t, call.Content[0]), "rule not-allowed") {
		t.Errorf("the tool: %v %+v", err, call)
	}
	// The skill tool lists only what is served.
	call, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "skill", Arguments: map[string]any{"name": "pdf"}})
	if err != nil || call.IsError {
		t.Fatalf("the skill tool: %v %+v", err, call)
	}
	if got, want := text(t, call.Content[1]), "Files in this skill (relative to the base directory):\nreferences/guide.md\nscripts/fill.py"; got != want {
		t.Errorf("the skill tool's file list:\n%s\nwant:\n%s", got, want)
	}
	// A folder outside them, read whole or subscribed to, is refused too.
	for _, uri := range []string{"skill://pdf/assets/", "skill://pdf/assets"} {
		if _, err := read(cs, uri); err == nil || !strings.Contains(err.Error(), "rule not-allowed") {
			t.Errorf("read %s: %v", uri, err)
		}
	}
	for _, uri := range []string{"skill://pdf/forms.md", "skill://pdf/assets/"} {
		err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri})
		if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "rule not-allowed") {
			t.Errorf("subscribe %s: %v", uri, err)
		}
	}
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "skill://pdf/scripts/fill.py"}); err != nil {
		t.Errorf("subscribe to a file served: %v", err)
	}
}

// decode is a blob's bytes as the wire carries them.
func decode(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// contentReads are the requests that return file content, of a skill
// "one" with a file "a.md", by name.
func contentReads(cs *mcp.ClientSession) map[string]func(context.Context) error {
	return map[string]func(context.Context) error{
		"resources/read of a file": func(ctx context.Context) error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://one/a.md"})
			return err
		},
		"resources/read of a skill": func(ctx context.Context) error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://one/"})
			return err
		},
		"resources/read of every SKILL.md": func(ctx context.Context) error {
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://"})
			return err
		},
		"skill": func(ctx context.Context) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "skill", Arguments: map[string]any{"name": "one"}})
			return err
		},
		"skill_resource": func(ctx context.Context) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "skill_resource", Arguments: map[string]any{"skill": "one", "path": "a.md"}})
			return err
		},
		"prompts/get": func(ctx context.Context) error {
			_, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "one"})
			return err
		},
	}
}

// TestReadsWeighTheirFiles checks that each read takes its share of the
// budget by the size of the file it reads, on disk and from a source
// plugin's files alike.
func TestReadsWeighTheirFiles(t *testing.T) {
	const entrySize, fileSize = 200_000, 300_000
	body := "---\nname: big\ndescription: Big.\n---\n" + strings.Repeat("b", entrySize)
	file := strings.Repeat("f", fileSize)
	root := t.TempDir()
	sourcetest.WriteFiles(t, root, map[string]string{"big/SKILL.md": body, "big/a.md": file})
	srcs := map[string]sources.Source{
		"folder": dirtree.New(root, nil),
		"plugin": &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{
			{Name: "big", Description: "Big.", Body: strings.Repeat("b", entrySize), Files: map[string]string{"a.md": file}},
		}},
	}
	for kind, src := range srcs {
		t.Run(kind, func(t *testing.T) {
			srv := server.New(newResolver(t, src), nil)
			var mu sync.Mutex
			var sizes []int64
			srv.OnRead(func(n int64) {
				mu.Lock()
				defer mu.Unlock()
				sizes = append(sizes, n)
			})
			cs := connect(t, srv, "2025-11-25", nil)
			ctx := context.Background()
			for name, tc := range map[string]struct {
				read func() error
				size int64
			}{
				"skill": {func() error {
					_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "skill", Arguments: map[string]any{"name": "big"}})
					return err
				}, entrySize},
				"resources/read of a file": {func() error {
					_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "skill://big/a.md"})
					return err
				}, fileSize},
				"skill_resource": {func() error {
					_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "skill_resource", Arguments: map[string]any{"skill": "big", "path": "a.md"}})
					return err
				}, fileSize},
			} {
				mu.Lock()
				sizes = nil
				mu.Unlock()
				if err := tc.read(); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				mu.Lock()
				if len(sizes) != 1 || sizes[0] < tc.size {
					t.Errorf("%s took its share for %v bytes; want one share for at least %d", name, sizes, tc.size)
				}
				mu.Unlock()
			}
		})
	}
}

// readCounted is a source whose skills' files are read as they are
// opened, as a source plugin's are, and counts those reads.
type readCounted struct {
	sources.Source
	reads atomic.Int64
}

func (r *readCounted) List(ctx context.Context) (*sources.Listing, error) {
	l, err := r.Source.List(ctx)
	if err != nil {
		return nil, err
	}
	for i, sk := range l.Skills {
		c := *sk
		sizes := map[string]int64{}
		fs.WalkDir(sk.Files, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				info, _ := d.Info()
				sizes[p] = info.Size()
			}
			return nil
		})
		files := sk.Files
		c.Files = sources.ListedFS(sizes, time.Time{}, func(name string) ([]byte, error) {
			r.reads.Add(1)
			return fs.ReadFile(files, name)
		})
		l.Skills[i] = &c
	}
	return l, nil
}

// Reads that return file contents wait while others hold the budget of
// content in memory, and give up when their request is cancelled; a
// read of a skill whose files are read as they are opened (a source
// plugin's) reads nothing before its share of the budget is taken.
func TestReadsWaitForBudget(t *testing.T) {
	// Each read has a server of its own: a read the client gave up on may
	// still be waiting in the server when the budget is released, and
	// read then, which must not count for the next one.
	serve := func(t *testing.T) (*readCounted, *server.Server, *mcp.ClientSession) {
		src := &readCounted{Source: &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{
			{Name: "one", Description: "One.", Files: map[string]string{"a.md": "a"}},
		}}}
		srv := server.New(newResolver(t, src), nil)
		cs := connect(t, srv, "2025-11-25", nil)
		// The search index reads every SKILL.md once, after the handshake.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if done, todo := srv.IndexProgress(); todo > 0 && done == todo {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the search index was not built within 10 s")
			}
		}
		src.reads.Store(0)
		return src, srv, cs
	}
	for name := range contentReads(nil) {
		t.Run(name, func(t *testing.T) {
			src, srv, cs := serve(t)
			read := contentReads(cs)[name]
			release := srv.HoldReads()
			ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
			err := read(ctx)
			cancel()
			// Counted before the budget is released: the server may see
			// the client give up after the release, and then read.
			n := src.reads.Load()
			release()
			if err == nil {
				t.Errorf("answered while the budget was held")
			}
			if n != 0 {
				t.Errorf("%d files read while the budget was held", n)
			}
			if err := read(context.Background()); err != nil {
				t.Errorf("once the budget is free: %v", err)
			}
			if src.reads.Load() == 0 {
				t.Errorf("nothing read once the budget was free")
			}
		})
	}
}

// TestReadPermissionDenied checks that a file closed to the user skillmux
// runs as is refused as not served, with the reason, not as the server's
// own failure.
func TestReadPermissionDenied(t *testing.T) {
	root := t.TempDir()
	sourcetest.WriteFiles(t, root, map[string]string{
		"pdf/SKILL.md":           "---\nname: pdf\ndescription: PDF.\n---\nbody\n",
		"pdf/references/shut.md": "shut",
	})
	sourcetest.Chmod(t, filepath.Join(root, "pdf", "references", "shut.md"), 0)
	srv := server.New(newResolver(t, dirtree.New(root, nil)), nil)
	cs := connect(t, srv, "2025-11-25", nil)
	_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://pdf/references/shut.md"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "permission denied") {
		t.Errorf("read of a file closed to skillmux: %v; want -32602 saying permission denied", err)
	}
	// The read of the whole folder names the file that stops it.
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://pdf/"})
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "references/shut.md cannot be read") {
		t.Errorf("read of the skill's folder: %v; want -32602 naming references/shut.md", err)
	}
	// A folder closed to skillmux is not listed as empty.
	sourcetest.WriteFile(t, filepath.Join(root, "pdf", "closed", "x.md"), "x")
	sourcetest.Chmod(t, filepath.Join(root, "pdf", "closed"), 0)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "skill_resource", Arguments: map[string]any{"skill": "pdf", "path": "closed"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "cannot list closed/ of skill pdf: permission denied") {
		t.Errorf("skill_resource of a folder closed to skillmux: %v %+v", err, res)
	}
	// Nor is the skill served whole without it, once its file is open.
	sourcetest.Chmod(t, filepath.Join(root, "pdf", "references", "shut.md"), 0o644)
	_, err = cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://pdf/"})
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "its folder closed cannot be read") {
		t.Errorf("read of the skill's folder with a folder closed: %v; want -32602 naming closed", err)
	}
	// skills/list leaves it out: a host would copy it without that folder.
	if entries, _ := allSkills(t, extClient(t, srv, "2025-11-25", nil)); len(entries) != 0 {
		t.Errorf("skills/list with a folder of the skill closed: %d entries, want none", len(entries))
	}
}

// A URI of a skill spelled as lookups take names (another case, accents
// written as combining marks, a plugin skill's short name) is not the
// skill's URI, which is exact; the not-found error names the URI that is.
func TestURINotFoundSuggestsTheSkillsURI(t *testing.T) {
	root := t.TempDir()
	sourcetest.WriteFiles(t, root, map[string]string{
		"pdf/SKILL.md":           "---\nname: pdf\ndescription: PDFs.\n---\n",
		"pdf/forms.md":           "forms\n",
		"\u00e9t\u00e9/SKILL.md": "---\nname: \u00e9t\u00e9\ndescription: Summer.\n---\n",
	})
	plugins := &sourcetest.Fake{SourceName: "plugins", Namespace: "example-skills", Skills: []sourcetest.FakeSkill{{Name: "xlsx", Description: "Sheets."}}}
	// A source plugin that cannot start: what is asked of it says why.
	down := &sourcetest.Fake{SourceName: "pdfs", Namespace: "pdfs", Err: fmt.Errorf("the plugin could not start: %w", sources.ErrUnavailable)}
	cs := connect(t, server.New(newResolver(t, dirtree.New(root, nil), plugins, down), nil), "2025-11-25", nil)
	for uri, want := range map[string]string{
		"skill://pdfs/fill/SKILL.md":       "resource not found: skill://pdfs/fill/SKILL.md; the source pdfs serves no skill now: the plugin could not start: source unavailable",
		"skill://PDF/forms.md":             "did you mean skill://pdf/forms.md?",
		"skill://Pdf":                      "did you mean skill://pdf?",
		"skill://e%CC%81te%CC%81/SKILL.md": "did you mean skill://%C3%A9t%C3%A9/SKILL.md?",
		"skill://xlsx/SKILL.md":            "did you mean skill://example-skills/xlsx/SKILL.md?",
		"skill://pdf/nothere.md":           "resource not found: skill://pdf/nothere.md",
		"skill://nosuch/SKILL.md":          "resource not found: skill://nosuch/SKILL.md",
		"skill://PDF/forms.md?x=1":         "resource not found: skill://PDF/forms.md?x=1", // no URI meant would do
	} {
		_, err := read(cs, uri)
		if err == nil || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%s: %v; want it to end %q", uri, err, want)
		}
		if rpcCode(err) != -32002 {
			t.Errorf("%s: code %d; want -32002", uri, rpcCode(err))
		}
	}
}

// A URI echoed in an error shows what it holds: a line break, a NUL or a
// bidirectional override in it is written as an escape, not sent on to
// garble the message a client shows.
func TestOddURIsAreQuotedInErrors(t *testing.T) {
	cs := connect(t, server.New(newResolver(t, dirtree.New(skillsDir(t), nil)), nil), "2025-11-25", nil)
	for _, uri := range []string{"skill://pdf\n", "skill://p\u202edf/SKILL.md", "skill://pdf/a\x00b"} {
		_, rerr := read(cs, uri)
		serr := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri})
		for _, err := range []error{rerr, serr} {
			if err == nil {
				t.Errorf("%q: no error", uri)
				continue
			}
			if msg := err.Error(); strings.ContainsAny(msg, "\n\x00\u202e") || !strings.Contains(msg, strconv.Quote(uri)) {
				t.Errorf("%q: the message does not quote it: %q", uri, msg)
			}
		}
	}
}
