package plugins_test

import (
	"context"
	"errors"
	"fmt"
	"testing/fstest"

	"github.com/skillmux/skillmux/plugins"
	"github.com/skillmux/skillmux/sources"
)

// team is a plugin's source: it serves one skill from memory. A real one
// would ask a registry, a database or a git server.
type team struct{}

func (team) Name() string { return "team" }

func (team) List(ctx context.Context) (*sources.Listing, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	front := []byte("name: release-notes\ndescription: Write release notes from the merged pull requests.\n")
	files := fstest.MapFS{
		sources.SkillFile: {Data: append(append([]byte("---\n"), front...), "---\nList the changes by kind.\n"...)},
		"template.md":     {Data: []byte("## Added\n\n## Fixed\n")},
	}
	// NewSkill judges the front matter as skillmux judges a local
	// SKILL.md; its diagnostics travel with the skill.
	sk, err := sources.NewSkill(front, sources.Location{
		Path:   "team://release-notes/SKILL.md",
		Dir:    "/team/release-notes", // its last folder names the skill's id
		Folder: "release-notes",
		Files:  files,
	}, sources.LoadOptions{Source: "team", Scope: sources.ScopeSourcePlugin})
	if err != nil {
		return &sources.Listing{Problems: []sources.Diagnostic{sources.AsDiagnostic("team://release-notes", err)}}, nil
	}
	return &sources.Listing{Skills: []*sources.Skill{sk}}, nil
}

// A plugin's main serves its source. Run by hand rather than by skillmux,
// Serve says so and returns.
func Example() {
	err := plugins.Serve(context.Background(), team{}, &plugins.ServeOptions{Version: "1.0.0"})
	if errors.Is(err, plugins.ErrNotLaunched) {
		fmt.Println("not started by skillmux")
		return
	}
	if err != nil {
		fmt.Println(err)
	}
	// Output: not started by skillmux
}
