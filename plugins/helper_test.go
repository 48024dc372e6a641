package plugins

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/skillmux/skillmux/internal/logtest"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// The test binary is also the plugins and the host of the tests that run
// real processes: TestMain turns into one when an environment variable
// says so (the host passes it explicitly, as it passes nothing else).
const (
	envPlugin = "SKILLMUX_TEST_PLUGIN" // a plugin mode: see testPlugin
	envHost   = "SKILLMUX_TEST_HOST"   // a host that prints its plugin's pid
	envDir    = "SKILLMUX_TEST_DIR"
	envMark   = "SKILLMUX_TEST_MARK" // a file the plugins of modes mute and once write
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(envPlugin); mode != "" {
		os.Exit(testPlugin(mode))
	}
	if mode := os.Getenv(envHost); mode != "" {
		os.Exit(testHost(mode))
	}
	os.Exit(m.Run())
}

// testPlugin runs the test binary as a plugin:
//
//	dir    serves the folder $SKILLMUX_TEST_DIR (with its watch)
//	hang   answers Describe, never List
//	hangread  serves as dir, and hangs in every read of a file after
//	       the one that digests it for the listing
//	hangread-slowlist  hangread, whose every List after the first takes
//	       600 ms
//	v2     prints the handshake of protocol version 2
//	exit   exits at once with status 3
//	listexit  answers Describe, and exits with status 2 in List
//	flood  serves one skill and sends change events without pause
//	burst  flood, for the first second of the process only
//	env    serves one skill that describes its environment and stdin
//	noisy  writes to stdout and stderr around its handshake
//	mute   prints no handshake, and waits (after writing its pid to
//	       $SKILLMUX_TEST_MARK, when set)
//	once   serves as dir the first time ($SKILLMUX_TEST_MARK does not
//	       exist yet: it makes it), and is mute after
//	partial  prints a handshake without its line end, and waits
//	slowstart  serves as dir once $SKILLMUX_TEST_MARK exists (it waits
//	       for it before its handshake)
func testPlugin(mode string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	var src sources.Source
	switch mode {
	case "dir", "noisy":
		if mode == "noisy" {
			fmt.Fprintln(os.Stderr, "noisy: before the handshake")
		}
		src = dirtree.New(os.Getenv(envDir), &dirtree.Options{Name: "inner"})
		if mode == "noisy" {
			src = &noisy{src}
		}
	case "forkchild":
		// Starts a child in its process group that ignores SIGTERM, and
		// serves: the plugin ends on SIGTERM, the child would not.
		child := exec.Command("sh", "-c", `trap "" TERM; echo $$ > "$`+envMark+`"; exec sleep 60`)
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.NewFile(2, "stderr"), err)
			return 1
		}
		src = dirtree.New(os.Getenv(envDir), &dirtree.Options{Name: "inner"})
	case "lastwords":
		// Its Serve ends in List; then it writes its last words to
		// os.Stderr, as Serve's documented main does.
		sctx, cancel := context.WithCancel(ctx)
		err := Serve(sctx, lastWords{cancel}, &ServeOptions{Version: "test"})
		fmt.Fprintln(os.Stderr, "lastwords: serving ended:", err)
		return 2
	case "exitlater":
		// Serves, then dies between calls, saying why first (on the
		// process's stderr itself, as listexit does).
		go func() {
			time.Sleep(300 * time.Millisecond)
			fmt.Fprintln(os.NewFile(2, "stderr"), "exitlater: out of cheese")
			os.Exit(2)
		}()
		src = dirtree.New(os.Getenv(envDir), &dirtree.Options{Name: "inner"})
	case "hang":
		src = hang{}
	case "listexit":
		src = listExit{}
	case "listerr":
		src = &sourcetest.Fake{SourceName: "listerr", Err: errors.New("the index is locked")}
	case "hangread":
		src = &hangRead{Source: dirtree.New(os.Getenv(envDir), &dirtree.Options{Name: "inner"}), skills: map[*sources.Skill]*sources.Skill{}}
	case "hangread-slowlist":
		src = &slowLister{Source: &hangRead{Source: dirtree.New(os.Getenv(envDir), &dirtree.Options{Name: "inner"}), skills: map[*sources.Skill]*sources.Skill{}}}
	case "thenhang":
		src = &thenHang{Source: dirtree.New(os.Getenv(envDir), &dirtree.Options{Name: "inner"})}
	case "mute":
		if mark := os.Getenv(envMark); mark != "" {
			os.WriteFile(mark, []byte(strconv.Itoa(os.Getpid())), 0o644)
		}
		time.Sleep(time.Minute)
		return 0
	case "once":
		if _, err := os.Stat(os.Getenv(envMark)); err == nil {
			time.Sleep(time.Minute)
			return 0
		}
		if err := os.WriteFile(os.Getenv(envMark), nil, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		src = dirtree.New(os.Getenv(envDir), &dirtree.Options{Name: "inner"})
	case "slowstart":
		for {
			if _, err := os.Stat(os.Getenv(envMark)); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		src = dirtree.New(os.Getenv(envDir), &dirtree.Options{Name: "inner"})
	case "v2":
		fmt.Println("1|2|unix|/nonexistent.sock|grpc")
		time.Sleep(time.Minute)
		return 0
	case "exit":
		fmt.Fprintln(os.Stderr, "exit: failing on purpose")
		return 3
	case "partial":
		fmt.Print("1|1|unix|/nonexistent.sock|grpc")
		time.Sleep(time.Minute)
		return 0
	case "hello":
		fmt.Println("Hello! Welcome to my plugin")
		time.Sleep(time.Minute)
		return 0
	case "panic":
		panic("panicking on purpose")
	case "flood":
		src = &flood{Fake: sourcetest.Fake{SourceName: "flood", Skills: []sourcetest.FakeSkill{{Name: "f", Description: "F."}}}}
	case "burst":
		src = &flood{Fake: sourcetest.Fake{SourceName: "burst", Skills: []sourcetest.FakeSkill{{Name: "f", Description: "F."}}}, until: time.Now().Add(time.Second)}
	case "env":
		n, _ := os.Stdin.Read(make([]byte, 1))
		desc := fmt.Sprintf("HOME=%q SECRET=%q GIVEN=%q STDIN=%d", os.Getenv("HOME"), os.Getenv("SKILLMUX_TEST_SECRET"), os.Getenv("GIVEN"), n)
		src = &sourcetest.Fake{SourceName: "env", Skills: []sourcetest.FakeSkill{{Name: "env", Description: strconv.Quote(desc)}}}
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", mode)
		return 2
	}
	if err := Serve(ctx, src, &ServeOptions{Version: "test", ParentCheck: 100 * time.Millisecond}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// listExit is a source whose process ends in List, as a plugin that
// crashes does. Its last words go to the process's stderr itself, as a
// plugin in another language writes them (go-plugin's Serve sends
// os.Stderr through the connection, which the exit cuts).
type listExit struct{}

func (listExit) Name() string { return "listexit" }

func (listExit) List(context.Context) (*sources.Listing, error) {
	fmt.Fprintln(os.NewFile(2, "stderr"), "listexit: dying in List")
	os.Exit(2)
	return nil, nil
}

// lastWords is a source whose List ends the plugin's Serve.
type lastWords struct{ stop context.CancelFunc }

func (lastWords) Name() string { return "lastwords" }

func (l lastWords) List(ctx context.Context) (*sources.Listing, error) {
	l.stop()
	<-ctx.Done()
	return nil, ctx.Err()
}

type noisy struct{ sources.Source }

func (n *noisy) List(ctx context.Context) (*sources.Listing, error) {
	fmt.Println("noisy: a stray line on stdout")
	fmt.Fprintln(os.Stderr, `{"level":"WARN","msg":"noisy: a JSON warning"}`)
	return n.Source.List(ctx)
}

type hang struct{}

func (hang) Name() string { return "hang" }
func (hang) List(context.Context) (*sources.Listing, error) {
	select {} // ignores its context: hung for good
}

// thenHang lists its folder once, then hangs in every List.
type thenHang struct {
	sources.Source
	calls atomic.Int32
}

func (h *thenHang) List(ctx context.Context) (*sources.Listing, error) {
	if h.calls.Add(1) > 1 {
		select {} // ignores its context: hung for good
	}
	return h.Source.List(ctx)
}

// hangRead serves its source's skills with files that can be read once,
// as the listing digests them, and hang in every read after.
type hangRead struct {
	sources.Source
	mu     sync.Mutex
	skills map[*sources.Skill]*sources.Skill // the source's, and this one's for it
}

func (h *hangRead) List(ctx context.Context) (*sources.Listing, error) {
	l, err := h.Source.List(ctx)
	if err != nil {
		return nil, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	out := *l
	out.Skills = nil
	for _, sk := range l.Skills {
		own := h.skills[sk]
		if own == nil {
			c := *sk
			c.Files = &readOnce{FS: sk.Files, opened: map[string]bool{}}
			own = &c
			h.skills[sk] = own
		}
		out.Skills = append(out.Skills, own)
	}
	return &out, nil
}

// slowLister is a source whose every List after the first takes 600 ms.
type slowLister struct {
	sources.Source
	calls atomic.Int32
}

func (s *slowLister) List(ctx context.Context) (*sources.Listing, error) {
	if s.calls.Add(1) > 1 {
		time.Sleep(600 * time.Millisecond)
	}
	return s.Source.List(ctx)
}

// readOnce opens each file once; a second open hangs for good.
type readOnce struct {
	fs.FS
	mu     sync.Mutex
	opened map[string]bool
}

func (r *readOnce) Open(name string) (fs.File, error) {
	r.mu.Lock()
	again := r.opened[name]
	r.opened[name] = true
	r.mu.Unlock()
	if again {
		select {} // ignores every context: hung for good
	}
	return r.FS.Open(name)
}

// flood sends change events without pause, until the time until when it
// is set (a burst, as of a large checkout: whichever of its watches runs
// then), for ever otherwise.
type flood struct {
	sourcetest.Fake
	until time.Time
}

func (f *flood) Watch(ctx context.Context, changed func()) error {
	for ctx.Err() == nil && (f.until.IsZero() || time.Now().Before(f.until)) {
		changed()
		time.Sleep(100 * time.Microsecond)
	}
	<-ctx.Done()
	return nil
}

// testHost runs the test binary as skillmux would: it starts a plugin
// (mode dir over $SKILLMUX_TEST_DIR), lists it, prints "pid=N" on stdout
// and waits to be killed.
func testHost(mode string) int {
	src, err := New("p", []string{os.Args[0]}, &Options{Env: map[string]string{envPlugin: mode, envDir: os.Getenv(envDir)}, NoCache: true,
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := src.List(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("pid=%d\n", src.Status().PID)
	if os.Getenv("SKILLMUX_TEST_CLOSE") != "" {
		// Closed when the test says so, once it has seen the plugin alive.
		bufio.NewReader(os.Stdin).ReadString('\n')
		src.Close()
		fmt.Println("closed")
		return 0
	}
	select {}
}

// pluginCommand is the command of a test plugin.
func pluginCommand() []string { return []string{os.Args[0]} }

// logBuffer collects log lines for checks.
type logBuffer struct{ logtest.Buffer }

func (b *logBuffer) logger() *slog.Logger { return b.Logger(slog.LevelDebug) }

// newTestSource starts a plugin of the test binary in mode, closed at the
// end of the test.
func newTestSource(t *testing.T, name, mode string, o *Options) (*Source, *logBuffer) {
	t.Helper()
	logs := &logBuffer{}
	if o == nil {
		o = &Options{}
	}
	if o.Env == nil {
		o.Env = map[string]string{}
	}
	o.Env[envPlugin] = mode
	if o.Logger == nil {
		o.Logger = logs.logger()
	}
	if o.CacheDir == "" {
		o.NoCache = true
	}
	src, err := New(name, pluginCommand(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		src.Close()
		if t.Failed() {
			t.Logf("logs of %s:\n%s", name, logs)
		}
	})
	return src, logs
}

// skillDir writes a skill folder under root.
func skillDir(t *testing.T, root, name, desc string) {
	t.Helper()
	sourcetest.WriteFile(t, filepath.Join(root, name, "SKILL.md"), "---\nname: "+name+"\ndescription: "+desc+"\n---\nBody of "+name+".\n")
}

// alive reports whether the process pid exists and is not a zombie.
func alive(pid int) bool {
	if data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
		// "pid (comm) S ...": the state follows the last ')'.
		s := string(data)
		i := strings.LastIndexByte(s, ')')
		return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
	} else if _, err := os.Stat("/proc/self"); err == nil {
		return false // /proc is there, the process is not
	}
	return signalZero(pid)
}

// kill ends the process pid at once, as a crash would.
func kill(pid int) error {
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	return p.Kill()
}

// eventually polls cond until it holds or d has passed.
func eventually(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %v: %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

var _ io.Writer = (*logBuffer)(nil)
