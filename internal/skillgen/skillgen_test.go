package skillgen_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/sources/dirtree"
)

func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	if err := skillgen.Generate(dir, 25, nil); err != nil {
		t.Fatal(err)
	}
	// The skills are valid: the scan serves every one, with no warning.
	l, err := dirtree.New(dir, nil).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Skills) != 25 || len(l.Problems) != 0 {
		t.Fatalf("%d skills, problems %v", len(l.Skills), l.Problems)
	}
	for _, sk := range l.Skills {
		if len(sk.Diagnostics) != 0 {
			t.Errorf("%s: %v", sk.Ref, sk.Diagnostics)
		}
		if n := len(sk.Description); n < 130 || n > 200 {
			t.Errorf("%s: description of %d characters, want about 150", sk.Ref, n)
		}
	}
	// Sizes are realistic, and the skills are spread over group folders.
	skill := filepath.Join(dir, "group-03", "skill-00013")
	for file, want := range map[string][2]int64{"SKILL.md": {3000, 3600}, "references/guide.md": {900, 1300}} {
		st, err := os.Stat(filepath.Join(skill, file))
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() < want[0] || st.Size() > want[1] {
			t.Errorf("%s is %d bytes, want %d to %d", file, st.Size(), want[0], want[1])
		}
	}
	// The same seed gives the same files; another seed, other words.
	read := func(dir string) string {
		b, err := os.ReadFile(filepath.Join(dir, "group-03", "skill-00013", "SKILL.md"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	same, other := t.TempDir(), t.TempDir()
	if err := skillgen.Generate(same, 25, &skillgen.Options{Seed: 1}); err != nil {
		t.Fatal(err)
	}
	if err := skillgen.Generate(other, 25, &skillgen.Options{Seed: 2}); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(read(dir), read(same)); diff != "" {
		t.Errorf("same seed, other output (-first +second):\n%s", diff)
	}
	if read(dir) == read(other) {
		t.Error("seeds 1 and 2 gave the same SKILL.md")
	}
	// First continues the numbering and the spread over groups.
	next := t.TempDir()
	if err := skillgen.Generate(next, 5, &skillgen.Options{First: 25}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(next, "group-05", "skill-00025", "SKILL.md")); err != nil {
		t.Errorf("First 25: %v", err)
	}
}
