package dirtree_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// countSkillFiles counts SKILL.md files the way a user would with find(1).
func countSkillFiles(t *testing.T, root string) int {
	n := 0
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "SKILL.md" {
			n++
		}
		return nil
	})
	return n
}

// blockScalar returns the lines of a "key: |-" block of a file, joined,
// read independently of the YAML library.
func blockScalar(t *testing.T, path, key string) string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, key+": |"):
			in = true
		case in && strings.HasPrefix(line, "  "):
			lines = append(lines, strings.TrimPrefix(line, "  "))
		case in:
			return strings.Join(lines, "\n")
		}
	}
	t.Fatalf("no block scalar %q in %s", key, path)
	return ""
}

func TestCorpus(t *testing.T) {
	root := corpus.Dir(t)
	l := list(t, root, &dirtree.Options{Name: "corpus"})
	if want := countSkillFiles(t, root); len(l.Skills) != want || want != 69 {
		t.Errorf("served %d skills, the corpus holds %d SKILL.md files (69 expected)", len(l.Skills), want)
	}
	for _, d := range l.Problems {
		t.Errorf("unexpected problem: %s", d)
	}
	byPath := map[string]*sources.Skill{}
	for _, sk := range l.Skills {
		byPath[sk.Path] = sk
	}

	api := filepath.Join(root, "anthropics-skills", "skills", "claude-api", "SKILL.md")
	if sk := byPath[api]; sk == nil {
		t.Errorf("claude-api not served")
	} else {
		if want := blockScalar(t, api, "description"); sk.Description != want {
			t.Errorf("block-scalar description not intact:\n got %q\nwant %q", sk.Description, want)
		}
		if !hasRule(sk, "description-length") {
			t.Errorf("description over 1024 characters not warned: %v", sk.Diagnostics)
		}
	}

	for path, name := range map[string]string{
		filepath.Join(root, "anthropics-skills", "template", "SKILL.md"):                                            "template-skill",
		filepath.Join(root, "claude-plugins-official", "plugins", "hookify", "skills", "writing-rules", "SKILL.md"): "writing-hookify-rules",
	} {
		sk := byPath[path]
		if sk == nil {
			t.Errorf("%s not served", path)
			continue
		}
		if sk.Ref.Name != name || !hasRule(sk, "name-matches-folder") {
			t.Errorf("%s: served as %q with %v; want %q, warned", path, sk.Ref.Name, sk.Diagnostics, name)
		}
	}

	hidden := filepath.Join(root, "openai-skills", "skills", ".system")
	found := false
	for p := range byPath {
		found = found || strings.HasPrefix(p, hidden)
	}
	if !found {
		t.Error("skills under dot-folders were not found")
	}
}

func hasRule(sk *sources.Skill, rule string) bool {
	for _, d := range sk.Diagnostics {
		if d.Rule == rule {
			return true
		}
	}
	return false
}
