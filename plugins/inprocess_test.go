package plugins

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/go-plugin"

	pluginpb "github.com/skillmux/skillmux/plugins/proto"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// connSource is a sources.Source over one in-process connection: the gRPC
// adapter without a process.
type connSource struct {
	r *remote
	c pluginpb.SkillSourceClient
}

func (cs *connSource) Name() string { return cs.r.name }

func (cs *connSource) List(ctx context.Context) (*sources.Listing, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	return cs.r.list(ctx, cs.c)
}

// connect serves srv in process (plugin.TestPluginGRPCConn) and returns
// the client side as a source named name; cacheDir "" makes no copies.
func connect(t *testing.T, name string, srv pluginpb.SkillSourceServer, cacheDir string) *connSource {
	t.Helper()
	client, server := plugin.TestPluginGRPCConn(t, false, map[string]plugin.Plugin{pluginName: &grpcPlugin{srv: srv}})
	t.Cleanup(func() {
		client.Close() // its Shutdown stops the server (a second Stop would race with it)
		select {
		case <-server.DoneCh:
		case <-time.After(5 * time.Second):
			t.Error("the in-process plugin server did not stop")
		}
	})
	raw, err := client.Dispense(pluginName)
	if err != nil {
		t.Fatal(err)
	}
	c := raw.(pluginpb.SkillSourceClient)
	r := &remote{name: name, namespace: name,
		client:  func() (pluginpb.SkillSourceClient, error) { return c, nil },
		fileCtx: func() (context.Context, context.CancelFunc) { return context.WithTimeout(t.Context(), 5*time.Second) },
	}
	if cacheDir != "" {
		r.cache = newCopyCache(cacheDir, DefaultCacheBytes)
		t.Cleanup(func() { removeAll(cacheDir) })
	}
	return &connSource{r: r, c: c}
}

func fakeSource() *sourcetest.Fake {
	return &sourcetest.Fake{SourceName: "inner", Skills: []sourcetest.FakeSkill{
		{Name: "pdf", Description: "Fill PDF forms.", Body: "Use the script.\n", Files: map[string]string{"scripts/fill.py": "print('fill')\n", "reference.md": "# Ref\n"}},
		{Name: "csv", Description: "Summarize CSV files."},
	}}
}

func TestConformanceInProcess(t *testing.T) {
	src := connect(t, "zipped", newServer(fakeSource(), "test"), "")
	sourcetest.Run(t, src)

	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sk := range l.Skills {
		names = append(names, sk.Ref.String())
		if sk.Scope != sources.ScopeSourcePlugin || sk.Source != "zipped" || !strings.HasPrefix(sk.Path, "plugin://zipped/") {
			t.Errorf("%s: scope %q, source %q, path %q", sk.Ref, sk.Scope, sk.Source, sk.Path)
		}
	}
	if want := []string{"zipped:pdf", "zipped:csv"}; !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	pdf := l.Skills[0]
	if want := []string{"reference.md", "scripts/fill.py"}; !slices.Equal(pdf.FileList, want) {
		t.Errorf("FileList %v, want %v", pdf.FileList, want)
	}
	body, err := sources.ReadEntry(pdf, 1<<20)
	if err != nil || !strings.Contains(string(body), "Use the script.") {
		t.Errorf("ReadEntry: %q, %v", body, err)
	}
	data, err := fs.ReadFile(pdf.Files, "scripts/fill.py")
	if err != nil || string(data) != "print('fill')\n" {
		t.Errorf("read scripts/fill.py: %q, %v", data, err)
	}
	if _, err := fs.ReadFile(pdf.Files, "../csv/SKILL.md"); err == nil {
		t.Error("a path out of the skill was read")
	}
	if _, err := fs.ReadFile(pdf.Files, "unlisted.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an unlisted file: %v, want fs.ErrNotExist", err)
	}
	files, _, err := sources.ListFiles(pdf.Files, sources.SkillFile)
	if err != nil || !slices.Equal(files, pdf.FileList) {
		t.Errorf("ListFiles = %v, %v; want %v", files, err, pdf.FileList)
	}
}

// TestLocalCopy checks the base directory of a plugin skill: the first
// read makes a copy of the whole skill, its files read-only, in a folder
// named by its content, and reads are served from it.
func TestLocalCopy(t *testing.T) {
	cache := t.TempDir()
	src := connect(t, "zipped", newServer(fakeSource(), "test"), cache)
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	pdf := l.Skills[0]
	if !strings.HasPrefix(pdf.Dir, cache) || filepath.Base(pdf.Dir) != "pdf" {
		t.Fatalf("Dir = %q; want a folder named pdf under %s", pdf.Dir, cache)
	}
	if _, err := os.Stat(pdf.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the copy exists before the first load: %v", err)
	}
	if _, err := sources.ReadEntry(pdf, 1<<20); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(pdf.Dir, "scripts", "fill.py"))
	if err != nil || string(got) != "print('fill')\n" {
		t.Fatalf("the copy holds %q, %v", got, err)
	}
	st, _ := os.Stat(filepath.Join(pdf.Dir, "scripts", "fill.py"))
	if st.Mode().Perm()&0o222 != 0 {
		t.Errorf("a copied file is writable: %v", st.Mode())
	}
	// Its folders are the user's to remove, as a cache's: rm -rf of a
	// read-only folder fails for anyone but root.
	for _, d := range []string{pdf.Dir, filepath.Join(pdf.Dir, "scripts")} {
		if st, err := os.Stat(d); err != nil || st.Mode().Perm()&0o200 == 0 {
			t.Errorf("the copy's folder %s cannot be written to by its owner, so not emptied: %v %v", d, st.Mode(), err)
		}
	}
	// A copy changed in place (an agent's edit of a file) is made again
	// by the next process that loads the skill: its folder is named by
	// its content.
	// As sed -i edits: a new file of the same mode renamed over it, here
	// of the same size too.
	fill := filepath.Join(pdf.Dir, "scripts", "fill.py")
	edited := filepath.Join(pdf.Dir, "scripts", ".sedXYZ")
	if err := os.WriteFile(edited, []byte("print('FILL')\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute) // the copy was made in this second
	if err := os.Chtimes(edited, later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(edited, fill); err != nil {
		t.Fatal(err)
	}
	next, err := connect(t, "zipped", newServer(fakeSource(), "test"), cache).List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sources.ReadEntry(next.Skills[0], 1<<20); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(fill); err != nil || string(got) != "print('fill')\n" {
		t.Errorf("a copy edited in place was kept: %q, %v", got, err)
	}
	// The same content listed again is the same folder.
	l2, _ := src.List(t.Context())
	if l2.Skills[0].Dir != pdf.Dir {
		t.Errorf("unchanged skill moved: %q then %q", pdf.Dir, l2.Skills[0].Dir)
	}
}

// garbage is a plugin that sends everything wrong.
type garbage struct {
	pluginpb.UnimplementedSkillSourceServer
	skills []*pluginpb.Skill
	files  map[string][]byte // by path, what ReadFile sends
	lie    map[string]int64  // sizes ReadFile announces instead
}

func (g *garbage) List(_ *pluginpb.ListRequest, stream pluginpb.SkillSource_ListServer) error {
	return stream.Send(&pluginpb.ListResponse{Skills: g.skills, Problems: []*pluginpb.Diagnostic{
		{Severity: pluginpb.Diagnostic_ERROR, Message: "bad\x00bytes \u2028 here", Rule: "x\ny"},
		{Severity: pluginpb.Diagnostic_ERROR, Path: "bundle.zip", Message: "cannot be opened"},
	}})
}

func (g *garbage) ReadFile(req *pluginpb.ReadFileRequest, stream pluginpb.SkillSource_ReadFileServer) error {
	data := g.files[req.Path]
	size := int64(len(data))
	if n, ok := g.lie[req.Path]; ok {
		size = n
	}
	return stream.Send(&pluginpb.FileChunk{Size: size, Data: data})
}

func digestOf(s string) []byte { sum := sha256.Sum256([]byte(s)); return sum[:] }

func entry(front string, extra ...*pluginpb.FileInfo) []*pluginpb.FileInfo {
	content := "---\n" + front + "---\nbody\n"
	return append([]*pluginpb.FileInfo{{Path: "SKILL.md", Size: int64(len(content)), Sha256: digestOf(content)}}, extra...)
}

func TestGarbageBecomesDiagnostics(t *testing.T) {
	good := "name: good\ndescription: Good.\n"
	many := entry(good)
	for i := range MaxFiles + 5 {
		many = append(many, &pluginpb.FileInfo{Path: fmt.Sprintf("f%03d", i), Size: 1, Sha256: digestOf("x")})
	}
	// The same files with SKILL.md listed last: it is served all the same.
	late := append(slices.Clone(many[1:]), many[0])
	g := &garbage{skills: []*pluginpb.Skill{
		{Id: "good", FrontMatter: []byte(good), Files: entry(good,
			&pluginpb.FileInfo{Path: "../../etc/passwd", Size: 1, Sha256: digestOf("x")},
			&pluginpb.FileInfo{Path: "/abs", Size: 1, Sha256: digestOf("x")},
			&pluginpb.FileInfo{Path: `a\b`, Size: 1, Sha256: digestOf("x")},
			&pluginpb.FileInfo{Path: "huge.bin", Size: MaxSkillBytes + 1, Sha256: digestOf("x")},
			&pluginpb.FileInfo{Path: "negative.md", Size: -5, Sha256: digestOf("x")},
			&pluginpb.FileInfo{Path: "refs", Size: 1, Sha256: digestOf("x")},
			&pluginpb.FileInfo{Path: "refs/a.md", Size: 1, Sha256: digestOf("x")},
			&pluginpb.FileInfo{Path: "SKILL.md/x.md", Size: 1, Sha256: digestOf("x")},
			&pluginpb.FileInfo{Path: "nodigest.md", Size: 1},
			&pluginpb.FileInfo{Path: "lies.md", Size: 5, Sha256: digestOf("hello")},
			&pluginpb.FileInfo{Path: "wrong.md", Size: 5, Sha256: digestOf("hello")},
		), Diagnostics: []*pluginpb.Diagnostic{{Message: "from the plugin"}, {Path: "/srv/bundles/good.zip", Message: "repacked"}}},
		{Id: "good", FrontMatter: []byte(good), Files: entry(good)},
		{Id: "../escape", FrontMatter: []byte(good), Files: entry(good)},
		{Id: "", FrontMatter: []byte(good), Files: entry(good)},
		{Id: "control\x01char", FrontMatter: []byte(good), Files: entry(good)},
		{Id: "a:b", FrontMatter: []byte(good), Files: entry(good)},
		{Id: "noentry", FrontMatter: []byte(good)},
		{Id: "utf8", FrontMatter: []byte("name: utf8\ndescription: \xff\xfe\n"), Files: entry(good)},
		{Id: "badname", FrontMatter: []byte("name: a/b\ndescription: D.\n"), Files: entry(good)},
		{Id: "nodesc", FrontMatter: []byte("name: nodesc\n"), Files: entry(good)},
		{Id: "yaml", FrontMatter: []byte("name: [\n"), Files: entry(good)},
		{Id: "huge-front", FrontMatter: bytes.Repeat([]byte("#"), sources.MaxFrontMatter+1), Files: entry(good)},
		{Id: "many", FrontMatter: []byte("name: many\ndescription: Many.\n"), Files: many},
		{Id: "late", FrontMatter: []byte("name: late\ndescription: Late.\n"), Files: late},
		{Id: "hugebody", FrontMatter: []byte("name: hugebody\ndescription: Huge.\n"), Files: []*pluginpb.FileInfo{{Path: "SKILL.md", Size: sources.MaxEntrySize + 1, Sha256: digestOf("x")}}},
	}, files: map[string][]byte{"lies.md": []byte("hello, and more"), "wrong.md": []byte("HELLO")}, lie: map[string]int64{"lies.md": 5}}
	src := connect(t, "junk", g, "")
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sk := range l.Skills {
		names = append(names, sk.Ref.String())
	}
	if want := []string{"junk:good", "junk:badname", "junk:many", "junk:late"}; !slices.Equal(names, want) {
		t.Errorf("served %v; want %v", names, want)
	}
	rules := map[string]bool{}
	for _, d := range l.Problems {
		rules[d.Rule] = true
		if strings.ContainsAny(d.Message+d.Rule, "\x00\n") || !strings.HasPrefix(d.Path, "plugin://junk") {
			t.Errorf("problem not cleaned or without a path: %+v", d)
		}
	}
	for _, r := range []string{"plugin-skill-id", "plugin-no-entry", "plugin-utf8", "description-required", "yaml", "front-matter", "size"} {
		if !rules[r] {
			t.Errorf("no problem with rule %q; got %v", r, rules)
		}
	}
	// A problem about a path of the plugin's own names the plugin.
	var own bool
	for _, d := range l.Problems {
		own = own || d.Path == "plugin://junk/bundle.zip" && d.Message == "cannot be opened"
	}
	if !own {
		t.Errorf("the plugin's own problem does not name the plugin: %v", l.Problems)
	}
	good0 := l.Skills[0]
	// So does a skill's diagnostic about a path of the plugin's own.
	var ownSkill bool
	for _, d := range good0.Diagnostics {
		ownSkill = ownSkill || d.Path == "plugin://junk/srv/bundles/good.zip" && d.Message == "repacked"
	}
	if !ownSkill {
		t.Errorf("a skill's diagnostic about the plugin's own path does not name the plugin: %v", good0.Diagnostics)
	}
	srules := map[string]int{}
	for _, d := range good0.Diagnostics {
		srules[d.Rule]++
	}
	if srules["plugin-file-path"] != 5 || srules["plugin-file-size"] != 2 || srules["plugin-file-digest"] != 1 {
		t.Errorf("file diagnostics %v", srules)
	}
	for _, d := range good0.Diagnostics {
		if d.Rule == "plugin-file-size" && strings.Contains(d.Message, "-5") && !strings.Contains(d.Message, "which no file has") {
			t.Errorf("a negative size: %s", d.Message)
		}
	}
	if want := []string{"lies.md", "refs/a.md", "wrong.md"}; !slices.Equal(good0.FileList, want) {
		t.Errorf("FileList %v, want %v", good0.FileList, want)
	}
	// The plugin's doing, not a file too large for the server's limits.
	if _, err := fs.ReadFile(good0.Files, "lies.md"); !errors.Is(err, errBadFile) || errors.Is(err, sources.ErrTooLarge) {
		t.Errorf("a file longer than listed: %v", err)
	}
	if _, err := fs.ReadFile(good0.Files, "wrong.md"); !errors.Is(err, errBadFile) || !strings.Contains(err.Error(), "the source plugin junk sent a bad file") {
		t.Errorf("a file unlike its digest: %v; want the plugin's bad file, named", err)
	}
	for _, sk := range l.Skills {
		if sk.Ref.Name == "many" || sk.Ref.Name == "late" {
			if len(sk.FileList) != MaxFiles-1 {
				t.Errorf("many: %d files served, want %d", len(sk.FileList), MaxFiles-1)
			}
			// One warning for the files past the cap, not one each.
			var over []string
			for _, d := range sk.Diagnostics {
				if d.Rule == "plugin-too-many-files" {
					over = append(over, d.Message)
				}
			}
			want := []string{fmt.Sprintf(`more than %d files; 6 are not served, the first of them "f%03d"`, MaxFiles, MaxFiles-1)}
			if diff := cmp.Diff(want, over); diff != "" {
				t.Errorf("many: the warnings of too many files (-want +got):\n%s", diff)
			}
		}
		if sk.Ref.Name == "badname" {
			var found bool
			for _, d := range sk.Diagnostics {
				found = found || d.Rule == "name-unusable"
			}
			if !found {
				t.Errorf("badname: no name-unusable warning: %v", sk.Diagnostics)
			}
		}
	}
}

// A skill listed again with nothing changed is the same *sources.Skill,
// so that the search index reads nothing again; a changed file, or a
// changed front matter, makes a new one.
func TestUnchangedSkillsAreGivenBack(t *testing.T) {
	fake := fakeSource()
	src := connect(t, "zipped", newServer(fake, "test"), "")
	list := func() map[string]*sources.Skill {
		t.Helper()
		l, err := src.List(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]*sources.Skill{}
		for _, sk := range l.Skills {
			m[sk.Ref.Name] = sk
		}
		return m
	}
	first, second := list(), list()
	for name, sk := range first {
		if second[name] != sk {
			t.Errorf("%s: an unchanged skill was listed as a new *sources.Skill", name)
		}
	}
	fake.Skills[0].Files["scripts/fill.py"] = "print('filled')\n"
	fake.Skills[1].Description = "Summarize CSV files, and more."
	third := list()
	if third["pdf"] == second["pdf"] {
		t.Error("pdf: a changed file left the same *sources.Skill, with the old digests")
	}
	if third["csv"] == second["csv"] || third["csv"].Description != "Summarize CSV files, and more." {
		t.Errorf("csv: a changed description was not seen: %q", third["csv"].Description)
	}
}

// hungReads lists as garbage does and hangs in every ReadFile until the
// call ends, counting the calls.
type hungReads struct {
	garbage
	calls atomic.Int32
}

func (h *hungReads) ReadFile(_ *pluginpb.ReadFileRequest, stream pluginpb.SkillSource_ReadFileServer) error {
	h.calls.Add(1)
	<-stream.Context().Done()
	return stream.Context().Err()
}

// A file of a plugin that hangs in ReadFile is waited for once: the
// local copy's attempt says the plugin did not answer, and the read does
// not ask it again, which would wait as long again.
func TestHungReadIsWaitedForOnce(t *testing.T) {
	front := "name: slow\ndescription: Slow.\n"
	h := &hungReads{garbage: garbage{skills: []*pluginpb.Skill{{Id: "slow", FrontMatter: []byte(front), Files: entry(front)}}}}
	src := connect(t, "slow", h, t.TempDir())
	src.r.fileCtx = func() (context.Context, context.CancelFunc) {
		return context.WithTimeout(t.Context(), 100*time.Millisecond)
	}
	l, err := src.List(t.Context())
	if err != nil || len(l.Skills) != 1 {
		t.Fatalf("%v %v", l, err)
	}
	_, err = fs.ReadFile(l.Skills[0].Files, "SKILL.md")
	if !errors.Is(err, errNoAnswer) || strings.Contains(err.Error(), "rpc error") {
		t.Errorf("reading a file the plugin does not serve: %v; want that it did not answer in time", err)
	}
	if n := h.calls.Load(); n != 1 {
		t.Errorf("the plugin was asked for the file %d times; want once", n)
	}
}

// byID is a plugin that sends the files it is given, by skill id and path.
type byID struct {
	pluginpb.UnimplementedSkillSourceServer
	skills []*pluginpb.Skill
	files  map[string]string // by "<id>/<path>"
	reads  atomic.Int32      // ReadFile calls
}

func (b *byID) List(_ *pluginpb.ListRequest, stream pluginpb.SkillSource_ListServer) error {
	return stream.Send(&pluginpb.ListResponse{Skills: b.skills})
}

func (b *byID) ReadFile(req *pluginpb.ReadFileRequest, stream pluginpb.SkillSource_ReadFileServer) error {
	b.reads.Add(1)
	data := b.files[req.SkillId+"/"+req.Path]
	return stream.Send(&pluginpb.FileChunk{Size: int64(len(data)), Data: []byte(data)})
}

// A SKILL.md whose front matter is not the one its listing gave (which
// the catalog shows) is not served: the catalog would describe one skill,
// and the agent read another. One whose front matter is the listed one
// with CRLF line ends (as a plugin that sends the block as written does)
// is. Both through the plugin and into the local copy.
func TestEntryFrontMatterIsTheListed(t *testing.T) {
	const liarFront = "name: liar\ndescription: Harmless helper.\n"
	const liarFile = "---\nname: liar\ndescription: Something else.\nallowed-tools: Bash\n---\nbody\n"
	plugin := &byID{skills: []*pluginpb.Skill{
		{Id: "liar", FrontMatter: []byte(liarFront), Files: []*pluginpb.FileInfo{{Path: "SKILL.md", Size: int64(len(liarFile)), Sha256: digestOf(liarFile)}}},
	}, files: map[string]string{"liar/SKILL.md": liarFile}}
	// The block as plugins cut it out, each its own way: all served.
	for name, c := range map[string]struct{ listed, file string }{
		"crlf":         {"name: crlf\r\ndescription: D.\r\n", "---\r\nname: crlf\r\ndescription: D.\r\n---\r\nbody\r\n"},
		"bom":          {"name: bom\ndescription: D.\n", "\ufeff---\nname: bom\ndescription: D.\n---\nbody\n"},
		"spaces":       {"name: spaces\ndescription: D.\n", "---  \nname: spaces\ndescription: D.\n--- \t\nbody\n"},
		"noeol":        {"name: noeol\ndescription: D.\n", "---\nname: noeol\ndescription: D.\n---"},
		"trimmed":      {"name: trimmed\ndescription: D.", "---\nname: trimmed\ndescription: D.\n---\nbody\n"},
		"split":        {"\nname: split\ndescription: D.\n", "---\nname: split\ndescription: D.\n---\nbody\n"},
		"crlf-trimmed": {"name: crlf-trimmed\r\ndescription: D.", "---\r\nname: crlf-trimmed\r\ndescription: D.\r\n---\r\nbody\r\n"},
		"requoted":     {"name: requoted\ndescription: 'D.'\n", "---\nname: requoted\ndescription: \"D.\"\n---\nbody\n"},
	} {
		plugin.skills = append(plugin.skills, &pluginpb.Skill{Id: name, FrontMatter: []byte(c.listed), Files: []*pluginpb.FileInfo{{Path: "SKILL.md", Size: int64(len(c.file)), Sha256: digestOf(c.file)}}})
		plugin.files[name+"/SKILL.md"] = c.file
	}
	for _, cache := range []string{"", t.TempDir()} {
		src := connect(t, "p", plugin, cache)
		l, err := src.List(t.Context())
		if err != nil || len(l.Skills) != len(plugin.skills) {
			t.Fatalf("listing: %v, %+v", err, l)
		}
		for _, sk := range l.Skills {
			body, err := sources.ReadEntry(sk, 1<<20)
			switch sk.Ref.Name {
			case "liar":
				if !errors.Is(err, errBadFile) || !strings.Contains(err.Error(), "front matter is not the one the plugin listed") {
					t.Errorf("cache %q: a SKILL.md unlike its listing was read: %q, %v", cache, body, err)
				}
			default:
				if err != nil || string(body) != plugin.files[sk.Ref.Name+"/SKILL.md"] {
					t.Errorf("cache %q: %s: %q, %v", cache, sk.Ref.Name, body, err)
				}
			}
		}
	}
}

// A copy made for a listing is not served for another listing of the same
// files with other front matter: the front matter check holds for skills
// read from their local copy too.
func TestEntryFrontMatterCheckedWithACopy(t *testing.T) {
	const honest = "name: changed\ndescription: Runs commands.\nallowed-tools: Bash\n"
	const file = "---\n" + honest + "---\nbody\n"
	plugin := &byID{skills: []*pluginpb.Skill{
		{Id: "changed", FrontMatter: []byte(honest), Files: []*pluginpb.FileInfo{{Path: "SKILL.md", Size: int64(len(file)), Sha256: digestOf(file)}}},
	}, files: map[string]string{"changed/SKILL.md": file}}
	src := connect(t, "p", plugin, t.TempDir())
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sources.ReadEntry(l.Skills[0], 1<<20); err != nil {
		t.Fatal(err) // the copy is made
	}
	plugin.skills[0].FrontMatter = []byte("name: changed\ndescription: Harmless helper.\n")
	if l, err = src.List(t.Context()); err != nil {
		t.Fatal(err)
	}
	if body, err := sources.ReadEntry(l.Skills[0], 1<<20); !errors.Is(err, errBadFile) {
		t.Errorf("the catalog says %q, and the copy made for the other listing was read: %q, %v", l.Skills[0].Description, body, err)
	}
}

// sameFront takes blocks that read as the same values to the same, by
// the strict reading skills/get publishes (clients compare it with the
// file), and no others: not those the YAML library's older rules would
// read alike, nor those that differ only in white space a value holds.
func TestSameFront(t *testing.T) {
	for _, c := range []struct {
		file, listed string
		same         bool
	}{
		{"name: a\ndescription: D.\n", "name: a\ndescription: D.\n", true},
		{"name: a\r\ndescription: D.\r\n", "name: a\ndescription: D.", true},
		{"\n  \nname: a\ndescription: D.\n", "name: a\ndescription: D.\n", true},
		{"name: a\ndescription: 'D.'\n", "name: a\ndescription: \"D.\"\n", true},
		{"name: a\nmetadata: {x: 1}\n", "name: a\nmetadata:\n  x: 1\n", true},
		{"", "", true},
		{"\n", "", true},
		{"name: a\ndescription: D.\n", "name: a\ndescription: E.\n", false},
		{"name: a\ndescription: D.\nallowed-tools: Bash\n", "name: a\ndescription: D.\n", false},
		{"name: a\nversion: 0123\n", "name: a\nversion: 83\n", false},
		{"name: a\nn: 1_000\n", "name: a\nn: 1000\n", false},
		{"name: a\nd: 2024-01-02T00:00:00Z\n", "name: a\nd: 2024-01-02\n", false},
		{"name: a\nx: 0b101\n", "name: a\nx: 5\n", false},
		{"name: a\nx: 0o12\n", "name: a\nx: 012\n", false},
		{"name: a\ndescription: |+\n  b\n\n\n", "name: a\ndescription: |+\n  b\n", false},
		{"name: a\ndescription: b\n \u00a0\n", "name: a\ndescription: b\n", false},
		{"name: a\ndescription: b\n \u3000\n", "name: a\ndescription: b\n", false},
		{"name: [\n", "name: a\n", false},
	} {
		if got := sameFront([]byte(c.file), []byte(c.listed)); got != c.same {
			t.Errorf("sameFront(%q, %q) = %v, want %v", c.file, c.listed, got, c.same)
		}
	}
}

// A reader of a plugin skill's text alone (the search index) reads its
// SKILL.md without making the skill's local copy, through the plugin, or
// from the copy once a load made it.
func TestPeekMakesNoCopy(t *testing.T) {
	const front = "name: big\ndescription: A skill with a large file.\n"
	const file = "---\n" + front + "---\nbody words\n"
	large := strings.Repeat("x", 1<<20)
	plugin := &byID{skills: []*pluginpb.Skill{{Id: "big", FrontMatter: []byte(front), Files: []*pluginpb.FileInfo{
		{Path: "SKILL.md", Size: int64(len(file)), Sha256: digestOf(file)},
		{Path: "large.bin", Size: int64(len(large)), Sha256: digestOf(large)},
	}}}, files: map[string]string{"big/SKILL.md": file, "big/large.bin": large}}
	cache := t.TempDir()
	src := connect(t, "p", plugin, cache)
	l, err := src.List(t.Context())
	if err != nil || len(l.Skills) != 1 {
		t.Fatalf("listing: %v, %+v", err, l)
	}
	sk := l.Skills[0]
	plugin.files["big/SKILL.md"] = "not what was listed"
	if _, err := sources.PeekEntryInto(sk, 1<<20, nil); !errors.Is(err, errBadFile) || plugin.reads.Load() != 1 {
		t.Errorf("a peek of a bad file: %v, after %d reads; want it refused after one", err, plugin.reads.Load())
	}
	plugin.files["big/SKILL.md"] = file
	plugin.reads.Store(0)
	body, err := sources.PeekEntryInto(sk, 1<<20, nil)
	if err != nil || string(body) != file {
		t.Fatalf("peek: %q, %v", body, err)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 || plugin.reads.Load() != 1 {
		t.Errorf("a peek made a copy (%d entries in the cache) or read more than SKILL.md (%d reads)", len(entries), plugin.reads.Load())
	}
	if _, err := sources.ReadEntry(sk, 1<<20); err != nil { // a load: makes the copy
		t.Fatal(err)
	}
	reads := plugin.reads.Load()
	if body, err := sources.PeekEntryInto(sk, 1<<20, nil); err != nil || string(body) != file || plugin.reads.Load() != reads {
		t.Errorf("a peek once the copy is made: %q, %v, %d reads through the plugin", body, err, plugin.reads.Load()-reads)
	}
	// A copy made by another process (or the run before) serves a peek
	// as it serves a load: without a read through the plugin.
	next := connect(t, "p", plugin, cache)
	if l, err = next.List(t.Context()); err != nil || len(l.Skills) != 1 {
		t.Fatalf("listing: %v, %+v", err, l)
	}
	reads = plugin.reads.Load()
	if body, err := sources.PeekEntryInto(l.Skills[0], 1<<20, nil); err != nil || string(body) != file || plugin.reads.Load() != reads {
		t.Errorf("a peek with the copy another made: %q, %v, %d reads through the plugin", body, err, plugin.reads.Load()-reads)
	}
}

// heldLarge is byID whose reads of large.bin wait for release.
type heldLarge struct {
	*byID
	started, release chan struct{}
}

func (h *heldLarge) ReadFile(req *pluginpb.ReadFileRequest, stream pluginpb.SkillSource_ReadFileServer) error {
	if req.Path == "large.bin" {
		close(h.started)
		<-h.release
	}
	return h.byID.ReadFile(req, stream)
}

// A peek does not wait for a load making the skill's copy (whose read of
// another file may wait for the plugin's timeout).
func TestPeekDoesNotWaitForACopy(t *testing.T) {
	const front = "name: big\ndescription: A skill.\n"
	const file = "---\n" + front + "---\nbody\n"
	b := &byID{skills: []*pluginpb.Skill{{Id: "big", FrontMatter: []byte(front), Files: []*pluginpb.FileInfo{
		{Path: "SKILL.md", Size: int64(len(file)), Sha256: digestOf(file)},
		{Path: "large.bin", Size: 4, Sha256: digestOf("xxxx")},
	}}}, files: map[string]string{"big/SKILL.md": file, "big/large.bin": "xxxx"}}
	plugin := &heldLarge{byID: b, started: make(chan struct{}), release: make(chan struct{})}
	src := connect(t, "p", plugin, t.TempDir())
	l, err := src.List(t.Context())
	if err != nil || len(l.Skills) != 1 {
		t.Fatalf("listing: %v, %+v", err, l)
	}
	loaded := make(chan error, 1)
	go func() { _, err := sources.ReadEntry(l.Skills[0], 1<<20); loaded <- err }()
	<-plugin.started // the load is making the copy, held on large.bin
	peeked := make(chan error, 1)
	go func() { _, err := sources.PeekEntryInto(l.Skills[0], 1<<20, nil); peeked <- err }()
	if err := <-peeked; err != nil {
		t.Errorf("peek: %v", err)
	}
	select {
	case <-loaded:
		t.Fatal("the peek came back only once the load's copy ended") // the load waits for release, or its timeout
	default:
	}
	close(plugin.release)
	if err := <-loaded; err != nil {
		t.Errorf("load: %v", err)
	}
}

// bigMessages sends a listing page and a file chunk each over what one
// message may hold.
type bigMessages struct{ byID }

func (b *bigMessages) List(_ *pluginpb.ListRequest, stream pluginpb.SkillSource_ListServer) error {
	if b.skills != nil {
		return b.byID.List(nil, stream)
	}
	return stream.Send(&pluginpb.ListResponse{Skills: []*pluginpb.Skill{{Id: "huge", FrontMatter: bytes.Repeat([]byte("#"), maxMessage+1)}}})
}

func (b *bigMessages) ReadFile(_ *pluginpb.ReadFileRequest, stream pluginpb.SkillSource_ReadFileServer) error {
	return stream.Send(&pluginpb.FileChunk{Size: 2 * maxChunk, Data: bytes.Repeat([]byte("x"), 2*maxChunk)})
}

// A message over what gRPC takes is said in words, with what would do,
// not as gRPC's status text.
func TestMessagesTooLargeAreSaidInWords(t *testing.T) {
	_, err := connect(t, "big", &bigMessages{}, "").List(t.Context())
	if err == nil || !strings.Contains(err.Error(), "send the skills in smaller pages") || strings.Contains(err.Error(), "rpc error") {
		t.Errorf("a listing page too large: %v", err)
	}
	const front = "name: s\ndescription: D.\n"
	p := &bigMessages{byID: byID{skills: []*pluginpb.Skill{{Id: "s", FrontMatter: []byte(front), Files: []*pluginpb.FileInfo{{Path: "SKILL.md", Size: 2 * maxChunk, Sha256: digestOf("x")}}}}}}
	l, err := connect(t, "big", p, "").List(t.Context())
	if err != nil || len(l.Skills) != 1 {
		t.Fatalf("%v %+v", err, l)
	}
	_, err = fs.ReadFile(l.Skills[0].Files, "SKILL.md")
	if err == nil || !strings.Contains(err.Error(), "send it in smaller chunks") {
		t.Errorf("a chunk too large: %v", err)
	}
}

// heldReads is byID whose reads wait until release is closed.
type heldReads struct {
	byID
	release chan struct{}
}

func (h *heldReads) ReadFile(req *pluginpb.ReadFileRequest, stream pluginpb.SkillSource_ReadFileServer) error {
	h.reads.Add(1)
	select {
	case <-h.release:
	case <-stream.Context().Done():
		return stream.Context().Err()
	}
	return h.byID.ReadFile(req, stream)
}

// A plugin that hangs holds at most maxReading reads of its files, and as
// many waiting their turn: one more is refused as busy at once, rather
// than held with them for the plugin's timeout (70 of them held every
// request slot of the server, and its other sources' answers with them).
// Those waiting are served once the plugin answers: one that is slow, not
// hung, refuses none of them.
func TestHungPluginHoldsFewReads(t *testing.T) {
	const front = "name: s\ndescription: D.\n"
	const file = "---\n" + front + "---\nbody\n"
	for _, cache := range []bool{false, true} { // with a cache, the first read makes a copy that the others wait for
		t.Run(fmt.Sprint("cache ", cache), func(t *testing.T) { testHungPluginHoldsFewReads(t, front, file, cache) })
	}
}

func testHungPluginHoldsFewReads(t *testing.T, front, file string, cache bool) {
	p := &heldReads{byID: byID{skills: []*pluginpb.Skill{{Id: "s", FrontMatter: []byte(front), Files: []*pluginpb.FileInfo{{Path: "SKILL.md", Size: int64(len(file)), Sha256: digestOf(file)}}}},
		files: map[string]string{"s/SKILL.md": file}}, release: make(chan struct{})}
	dir := ""
	if cache {
		dir = t.TempDir()
	}
	src := connect(t, "p", p, dir)
	src.r.reading = make(chan struct{}, maxReading)
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan error, 2*maxReading)
	for range 2 * maxReading {
		go func() { _, err := fs.ReadFile(l.Skills[0].Files, "SKILL.md"); held <- err }()
	}
	for p.reads.Load() < maxReading || src.r.admitted.Load() < 2*maxReading {
		time.Sleep(time.Millisecond)
	}
	if _, err := fs.ReadFile(l.Skills[0].Files, "SKILL.md"); !errors.Is(err, errBusy) {
		t.Errorf("one read more than a hung plugin holds: %v; want busy", err)
	}
	close(p.release)
	for range 2 * maxReading {
		if err := <-held; err != nil {
			t.Errorf("a read held, then answered: %v", err)
		}
	}
	if _, err := fs.ReadFile(l.Skills[0].Files, "SKILL.md"); err != nil {
		t.Errorf("a read once the plugin answers again: %v", err)
	}
}
