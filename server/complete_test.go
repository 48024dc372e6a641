package server_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// The resource templates complete skill names, and the files of the
// skill chosen.
func TestResourceCompletion(t *testing.T) {
	rt := newResourceTree(t)
	plugins := &sourcetest.Fake{SourceName: "plugins", Namespace: "example-skills", Skills: []sourcetest.FakeSkill{{Name: "pdf", Description: "The plugin's."}}}
	shadow := &sourcetest.Fake{SourceName: "project", Skills: []sourcetest.FakeSkill{{Name: "pdf", Description: "Shadowed."}}}
	cs := connect(t, server.New(newResolver(t, dirtree.New(rt.root, nil), plugins, shadow), nil), "2025-11-25", nil)
	complete := func(template, arg, value string, ctx map[string]string) []string {
		t.Helper()
		p := &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/resource", URI: template}, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}}
		if ctx != nil {
			p.Context = &mcp.CompleteContext{Arguments: ctx}
		}
		res, err := cs.Complete(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		return res.Completion.Values
	}
	for _, tt := range []struct {
		template, arg, value string
		ctx                  map[string]string
		want                 []string
	}{
		{"skill://{+skill}/{+path}", "skill", "pd", nil, []string{"example-skills/pdf", "pdf", "project/pdf"}},
		{"skill://{+skill}", "skill", "EX", nil, []string{"example-skills/pdf"}},
		{"skill://{+skill}/", "skill", "", nil, []string{"docx", "example-skills/pdf", "nested", "pdf", "project/pdf"}},
		{"skill://{+skill}/{+path}", "path", "ref", map[string]string{"skill": "pdf"}, []string{"references/guide.md"}},
		{"skill://{+skill}/{+path}", "path", "nested/", map[string]string{"skill": "pdf"}, []string{"nested/SKILL.md", "nested/ref.md"}},
		{"skill://{+skill}/{+path}", "path", "", map[string]string{"skill": "project/pdf"}, []string{"SKILL.md"}},
		{"skill://{+skill}/{+path}", "path", "", nil, []string{}},
		{"skill://{+skill}/{+path}", "path", "x", map[string]string{"skill": "../pdf"}, []string{}},
		{"file:///{path}", "skill", "", nil, []string{}},
	} {
		if diff := cmp.Diff(tt.want, complete(tt.template, tt.arg, tt.value, tt.ctx)); diff != "" {
			t.Errorf("%s %s=%q (-want +got):\n%s", tt.template, tt.arg, tt.value, diff)
		}
	}
}

// A skill of more files than a walk lists completes its paths with as
// many as an answer holds, and more to come, but no total: the walk
// stopped before it could count them.
func TestPathCompletionOfManyFiles(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"many/SKILL.md": "---\nname: many\ndescription: Many files.\n---\n"}
	for i := range sources.MaxListedFiles + 50 {
		files[fmt.Sprintf("many/f%05d.md", i)] = "x"
	}
	sourcetest.WriteFiles(t, root, files)
	cs := connect(t, server.New(newResolver(t, dirtree.New(root, nil)), nil), "2025-11-25", nil)
	res, err := cs.Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "skill://{+skill}/{+path}"},
		Argument: mcp.CompleteParamsArgument{Name: "path", Value: "f"},
		Context:  &mcp.CompleteContext{Arguments: map[string]string{"skill": "many"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Completion; !c.HasMore || c.Total != 0 || len(c.Values) == 0 {
		t.Errorf("hasMore %v, total %d, %d values; want more to come, no total", c.HasMore, c.Total, len(c.Values))
	}
	// A prefix is looked for among all the files, not the first listed:
	// those past them are completed too, and counted.
	res, err = cs.Complete(context.Background(), &mcp.CompleteParams{
		Ref:      &mcp.CompleteReference{Type: "ref/resource", URI: "skill://{+skill}/{+path}"},
		Argument: mcp.CompleteParamsArgument{Name: "path", Value: "F0102"},
		Context:  &mcp.CompleteContext{Arguments: map[string]string{"skill": "many"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if c := res.Completion; c.HasMore || c.Total != 10 || len(c.Values) != 10 || c.Values[0] != "f01020.md" || c.Values[9] != "f01029.md" {
		t.Errorf("hasMore %v, total %d, values %v; want f01020.md to f01029.md", c.HasMore, c.Total, c.Values)
	}
}
