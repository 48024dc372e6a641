// Package pyplugin tests the Python example plugin through skillmux's
// plugin host: the protocol is usable without Go.
package pyplugin

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/skillmux/skillmux/plugins"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// python returns a Python 3 that has grpc and protobuf, or skips the test
// (fails it when SKILLMUX_REQUIRE_PYTHON_PLUGIN is set, as CI sets it).
func python(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		path, err := exec.LookPath(p)
		if err != nil {
			continue
		}
		if exec.Command(path, "-c", "import grpc, google.protobuf").Run() == nil {
			return path
		}
	}
	if os.Getenv("SKILLMUX_REQUIRE_PYTHON_PLUGIN") != "" {
		t.Fatal("no python3 with grpc and protobuf (Debian: apt-get install python3-grpcio python3-protobuf)")
	}
	t.Skip("no python3 with grpc and protobuf")
	return ""
}

func TestPythonPlugin(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	sourcetest.WriteFile(t, filepath.Join(dir, "greet", "SKILL.md"), "---\nname: greet\ndescription: Greet people.\n---\nSay hello.\n")
	sourcetest.WriteFile(t, filepath.Join(dir, "greet", "references", "tone.md"), "Be warm.\n")
	sourcetest.WriteFile(t, filepath.Join(dir, "Odd Name", "SKILL.md"), "---\ndescription: No name.\n---\n")
	script, _ := filepath.Abs("plugin.py")
	src, err := plugins.New("py", []string{py, script, dir}, &plugins.Options{NoCache: true})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	sourcetest.Run(t, src)
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Skills) != 2 || l.Skills[1].Ref.String() != "py:greet" {
		t.Fatalf("skills %v", l.Skills)
	}
	odd := l.Skills[0]
	if odd.Ref.Name != "Odd Name" || len(odd.Diagnostics) == 0 {
		t.Errorf("a skill without a name: %q, diagnostics %v", odd.Ref.Name, odd.Diagnostics)
	}
	body, err := sources.ReadEntry(l.Skills[1], 1<<20)
	if err != nil || !strings.Contains(string(body), "Say hello.") {
		t.Errorf("ReadEntry: %q, %v", body, err)
	}
	if got := l.Skills[1].FileList; len(got) != 1 || got[0] != "references/tone.md" {
		t.Errorf("FileList %v", got)
	}
	pid := src.Status().PID
	src.Close()
	if err := exec.Command("kill", "-0", strconv.Itoa(pid)).Run(); err == nil {
		t.Errorf("the Python plugin (pid %d) outlived Close", pid)
	}
}
