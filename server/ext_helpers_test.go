package server_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/internal/logtest"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// The Skills extension's methods, as a client sends them.

type listSkillsParams struct {
	mcp.ParamsBase
	Cursor string `json:"cursor,omitempty"`
}

type skillResource struct {
	URI    string `json:"uri"`
	Digest string `json:"digest"`
	Size   int64  `json:"size"`
}

type skillEntry struct {
	URI         string          `json:"uri"`
	Frontmatter map[string]any  `json:"frontmatter"`
	Resources   []skillResource `json:"resources"`
}

type listSkillsResult struct {
	mcp.ResultBase
	ResultType string        `json:"resultType"`
	Skills     []*skillEntry `json:"skills"`
	NextCursor string        `json:"nextCursor"`
	TTLMs      *int          `json:"ttlMs"`
	CacheScope *string       `json:"cacheScope"`
}

type getSkillParams struct {
	mcp.ParamsBase
	URI string `json:"uri"`
}

type getSkillResult struct {
	mcp.ResultBase
	ResultType string      `json:"resultType"`
	Skill      *skillEntry `json:"skill"`
	TTLMs      *int        `json:"ttlMs"`
	CacheScope *string     `json:"cacheScope"`
}

type readDirParams struct {
	mcp.ParamsBase
	URI    string `json:"uri"`
	Cursor string `json:"cursor,omitempty"`
}

type readDirResult struct {
	mcp.ResultBase
	ResultType string          `json:"resultType"`
	Resources  []*mcp.Resource `json:"resources"`
	NextCursor string          `json:"nextCursor"`
	TTLMs      *int            `json:"ttlMs"`
}

// extClient connects a client that can call the extension's methods.
func extClient(t *testing.T, srv *server.Server, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "ext-client", Version: "1"}, opts)
	for _, err := range []error{
		mcp.AddSendingCustomMethod[*listSkillsParams, *listSkillsResult](client, "skills/list"),
		mcp.AddSendingCustomMethod[*getSkillParams, *getSkillResult](client, "skills/get"),
		mcp.AddSendingCustomMethod[*readDirParams, *readDirResult](client, "resources/directory/read"),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func listSkills(t *testing.T, cs *mcp.ClientSession, cursor string) *listSkillsResult {
	t.Helper()
	res, err := mcp.CallCustomMethod[*listSkillsParams, *listSkillsResult](context.Background(), cs, "skills/list", &listSkillsParams{Cursor: cursor})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// allSkills pages through skills/list.
func allSkills(t *testing.T, cs *mcp.ClientSession) (entries []*skillEntry, pages int) {
	t.Helper()
	cursor := ""
	for {
		res := listSkills(t, cs, cursor)
		entries = append(entries, res.Skills...)
		pages++
		if res.NextCursor == "" {
			return entries, pages
		}
		cursor = res.NextCursor
	}
}

func getSkill(cs *mcp.ClientSession, uri string) (*getSkillResult, error) {
	return mcp.CallCustomMethod[*getSkillParams, *getSkillResult](context.Background(), cs, "skills/get", &getSkillParams{URI: uri})
}

func readDir(cs *mcp.ClientSession, uri, cursor string) (*readDirResult, error) {
	return mcp.CallCustomMethod[*readDirParams, *readDirResult](context.Background(), cs, "resources/directory/read", &readDirParams{URI: uri, Cursor: cursor})
}

func read(cs *mcp.ClientSession, uri string) (*mcp.ReadResourceResult, error) {
	return cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
}

// rpcCode returns the JSON-RPC code of err, or 0.
// refusedArguments returns the message of a tool call refused for its
// arguments: a tool result with isError that says "invalid arguments",
// which the model reads to correct its call. It returns "" for any other
// answer, a JSON-RPC error included.
func refusedArguments(res *mcp.CallToolResult, err error) string {
	if err != nil || res == nil || !res.IsError || len(res.Content) == 0 {
		return ""
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok || !strings.HasPrefix(tc.Text, "invalid arguments: ") {
		return ""
	}
	return tc.Text
}

func rpcCode(err error) int64 {
	var je *jsonrpc.Error
	if errors.As(err, &je) {
		return je.Code
	}
	return 0
}

// resourceTree is a folder of skills on disk with every shape the
// resources must handle, and a secret outside it that must never be
// read: text, binary and empty files, a nested skill, symlinks inside,
// and symlinks that lead out to a file and to a folder.
type resourceTree struct {
	root, outside string
	secret        string
}

const secretText = "TOP SECRET: outside every skill folder"

func newResourceTree(t *testing.T) *resourceTree {
	t.Helper()
	base := t.TempDir()
	rt := &resourceTree{root: filepath.Join(base, "skills"), outside: filepath.Join(base, "outside")}
	rt.secret = filepath.Join(rt.outside, "secret.txt")
	sourcetest.WriteFiles(t, rt.root, map[string]string{
		"pdf/SKILL.md":                 "---\nname: pdf\ndescription: Fill and read PDF forms.\nmetadata:\n  version: 014\n  released: 2024-01-01\nallowed-tools: [Read, Bash]\n---\n# PDF\n\nSee forms.md.\r\n",
		"pdf/forms.md":                 "# Forms\n\nunicode: é 😀\n",
		"pdf/references/guide.md":      "# Guide\n",
		"pdf/scripts/fill.py":          "print('fill')\n",
		"pdf/assets/logo.png":          "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
		"pdf/assets/latin1.txt":        "caf\xe9\n",
		"pdf/empty.txt":                "",
		"pdf/nested/SKILL.md":          "---\nname: nested\ndescription: A skill inside another.\n---\nbody\n",
		"pdf/nested/ref.md":            "nested ref\n",
		"pdf/.git/config":              "[core]\n",
		"pdf/SKILL.md~":                "an editor's backup\n",
		"pdf/references/.guide.md.swp": "a swap file\n",
		"pdf/.DS_Store":                "\x00\x00",
		"docx/SKILL.md":                "---\nname: docx\ndescription: Edit Word documents.\n---\nbody\n",
		"../outside/secret.txt":        secretText,
		"../outside/inner/key.txt":     secretText,
		"../outside/SKILL.md":          secretText,
		"../outside/scripts/run.sh":    secretText,
	})
	for link, target := range map[string]string{
		"pdf/link-in.md":      "forms.md",
		"pdf/link-out.txt":    rt.secret,
		"pdf/link-out-rel":    "../../outside/secret.txt",
		"pdf/dir-out":         rt.outside,
		"pdf/missing-out.txt": filepath.Join(rt.outside, "no-such-file"),
	} {
		if err := os.Symlink(target, filepath.Join(rt.root, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	return rt
}

// sha256File is the digest of a file as the extension writes it, by
// crypto/sha256.
func sha256File(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// sha256sum is the digest of files by the sha256sum command, or nil
// where there is none (crypto/sha256 is then the only check).
func sha256sum(t *testing.T, paths ...string) map[string]string {
	t.Helper()
	bin, err := exec.LookPath("sha256sum")
	if err != nil {
		t.Log("no sha256sum command here")
		return nil
	}
	out, err := exec.Command(bin, paths...).Output()
	if err != nil {
		t.Fatal(err)
	}
	sums := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		sum, path, _ := strings.Cut(line, "  ")
		sums[path] = "sha256:" + sum
	}
	return sums
}

// logBuffer is a logger whose output a test can read.
type logBuffer struct{ logtest.Buffer }

func (l *logBuffer) logger() *slog.Logger { return l.Logger(slog.LevelInfo) }

// noSecret fails the test when v, encoded, shows the secret or the
// outside folder (other than by echoing the request, what).
func noSecret(t *testing.T, rt *resourceTree, what string, v any) {
	t.Helper()
	data, _ := json.Marshal(v)
	s := string(data)
	if e, ok := v.(error); ok && e != nil {
		s += e.Error()
	}
	s = strings.ReplaceAll(s, what, "")
	if strings.Contains(s, "TOP SECRET") || strings.Contains(s, rt.outside) {
		t.Errorf("%s discloses the outside: %s", what, s)
	}
}
