package sources_test

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/sources"
)

// TestNewSkillJudgesAsLoad checks that a skill built from front matter
// bytes gets what Load gives the same front matter in a folder of the
// same name: name, description, flags and diagnostics (but for their
// path).
func TestNewSkillJudgesAsLoad(t *testing.T) {
	for _, tt := range []struct{ name, folder, front string }{
		{"plain", "pdf", "name: pdf\ndescription: Fill PDF forms.\n"},
		{"no name", "pdf", "description: Fill PDF forms.\n"},
		{"name differs from folder", "pdf", "name: pdf-tools\ndescription: D.\nlicense: MIT\n"},
		{"unknown key", "x", "name: x\ndescription: D.\nwhen: now\n"},
		{"flags", "x", "name: x\ndescription: D.\ndisable-model-invocation: true\nuser-invocable: false\n"},
		{"unusable name", "ok", "name: a/b\ndescription: D.\n"},
		{"no description", "x", "name: x\n"},
		{"bad yaml", "x", "name: [x\ndescription: D.\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := writeSkill(t, tt.folder, "---\n"+tt.front+"---\nbody\n")
			want, wantErr := sources.Load(path, sources.LoadOptions{Source: "s"})
			loc := sources.Location{Path: "plugin://p/" + tt.folder + "/SKILL.md", Dir: "/cache/" + tt.folder, Folder: tt.folder, Files: fstest.MapFS{}}
			crlf := strings.ReplaceAll(tt.front, "\n", "\r\n")
			got, gotErr := sources.NewSkill([]byte(crlf), loc, sources.LoadOptions{Source: "s"})
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("Load error %v, NewSkill error %v", wantErr, gotErr)
			}
			if wantErr != nil {
				var wd, gd sources.Diagnostic
				errors.As(wantErr, &wd)
				errors.As(gotErr, &gd)
				if gd.Path != loc.Path || wd.Rule != gd.Rule || wd.Field != gd.Field {
					t.Errorf("NewSkill refused with %v; Load with %v", gd, wd)
				}
				return
			}
			if got.Path != loc.Path || got.Dir != loc.Dir || got.Files == nil {
				t.Errorf("location not kept: Path %q Dir %q", got.Path, got.Dir)
			}
			if diff := cmp.Diff(string(want.FrontMatter), string(got.FrontMatter)); diff != "" {
				t.Errorf("front matter (-Load +NewSkill):\n%s", diff)
			}
			type view struct {
				Ref             sources.Ref
				Desc            string
				DMI, UI         bool
				Rules, Messages []string
			}
			of := func(sk *sources.Skill) view {
				v := view{Ref: sk.Ref, Desc: sk.Description, DMI: sk.DisableModelInvocation, UI: sk.UserInvocable}
				for _, d := range sk.Diagnostics {
					v.Rules = append(v.Rules, d.Severity.String()+":"+d.Field+":"+d.Rule)
					v.Messages = append(v.Messages, d.Message)
				}
				return v
			}
			if diff := cmp.Diff(of(want), of(got)); diff != "" {
				t.Errorf("NewSkill differs from Load (-Load +NewSkill):\n%s", diff)
			}
			for _, d := range got.Diagnostics {
				if d.Path != loc.Path {
					t.Errorf("diagnostic path %q, want %q", d.Path, loc.Path)
				}
			}
		})
	}
}

func TestNewSkillRefusesHugeFrontMatter(t *testing.T) {
	front := "name: x\ndescription: D.\n# " + strings.Repeat("a", sources.MaxFrontMatter) + "\n"
	_, err := sources.NewSkill([]byte(front), sources.Location{Path: "plugin://p/x/SKILL.md", Folder: "x"}, sources.LoadOptions{})
	var d sources.Diagnostic
	if !errors.As(err, &d) || d.Rule != "front-matter" || d.Path != "plugin://p/x/SKILL.md" {
		t.Fatalf("got %v, want a front-matter diagnostic", err)
	}
}
