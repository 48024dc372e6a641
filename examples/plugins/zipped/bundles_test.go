package main

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"hash/crc32"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/skillmux/skillmux/plugins"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// entry is one entry of a test bundle.
type entry struct {
	name    string
	content string
	mode    fs.FileMode // 0: a regular file
	// claim, when set, is the inflated size the header claims.
	claim uint64
}

func writeZip(t *testing.T, path string, entries ...entry) {
	t.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		if e.claim > 0 {
			var raw bytes.Buffer
			fw, _ := flate.NewWriter(&raw, flate.BestCompression)
			fw.Write([]byte(e.content))
			fw.Close()
			h := &zip.FileHeader{Name: e.name, Method: zip.Deflate, CRC32: crc32.ChecksumIEEE([]byte(e.content)),
				CompressedSize64: uint64(raw.Len()), UncompressedSize64: e.claim}
			rw, err := w.CreateRaw(h)
			if err != nil {
				t.Fatal(err)
			}
			rw.Write(raw.Bytes())
			continue
		}
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		if e.mode != 0 {
			h.SetMode(e.mode)
		}
		fw, err := w.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		fw.Write([]byte(e.content))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skillMD(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n# " + name + "\nRead references/guide.md.\n"
}

// goodBundles writes two well-formed bundles.
func goodBundles(t *testing.T, dir string) {
	writeZip(t, filepath.Join(dir, "pdf.skill"),
		entry{name: "pdf/SKILL.md", content: skillMD("pdf", "Fill PDF forms.")},
		entry{name: "pdf/references/guide.md", content: "# Guide\n"},
		entry{name: "pdf/scripts/fill.py", content: "print('fill')\n"})
	writeZip(t, filepath.Join(dir, "csv-summary.zip"),
		entry{name: "SKILL.md", content: skillMD("csv-summary", "Summarize CSV files.")})
}

func TestBundlesConform(t *testing.T) {
	dir := t.TempDir()
	goodBundles(t, dir)
	src := NewBundles(dir, nil)
	sourcetest.Run(t, src)
	l, _ := src.List(t.Context())
	var names []string
	for _, sk := range l.Skills {
		names = append(names, sk.Ref.Name)
	}
	if want := []string{"csv-summary", "pdf"}; !slices.Equal(names, want) {
		t.Fatalf("skills %v, want %v; problems %v", names, want, l.Problems)
	}
	pdf := l.Skills[1]
	if want := []string{"references/guide.md", "scripts/fill.py"}; !slices.Equal(pdf.FileList, want) {
		t.Errorf("FileList %v", pdf.FileList)
	}
	if data, err := fs.ReadFile(pdf.Files, "scripts/fill.py"); err != nil || string(data) != "print('fill')\n" {
		t.Errorf("read: %q, %v", data, err)
	}
	if len(pdf.Diagnostics) != 0 || len(l.Problems) != 0 {
		t.Errorf("diagnostics on good bundles: %v %v", pdf.Diagnostics, l.Problems)
	}
	again, _ := src.List(t.Context())
	if again.Skills[1] != pdf {
		t.Error("an unchanged bundle gave a new *Skill")
	}
}

func TestHostileBundles(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(filepath.Dir(dir), "evil.txt")
	writeZip(t, filepath.Join(dir, "evil.zip"),
		entry{name: "evil/SKILL.md", content: skillMD("evil", "Looks fine.")},
		entry{name: "../../evil.txt", content: "slip"},
		entry{name: "evil/../../evil.txt", content: "slip"},
		entry{name: "/etc/evil.txt", content: "abs"},
		entry{name: `evil\..\..\evil.txt`, content: "backslash"},
		entry{name: "evil/link", content: "/etc/passwd", mode: fs.ModeSymlink | 0o777},
		entry{name: "evil/bomb.bin", content: strings.Repeat("\x00", 2<<20)},
		entry{name: "evil/liar.md", content: strings.Repeat("x", 100_000), claim: 10},
	)
	writeZip(t, filepath.Join(dir, "liar.zip"), entry{name: "SKILL.md", content: skillMD("liar", "L.") + strings.Repeat("x", 4096), claim: 16})
	os.WriteFile(filepath.Join(dir, "garbage.skill"), []byte("not a zip"), 0o644)
	writeZip(t, filepath.Join(dir, "empty.zip"), entry{name: "README.md", content: "no skill here"})
	os.Symlink("/etc/passwd", filepath.Join(dir, "outside.zip"))

	l, err := NewBundles(dir, nil).List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Skills) != 1 || l.Skills[0].Ref.Name != "evil" {
		t.Fatalf("skills %v", l.Skills)
	}
	rules := map[string]int{}
	for _, d := range l.Problems {
		rules[d.Rule]++
	}
	for rule, n := range map[string]int{"bundle-zip-slip": 4, "bundle-symlink": 1, "bundle-zip-bomb": 1, "bundle-unreadable": 1, "bundle-not-file": 1, "bundle-no-skill": 1, "bundle-entry": 1} {
		if rules[rule] != n {
			t.Errorf("rule %s: %d problems, want %d (all: %v)", rule, rules[rule], n, l.Problems)
		}
	}
	evil := l.Skills[0]
	if want := []string{"liar.md"}; !slices.Equal(evil.FileList, want) {
		t.Errorf("evil serves %v, want %v", evil.FileList, want)
	}
	// archive/zip itself refuses to inflate past the declared size, and
	// readEntry bounds the read besides.
	if _, err := fs.ReadFile(evil.Files, "liar.md"); err == nil {
		t.Errorf("an entry larger than declared was read: %v", err)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Error("a file was written outside the folder")
	}
}

func TestBundlesWatch(t *testing.T) {
	dir := t.TempDir()
	src := NewBundles(dir, &Options{Poll: 20 * time.Millisecond})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var n atomic.Int32
	done := make(chan error, 1)
	go func() { done <- src.Watch(ctx, func() { n.Add(1) }) }()
	time.Sleep(50 * time.Millisecond)
	goodBundles(t, dir)
	deadline := time.Now().Add(5 * time.Second)
	for n.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n.Load() == 0 {
		t.Fatal("no change seen")
	}
	cancel()
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// TestThroughSkillmux builds the plugin and runs it as skillmux does.
func TestThroughSkillmux(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	bin := filepath.Join(t.TempDir(), "zipped")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := t.TempDir()
	goodBundles(t, dir)
	cache := t.TempDir()
	src, err := plugins.New("bundles", []string{bin, dir}, &plugins.Options{CacheDir: cache})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	sourcetest.Run(t, src)
	l, err := src.List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got := l.Skills[1].Ref.String(); got != "bundles:pdf" {
		t.Errorf("name %q, want bundles:pdf", got)
	}
	body, err := sources.ReadEntry(l.Skills[1], 1<<20)
	if err != nil || !strings.Contains(string(body), "Read references/guide.md.") {
		t.Fatalf("ReadEntry: %q, %v", body, err)
	}
	if got, err := os.ReadFile(filepath.Join(l.Skills[1].Dir, "references", "guide.md")); err != nil || string(got) != "# Guide\n" {
		t.Errorf("the base directory does not hold the skill's files: %q, %v", got, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var n atomic.Int32
	go src.Watch(ctx, func() { n.Add(1) })
	time.Sleep(200 * time.Millisecond)
	writeZip(t, filepath.Join(dir, "more.zip"), entry{name: "SKILL.md", content: skillMD("more", "More.")})
	deadline := time.Now().Add(10 * time.Second)
	for n.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if l, _ := src.List(t.Context()); n.Load() == 0 || len(l.Skills) != 3 {
		t.Errorf("after a new bundle: %d events, %d skills", n.Load(), len(l.Skills))
	}
	filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o755) // the copies are read-only; let the test clean up
		}
		return nil
	})
}
