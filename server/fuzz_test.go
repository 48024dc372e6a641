package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// FuzzSkillPaths feeds arbitrary URIs and tool paths to every reader of
// skill files (resources/read with its collections, skills/get,
// resources/directory/read, the skill_resource tool) over a skill folder
// that has symlinks leading out to a file and to a folder. It asserts that
// every file opened lies inside its skill folder's real path (on Linux,
// by the kernel's name for each open descriptor), that every name handed
// to the file system is a valid path inside it, and that no answer holds
// the secret kept outside.
func FuzzSkillPaths(f *testing.F) {
	for _, seed := range [][2]string{
		{"skill://pdf/SKILL.md", "forms.md"},
		{"skill://pdf/../outside/secret.txt", "../outside/secret.txt"},
		{"skill://pdf/%2e%2e/%2e%2e/outside/secret.txt", "%2e%2e/outside"},
		{"skill://pdf/link-out.txt", "link-out.txt"},
		{"skill://pdf/dir-out/secret.txt", "dir-out/secret.txt"},
		{"skill://pdf/dir-out", "dir-out"},
		{"skill://pdf/", ""},
		{"skill://", "/etc/passwd"},
		{`skill://pdf/..\..\x`, `..\x`},
		{"skill://pdf/a%2f..%2f..%2fx", "a\x00b"},
		{"skill://pdf/forms", "nested/../../x"},
		{"skill://nested/SKILL.md", "dir-out/../forms.md"},
	} {
		f.Add(seed[0], seed[1])
	}
	srv, fsysOf, secret := fuzzServer(f)
	f.Fuzz(func(t *testing.T, uri, path string) {
		ctx := context.Background()
		var answers []any
		add := func(res any, err error) {
			answers = append(answers, res)
			if err != nil {
				answers = append(answers, err.Error())
			}
		}
		add(srv.readResource(ctx, &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: uri}}))
		add(srv.getSkill(ctx, nil, &getSkillParams{URI: uri}))
		add(srv.readDirectory(ctx, nil, &readDirectoryParams{URI: uri}))
		for _, skill := range []string{"pdf", "nested", strings.TrimPrefix(uri, "skill://")} {
			args, _ := json.Marshal(map[string]string{"skill": skill, "path": path})
			add(srv.callSkillResource(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: SkillResourceToolName, Arguments: args}}, SkillResourceToolName))
		}
		for _, a := range answers {
			data, _ := json.Marshal(a)
			if strings.Contains(string(data), secret) {
				t.Fatalf("%q, %q: an answer holds the secret: %s", uri, path, data)
			}
		}
		for _, r := range fsysOf {
			if v := r.violation(); v != "" {
				t.Fatalf("%q, %q: %s", uri, path, v)
			}
		}
	})
}

// fuzzServer serves a skill folder (with a nested skill, symlinks inside
// and out) from a source whose skills read through recording file
// systems.
func fuzzServer(f *testing.F) (*Server, []*recordingFS, string) {
	base := f.TempDir()
	root := filepath.Join(base, "skills")
	secret := "FUZZ-SECRET-9f1c"
	for p, c := range map[string]string{
		"pdf/SKILL.md":            "---\nname: pdf\ndescription: Forms.\n---\nbody\n",
		"pdf/forms.md":            "forms\n",
		"pdf/references/guide.md": "guide\n",
		"pdf/nested/SKILL.md":     "---\nname: nested\ndescription: Inside.\n---\n",
		"pdf/bin.dat":             "\x00\x01",
		"outside/secret.txt":      secret,
		"outside/SKILL.md":        secret,
		"outside/deep/more.txt":   secret,
	} {
		dir := root
		if strings.HasPrefix(p, "outside/") {
			dir = base
		}
		sourcetest.WriteFile(f, filepath.Join(dir, filepath.FromSlash(p)), c)
	}
	for link, target := range map[string]string{
		"pdf/link-out.txt": filepath.Join(base, "outside", "secret.txt"),
		"pdf/dir-out":      filepath.Join(base, "outside"),
		"pdf/rel-out":      "../../outside/secret.txt",
		"pdf/link-in":      "forms.md",
		"pdf/loop":         ".",
	} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(link))); err != nil {
			f.Fatal(err)
		}
	}
	l, err := dirtree.New(root, nil).List(context.Background())
	if err != nil {
		f.Fatal(err)
	}
	var recs []*recordingFS
	for i, sk := range l.Skills {
		c := *sk
		real, err := filepath.EvalSymlinks(c.Dir)
		if err != nil {
			f.Fatal(err)
		}
		rec := &recordingFS{inner: c.Files, root: real}
		c.Files = rec
		l.Skills[i] = &c
		recs = append(recs, rec)
	}
	snap := resolver.Build([]resolver.Input{{Source: "skills", Listing: l}})
	return New(fixedCatalog{snap}, nil), recs, secret
}

type fixedCatalog struct{ snap *resolver.Snapshot }

func (c fixedCatalog) Snapshot() *resolver.Snapshot { return c.snap }

// recordingFS checks every name it is handed, and where each file it
// opens really is.
type recordingFS struct {
	inner fs.FS
	root  string // the skill folder's real path

	// mu guards bad.
	mu  sync.Mutex
	bad string
}

var (
	_ fs.StatFS    = (*recordingFS)(nil)
	_ fs.ReadDirFS = (*recordingFS)(nil)
)

func (r *recordingFS) fail(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bad == "" {
		r.bad = fmt.Sprintf(format, args...)
	}
}

// violation returns the first violation seen since the last call.
func (r *recordingFS) violation() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	v := r.bad
	r.bad = ""
	return v
}

func (r *recordingFS) checkName(op, name string) {
	if !fs.ValidPath(name) || strings.ContainsAny(name, "\\\x00") {
		r.fail("%s handed the file system %q", op, name)
	}
}

func (r *recordingFS) Open(name string) (fs.File, error) {
	r.checkName("open", name)
	f, err := r.inner.Open(name)
	if err != nil {
		return nil, err
	}
	if osf, ok := f.(*os.File); ok && runtime.GOOS == "linux" {
		real, lerr := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", osf.Fd()))
		if lerr == nil && real != r.root && !strings.HasPrefix(real, r.root+string(filepath.Separator)) {
			r.fail("opened %s for %q, outside %s", real, name, r.root)
		}
	}
	return f, nil
}

func (r *recordingFS) Stat(name string) (fs.FileInfo, error) {
	r.checkName("stat", name)
	return fs.Stat(r.inner, name)
}

func (r *recordingFS) ReadDir(name string) ([]fs.DirEntry, error) {
	r.checkName("readdir", name)
	return fs.ReadDir(r.inner, name)
}
