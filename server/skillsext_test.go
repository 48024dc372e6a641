package server_test

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// A skill's entry lists every file of its folder, nested skills' files
// included, each once with its digest and size, and its front matter as
// the file has it.
func TestSkillsListEntries(t *testing.T) {
	rt := newResourceTree(t)
	srv := server.New(newResolver(t, dirtree.New(rt.root, nil)), nil)
	cs := extClient(t, srv, "2025-11-25", nil)
	entries, _ := allSkills(t, cs)
	byURI := map[string]*skillEntry{}
	var uris []string
	for _, e := range entries {
		byURI[e.URI] = e
		uris = append(uris, e.URI)
	}
	if diff := cmp.Diff([]string{"skill://docx/SKILL.md", "skill://nested/SKILL.md", "skill://pdf/SKILL.md"}, uris); diff != "" {
		t.Fatalf("skills (-want +got):\n%s", diff)
	}
	pdf := byURI["skill://pdf/SKILL.md"]
	wantFiles := map[string]string{
		"skill://pdf/SKILL.md":            "pdf/SKILL.md",
		"skill://pdf/assets/latin1.txt":   "pdf/assets/latin1.txt",
		"skill://pdf/assets/logo.png":     "pdf/assets/logo.png",
		"skill://pdf/empty.txt":           "pdf/empty.txt",
		"skill://pdf/forms.md":            "pdf/forms.md",
		"skill://pdf/link-in.md":          "pdf/forms.md",
		"skill://pdf/nested/SKILL.md":     "pdf/nested/SKILL.md",
		"skill://pdf/nested/ref.md":       "pdf/nested/ref.md",
		"skill://pdf/references/guide.md": "pdf/references/guide.md",
		"skill://pdf/scripts/fill.py":     "pdf/scripts/fill.py",
	}
	var paths []string
	for _, f := range wantFiles {
		paths = append(paths, filepath.Join(rt.root, filepath.FromSlash(f)))
	}
	bySum := sha256sum(t, paths...)
	if len(pdf.Resources) != len(wantFiles) {
		t.Errorf("%d resources, want %d: %+v", len(pdf.Resources), len(wantFiles), pdf.Resources)
	}
	for _, r := range pdf.Resources {
		file, ok := wantFiles[r.URI]
		if !ok {
			t.Errorf("unexpected resource %s", r.URI)
			continue
		}
		path := filepath.Join(rt.root, filepath.FromSlash(file))
		if want := sha256File(t, path); r.Digest != want {
			t.Errorf("%s: digest %s, crypto/sha256 says %s", r.URI, r.Digest, want)
		}
		if bySum != nil && r.Digest != bySum[path] {
			t.Errorf("%s: digest %s, sha256sum says %s", r.URI, r.Digest, bySum[path])
		}
		if r.Size != size(t, path) {
			t.Errorf("%s: size %d", r.URI, r.Size)
		}
	}
	// The front matter, value for value as a YAML 1.2 reader sees it.
	want := map[string]any{
		"name": "pdf", "description": "Fill and read PDF forms.",
		"metadata":      map[string]any{"version": float64(14), "released": "2024-01-01"},
		"allowed-tools": []any{"Read", "Bash"},
	}
	if diff := cmp.Diff(want, pdf.Frontmatter); diff != "" {
		t.Errorf("front matter (-want +got):\n%s", diff)
	}
}

// The whole corpus lists, and every digest agrees with the file.
func TestSkillsListCorpus(t *testing.T) {
	dir := corpus.Dir(t)
	logs := &logBuffer{}
	srv := server.New(newResolver(t, dirtree.New(dir, nil)), &server.Options{Logger: logs.logger()})
	cs := extClient(t, srv, "2026-07-28", nil)
	entries, pages := allSkills(t, cs)
	if len(entries) < 60 || pages != 1 {
		t.Errorf("%d skills in %d pages", len(entries), pages)
	}
	files := 0
	for _, e := range entries {
		res, err := getSkill(cs, e.URI)
		if err != nil || len(res.Skill.Resources) != len(e.Resources) {
			t.Errorf("skills/get %s: %v", e.URI, err)
		}
		for _, r := range e.Resources {
			files++
			got, err := read(cs, r.URI)
			if err != nil {
				t.Errorf("%s: %v", r.URI, err)
				continue
			}
			c := got.Contents[0]
			data := []byte(c.Text)
			if c.Text == "" {
				data = c.Blob
			}
			if int64(len(data)) != r.Size || sumOf(data) != r.Digest {
				t.Errorf("%s: %d bytes, digest %s; the entry says %d, %s", r.URI, len(data), sumOf(data), r.Size, r.Digest)
			}
		}
	}
	if files < 300 {
		t.Errorf("only %d files", files)
	}
	// claude-api's description is over 1,024 characters: no entry, and a
	// warning that names it.
	if !strings.Contains(logs.String(), "skill=claude-api") || !strings.Contains(logs.String(), "1068 characters") {
		t.Errorf("no warning about claude-api:\n%s", logs.String())
	}
	if _, err := getSkill(cs, "skill://claude-api/SKILL.md"); rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "description") {
		t.Errorf("skills/get claude-api: %v", err)
	}
}

// skills/list pages never split an entry; skills/get answers for every
// skill, listed on the page asked or not, and refuses other URIs with
// -32602 naming them. The caching fields come with 2026-07-28 only, and
// resultType always.
func TestSkillsListPagesAndGet(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s"}
	for i := range 7 {
		src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: fmt.Sprintf("skill-%d", i), Description: "One of seven.", Files: map[string]string{"a.md": "a", "b/c.md": "c"}})
	}
	srv := server.New(newResolver(t, src), &server.Options{PageSize: 3})
	for version, cached := range map[string]bool{"2024-11-05": false, "2025-11-25": false, "2026-07-28": true} {
		cs := extClient(t, srv, version, nil)
		first := listSkills(t, cs, "")
		if len(first.Skills) != 3 || first.NextCursor == "" || first.ResultType != "complete" {
			t.Fatalf("%s: first page %+v", version, first)
		}
		if (first.TTLMs != nil) != cached || (first.CacheScope != nil) != cached {
			t.Errorf("%s: ttlMs %v cacheScope %v", version, first.TTLMs, first.CacheScope)
		}
		entries, pages := allSkills(t, cs)
		if len(entries) != 7 || pages != 3 {
			t.Errorf("%s: %d entries in %d pages", version, len(entries), pages)
		}
		for _, e := range entries {
			if len(e.Resources) != 3 {
				t.Errorf("%s: %s split: %+v", version, e.URI, e.Resources)
			}
		}
		got, err := getSkill(cs, "skill://skill-6/SKILL.md")
		if err != nil || got.Skill.URI != "skill://skill-6/SKILL.md" || got.ResultType != "complete" || (got.TTLMs != nil) != cached {
			t.Errorf("%s: skills/get %v %+v", version, err, got)
		}
		for _, uri := range []string{"skill://nope/SKILL.md", "skill://skill-1", "skill://skill-1/a.md", "skill://skill-1/SKILL.md/", "skill://skill-1/../x/SKILL.md", ""} {
			_, err := getSkill(cs, uri)
			if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), uri) {
				t.Errorf("%s: skills/get %q: %v", version, uri, err)
			}
		}
	}
}

// A skill over the extension's limits has no entry, and the warning
// names it; one that reaches them has one.
func TestSkillsListLimits(t *testing.T) {
	dir := t.TempDir()
	skill := func(name string, files int, each int64) {
		sourcetest.WriteFile(t, filepath.Join(dir, name, "SKILL.md"), "---\nname: "+name+"\ndescription: Limits.\n---\n")
		for i := range files {
			p := filepath.Join(dir, name, "data", fmt.Sprintf("f%03d.txt", i))
			sourcetest.WriteFile(t, p, "x")
			if err := os.Truncate(p, each); err != nil { // sparse: nothing is written
				t.Fatal(err)
			}
		}
	}
	skill("many-files", 512, 1)  // 513 with SKILL.md
	skill("just-enough", 511, 1) // 512
	skill("too-large", 2, 8<<20+1)
	logs := &logBuffer{}
	srv := server.New(newResolver(t, dirtree.New(dir, nil)), &server.Options{Logger: logs.logger(), MaxFileSize: 32 << 20})
	cs := extClient(t, srv, "2025-11-25", nil)
	entries, _ := allSkills(t, cs)
	if len(entries) != 1 || entries[0].URI != "skill://just-enough/SKILL.md" || len(entries[0].Resources) != 512 {
		t.Errorf("entries: %d", len(entries))
	}
	for _, want := range []string{"skill=many-files", "more than 512 files", "skill=too-large", "over the extension's limit of 16777216"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logs.String())
		}
	}
	// Listed again: warned once.
	allSkills(t, cs)
	if n := strings.Count(logs.String(), "skill=many-files"); n != 1 {
		t.Errorf("warned %d times", n)
	}
	// Still served as resources.
	if _, err := read(cs, "skill://many-files/data/f000.txt"); err != nil {
		t.Error(err)
	}
	// An entry lists only files a host can read: none over the cap.
	capped := extClient(t, server.New(newResolver(t, dirtree.New(dir, nil)), &server.Options{Logger: logs.logger(), MaxFileSize: 4096}), "2025-11-25", nil)
	if _, err := getSkill(capped, "skill://just-enough/SKILL.md"); err != nil {
		t.Errorf("just-enough, whose files are small: %v", err)
	}
	sourcetest.WriteFile(t, filepath.Join(dir, "just-enough", "data", "f000.txt"), strings.Repeat("x", 5000))
	if _, err := getSkill(capped, "skill://just-enough/SKILL.md"); rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "resources.max_file_size") {
		t.Errorf("a file over the cap: %v", err)
	}
}

// Skills that cannot be given a verifiable entry: a name the front matter
// lacks or that is not an Agent Skills name, front matter only the lenient
// reader accepts. They are still served otherwise.
func TestSkillsListLeavesOutUnverifiable(t *testing.T) {
	dir := t.TempDir()
	sourcetest.WriteFiles(t, dir, map[string]string{
		"good/SKILL.md":       "---\nname: good\ndescription: Fine.\n---\n",
		"Upper/SKILL.md":      "---\nname: Upper\ndescription: Not an Agent Skills name.\n---\n",
		"colon/SKILL.md":      "---\nname: colon\ndescription: Use when: you need it\n---\n",
		"no-name/SKILL.md":    "---\ndescription: The folder names it.\n---\n",
		"deploy-tips.md":      "---\ndescription: A learned note without a name.\n---\nTips.\n",
		"release-checks.md":   "---\nname: release-checks\ndescription: A learned note with one.\n---\nChecks.\n",
		"inf/SKILL.md":        "---\nname: inf\ndescription: A value JSON cannot carry.\nratio: .inf\n---\n",
		"my skill/SKILL.md":   "---\nname: my skill\ndescription: A space.\n---\n",
		"différent/SKILL.md":  "---\nname: différent\ndescription: Not ASCII.\n---\n",
		"percent%/SKILL.md":   "---\nname: percent%\ndescription: A percent sign.\n---\n",
		"other-name/SKILL.md": "---\nname: good-too\ndescription: Named otherwise than its folder.\n---\n",
	})
	srv := server.New(newResolver(t, dirtree.New(dir, &dirtree.Options{Learned: true})), nil)
	cs := extClient(t, srv, "2025-11-25", nil)
	entries, _ := allSkills(t, cs)
	var uris []string
	for _, e := range entries {
		uris = append(uris, e.URI)
	}
	if diff := cmp.Diff([]string{"skill://good/SKILL.md", "skill://good-too/SKILL.md", "skill://release-checks/SKILL.md"}, uris); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
	// Every one of them is still a resource, and reads back.
	res, err := cs.ListResources(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Resources) != 11 {
		t.Errorf("%d resources", len(res.Resources))
	}
	for _, r := range res.Resources {
		got, err := read(cs, r.URI)
		if err != nil || len(got.Contents) != 1 || !strings.HasPrefix(got.Contents[0].Text, "---\n") {
			t.Errorf("%s: %v", r.URI, err)
		}
	}
	// A learned note is the SKILL.md of a skill of its own.
	e, err := getSkill(cs, "skill://release-checks/SKILL.md")
	if err != nil || len(e.Skill.Resources) != 1 || e.Skill.Resources[0].URI != "skill://release-checks/SKILL.md" ||
		e.Skill.Resources[0].Digest != sha256File(t, filepath.Join(dir, "release-checks.md")) {
		t.Errorf("the note: %v %+v", err, e)
	}
}

// TestSkillsGetSaysWhyNotAString checks that a name or a description that
// YAML reads as a number, a boolean or a list is named as such when
// skills/get refuses the skill, not said to be missing.
func TestSkillsGetSaysWhyNotAString(t *testing.T) {
	dir := t.TempDir()
	sourcetest.WriteFiles(t, dir, map[string]string{
		"numdesc/SKILL.md":  "---\nname: numdesc\ndescription: 2.10\n---\n",
		"booldesc/SKILL.md": "---\nname: booldesc\ndescription: true\n---\n",
		"numname/SKILL.md":  "---\nname: 12345\ndescription: A number as the name.\n---\n",
		"listname/SKILL.md": "---\nname: [a, b]\ndescription: A list as the name.\n---\n",
		"noname/SKILL.md":   "---\ndescription: No name.\n---\n",
	})
	logs := &logBuffer{}
	srv := server.New(newResolver(t, dirtree.New(dir, nil)), &server.Options{Logger: logs.logger()})
	cs := extClient(t, srv, "2025-11-25", nil)
	for skill, want := range map[string]string{
		"numdesc":  "its description is a number, not a string; quote it",
		"booldesc": "its description is a boolean, not a string; quote it",
		"numname":  "its name is a number, not a string; quote it",
		"listname": "its name is a list, not a string",
		"noname":   "its front matter has no name",
	} {
		_, err := getSkill(cs, "skill://"+skill+"/SKILL.md")
		if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), want) {
			t.Errorf("skills/get %s = %v; want %q", skill, err, want)
		}
	}
	allSkills(t, cs)
	if strings.Contains(logs.String(), "skill=numdesc") && !strings.Contains(logs.String(), "its description is a number") {
		t.Errorf("the log gives another reason:\n%s", logs.String())
	}
}

// resources/directory/read lists a folder's direct children; folders are
// inode/directory, and so are the skills whose URIs lie below it.
func TestDirectoryRead(t *testing.T) {
	rt := newResourceTree(t)
	forms := &sourcetest.Fake{SourceName: "plugins", Namespace: "pdf", Skills: []sourcetest.FakeSkill{{Name: "forms", Description: "A plugin named pdf."}}}
	srv := server.New(newResolver(t, dirtree.New(rt.root, nil), forms), &server.Options{PageSize: 4})
	cs := extClient(t, srv, "2025-11-25", nil)
	list := func(uri string) ([]string, error) {
		var out []string
		cursor := ""
		for {
			res, err := readDir(cs, uri, cursor)
			if err != nil {
				return nil, err
			}
			if res.ResultType != "complete" {
				t.Errorf("%s: resultType %q", uri, res.ResultType)
			}
			for _, r := range res.Resources {
				out = append(out, r.URI+" "+r.MIMEType)
			}
			if cursor = res.NextCursor; cursor == "" {
				return out, nil
			}
		}
	}
	for uri, want := range map[string][]string{
		"skill://pdf": {
			"skill://pdf/SKILL.md text/markdown", "skill://pdf/assets inode/directory", "skill://pdf/empty.txt text/plain",
			"skill://pdf/forms inode/directory", "skill://pdf/forms.md text/markdown", "skill://pdf/link-in.md text/markdown",
			"skill://pdf/nested inode/directory", "skill://pdf/references inode/directory", "skill://pdf/scripts inode/directory",
		},
		"skill://pdf/assets":     {"skill://pdf/assets/latin1.txt text/plain", "skill://pdf/assets/logo.png image/png"},
		"skill://pdf/forms":      {"skill://pdf/forms/SKILL.md text/markdown"},
		"skill://":               {"skill://docx inode/directory", "skill://nested inode/directory", "skill://pdf inode/directory"},
		"skill://pdf/nested":     {"skill://pdf/nested/SKILL.md text/markdown", "skill://pdf/nested/ref.md text/markdown"},
		"skill://pdf/references": {"skill://pdf/references/guide.md text/markdown"},
	} {
		got, err := list(uri)
		if err != nil {
			t.Errorf("%s: %v", uri, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", uri, diff)
		}
	}
	// A cursor of one folder is refused for another, not read as a place
	// in it (the folder looked empty, or 800 entries were skipped).
	first, err := readDir(cs, "skill://pdf", "")
	if err != nil || first.NextCursor == "" {
		t.Fatalf("the first page of skill://pdf: %v %+v", err, first)
	}
	for _, other := range []string{"skill://", "skill://pdf/assets"} {
		if _, err := readDir(cs, other, first.NextCursor); rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), "the cursor is not one resources/directory/read of "+other+" gave") {
			t.Errorf("%s with a cursor of skill://pdf: %v", other, err)
		}
	}
	for uri, msg := range map[string]string{
		"skill://pdf/forms.md":     "is not a directory resource",
		"skill://pdf/SKILL.md":     "is not a directory resource",
		"skill://pdf/no-such":      "is not a directory resource",
		"skill://pdf/.git":         "is not a directory resource",
		"skill://nope":             "no folder is served",
		"skill://pdf/dir-out":      "is not a directory resource",
		"skill://pdf/../outside":   "rule parent-segment",
		"skill://pdf/dir-out/x/..": "rule parent-segment",
	} {
		_, err := readDir(cs, uri, "")
		noSecret(t, rt, uri, err)
		if rpcCode(err) != jsonrpc.CodeInvalidParams || !strings.Contains(err.Error(), msg) || !strings.Contains(err.Error(), uri) {
			t.Errorf("%s: %v, want -32602 saying %q", uri, err, msg)
		}
	}
}

// sumOf is the extension's digest of data.
func sumOf(data []byte) string { return sources.Digest(sha256.Sum256(data)).String() }

// A link inside a skill to the folder it is in, or to one above it, is
// left out of resources/directory/read as WalkFiles leaves it out of the
// skill's files: followed, it makes the folder endless for a client that
// reads every folder it is given. A link to a folder beside it is listed.
func TestDirectoryReadLeavesOutLinksAbove(t *testing.T) {
	root := t.TempDir()
	sourcetest.WriteFiles(t, root, map[string]string{
		"lp/SKILL.md":     "---\nname: lp\ndescription: Links.\n---\nbody\n",
		"lp/a/b/note.md":  "note\n",
		"lp/c/other.md":   "other\n",
		"lp/a/b/deep.txt": "deep\n",
	})
	for link, target := range map[string]string{"lp/a/self": ".", "lp/a/up": "..", "lp/a/b/top": "../..", "lp/a/c": "../c"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	srv := server.New(newResolver(t, dirtree.New(root, nil)), nil)
	cs := extClient(t, srv, "2025-11-25", nil)
	for uri, want := range map[string][]string{
		"skill://lp/a":   {"skill://lp/a/b", "skill://lp/a/c"},
		"skill://lp/a/b": {"skill://lp/a/b/deep.txt", "skill://lp/a/b/note.md"},
		"skill://lp/a/c": {"skill://lp/a/c/other.md"},
	} {
		res, err := readDir(cs, uri, "")
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		var got []string
		for _, r := range res.Resources {
			got = append(got, r.URI)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", uri, diff)
		}
	}
}

// An empty folder, and the scheme's root on a server with no skills,
// are listed as an empty array, not null, which the extension's schema
// does not allow.
func TestDirectoryReadEmpty(t *testing.T) {
	root := t.TempDir()
	sourcetest.WriteFiles(t, root, map[string]string{"e/SKILL.md": "---\nname: e\ndescription: Empty folder.\n---\nbody\n"})
	if err := os.Mkdir(filepath.Join(root, "e", "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, srv := range map[string]*server.Server{
		"skill://e/empty": server.New(newResolver(t, dirtree.New(root, nil)), nil),
		"skill://":        server.New(newResolver(t, dirtree.New(t.TempDir(), nil)), nil),
	} {
		res, err := readDir(extClient(t, srv, "2025-11-25", nil), name, "")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Resources == nil || len(res.Resources) != 0 {
			t.Errorf("%s: resources %v, want []", name, res.Resources)
		}
	}
}

// A skill's folder whose URI is another skill's root (skill team has a
// folder deploy/; skill://team/deploy is the shadowed team:deploy of the
// source named team) is that skill's by URI: what the lists of team give
// reads back as team's, and the folder's files, which no URI reaches as
// team's, are left out of them, not listed to be refused when read; as a
// folder of skill://team, deploy is team:deploy's root.
func TestFilesWhoseURIsAreAnotherSkills(t *testing.T) {
	mine, team := t.TempDir(), t.TempDir()
	sourcetest.WriteFiles(t, mine, map[string]string{
		"team/SKILL.md":            "---\nname: team\ndescription: Team ways.\n---\nSee deploy/checklist.md.\n",
		"team/deploy/checklist.md": "the team skill's checklist\n",
		"team/notes.md":            "notes\n",
		"deploy/SKILL.md":          "---\nname: deploy\ndescription: Mine.\n---\nmine\n",
	})
	sourcetest.WriteFiles(t, team, map[string]string{"deploy/SKILL.md": "---\nname: deploy\ndescription: The team's.\n---\nteam\n"})
	srv := server.New(newResolver(t, dirtree.New(mine, nil), dirtree.New(team, &dirtree.Options{Name: "team"})), nil)
	cs := extClient(t, srv, "2025-11-25", nil)

	whole, err := read(cs, "skill://team/")
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, c := range whole.Contents {
		uris = append(uris, c.URI)
		if back, err := read(cs, c.URI); err != nil || back.Contents[0].Text != c.Text {
			t.Errorf("%s, read back: %v", c.URI, err)
		}
	}
	if diff := cmp.Diff([]string{"skill://team/SKILL.md", "skill://team/notes.md"}, uris); diff != "" {
		t.Errorf("skill://team/ (-want +got):\n%s", diff)
	}

	dir, err := readDir(cs, "skill://team", "")
	if err != nil {
		t.Fatal(err)
	}
	uris = nil
	for _, r := range dir.Resources {
		uris = append(uris, r.URI)
	}
	// As a folder of skill://team, deploy is team:deploy's root.
	if diff := cmp.Diff([]string{"skill://team/SKILL.md", "skill://team/deploy", "skill://team/notes.md"}, uris); diff != "" {
		t.Errorf("the folder skill://team (-want +got):\n%s", diff)
	}
	if in, err := readDir(cs, "skill://team/deploy", ""); err != nil || len(in.Resources) != 1 || in.Resources[0].URI != "skill://team/deploy/SKILL.md" {
		t.Errorf("the folder skill://team/deploy: %v %+v", err, in)
	}

	res, err := cs.Complete(t.Context(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "skill://{+skill}/{+path}"},
		Argument: mcp.CompleteParamsArgument{Name: "path", Value: "de"},
		Context:  &mcp.CompleteContext{Arguments: map[string]string{"skill": "team"}},
	})
	if err != nil || len(res.Completion.Values) != 0 {
		t.Errorf("completion of de in team: %v %v; want none", err, res)
	}
	// skills/get says why team has no entry.
	// The file no URI reaches is read by the tools, not by resources/read.
	if _, err := getSkill(cs, "skill://team/SKILL.md"); err == nil || !strings.Contains(err.Error(), "cannot be addressed: skill://team/deploy/checklist.md belongs to team:deploy (its files may still be read with the skill_resource tool, within their own size limits; the skill tool loads its SKILL.md)") {
		t.Errorf("skills/get of team: %v", err)
	}
	// The other skill is read by its URI as before.
	if got, err := read(cs, "skill://team/deploy/SKILL.md"); err != nil || !strings.Contains(got.Contents[0].Text, "team\n") {
		t.Errorf("team:deploy: %v %+v", err, got)
	}
}
