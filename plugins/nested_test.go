package plugins

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// A folder served over the plugin protocol keeps which skills are nested
// in others' folders (sources.Listing.Nested), as it is served locally:
// the host puts them last, so one never takes a name from a later source.
func TestNestedSkillsSurviveThePluginProtocol(t *testing.T) {
	dir := t.TempDir()
	sourcetest.WriteFile(t, filepath.Join(dir, "a-outer", "SKILL.md"), "---\nname: a-outer\ndescription: Outer.\n---\n")
	sourcetest.WriteFile(t, filepath.Join(dir, "a-outer", "inner", "SKILL.md"), "---\nname: inner\ndescription: Inner.\n---\n")
	sourcetest.WriteFile(t, filepath.Join(dir, "z-top", "SKILL.md"), "---\nname: z-top\ndescription: Top.\n---\n")
	local, err := dirtree.New(dir, nil).List(context.Background())
	if err != nil || local.Nested != 1 {
		t.Fatalf("local: nested %d, %v", local.Nested, err)
	}
	src := connect(t, "p", newServer(dirtree.New(dir, nil), "test"), "")
	l, err := src.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, sk := range l.Skills {
		names = append(names, sk.Ref.Name)
	}
	if l.Nested != 1 || len(names) != 3 || names[2] != "inner" {
		t.Errorf("through the plugin protocol: %v, nested %d; want inner last and nested", names, l.Nested)
	}
}
