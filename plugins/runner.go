package plugins

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/go-plugin/runner"
)

// procRunner runs a plugin's process for go-plugin (its RunnerFunc), as
// skillmux wants it run: stdin is /dev/null (go-plugin would give it
// skillmux's stdin, the MCP input), the environment is the configured one
// plus go-plugin's handshake variables (never skillmux's own), stdout
// reaches go-plugin's handshake reader and, past the handshake line,
// skillmux's log (never skillmux's stdout), stderr is logged line by line,
// and the process is in a group of its own that dies with skillmux
// (sysProcAttr: Pdeathsig on Linux) and is killed whole.
type procRunner struct {
	cmd    *exec.Cmd
	stdout *handshakeReader
	stderr *lineLog
	extra  *lineLog // stdout past the handshake line

	pid    int
	exited chan struct{} // closed when the process has exited and its output is read
	err    error         // the exit's error; read after exited is closed

	// mu orders Start and Kill, which Close calls from another goroutine
	// while the plugin starts: it guards pid while Start sets it, and
	// killed, which keeps a process from starting after Kill.
	mu     sync.Mutex
	killed bool
}

var _ runner.Runner = (*procRunner)(nil)

// newRunner builds the runner for command; env is the plugin's whole
// environment besides what go-plugin adds (in base).
func newRunner(command []string, env map[string]string, base *exec.Cmd, stdout, stderr *lineLog) *procRunner {
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env = envList(env, base.Env)
	cmd.Stdin = nil // /dev/null
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = 2 * time.Second // a grandchild holding the pipes cannot hold up Wait
	cmd.Cancel = nil
	r := &procRunner{cmd: cmd, stderr: stderr, extra: stdout, exited: make(chan struct{})}
	r.stdout = newHandshakeReader(stdout)
	cmd.Stdout = r.stdout
	cmd.Stderr = stderr
	return r
}

// envList is env (sorted, for a stable environment) followed by
// go-plugin's variables.
func envList(env map[string]string, plugin []string) []string {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]string, 0, len(env)+len(plugin))
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return append(out, plugin...)
}

func (r *procRunner) Start(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	err := errors.New("the plugin was stopped before it started")
	if !r.killed {
		err = r.cmd.Start()
	}
	if err != nil {
		r.stdout.pw.Close()
		close(r.exited)
		r.err = err
		return err
	}
	r.pid = r.cmd.Process.Pid
	// The runner owns this goroutine: it ends when the process exits,
	// which Kill forces.
	go func() {
		endGroupAtExit(r.cmd.Process)
		err := r.cmd.Wait()
		r.stderr.Flush()
		r.extra.Flush()
		r.err = err
		r.stdout.close() // go-plugin's handshake reader sees EOF
		close(r.exited)
	}()
	return nil
}

func (r *procRunner) Wait(ctx context.Context) error {
	select {
	case <-r.exited:
		return r.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Kill kills the plugin's process group; before Start, it keeps the
// process from starting. Once the plugin has exited, its group is no
// longer its to kill (its id may be another's): what was left in it was
// killed at the exit (endGroupAtExit).
func (r *procRunner) Kill(context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.killed = true
	if r.pid == 0 {
		return nil
	}
	select {
	case <-r.exited:
		return nil
	default:
	}
	return killGroup(r.cmd.Process)
}

// terminate asks the plugin to stop (SIGTERM on Unix), without waiting.
func (r *procRunner) terminate() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.pid == 0 || isClosed(r.exited) {
		return
	}
	termGroup(r.cmd.Process)
}

func (r *procRunner) Stdout() io.ReadCloser { return r.stdout }

// Stderr gives go-plugin nothing: the runner logs stderr itself.
func (r *procRunner) Stderr() io.ReadCloser { return io.NopCloser(strings.NewReader("")) }

func (r *procRunner) Name() string { return r.cmd.Path }

func (r *procRunner) ID() string {
	if r.pid == 0 {
		return ""
	}
	return strconv.Itoa(r.pid)
}

func (r *procRunner) Diagnose(context.Context) string {
	line := r.stdout.line()
	if line == "" {
		return "The plugin printed no handshake line on stdout; a source plugin prints 1|1|tcp|127.0.0.1:PORT|grpc (or unix) first."
	}
	return fmt.Sprintf("The plugin printed %q; a source plugin prints 1|1|tcp|127.0.0.1:PORT|grpc (or unix) first.", clean(line, false))
}

func (r *procRunner) PluginToHost(network, addr string) (string, string, error) {
	return network, addr, nil
}

func (r *procRunner) HostToPlugin(network, addr string) (string, string, error) {
	return network, addr, nil
}

// handshakeReader is the process's stdout as go-plugin reads it: the
// first line only (the handshake), then end of file. What the plugin
// writes after that line goes to the log.
type handshakeReader struct {
	pr   *io.PipeReader
	pw   *io.PipeWriter
	rest io.Writer

	// mu guards the fields below.
	mu    sync.Mutex
	buf   []byte
	first string // the handshake line, once read
	done  bool   // the handshake line has been passed on
}

func newHandshakeReader(rest io.Writer) *handshakeReader {
	pr, pw := io.Pipe()
	return &handshakeReader{pr: pr, pw: pw, rest: rest}
}

func (h *handshakeReader) Read(p []byte) (int, error) { return h.pr.Read(p) }
func (h *handshakeReader) Close() error               { return h.pr.Close() }

// Write is the process's stdout.
func (h *handshakeReader) Write(p []byte) (int, error) {
	h.mu.Lock()
	if h.done {
		h.mu.Unlock()
		return h.rest.Write(p)
	}
	h.buf = append(h.buf, p...)
	i := bytes.IndexByte(h.buf, '\n')
	if i < 0 && len(h.buf) < maxLine {
		h.mu.Unlock()
		return len(p), nil
	}
	if i < 0 {
		i = len(h.buf) - 1
	}
	line, rest := h.buf[:i+1], h.buf[i+1:]
	h.first = strings.TrimSpace(string(line))
	h.done = true
	h.mu.Unlock()
	// go-plugin reads until the end: pass the line, then end the stream.
	h.pw.Write(line) // fails only when go-plugin has stopped reading
	h.pw.Close()
	if len(rest) > 0 {
		h.rest.Write(rest)
	}
	return len(p), nil
}

// close ends go-plugin's stream, when the process exits without a
// handshake.
func (h *handshakeReader) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.done {
		h.first = strings.TrimSpace(string(h.buf))
		h.done = true
		if len(h.buf) > 0 {
			h.pw.Write(h.buf) // go-plugin is reading: the process started
		}
	}
	h.pw.Close()
}

// line is the handshake line the plugin printed, or what it printed
// before exiting without one.
func (h *handshakeReader) line() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.first
}

// lookPath finds the plugin's program as the command line would, in
// skillmux's PATH, and says what would be right when it cannot be run: a
// file that is not executable, or a script whose #! line names an
// interpreter that is not there (which exec reports as the script itself
// not existing).
func lookPath(name string) error {
	path, err := exec.LookPath(name)
	switch {
	case errors.Is(err, exec.ErrDot):
		return nil
	case err != nil && errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("%w: make it executable (chmod +x %s)", err, name)
	case err != nil && !strings.ContainsRune(name, os.PathSeparator):
		return fmt.Errorf("%q is not found in PATH; give its absolute path in command", name)
	case err != nil && errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s does not exist; give the path of the plugin's program in command (a relative one is taken from the configuration file's folder)", name)
	case err != nil && errors.Is(err, syscall.ENOTDIR):
		return fmt.Errorf("%s: a folder on its path is a file; give the path of the plugin's program in command", name)
	case err != nil:
		return err
	}
	if interp := interpreter(path); interp != "" {
		if bare, crlf := strings.CutSuffix(interp, "\r"); crlf {
			return fmt.Errorf("%s has Windows line ends (CRLF): the system looks for the interpreter %q, carriage return included, and finds none; convert the script to Unix line ends (dos2unix %s)", name, bare+"\r", name)
		}
		if _, err := os.Stat(interp); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s starts with #!%s, and there is no %s: install it, or change the script's first line", name, interp, interp)
		}
	}
	return nil
}

// interpreter returns the program a script's #! line names, or "".
func interpreter(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	head := make([]byte, 256)
	n, _ := io.ReadFull(f, head)
	line, ok := bytes.CutPrefix(head[:n], []byte("#!"))
	if !ok {
		return ""
	}
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	// Split as the system splits it: at spaces and tabs only, so that a
	// carriage return stays part of the name.
	fields := strings.FieldsFunc(string(line), func(r rune) bool { return r == ' ' || r == '\t' })
	if len(fields) == 0 || !filepath.IsAbs(fields[0]) {
		return ""
	}
	return fields[0]
}
