package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/config"
)

// session is a running `skillmux serve` spoken to over its pipes.
type session struct {
	t      *testing.T
	stdin  io.WriteCloser
	lines  chan map[string]any
	stderr *syncBuffer
	cmd    *exec.Cmd
}

func startServe(t *testing.T, environ []string, dir string, args ...string) *session {
	t.Helper()
	cmd := exec.Command(buildBinary(t), append([]string{"serve"}, args...)...)
	cmd.Env, cmd.Dir = environ, dir
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	s := &session{t: t, stdin: stdin, lines: make(chan map[string]any, 64), stderr: &syncBuffer{}, cmd: cmd}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		select {
		case <-exited:
		case <-time.After(30 * time.Second): // a test that failed on a server that hangs ends
			cmd.Process.Kill()
			<-exited
		}
	})
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("stdout is not JSON-RPC: %q", sc.Text())
			}
			s.lines <- m
		}
		close(s.lines)
	}()
	return s
}

func (s *session) send(line string) { io.WriteString(s.stdin, line+"\n") }

// next returns the next message for which ok holds, skipping others.
func (s *session) next(what string, ok func(map[string]any) bool) map[string]any {
	s.t.Helper()
	deadline := time.After(15 * time.Second)
	for {
		select {
		case m, open := <-s.lines:
			if !open {
				s.t.Fatalf("server ended while waiting for %s:\n%s", what, s.stderr.String())
			}
			if ok(m) {
				return m
			}
		case <-deadline:
			s.t.Fatalf("no %s:\n%s", what, s.stderr.String())
		}
	}
}

func isMethod(method string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["method"] == method }
}

func isID(id float64) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["id"] == id }
}

func (s *session) handshake() {
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	s.next("initialize result", isID(1))
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// handshakeWithRoots is handshake for a client that declares roots, and
// answers the server's first roots/list with dirs.
func (s *session) handshakeWithRoots(dirs ...string) {
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"t","version":"1"}}}`)
	s.next("initialize result", isID(1))
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	s.answerRoots(dirs...)
}

// answerRoots waits for the server's roots/list request and answers it
// with dirs.
// handshakeFollowingRoots is handshakeWithRoots, then waits until the
// catalog is reloaded for the roots.
func (s *session) handshakeFollowingRoots(dirs ...string) {
	s.t.Helper()
	s.handshakeWithRoots(dirs...)
	if !s.stderr.waitFor(`msg="catalog reloaded" why="the client's roots changed"`, 15*time.Second) {
		s.t.Fatalf("the client's roots were not followed:\n%s", s.stderr.String())
	}
}

func (s *session) answerRoots(dirs ...string) {
	s.t.Helper()
	req := s.next("roots/list request", isMethod("roots/list"))
	var roots []map[string]string
	for _, d := range dirs {
		roots = append(roots, map[string]string{"uri": "file://" + filepath.ToSlash(d)})
	}
	reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req["id"], "result": map[string]any{"roots": roots}})
	s.send(string(reply))
}

func (s *session) toolDescription(id int) string {
	s.send(`{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/list"}`)
	m := s.next("tools/list", isID(float64(id)))
	return m["result"].(map[string]any)["tools"].([]any)[0].(map[string]any)["description"].(string)
}

// addMySkill writes the user file of env, prefix first, with a source of
// one skill, my-skill, waits for the notification of the change, and
// checks that the tool description (the answer of request id) lists it.
func (s *session) addMySkill(env []string, prefix string, id int, why string) {
	s.t.Helper()
	mine := s.t.TempDir()
	writeFile(s.t, filepath.Join(mine, "my-skill/SKILL.md"), skillMD("my-skill", "From my own folder."))
	writeFile(s.t, userFile(env), prefix+"sources:\n  - type: dir\n    path: "+mine+"\n")
	s.next("tools/list_changed after the user's file was edited", isMethod("notifications/tools/list_changed"))
	if d := s.toolDescription(id); !strings.Contains(d, "- my-skill:") {
		s.t.Errorf("the user's own edit is not applied %s:\n%s", why, d)
	}
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// The real binary follows new skills and configuration edits while it
// serves, and tells its client.
func TestBinaryLiveRefresh(t *testing.T) {
	home := t.TempDir()
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "first/SKILL.md"), skillMD("first", "The first skill."))
	work := t.TempDir()
	env := append(isolatedEnv(t), "HOME="+home, "SKILLMUX_REFRESH__DEBOUNCE=50ms")
	trustIn(t, env, work) // its workspace file's invalid edit keeps the one in force
	s := startServe(t, env, work, "--root", root)
	s.handshake()
	if d := s.toolDescription(2); !strings.Contains(d, "- first:") {
		t.Fatalf("description: %s", d)
	}

	writeFile(t, filepath.Join(root, "second/SKILL.md"), skillMD("second", "Added while serving."))
	s.next("tools/list_changed after a new skill", isMethod("notifications/tools/list_changed"))
	if d := s.toolDescription(3); !strings.Contains(d, "- second: Added while serving.") {
		t.Errorf("the new skill is not in the description:\n%s", d)
	}

	// A workspace configuration that appears adds its source.
	team := t.TempDir()
	writeFile(t, filepath.Join(team, "team-skill/SKILL.md"), skillMD("team-skill", "From the team's folder."))
	writeFile(t, filepath.Join(work, ".skillmux.yaml"), "sources:\n  - type: dir\n    path: "+team+"\n")
	s.next("tools/list_changed after a configuration edit", isMethod("notifications/tools/list_changed"))
	if d := s.toolDescription(4); !strings.Contains(d, "- team-skill:") || !strings.Contains(d, "- second:") {
		t.Errorf("the configured source is not served:\n%s", d)
	}

	// An invalid edit is logged, and the configuration in force stays.
	writeFile(t, filepath.Join(work, ".skillmux.yaml"), "sources:\n  - type: dri\n")
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(s.stderr.String(), "configuration not applied") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(s.stderr.String(), `is not a source type`) {
		t.Errorf("the invalid configuration is not logged:\n%s", s.stderr.String())
	}
	s.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"skill","arguments":{"name":"team-skill"}}}`)
	if m := s.next("tools/call", isID(5)); m["result"].(map[string]any)["isError"] == true {
		t.Errorf("the configuration in force was dropped: %v", m)
	}
}

// Watching starts with the first handshake, or a second after the start
// for a client slow to send it: such a client's instructions include a
// skill added while it was starting.
func TestBinarySlowHandshake(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "first/SKILL.md"), skillMD("first", "The first skill."))
	env := append(isolatedEnv(t), "HOME="+t.TempDir(), "SKILLMUX_REFRESH__DEBOUNCE=50ms")
	s := startServe(t, env, t.TempDir(), "--root", root)
	// The server has listed the catalog once it logs that it serves.
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(s.stderr.String(), "serving MCP on stdio") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	writeFile(t, filepath.Join(root, "second/SKILL.md"), skillMD("second", "Added before the handshake."))
	time.Sleep(greetWait + 500*time.Millisecond)
	s.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	m := s.next("initialize result", isID(1))
	if instr, _ := m["result"].(map[string]any)["instructions"].(string); !strings.Contains(instr, "second") {
		t.Errorf("the instructions miss the skill added before the handshake:\n%s", instr)
	}
}

// With --no-builtin, an edit that leaves no source empties the catalog,
// and the client is told, as for any other change.
func TestBinaryConfigLeavesNoSources(t *testing.T) {
	t.Parallel() // it waits for the configuration files' polls, mostly
	team := t.TempDir()
	writeFile(t, filepath.Join(team, "team-skill/SKILL.md"), skillMD("team-skill", "From the team's folder."))
	work := t.TempDir()
	cfg := writeFileRet(t, filepath.Join(work, ".skillmux.yaml"), "sources:\n  - type: dir\n    path: "+team+"\n")
	env := append(trustingEnv(t, work), "SKILLMUX_REFRESH__DEBOUNCE=50ms") // it names a folder outside its own
	s := startServe(t, env, work, "--no-builtin")
	s.handshake()
	if d := s.toolDescription(2); !strings.Contains(d, "- team-skill:") {
		t.Fatalf("description: %s", d)
	}
	writeFile(t, cfg, "sources: []\n")
	s.next("tools/list_changed after the last source went", isMethod("notifications/tools/list_changed"))
	if d := s.toolDescription(3); strings.Contains(d, "team-skill") {
		t.Errorf("the skill of the source that went is still listed:\n%s", d)
	}
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"skill","arguments":{"name":"team-skill"}}}`)
	if m := s.next("tools/call", isID(4)); m["result"].(map[string]any)["isError"] != true {
		t.Errorf("the skill of the source that went is still served: %v", m)
	}
}

// The relative paths of the command line are the working folder's, the
// server's as it started, when the client's roots move the workspace:
// --config c.yaml is not looked for in the client's root, nor --root.
func TestBinaryRelativePathsStayWithTheWorkingFolder(t *testing.T) {
	t.Parallel() // it waits for the configuration files' polls, mostly
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "rel/rel-skill/SKILL.md"), skillMD("rel-skill", "Given with --root."))
	writeFile(t, filepath.Join(work, "configured/configured-skill/SKILL.md"), skillMD("configured-skill", "From --config's source."))
	writeFile(t, filepath.Join(work, "c.yaml"), "sources:\n  - type: dir\n    path: configured\n")
	client := t.TempDir()
	s := startServe(t, isolatedEnv(t), work, "--no-builtin", "--root", "rel", "--config", "c.yaml")
	s.handshakeFollowingRoots(client)
	d := s.toolDescription(2)
	for _, name := range []string{"- rel-skill:", "- configured-skill:"} {
		if !strings.Contains(d, name) {
			t.Errorf("%s is not served after the roots changed:\n%s", name, d)
		}
	}
}

// When the client's roots move to a folder whose .skillmux.yaml is
// invalid, the error is logged and the user's own configuration applies
// (TestBinaryRootsMoveFromATrustedWorkspace), with the project's skills
// of the new root; and the new root's file is the one watched, so that
// fixing it applies it.
func TestBinaryRootsMoveToAnInvalidConfiguration(t *testing.T) {
	t.Parallel() // it waits for the configuration files' polls, mostly
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	for _, p := range []struct{ dir, skill string }{{a, "in-a"}, {b, "in-b"}} {
		writeFile(t, filepath.Join(p.dir, ".git/HEAD"), "ref: refs/heads/main\n")
		writeFile(t, filepath.Join(p.dir, ".claude/skills", p.skill, "SKILL.md"), skillMD(p.skill, "The project's skill."))
	}
	cfg := writeFileRet(t, filepath.Join(b, ".skillmux.yaml"), "catalog:\n  budgte: 3000\n")
	env := append(trustingEnv(t, b), "SKILLMUX_REFRESH__DEBOUNCE=50ms") // its fixed file names a folder outside its own
	s := startServe(t, env, t.TempDir())
	s.handshakeFollowingRoots(a)
	if d := s.toolDescription(2); !strings.Contains(d, "- in-a:") {
		t.Fatalf("description: %s", d)
	}

	s.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	s.answerRoots(b)
	// The notification of the first reload may come after the answer
	// above: the reload's own log line, which follows the swap, says
	// when the catalog is the new root's.
	s.next("tools/list_changed after the roots moved", isMethod("notifications/tools/list_changed"))
	if !s.stderr.waitForCount(`msg="catalog reloaded" why="the client's roots changed"`, 2, 15*time.Second) {
		t.Fatalf("the client's new roots were not followed:\n%s", s.stderr.String())
	}
	if d := s.toolDescription(3); !strings.Contains(d, "- in-b:") || strings.Contains(d, "in-a") {
		t.Errorf("the project's skills did not follow the client's root:\n%s", d)
	}
	if want := cfg + `:2: catalog.budgte: unknown key (did you mean \"budget\"?)`; !strings.Contains(s.stderr.String(), want) {
		t.Errorf("the invalid file is not reported as %s:\n%s", want, s.stderr.String())
	}

	// The user's own edits apply while the workspace's file is refused:
	// they used to be refused with it, naming it.
	s.addMySkill(env, "trust: ["+strconv.Quote(b)+"]\n", 30, "beside the refused workspace file")
	if d := s.toolDescription(31); !strings.Contains(d, "- in-b:") {
		t.Errorf("the root's skills left with the user's edit:\n%s", d)
	}

	team := t.TempDir()
	writeFile(t, filepath.Join(team, "team-skill/SKILL.md"), skillMD("team-skill", "From the team's folder."))
	writeFile(t, cfg, "sources:\n  - type: dir\n    path: "+team+"\n")
	s.next("tools/list_changed after the new root's file was fixed", isMethod("notifications/tools/list_changed"))
	// The second reload of an edit: the first was the user's own.
	if !s.stderr.waitForCount(`msg="catalog reloaded" why="a configuration file changed"`, 2, 15*time.Second) {
		t.Fatalf("the fixed file was not applied:\n%s", s.stderr.String())
	}
	// Its sources replace the user's, as a trusted file's do.
	if d := s.toolDescription(4); !strings.Contains(d, "- team-skill:") || !strings.Contains(d, "- in-b:") || strings.Contains(d, "my-skill") {
		t.Errorf("the fixed file is not applied:\n%s", d)
	}
}

// Roots that move from a trusted workspace to one whose file is invalid
// get the user's own configuration, not the trusted one's: before, the
// configuration in force stayed, and the trusted workspace's source order
// (its project above the user) served the new repository's deploy in
// place of the user's. An untrusted file is set aside with its problems
// as warnings; a trusted one is refused, and said so.
func TestBinaryRootsMoveFromATrustedWorkspace(t *testing.T) {
	for _, tc := range []struct {
		name   string
		trustB bool
		logged string
	}{
		{"to an untrusted one", false, "the file is not read"},
		{"to a trusted one", true, "served with your own configuration alone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // it waits for the roots' reload
			base := t.TempDir()
			a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
			env := append(isolatedEnv(t), "SKILLMUX_REFRESH__DEBOUNCE=50ms")
			if tc.trustB {
				trustIn(t, env, a, b)
			} else {
				trustIn(t, env, a)
			}
			home := strings.TrimPrefix(env[0], "HOME=")
			writeFile(t, filepath.Join(home, ".claude/skills/deploy/SKILL.md"), skillMD("deploy", "The user's own."))
			for _, dir := range []string{a, b} {
				writeFile(t, filepath.Join(dir, ".git/HEAD"), "ref: refs/heads/main\n")
			}
			writeFile(t, filepath.Join(a, ".skillmux.yaml"), "sources:\n  - type: project\n  - type: user\n")
			writeFile(t, filepath.Join(b, ".claude/skills/deploy/SKILL.md"), skillMD("deploy", "The repository's."))
			writeFile(t, filepath.Join(b, ".skillmux.yaml"), "bogus: 1\n")
			s := startServe(t, env, a)
			s.handshakeFollowingRoots(b)
			if d := s.toolDescription(2); !strings.Contains(d, "- deploy: The user's own.") {
				t.Errorf("deploy in the new root is not the user's:\n%s", d)
			}
			if !strings.Contains(s.stderr.String(), tc.logged) {
				t.Errorf("the log lacks %q:\n%s", tc.logged, s.stderr.String())
			}
		})
	}
}

// An edit of log.level applies at once to every log line, those of the
// sources it rebuilds as well as the server's; log.format waits for a
// restart, for every line too.
func TestBinaryLogLevelIsFollowed(t *testing.T) {
	t.Parallel() // it waits for the configuration files' polls, mostly
	s, cfg, first, second := serveFirstOfTwo(t)
	// Assets nested deeper than the walk looks for skills, which the
	// tree says at debug level.
	writeFile(t, filepath.Join(second, "two", strings.Repeat("d/", 17), "x.txt"), "x")

	writeFile(t, cfg, "log:\n  level: debug\n  format: json\nsources:\n  - type: dir\n    path: "+second+"\n")
	s.next("tools/list_changed after the edit", isMethod("notifications/tools/list_changed"))
	// At debug level, in text: the resolver's line, and the new tree's.
	for _, want := range []string{`level=DEBUG msg="source scanned"`, `level=DEBUG msg="not searched for nested skills: deeper than the walk goes" path=` + filepath.Join(second, "two")} {
		if !s.stderr.waitFor(want, 15*time.Second) {
			t.Errorf("no %s:\n%s", want, s.stderr.String())
		}
	}
	if !strings.Contains(s.stderr.String(), "settings=[log.format]") {
		t.Errorf("the warning does not name log.format alone:\n%s", s.stderr.String())
	}
	if d := s.toolDescription(3); !strings.Contains(d, "- two:") {
		t.Fatalf("description: %s", d)
	}

	// The edit's own line comes after its swap, which the answer above
	// may come before.
	if !s.stderr.waitFor(`msg="catalog reloaded" why="a configuration file changed"`, 15*time.Second) {
		t.Fatalf("the edit was not applied:\n%s", s.stderr.String())
	}
	reloaded := strings.Count(s.stderr.String(), `msg="catalog reloaded"`)
	writeFile(t, cfg, "log:\n  level: error\nsources:\n  - type: dir\n    path: "+first+"\n")
	s.next("tools/list_changed after the second edit", isMethod("notifications/tools/list_changed"))
	writeFile(t, cfg, "log:\n  levle: error\n")
	if !s.stderr.waitFor("configuration not applied", 15*time.Second) {
		t.Fatalf("the invalid edit is not logged:\n%s", s.stderr.String())
	}
	if n := strings.Count(s.stderr.String(), `msg="catalog reloaded"`); n != reloaded {
		t.Errorf("%d lines at info level after log.level became error:\n%s", n-reloaded, s.stderr.String())
	}
}

// serveFirstOfTwo makes two folders of one skill each (one, two), and
// serves the first through a trusted workspace file cfg, which a test
// edits; the client has had its handshake and seen skill one.
func serveFirstOfTwo(t *testing.T) (s *session, cfg, first, second string) {
	t.Helper()
	first, second = t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(first, "one/SKILL.md"), skillMD("one", "The first folder's."))
	writeFile(t, filepath.Join(second, "two/SKILL.md"), skillMD("two", "The second folder's."))
	work := t.TempDir()
	cfg = writeFileRet(t, filepath.Join(work, ".skillmux.yaml"), "sources:\n  - type: dir\n    path: "+first+"\n")
	s = startServe(t, append(trustingEnv(t, work), "SKILLMUX_REFRESH__DEBOUNCE=50ms"), work, "--no-builtin")
	s.handshake()
	if d := s.toolDescription(2); !strings.Contains(d, "- one:") {
		t.Fatalf("description: %s", d)
	}
	return s, cfg, first, second
}

// A client that never reads the server's stderr cannot stop it: logs are
// dropped, not waited for.
func TestBinaryWithUnreadStderr(t *testing.T) {
	cmd := exec.Command(buildBinary(t), "serve", "--root", examples(t))
	cmd.Env, cmd.Dir = isolatedEnv(t), t.TempDir()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe() // never read
	defer stderr.Close()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	go func() {
		// Every malformed line is logged: far more than a pipe holds.
		for range 3000 {
			io.WriteString(stdin, "{not json, and logged as such}\n")
		}
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":"last","method":"ping"}`+"\n")
	}()
	done := make(chan bool)
	go func() {
		for lines.Scan() {
			if strings.Contains(lines.Text(), `"id":"last"`) {
				done <- true
				return
			}
		}
		done <- false
	}()
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("the server ended")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server stopped answering while nobody read its stderr")
	}
}

// A client may close the pipe it gave as the server's stderr: the
// server's logs are lost, its answers are not. Before, the first log
// line, written before the handshake, ended the process by SIGPIPE.
func TestBinaryWithClosedStderr(t *testing.T) {
	cmd := exec.Command(buildBinary(t), "serve", "--root", examples(t))
	cmd.Env, cmd.Dir = isolatedEnv(t), t.TempDir()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	r.Close() // nobody will ever read the server's stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	defer cmd.Process.Kill()
	go func() {
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
		io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
		io.WriteString(stdin, "{not json, and logged as such}\n")
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"skill","arguments":{"name":"csv-summary"}}}`+"\n")
		stdin.Close()
	}()
	var got []string
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		// Answers only: a notification is not one of them.
		if !strings.Contains(lines.Text(), `"method":"notifications/`) {
			got = append(got, lines.Text())
		}
	}
	if len(got) != 3 || !strings.Contains(got[2], `"id":"last"`) || !strings.Contains(got[2], "csv-summary") {
		t.Fatalf("answers with stderr closed = %q, want the handshake's, the bad line's and the skill's", got)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("server with stderr closed: %v, want status 0 at the end of stdin", err)
	}
}

// A client that closes the pipe it reads answers from ends the session:
// the server stops at its next answer, with status 0, and says why.
func TestBinaryWithClosedStdout(t *testing.T) {
	cmd := exec.Command(buildBinary(t), "serve", "--root", examples(t))
	cmd.Env, cmd.Dir = isolatedEnv(t), t.TempDir()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	stdout.Close() // the client reads no more
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":2,"method":"ping"}`+"\n")
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("server with stdout closed: %v, want status 0", err)
		}
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the server went on with stdout closed:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "stdout closed; stopping") {
		t.Errorf("the log does not say why it stopped:\n%s", stderr.String())
	}
}

// A workspace configuration made at the repository's root while the
// server runs in a sub-folder of it is read: the places watched are every
// folder the workspace file is looked for in, not the working folder
// alone.
func TestBinaryWorkspaceFileAboveTheWorkingFolder(t *testing.T) {
	repo := t.TempDir()
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(repo, "svc", "api")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "first/SKILL.md"), skillMD("first", "The first skill."))
	env := append(isolatedEnv(t), "HOME="+t.TempDir(), "SKILLMUX_REFRESH__DEBOUNCE=50ms")
	trustIn(t, env, repo) // its file names a folder outside its own
	s := startServe(t, env, work, "--root", root)
	s.handshake()
	if d := s.toolDescription(2); !strings.Contains(d, "- first:") {
		t.Fatalf("description: %s", d)
	}
	team := t.TempDir()
	writeFile(t, filepath.Join(team, "team-skill/SKILL.md"), skillMD("team-skill", "From the team's folder."))
	writeFile(t, filepath.Join(repo, ".skillmux.yaml"), "sources:\n  - type: dir\n    path: "+team+"\n")
	s.next("tools/list_changed after the repository's configuration appeared", isMethod("notifications/tools/list_changed"))
	if d := s.toolDescription(3); !strings.Contains(d, "- team-skill:") {
		t.Errorf("the configured source is not served:\n%s", d)
	}
}

// TestRestartOnly: the warning of a configuration edit names the settings
// that changed and that only a restart applies, and none when none did.
func TestRestartOnly(t *testing.T) {
	base := func() *config.Config {
		return &config.Config{
			Sources:   []config.Source{{Type: config.TypeDir, Path: "/skills"}},
			Defaults:  config.Defaults{Builtin: true, Native: config.NativeExclude},
			Catalog:   config.Catalog{Budget: 2048, Channel: config.ChannelBoth},
			Refresh:   config.Refresh{Watch: true, Debounce: 200 * time.Millisecond, Interval: 30 * time.Second},
			Resources: config.Resources{MaxFileSize: config.DefaultMaxFileSize},
			Tools:     config.Tools{Profile: "default"},
			Log:       config.Log{Level: "info", Format: "text"},
		}
	}
	tests := []struct {
		name string
		edit func(c *config.Config)
		want []string
	}{
		{"nothing", func(c *config.Config) {}, nil},
		{"the sources", func(c *config.Config) { c.Sources = append(c.Sources, config.Source{Type: config.TypeUser}) }, nil},
		{"defaults.builtin decides the sources", func(c *config.Config) { c.Defaults.Builtin = false }, nil},
		{"log.level is followed", func(c *config.Config) { c.Log.Level = "debug" }, nil},
		{"catalog.budget", func(c *config.Config) { c.Catalog.Budget = 3000 }, []string{"catalog.budget"}},
		{"an empty list is no list", func(c *config.Config) {
			c.Catalog.Pin, c.Tools.Enable, c.Resources.AllowDirs = []string{}, []string{}, []string{}
		}, nil},
		{"a rule of catalog.visibility", func(c *config.Config) {
			c.Catalog.Visibility = []config.VisibilityRule{{Pattern: "x*", Value: config.VisibilityOff}}
		}, []string{"catalog.visibility"}},
		{"one of each part", func(c *config.Config) {
			c.Log.Format = "json"
			c.Tools.Disable = []string{"skills_search"}
			c.Resources.AllowDirs = []string{"scripts"}
			c.Refresh.Debounce = time.Second
			c.Catalog.Channel = config.ChannelTool
			c.Defaults.Native = config.NativeInclude
		}, []string{"defaults.native", "catalog.channel", "refresh.debounce", "resources.allow_dirs", "tools.disable", "log.format"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := base()
			tt.edit(c)
			if diff := cmp.Diff(tt.want, restartOnly(base(), c)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// The client's roots, declared just after the handshake, rebuild the
// sources that depend on them (the project's) and keep the others: a
// source plugin is not started again, and its skill is served throughout.
func TestBinaryRootsKeepTheOtherSources(t *testing.T) {
	work := t.TempDir()
	cfg := filepath.Join(work, "plugin.yaml")
	writeFile(t, cfg, fmt.Sprintf("sources:\n  - type: plugin\n    name: tp\n    command: [%q]\n    env: {%s: \"1\"}\n", os.Args[0], envTestPlugin))
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".claude/skills/in-root/SKILL.md"), skillMD("in-root", "The root's skill."))
	s := startServe(t, isolatedEnv(t), work, "--config", cfg)
	s.handshakeFollowingRoots(root)
	if d := s.toolDescription(2); !strings.Contains(d, "- in-root:") || !strings.Contains(d, "- tp:one:") {
		t.Errorf("description: %s", d)
	}
	if n := strings.Count(s.stderr.String(), "source plugin started"); n != 1 {
		t.Errorf("the plugin started %d times:\n%s", n, s.stderr.String())
	}
}

// The end of input stops the following of the client's roots with the
// rest: a workspace file of the new root that starts a source plugin
// slow to start (here, one that never does) held the exit until the
// plugin's start timeout ran out.
func TestBinaryExitsWhileRootsStartAPlugin(t *testing.T) {
	root := t.TempDir()
	slow := filepath.Join(root, "slow.sh")
	writeFile(t, slow, "#!/bin/sh\nexec sleep 300\n")
	if err := os.Chmod(slow, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, ".skillmux.yaml"), "sources:\n  - type: plugin\n    name: slow\n    command: ["+slow+"]\n    timeout: 120s\n")
	s := startServe(t, trustingEnv(t, root), t.TempDir())
	s.handshakeWithRoots(root)
	if !s.stderr.waitFor("workspace from client roots", 15*time.Second) {
		t.Fatalf("the client's roots were not taken:\n%s", s.stderr.String())
	}
	s.stdin.Close()
	exited := make(chan struct{})
	go func() { s.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(60 * time.Second): // half the plugin's timeout: only a wait for it takes so long
		t.Fatalf("skillmux did not exit after its input ended:\n%s", s.stderr.String())
	}
}

// The sources the client's roots bring are listed whole before they are
// served: the skill nested in another of the new root is in the catalog
// from the reload on (a first listing without it took it from the
// catalog for a moment, until the scan that found it, at every reload).
func TestBinaryRootsBringNestedSkillsAtOnce(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, ".claude/skills/outer/SKILL.md"), skillMD("outer", "The outer skill."))
	writeFile(t, filepath.Join(root, ".claude/skills/outer/inner/SKILL.md"), skillMD("inner", "Nested in outer."))
	s := startServe(t, isolatedEnv(t), t.TempDir())
	s.handshakeFollowingRoots(root)
	if d := s.toolDescription(2); !strings.Contains(d, "- outer:") || !strings.Contains(d, "- inner:") {
		t.Errorf("description just after the reload: %s", d)
	}
}

// A workspace file removed while an invalid one appears further up (a
// checkout) takes its sources with it: they were kept, for the other
// file's sake, until that one was fixed.
func TestBinaryWorkspaceFileRemovedForAnInvalidOne(t *testing.T) {
	t.Parallel() // it waits for the configuration files' polls, mostly
	for _, trusted := range []bool{false, true} {
		t.Run(fmt.Sprint("trusted=", trusted), func(t *testing.T) {
			t.Parallel()
			testWorkspaceFileRemovedForAnInvalidOne(t, trusted)
		})
	}
}

func testWorkspaceFileRemovedForAnInvalidOne(t *testing.T, trusted bool) {
	repo := t.TempDir()
	work := filepath.Join(repo, "pkg")
	writeFile(t, filepath.Join(repo, ".git/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(work, "team", "t1", "SKILL.md"), skillMD("t1", "The team's."))
	cfg := writeFileRet(t, filepath.Join(work, ".skillmux.yaml"), "sources:\n  - type: dir\n    path: team\n")
	env := isolatedEnv(t)
	if trusted {
		env = trustingEnv(t, repo) // the invalid file is refused, not set aside
	}
	s := startServe(t, env, work, "--no-builtin")
	s.handshake()
	if d := s.toolDescription(2); !strings.Contains(d, "- t1:") {
		t.Fatalf("description: %s", d)
	}
	if err := os.Remove(cfg); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, ".skillmux.yaml"), "sources:\n  - type: dir\n    paht: team\n")
	s.next("tools/list_changed once the file in force is gone", isMethod("notifications/tools/list_changed"))
	if d := s.toolDescription(3); strings.Contains(d, "t1") {
		t.Errorf("the removed file's sources stay in force:\n%s", d)
	}
}

// An edit that makes a workspace file the user does not trust invalid (a
// save half typed) leaves its sources in force, as for any other file,
// rather than take its skills from the catalog until the next good save;
// and an edit of the user's own file meanwhile is applied.
func TestBinaryUntrustedFileMadeInvalid(t *testing.T) {
	t.Parallel() // it waits for the configuration files' polls, mostly
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "team", "t1", "SKILL.md"), skillMD("t1", "The team's."))
	cfg := writeFileRet(t, filepath.Join(work, ".skillmux.yaml"), "sources:\n  - type: dir\n    path: team\n")
	env := isolatedEnv(t)
	s := startServe(t, env, work, "--no-builtin")
	s.handshake()
	if d := s.toolDescription(2); !strings.Contains(d, "- t1:") {
		t.Fatalf("description: %s", d)
	}
	writeFile(t, cfg, "sources:\n  - type: dir\n    paht: team\n")
	if !s.stderr.waitFor("configuration not applied; the previous one stays in force", 15*time.Second) {
		t.Fatalf("the invalid edit is not said:\n%s", s.stderr.String())
	}
	if d := s.toolDescription(3); !strings.Contains(d, "- t1:") {
		t.Errorf("the untrusted file's skills left with its invalid edit:\n%s", d)
	}
	if !strings.Contains(s.stderr.String(), cfg+":3: sources[0].paht: unknown key") {
		t.Errorf("the problem is not named:\n%s", s.stderr.String())
	}
	if strings.Contains(s.stderr.String(), "the file is not read") {
		t.Errorf("the file whose sources stay is said not to be read:\n%s", s.stderr.String())
	}
	// An edit of the user's own file meanwhile is applied, without the
	// invalid file: it was refused with it, naming that file, until
	// someone fixed it.
	s.addMySkill(env, "", 4, "while the workspace file is invalid")
}

// A trusted workspace file made invalid keeps the configuration in force
// while only it changes; an edit of the user's own file meanwhile is
// applied, with the user's configuration alone, not refused for the
// workspace's file.
func TestBinaryTrustedFileMadeInvalid(t *testing.T) {
	t.Parallel() // it waits for the configuration files' polls, mostly
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "team", "t1", "SKILL.md"), skillMD("t1", "The team's."))
	cfg := writeFileRet(t, filepath.Join(work, ".skillmux.yaml"), "sources:\n  - type: dir\n    path: team\n")
	env := trustingEnv(t, work)
	s := startServe(t, env, work, "--no-builtin")
	s.handshake()
	writeFile(t, cfg, "sources:\n  - type: dir\n    paht: team\n")
	if !s.stderr.waitFor("configuration not applied; the previous one stays in force", 15*time.Second) {
		t.Fatalf("the invalid edit is not said:\n%s", s.stderr.String())
	}
	if d := s.toolDescription(2); !strings.Contains(d, "- t1:") {
		t.Errorf("the trusted file's skills left with its invalid edit:\n%s", d)
	}
	s.addMySkill(env, "trust: ["+strconv.Quote(work)+"]\n", 3, "while the trusted workspace file is invalid")
}

// A new workspace file nearer the working folder, which is read in place
// of the one in force, keeps that one's sources while it is invalid (a
// save half typed), as an edit of the file in force does.
func TestBinaryNearerWorkspaceFileMadeInvalid(t *testing.T) {
	t.Parallel() // it waits for the configuration files' polls, mostly
	repo := t.TempDir()
	work := filepath.Join(repo, "pkg", "sub")
	writeFile(t, filepath.Join(repo, ".git/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(repo, "team", "t1", "SKILL.md"), skillMD("t1", "The team's."))
	writeFile(t, filepath.Join(repo, ".skillmux.yaml"), "sources:\n  - type: dir\n    path: team\n")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	s := startServe(t, isolatedEnv(t), work, "--no-builtin")
	s.handshake()
	if d := s.toolDescription(2); !strings.Contains(d, "- t1:") {
		t.Fatalf("description: %s", d)
	}
	writeFile(t, filepath.Join(repo, "pkg", ".skillmux.yaml"), "sources:\n  - type: dir\n    paht: team\n")
	if !s.stderr.waitFor("configuration not applied; the previous one stays in force", 15*time.Second) {
		t.Fatalf("the invalid file is not said:\n%s", s.stderr.String())
	}
	if d := s.toolDescription(3); !strings.Contains(d, "- t1:") {
		t.Errorf("the sources in force left with a new invalid file:\n%s", d)
	}
}

// Roots that move while the user's own file is invalid leave the previous
// root's workspace file behind all the same: the new root is served with
// the user's configuration as it last was valid. The trusted repository's
// sources kept serving in the other repository until the user file was
// fixed.
func TestBinaryRootsMoveWithTheUserFileInvalid(t *testing.T) {
	t.Parallel() // it waits for the configuration files' polls, mostly
	base := t.TempDir()
	r1, r2, outside := filepath.Join(base, "r1"), filepath.Join(base, "r2"), filepath.Join(base, "outside")
	writeFile(t, filepath.Join(r1, ".git/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(r2, ".git/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(r2, ".claude/skills/in-r2/SKILL.md"), skillMD("in-r2", "The second repository's."))
	writeFile(t, filepath.Join(outside, "r1-outside/SKILL.md"), skillMD("r1-outside", "What the first repository's file adds."))
	writeFile(t, filepath.Join(r1, ".skillmux.yaml"), "sources:\n  - type: dir\n    path: "+outside+"\n")
	env := append(trustingEnv(t, r1), "SKILLMUX_REFRESH__DEBOUNCE=50ms")
	s := startServe(t, env, t.TempDir())
	s.handshakeFollowingRoots(r1)
	if d := s.toolDescription(2); !strings.Contains(d, "- r1-outside:") {
		t.Fatalf("description: %s", d)
	}
	writeFile(t, userFile(env), "trust: ["+strconv.Quote(r1)+"\n")
	if !s.stderr.waitFor("configuration not applied; the previous one stays in force", 15*time.Second) {
		t.Fatalf("the invalid user file is not said:\n%s", s.stderr.String())
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	s.answerRoots(r2)
	if !s.stderr.waitForCount(`msg="catalog reloaded" why="the client's roots changed"`, 2, 15*time.Second) {
		t.Fatalf("the new roots were not followed:\n%s", s.stderr.String())
	}
	if d := s.toolDescription(3); strings.Contains(d, "r1-outside") || !strings.Contains(d, "- in-r2:") {
		t.Errorf("the new root is served with the previous root's file:\n%s", d)
	}
}

// A trusted workspace reached through the client's roots whose file sets
// what applies only at a start is said to need a start in that folder (a
// restart, which the warning said, changes nothing when the roots come
// after it), and once, not at every change of roots.
func TestBinaryRootsRestartOnlyToldOnce(t *testing.T) {
	t.Parallel() // it waits for the configuration files' polls, mostly
	repo := t.TempDir()
	writeFile(t, filepath.Join(repo, ".git/HEAD"), "ref: refs/heads/main\n")
	writeFile(t, filepath.Join(repo, ".skillmux.yaml"), "catalog:\n  budget: 300\n")
	s := startServe(t, trustingEnv(t, repo), t.TempDir(), "--no-builtin")
	s.handshakeWithRoots(repo)
	const said = "start it in that folder, or give its file with --config"
	if !s.stderr.waitFor(said, 15*time.Second) {
		t.Fatalf("the settings that apply at a start are not told:\n%s", s.stderr.String())
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}`)
	s.answerRoots(repo)
	if !s.stderr.waitForCount(`msg="catalog reloaded" why="the client's roots changed"`, 2, 15*time.Second) {
		t.Fatalf("the second roots were not followed:\n%s", s.stderr.String())
	}
	if n := strings.Count(s.stderr.String(), said); n != 1 {
		t.Errorf("told %d times:\n%s", n, s.stderr.String())
	}
}

// A user file left empty for a moment by its writer (truncated, then
// written) is not applied as a configuration of no sources: every source
// dropped and came back, and a source plugin was stopped and started again.
func TestBinaryConfigEmptyForAMoment(t *testing.T) {
	t.Parallel() // it waits for the configuration files' polls, mostly
	env := isolatedEnv(t)
	mine := t.TempDir()
	writeFile(t, filepath.Join(mine, "my-skill/SKILL.md"), skillMD("my-skill", "From my own folder."))
	content := "sources:\n  - type: dir\n    path: " + mine + "\n"
	writeFile(t, userFile(env), content)
	s := startServe(t, env, t.TempDir(), "--no-builtin")
	s.handshake()
	if d := s.toolDescription(2); !strings.Contains(d, "- my-skill:") {
		t.Fatalf("description: %s", d)
	}
	writeFile(t, userFile(env), "")
	if !s.stderr.waitFor(`msg="configuration file changed"`, 15*time.Second) {
		t.Fatalf("the emptied file was not seen:\n%s", s.stderr.String())
	}
	writeFile(t, userFile(env), content)
	if !s.stderr.waitFor(`msg="catalog reloaded" why="a configuration file changed"`, 15*time.Second) {
		t.Fatalf("no reload:\n%s", s.stderr.String())
	}
	changed := false
	s.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	s.next("tools/list", func(m map[string]any) bool {
		changed = changed || m["method"] == "notifications/tools/list_changed"
		return m["id"] == float64(3)
	})
	if changed {
		t.Errorf("the catalog changed for a file empty for a moment:\n%s", s.stderr.String())
	}
	if strings.Contains(s.stderr.String(), "no skills found") || strings.Count(s.stderr.String(), `msg="catalog reloaded"`) != 1 {
		t.Errorf("the empty file was applied:\n%s", s.stderr.String())
	}
}

// A session that ends while an emptied file is given its second look
// applies nothing: the empty file was applied during the shutdown, and a
// false "reload failed" logged.
func TestBinaryConfigEmptyAtTheEnd(t *testing.T) {
	t.Parallel() // it waits for the configuration files' polls, mostly
	env := isolatedEnv(t)
	mine := t.TempDir()
	writeFile(t, filepath.Join(mine, "my-skill/SKILL.md"), skillMD("my-skill", "From my own folder."))
	writeFile(t, userFile(env), "sources:\n  - type: dir\n    path: "+mine+"\n")
	s := startServe(t, env, t.TempDir(), "--no-builtin")
	s.handshake()
	writeFile(t, userFile(env), "")
	if !s.stderr.waitFor(`msg="configuration file changed"`, 15*time.Second) {
		t.Fatalf("the emptied file was not seen:\n%s", s.stderr.String())
	}
	s.stdin.Close()
	if err := s.cmd.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, s.stderr.String())
	}
	if out := s.stderr.String(); strings.Contains(out, "reload failed") || strings.Contains(out, `msg="catalog reloaded"`) {
		t.Errorf("the emptied file was applied as the session ended:\n%s", out)
	}
}

// With refresh.watch off the configuration files are still followed:
// the README says they are looked at every second, and the periodic
// rescans stay.
func TestBinaryConfigFollowedUnwatched(t *testing.T) {
	t.Parallel() // it waits for the configuration files' polls, mostly
	env := append(isolatedEnv(t), "SKILLMUX_REFRESH__WATCH=false")
	s := startServe(t, env, t.TempDir(), "--no-builtin")
	s.handshake()
	s.addMySkill(env, "", 2, "with refresh.watch off")
}

// A source plugin slow to start holds up no client's first answer: serve
// answers without its skills once pluginFirstWait has passed, and tells
// the client when they come (clients give a server a few seconds to
// start, and would otherwise lose every skill for one plugin).
func TestBinaryPluginSlowToStart(t *testing.T) {
	work := t.TempDir()
	ready := filepath.Join(t.TempDir(), "ready")
	cfg := filepath.Join(work, "plugin.yaml")
	writeFile(t, cfg, fmt.Sprintf("sources:\n  - type: plugin\n    name: tp\n    command: [%q]\n    env: {%s: \"1\", %s: %q}\n    timeout: 300s\n", os.Args[0], envTestPlugin, envTestPluginWait, ready))
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "local/SKILL.md"), skillMD("local", "A local skill."))
	s := startServe(t, append(isolatedEnv(t), "SKILLMUX_REFRESH__DEBOUNCE=50ms"), work, "--config", cfg, "--root", root)
	s.handshake() // waits 15 s at most for the answer: far less than the plugin's timeout
	if d := s.toolDescription(2); !strings.Contains(d, "- local:") || strings.Contains(d, "tp:one") {
		t.Fatalf("description before the plugin started: %s", d)
	}
	if err := os.WriteFile(ready, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s.next("tools/list_changed once the plugin started", isMethod("notifications/tools/list_changed"))
	if d := s.toolDescription(3); !strings.Contains(d, "- tp:one:") || !strings.Contains(d, "- local:") {
		t.Errorf("description after the plugin started: %s", d)
	}
}

// Without watching (refresh.watch: false) nothing would tell the catalog
// when a plugin answers late: its first listing is waited for whole, as
// by skillmux list.
func TestBinaryPluginSlowToStartUnwatched(t *testing.T) {
	work := t.TempDir()
	ready := filepath.Join(t.TempDir(), "ready")
	cfg := filepath.Join(work, "plugin.yaml")
	writeFile(t, cfg, fmt.Sprintf("sources:\n  - type: plugin\n    name: tp\n    command: [%q]\n    env: {%s: \"1\", %s: %q}\n    timeout: 300s\n", os.Args[0], envTestPlugin, envTestPluginWait, ready))
	s := startServe(t, append(isolatedEnv(t), "SKILLMUX_REFRESH__WATCH=false"), work, "--config", cfg, "--no-builtin")
	time.AfterFunc(pluginFirstWait+time.Second, func() { os.WriteFile(ready, nil, 0o644) })
	s.handshake()
	if d := s.toolDescription(2); !strings.Contains(d, "- tp:one:") {
		t.Errorf("the first description lacks the plugin's skill: %s", d)
	}
}
