//go:build e2ebench

package e2ebench

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	corpusdir "github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/internal/skillgen"
)

// Corpus names, the first column of the report.
const (
	synthetic  = "synthetic"
	realShaped = "real-shaped"
	home       = "realistic home"
)

// rootSize bounds the skills under one --root. A scan visits at most
// dirtree.DefaultMaxDirs (100,000) folders, and a real-shaped skill has
// two to three (its own, references/, scripts/) besides the group and
// plugin folders: larger catalogs are written in parts, one --root each.
// (One --root over 100,000 skills serves about half of them, with a
// max-dirs warning.)
const rootSize = 20_000

// catalog is one set of skills to serve and how to serve it.
type catalog struct {
	corpus   string
	skills   int // how many were written; 0 when not known in advance
	label    string
	home     string   // HOME of the server; its working folder too
	cache    string   // XDG_CACHE_HOME of the server, emptied before each cold run
	args     []string // after the binary
	names    []string // skills to call, spread over the catalog
	roots    int      // --root folders
	watchDir string   // an existing folder under the served root, where new skills are written
	written  time.Duration
	disk     int64 // bytes the skills take on disk
}

// catalogs writes every catalog the settings ask for: each size in both
// corpora (the real-shaped one only when the shared corpus is there), and
// the realistic home.
func catalogs(t *testing.T, set settings) []*catalog {
	corpus, _ := corpusdir.Lookup(t) // without it, no real-shaped catalogs nor realistic home
	var cats []*catalog
	for _, n := range set.sizes {
		cats = append(cats, generated(t, synthetic, n, func(dir string, first, n int) ([]string, error) {
			if err := skillgen.Generate(dir, n, &skillgen.Options{First: first}); err != nil {
				return nil, err
			}
			return generatedNames("skill", first, n), nil
		}))
		if corpus == "" {
			continue
		}
		cats = append(cats, generated(t, realShaped, n, func(dir string, first, n int) ([]string, error) {
			reps, err := skillgen.Replicate(dir, corpus, n, &skillgen.ReplicateOptions{First: first})
			names := make([]string, len(reps))
			for i, r := range reps {
				names[i] = r.Name
			}
			return names, err
		}))
	}
	if corpus != "" {
		cats = append(cats, realisticHome(t, corpus))
	}
	return cats
}

// generated writes n skills of a corpus with write, in parts of at most
// rootSize skills, each served with its own --root, and an empty home.
func generated(t *testing.T, corpus string, n int, write func(dir string, first, n int) ([]string, error)) *catalog {
	t.Helper()
	dir := t.TempDir()
	c := &catalog{corpus: corpus, skills: n, home: t.TempDir(), cache: t.TempDir(), args: []string{"serve"}}
	begin := time.Now()
	var names []string
	for first := 0; first < n; first += rootSize {
		root := dir
		if n > rootSize {
			root = filepath.Join(dir, fmt.Sprintf("part-%d", first/rootSize))
		}
		part, err := write(root, first, min(rootSize, n-first))
		if err != nil {
			t.Fatal(err)
		}
		if first == 0 {
			c.watchDir = filepath.Dir(filepath.Join(root, firstSkillDir(t, root)))
		}
		names = append(names, part...)
		c.args = append(c.args, "--root", root)
		c.roots++
	}
	c.written = time.Since(begin)
	c.disk = diskUsage(t, dir)
	c.names = spread(names)
	// An empty home: the built-in sources find nothing and cost only their
	// look-ups, as on a machine with no other skills.
	c.label = fmt.Sprintf("%s, %s skills", corpus, thousands(n))
	if c.roots > 1 {
		c.label += fmt.Sprintf(" (%d roots)", c.roots)
	}
	t.Logf("wrote %s in %v: %.0f MB on disk", c.label, c.written.Round(time.Millisecond), float64(c.disk)/1e6)
	return c
}

// firstSkillDir returns the folder, relative to root, of the first
// SKILL.md found under it, in lexical order.
func firstSkillDir(t *testing.T, root string) string {
	var found string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || found != "" {
			return filepath.SkipAll
		}
		if d.Name() == "SKILL.md" {
			found, _ = filepath.Rel(root, filepath.Dir(p))
			return filepath.SkipAll
		}
		return nil
	})
	if found == "" {
		t.Fatal("no SKILL.md under", root)
	}
	return found
}

// spread orders names so that a few calls visit the whole catalog: a
// stride prime to its size.
func spread(names []string) []string {
	out := make([]string, len(names))
	for i := range names {
		out[i] = names[(i*7919)%len(names)]
	}
	return out
}

// generatedNames returns the names skillgen.Generate gives n skills from
// first.
func generatedNames(prefix string, first, n int) []string {
	names := make([]string, n)
	for i := range n {
		names[i] = fmt.Sprintf("%s-%05d", prefix, first+i)
	}
	return names
}

// diskUsage returns the bytes the files under dir take, each hard-linked
// file counted once.
func diskUsage(t *testing.T, dir string) int64 {
	seen := map[uint64]bool{}
	var total int64
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		st, ok := info.Sys().(*syscall.Stat_t)
		if !ok {
			total += info.Size()
			return nil
		}
		if !seen[st.Ino] {
			seen[st.Ino] = true
			total += st.Blocks * 512
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return total
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// build compiles the binary from the module root.
func build(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	bin := filepath.Join(t.TempDir(), "skillmux")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/skillmux")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

// realisticHome is a home folder with 1,000 skills of the person's own in
// ~/.claude/skills and every plugin of the shared corpus's marketplaces
// that the corpus holds installed and enabled in Claude Code, served with
// a plain `serve`.
func realisticHome(t *testing.T, corpus string) *catalog {
	markets, _ := filepath.Glob(filepath.Join(corpus, "*", ".claude-plugin", "marketplace.json"))
	dir := t.TempDir()
	if err := skillgen.Generate(filepath.Join(dir, ".claude", "skills"), 1_000, &skillgen.Options{Prefix: "mine"}); err != nil {
		t.Fatal(err)
	}
	records, enabled := map[string]any{}, map[string]bool{}
	for _, m := range markets {
		var market struct {
			Name    string
			Plugins []struct {
				Name   string
				Source any // a path inside the marketplace, or where to fetch from
			}
		}
		data, err := os.ReadFile(m)
		if err == nil {
			err = json.Unmarshal(data, &market)
		}
		if err != nil {
			t.Fatalf("read %s: %v", m, err)
		}
		marketDir := filepath.Dir(filepath.Dir(m))
		for _, p := range market.Plugins {
			src, ok := p.Source.(string)
			if !ok {
				continue // fetched from elsewhere: not in the corpus
			}
			dir := filepath.Join(marketDir, src)
			if _, err := os.Stat(dir); err != nil {
				continue
			}
			key := p.Name + "@" + market.Name
			records[key] = []any{map[string]any{"scope": "user", "installPath": dir, "version": "1"}}
			enabled[key] = true
		}
	}
	writeJSON(t, filepath.Join(dir, ".claude", "plugins", "installed_plugins.json"), map[string]any{"version": 2, "plugins": records})
	writeJSON(t, filepath.Join(dir, ".claude", "settings.json"), map[string]any{"enabledPlugins": enabled})
	return &catalog{
		corpus: home,
		label:  fmt.Sprintf("realistic home: 1,000 own skills + %d corpus plugins installed, `serve`", len(records)),
		home:   dir,
		cache:  t.TempDir(),
		args:   []string{"serve"},
		names:  spread(generatedNames("mine", 0, 1_000)),
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(path), 0o755)
	}
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}
