package skillgen_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/sources/dirtree"
)

func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	if err := skillgen.Generate(dir, 25, nil); err != nil {
		t.Fatal(err)
	}
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
			t.Errorf("%s: description of %d characters", sk.Ref, n)
		}
	}
	st, err := os.Stat(filepath.Join(l.Skills[0].Dir, "SKILL.md"))
	if err != nil || st.Size() < 3000 || st.Size() > 3600 {
		t.Errorf("SKILL.md size %v %v", st.Size(), err)
	}
	again := t.TempDir()
	skillgen.Generate(again, 25, nil)
	a, _ := os.ReadFile(filepath.Join(dir, "group-03", "skill-00013", "SKILL.md"))
	b, _ := os.ReadFile(filepath.Join(again, "group-03", "skill-00013", "SKILL.md"))
	if string(a) != string(b) {
		t.Error("not deterministic")
	}
}
