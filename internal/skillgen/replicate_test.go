package skillgen_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// shapes is a small source tree with front matter written the ways people
// write it.
var shapes = map[string]string{
	"team/skills/plain/SKILL.md":            "---\nname: plain\ndescription: Turns notes into a report. # a comment\nversion: 1.0.0\n---\n\n# Plain\n\nBody.\n",
	"team/skills/plain/references/guide.md": "# Guide\n\nMore.\n",
	"team/skills/plain/scripts/run.sh":      "#!/bin/sh\necho placeholder\n",
	"team/skills/plain/assets/logo.bin":     "\x00\x01\x02\xff binary",
	// A skill inside another skill's folder is a skill of its own.
	"team/skills/plain/sub/inner/SKILL.md": "---\nname: inner\ndescription: Nested inside another skill's folder.\n---\nInner.\n",
	"team/skills/quoted/SKILL.md":          "---\nname: 'quoted'\ndescription: \"Handles \\\"quoted\\\" text,\n  over two lines.\"\nallowed-tools: [Read, Grep]\nmetadata:\n  short-description: Quoted things\n  priority: 3\n  beta: true\n---\nBody of quoted.\n",
	"team/skills/block/SKILL.md":           "\xef\xbb\xbf---\r\nname: block\r\ndescription: |-\r\n  First line of a block.\r\n  Second line: with a colon.\r\nlicense: MIT\r\n---\r\nBody with CRLF.\r\n",
	"other/folded/SKILL.md":                "---\nname: Folded_Skill\ndescription: >\n  Folded text that\n  wraps.\n# a comment after the value\nuser-invocable: true\n---\nFolded body.\n",
	"other/multi/SKILL.md":                 "---\ndescription: A plain value\n  that runs over\n  three lines.\n\ntools: Read, Glob\n---\nNo name: the folder names it.\n",
	"top/SKILL.md":                         "---\nname: top\ndescription: At the top of the source.\n---\n",
}

func writeShapes(t *testing.T) string {
	src := t.TempDir()
	for p, content := range shapes {
		sourcetest.WriteFile(t, filepath.Join(src, filepath.FromSlash(p)), content)
	}
	if err := os.Chmod(filepath.Join(src, "team/skills/plain/scripts/run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(src, "team/skills/plain/empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("references/guide.md", filepath.Join(src, "team/skills/plain/guide.md")); err != nil {
		t.Fatal(err)
	}
	return src
}

func TestReplicateShapes(t *testing.T) {
	src := writeShapes(t)
	const kinds = 7 // SKILL.md files in shapes
	n := 2*kinds + 3
	dst := t.TempDir()
	reps, err := skillgen.Replicate(dst, src, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(reps) != n {
		t.Fatalf("%d replicas, want %d", len(reps), n)
	}
	checkReplicas(t, dst, src, reps)

	// The sources are used in turn, in lexical order, and the name
	// follows the source's name (made a usable name), else its folder.
	for i, want := range map[int]string{
		0: "folded-skill-00000", 1: "multi-00001", 2: "block-00002", 3: "plain-00003",
		4: "inner-00004", 5: "quoted-00005", 6: "top-00006", 7: "folded-skill-00007",
	} {
		if reps[i].Name != want {
			t.Errorf("replica %d is %s, want %s", i, reps[i].Name, want)
		}
	}
	// A round of copies repeats the source's layout below a renamed first
	// folder.
	if got, want := reps[9].Dir, "team-0001/skills/block-00009"; got != want {
		t.Errorf("replica 9 in %s, want %s", got, want)
	}
	if got, want := reps[13].Dir, "top-00013"; got != want {
		t.Errorf("replica 13 in %s, want %s", got, want)
	}
	// The bytes around the two values are kept: a byte-order mark, CRLF,
	// block scalars, comments, flow lists.
	for i, want := range map[int][]string{
		2: {"\xef\xbb\xbf---\r\nname: block-00002\r\ndescription: |-\r\n  First line of a block.\r\n  Second line: with a colon. Also for ", "\r\nlicense: MIT\r\n---\r\nBody with CRLF.\r\n"},
		3: {"---\nname: plain-00003\ndescription: Turns notes into a report. Also for ", ", copy 3. # a comment\nversion: 1.0.0\n"},
		5: {"---\nname: 'quoted-00005'\ndescription: \"Handles \\\"quoted\\\" text,\n  over two lines. Also for ", ", copy 5.\"\nallowed-tools: [Read, Grep]\n"},
		0: {"name: folded-skill-00000\ndescription: >\n  Folded text that\n  wraps. Also for ", ", copy 0.\n# a comment after the value\n"},
	} {
		b, err := os.ReadFile(filepath.Join(dst, reps[i].Dir, "SKILL.md"))
		if err != nil {
			t.Fatal(err)
		}
		for _, part := range want {
			if !strings.Contains(string(b), part) {
				t.Errorf("%s lacks %q:\n%s", reps[i].Dir, part, b)
			}
		}
	}
	// Files other than SKILL.md are hard links by default, and copies
	// with Copy.
	if links := nlink(t, filepath.Join(dst, reps[3].Dir, "references", "guide.md")); links < 2 {
		t.Errorf("references/guide.md has %d links, want a hard link by default", links)
	}
	copied := t.TempDir()
	if _, err := skillgen.Replicate(copied, src, n, &skillgen.ReplicateOptions{Copy: true}); err != nil {
		t.Fatal(err)
	}
	if links := nlink(t, filepath.Join(copied, reps[3].Dir, "references", "guide.md")); links != 1 {
		t.Errorf("with Copy, references/guide.md has %d links, want 1", links)
	}
	// Deterministic: the same call writes the same tree; Copy changes how
	// files are stored, not what they hold.
	if diff := cmp.Diff(tree(t, dst), tree(t, copied)); diff != "" {
		t.Errorf("same seed, other tree (-links +copies):\n%s", diff)
	}
	again := t.TempDir()
	if _, err := skillgen.Replicate(again, src, n, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tree(t, dst), tree(t, again)); diff != "" {
		t.Errorf("same call, other tree (-first +second):\n%s", diff)
	}
	// Another seed varies the descriptions with other words.
	seeded := t.TempDir()
	if _, err := skillgen.Replicate(seeded, src, n, &skillgen.ReplicateOptions{Seed: 2}); err != nil {
		t.Fatal(err)
	}
	if cmp.Equal(tree(t, dst), tree(t, seeded)) {
		t.Error("seeds 1 and 2 wrote the same tree")
	}
	// First continues the numbering, so parts written into several
	// folders never share a name.
	part := t.TempDir()
	more, err := skillgen.Replicate(part, src, 5, &skillgen.ReplicateOptions{First: n})
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("-%05d", n); !strings.HasSuffix(more[0].Name, want) || more[0].Source != reps[n%kinds].Source {
		t.Errorf("First %d: first replica %+v, want the number %s and source %s", n, more[0], want, reps[n%kinds].Source)
	}
	checkReplicas(t, part, src, more)
}

func TestReplicateCorpus(t *testing.T) {
	src := corpus.Dir(t)
	dst := t.TempDir()
	n := 3*69 + 11 // past three rounds of the 69 skills
	reps, err := skillgen.Replicate(dst, src, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkReplicas(t, dst, src, reps)
	again := t.TempDir()
	if _, err := skillgen.Replicate(again, src, n, nil); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(tree(t, dst), tree(t, again)); diff != "" {
		t.Errorf("same call, other tree (-first +second):\n%s", diff)
	}
}

func TestReplicateRefuses(t *testing.T) {
	empty := t.TempDir()
	if _, err := skillgen.Replicate(t.TempDir(), empty, 3, nil); err == nil {
		t.Error("a source with no skill: no error")
	}
	bad := t.TempDir()
	sourcetest.WriteFile(t, filepath.Join(bad, "x", "SKILL.md"), "no front matter\n")
	if _, err := skillgen.Replicate(t.TempDir(), bad, 3, nil); err == nil {
		t.Error("a SKILL.md without front matter: no error")
	}
}

// checkReplicas checks what Replicate wrote against its sources, reading
// both independently of it.
func checkReplicas(t *testing.T, dst, src string, reps []skillgen.Replica) {
	t.Helper()
	names := map[string]bool{}
	descs := map[string]bool{}
	for _, r := range reps {
		if names[r.Name] {
			t.Errorf("name %s written twice", r.Name)
		}
		names[r.Name] = true
		if path.Base(r.Dir) != r.Name {
			t.Errorf("%s is in folder %s", r.Name, r.Dir)
		}
		if got, want := strings.Count(r.Dir, "/"), strings.Count(r.Source, "/"); r.Source != "." && got != want {
			t.Errorf("%s is %d folders deep, its source %s is %d", r.Dir, got, r.Source, want)
		}
		copyDir := filepath.Join(dst, filepath.FromSlash(r.Dir))
		origDir := filepath.Join(src, filepath.FromSlash(r.Source))
		copyKeys, copyVals, copyBody := front(t, filepath.Join(copyDir, "SKILL.md"))
		origKeys, origVals, origBody := front(t, filepath.Join(origDir, "SKILL.md"))
		if diff := cmp.Diff(origKeys, copyKeys); diff != "" {
			t.Errorf("%s: top-level keys differ from %s (-source +copy):\n%s", r.Dir, r.Source, diff)
			continue
		}
		for k, want := range origVals {
			got := copyVals[k]
			switch k {
			case "name":
				if got != r.Name {
					t.Errorf("%s: name %v", r.Dir, got)
				}
			case "description":
				d, _ := got.(string)
				if d == want || descs[d] {
					t.Errorf("%s: description not varied: %q", r.Dir, d)
				}
				descs[d] = true
			default:
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s: %s differs from the source (-source +copy):\n%s", r.Dir, k, diff)
				}
			}
		}
		if !bytes.Equal(origBody, copyBody) {
			t.Errorf("%s: body differs from %s", r.Dir, r.Source)
		}
		if diff := cmp.Diff(files(t, origDir), files(t, copyDir)); diff != "" {
			t.Errorf("%s: files differ from %s (-source +copy):\n%s", r.Dir, r.Source, diff)
		}
	}
	// The copies are all there is, and a scan serves every one under the
	// name of its folder, with no problem.
	count := 0
	filepath.WalkDir(dst, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "SKILL.md" {
			count++
		}
		return nil
	})
	if count != len(reps) {
		t.Errorf("%d SKILL.md files under the destination, want %d", count, len(reps))
	}
	l, err := dirtree.New(dst, nil).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Skills) != len(reps) || len(l.Problems) != 0 {
		t.Errorf("scan served %d skills of %d, problems %v", len(l.Skills), len(reps), l.Problems)
	}
	for _, sk := range l.Skills {
		if sk.Ref.Name != filepath.Base(sk.Dir) {
			t.Errorf("%s served as %s", sk.Dir, sk.Ref.Name)
		}
		for _, d := range sk.Diagnostics {
			if d.Field == "name" && d.Rule != "name-required" { // a source with no name has copies with none
				t.Errorf("%s: %s", sk.Dir, d)
			}
		}
	}
}

// front returns a SKILL.md's top-level keys in order, their values, and
// the body.
func front(t *testing.T, file string) ([]string, map[string]any, []byte) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	fm, body, err := sources.SplitFrontMatter(data)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(fm, &doc); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if len(doc.Content) != 1 || doc.Content[0].Kind != yaml.MappingNode {
		t.Fatalf("%s: front matter is not a mapping", file)
	}
	var keys []string
	vals := map[string]any{}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		var v any
		if err := m.Content[i+1].Decode(&v); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		keys = append(keys, m.Content[i].Value)
		vals[m.Content[i].Value] = v
	}
	return keys, vals, body
}

// files describes a skill folder's content other than its SKILL.md:
// folders, file sizes and permissions, link targets. Folders holding a
// SKILL.md of their own are other skills.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			if _, err := os.Stat(filepath.Join(p, "SKILL.md")); err == nil {
				return filepath.SkipDir
			}
			out[rel] = "folder"
			return nil
		}
		if rel == "SKILL.md" {
			return nil
		}
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[rel] = "link to " + target
			return err
		}
		out[rel] = fmt.Sprintf("%d bytes, %v", info.Size(), info.Mode())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// tree maps every path under dir to its content (a link to its target).
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			out[rel] = "-> " + target
			return err
		}
		b, err := os.ReadFile(p)
		out[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
