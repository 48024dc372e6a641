package server_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

func toolNames(tools []*mcp.Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name)
	}
	return out
}

// Every profile serves its tools under their names, in the order the
// SDK lists them (by name); the tools this version does not serve are
// reported by name at start-up.
func TestProfiles(t *testing.T) {
	r := newResolver(t, fake("s", "", "pdf"))
	tests := []struct {
		opts        *server.ToolsOptions
		want        []string
		unavailable []string
		dots        bool
	}{
		{nil, []string{"skill", "skill_resource", "skills_search"}, nil, false},
		{&server.ToolsOptions{Profile: "default"}, []string{"skill", "skill_resource", "skills_search"}, nil, false},
		{&server.ToolsOptions{Profile: "sk"}, []string{"skills.list", "skills.search"}, nil, true},
		{&server.ToolsOptions{Profile: "skills-mcp"}, []string{"get_skill_resource", "skill"}, []string{"execute_skill_script"}, false},
		{&server.ToolsOptions{Profile: "skill-jack"}, []string{"skill", "skill-resource"}, nil, false},
		{&server.ToolsOptions{Profile: "catalog"}, []string{"check_skill_exists", "cite_skill", "search_skills", "suggest_skills"}, nil, false},
		{&server.ToolsOptions{Profile: "all"}, []string{"check_skill_exists", "cite_skill", "skill", "skill_resource", "skills_list", "skills_search", "suggest_skills"},
			nil, false},
		{&server.ToolsOptions{Enable: []string{"skills_list"}, Disable: []string{"skills_search", "skill_resource"}}, []string{"skill", "skills_list"}, nil, false},
		{&server.ToolsOptions{Profile: "sk", Enable: []string{"skill"}, Disable: []string{"skills.search"}}, []string{"skill", "skills.list"}, nil, true},
		{&server.ToolsOptions{Disable: []string{"skill", "skills_search", "skill_resource"}}, nil, nil, false},
	}
	for _, tt := range tests {
		name := "nil"
		if tt.opts != nil {
			name = tt.opts.Profile + "+" + strings.Join(tt.opts.Enable, ",") + "-" + strings.Join(tt.opts.Disable, ",")
		}
		t.Run(name, func(t *testing.T) {
			var logs logBuffer
			cs := connect(t, server.New(r, &server.Options{Tools: tt.opts, Logger: logs.logger()}), "", nil)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, toolNames(res.Tools)); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
			log := logs.String()
			for _, u := range tt.unavailable {
				if !strings.Contains(log, "tool "+u+" is not available in this version") {
					t.Errorf("%s is not reported unavailable:\n%s", u, log)
				}
			}
			if got := strings.Contains(log, "names with a dot"); got != tt.dots {
				t.Errorf("warning about dots: %v, want %v:\n%s", got, tt.dots, log)
			}
			// A set left empty is said so, not only logged as "tools=".
			if got := strings.Contains(log, "no tool is served"); got != (len(tt.want) == 0) {
				t.Errorf("warning about no tool: %v, want %v:\n%s", got, len(tt.want) == 0, log)
			}
		})
	}
}

// A server whose tools never search the index builds none (sk's
// skills.search matches substrings); one with a tool that does builds it
// after the handshake.
func TestIndexOnlyForSearchingTools(t *testing.T) {
	r := newResolver(t, fake("s", "", "pdf", "docx"))
	for profile, searches := range map[string]bool{"default": true, "catalog": true, "sk": false, "skill-jack": false, "skills-mcp": false} {
		srv := server.New(r, &server.Options{Tools: &server.ToolsOptions{Profile: profile}})
		t.Cleanup(func() { srv.Close() })
		connect(t, srv, "", nil)
		built := func() bool { done, todo := srv.IndexProgress(); return todo > 0 && done == todo }
		if !searches {
			time.Sleep(100 * time.Millisecond) // time enough for a build of two skills to start
		}
		for deadline := time.Now().Add(5 * time.Second); searches && !built() && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		if got := built(); got != searches {
			t.Errorf("profile %s: index built %v, want %v", profile, got, searches)
		}
	}
}

// The skill tool carries Claude Code's _meta, so that its tool search
// does not defer the catalog.
func TestSkillToolMeta(t *testing.T) {
	cs := connect(t, server.New(newResolver(t, fake("s", "", "pdf")), nil), "", nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	i := slices.IndexFunc(res.Tools, func(t *mcp.Tool) bool { return t.Name == "skill" })
	meta := res.Tools[i].Meta
	if meta["anthropic/alwaysLoad"] != true || meta["anthropic/searchHint"] != server.SkillSearchHint {
		t.Errorf("_meta = %v", meta)
	}
}

// Without the skill tool (the sk profile), the catalog goes to the
// instructions, which say how to use the tools there are.
func TestInstructionsWithoutTheSkillTool(t *testing.T) {
	r := newResolver(t, fake("s", "", "pdf"))
	cs := connect(t, server.New(r, &server.Options{Tools: &server.ToolsOptions{Profile: "sk"}}), "", nil)
	instrs := cs.InitializeResult().Instructions
	for _, want := range []string{"prefer skills.list for exhaustive metadata and skills.search for targeted lookups", "<name>pdf</name>", "<location>"} {
		if !strings.Contains(instrs, want) {
			t.Errorf("instructions lack %q:\n%s", want, instrs)
		}
	}
}

func fake(name, ns string, skills ...string) *sourcetest.Fake {
	f := &sourcetest.Fake{SourceName: name, Namespace: ns}
	for _, s := range skills {
		f.Skills = append(f.Skills, sourcetest.FakeSkill{Name: s, Description: "The " + s + " skill from " + name + ".", Body: "Body of " + s + ".\n"})
	}
	return f
}

// The names other servers gave skill_resource read a skill's files as it
// does, and list them when the path is empty, as skill-jack users expect.
func TestSkillResourceAliases(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s", Skills: []sourcetest.FakeSkill{{Name: "pdf", Description: "PDFs.", Files: map[string]string{"forms.md": "fill the form"}}}}
	for profile, name := range map[string]string{"skill-jack": "skill-resource", "skills-mcp": "get_skill_resource"} {
		t.Run(profile, func(t *testing.T) {
			cs := connect(t, server.New(newResolver(t, src), &server.Options{Tools: &server.ToolsOptions{Profile: profile}}), "", nil)
			read, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"skill": "pdf", "path": "forms.md"}})
			if err != nil || read.IsError || text(t, read.Content[0]) != "fill the form" {
				t.Fatalf("reading forms.md with %s: %v %+v", name, err, read)
			}
			list, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"skill": "pdf", "path": ""}})
			if err != nil || list.IsError || !strings.Contains(text(t, list.Content[0]), "forms.md (13 bytes)") {
				t.Fatalf("listing with %s: %v %+v", name, err, list)
			}
			// The answer points back to the tool under the name it has here.
			if got := text(t, list.Content[0]); !strings.Contains(got, "Read one with "+name+" and its path") {
				t.Errorf("the listing names another tool:\n%s", got)
			}
		})
	}
}

// Whatever the tools served, the instructions and the skill tool's
// description name only tools that are served, and the instructions
// still say how to reach the skills they do not list.
func TestInstructionsNameOnlyServedTools(t *testing.T) {
	dir := t.TempDir()
	for i := range 60 {
		name := fmt.Sprintf("skill-%02d", i)
		sourcetest.WriteFile(t, filepath.Join(dir, name, "SKILL.md"), "---\nname: "+name+"\ndescription: Does thing "+name+".\n---\n")
	}
	r := newResolver(t, dirtree.New(dir, nil))
	mentions := func(text, tool string) bool {
		if tool == server.SkillToolName {
			return strings.Contains(text, "skill tool")
		}
		return regexp.MustCompile(`(?:^|[\s(])` + regexp.QuoteMeta(tool) + `(?:$|[\s,;:)]|\.(?:\s|$))`).MatchString(text)
	}
	for _, profile := range server.Profiles() {
		full := connect(t, server.New(r, &server.Options{Tools: &server.ToolsOptions{Profile: profile}}), "", nil)
		res, err := full.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		all := toolNames(res.Tools)
		disables := [][]string{nil, all}
		for _, name := range all {
			disables = append(disables, []string{name})
		}
		for _, disable := range disables {
			t.Run(profile+"-"+strings.Join(disable, ","), func(t *testing.T) {
				o := &server.Options{Tools: &server.ToolsOptions{Profile: profile, Disable: disable}, Catalog: &resolver.CatalogOptions{Budget: 600}}
				cs := connect(t, server.New(r, o), "", nil)
				res, err := cs.ListTools(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				served := toolNames(res.Tools)
				texts := map[string]string{"instructions": cs.InitializeResult().Instructions}
				if slices.Contains(served, server.SkillToolName) {
					texts["the skill tool's description"] = toolDescription(t, cs)
				}
				for what, text := range texts {
					for _, tool := range server.ToolNames() {
						if mentions(text, tool) && !slices.Contains(served, tool) {
							t.Errorf("%s name %s, which is not served (%v):\n%s", what, tool, served, text)
						}
					}
				}
				instrs := texts["instructions"]
				if !strings.Contains(instrs, "more skills are not listed; ") {
					t.Fatalf("instructions do not say how to reach the skills they leave out:\n%s", instrs)
				}
			})
		}
	}
}

// tools.enable naming a tool the profile serves already, or tools.disable
// one it does not serve, changes nothing: said, not passed over.
func TestToolEntriesThatChangeNothing(t *testing.T) {
	r := newResolver(t, fake("s", "", "pdf"))
	var logs logBuffer
	connect(t, server.New(r, &server.Options{Tools: &server.ToolsOptions{Profile: "sk", Enable: []string{"skills.list"}, Disable: []string{"skill_resource"}}, Logger: logs.logger()}), "", nil)
	for _, want := range []string{"tools.enable names skills.list, which profile sk serves already", "tools.disable names skill_resource, which profile sk does not serve"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("the log lacks %q:\n%s", want, logs.String())
		}
	}
}
