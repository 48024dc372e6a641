package sources_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/sources"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		folder  string
		content string
		want    []string
	}{
		{"valid", "good-skill", "---\nname: good-skill\ndescription: Does a thing.\nlicense: MIT\ncompatibility: Needs git.\nmetadata:\n  author: me\nallowed-tools: Read Grep\n---\n", nil},
		{"uppercase name", "Bad", "---\nname: Bad\ndescription: x\n---\n", []string{"error:name:name-format"}},
		{"leading hyphen", "-lead", "---\nname: -lead\ndescription: x\n---\n", []string{"error:name:name-format"}},
		{"double hyphen", "a--b", "---\nname: a--b\ndescription: x\n---\n", []string{"error:name:name-format"}},
		{"trailing hyphen", "a-", "---\nname: a-\ndescription: x\n---\n", []string{"error:name:name-format"}},
		{"name too long", strings.Repeat("a", 65), "---\nname: " + strings.Repeat("a", 65) + "\ndescription: x\n---\n", []string{"error:name:name-length"}},
		{"name differs from folder", "folder", "---\nname: other\ndescription: x\n---\n", []string{"error:name:name-matches-folder"}},
		{"missing name", "nameless", "---\ndescription: x\n---\n", []string{"error:name:name-required"}},
		{"description too long", "long", "---\nname: long\ndescription: " + strings.Repeat("x", 1025) + "\n---\n", []string{"error:description:description-length"}},
		{"missing description", "nodesc", "---\nname: nodesc\n---\n", []string{"error:description:description-required"}},
		{"compatibility too long", "compat", "---\nname: compat\ndescription: x\ncompatibility: " + strings.Repeat("y", 501) + "\n---\n", []string{"error:compatibility:compatibility-length"}},
		{"client extensions are warnings", "ext", "---\nname: ext\ndescription: x\nversion: 1.0.0\nuser-invocable: true\nargument-hint: x\ndisable-model-invocation: true\n---\n",
			[]string{"warning:argument-hint:client-extension", "warning:disable-model-invocation:client-extension", "warning:user-invocable:client-extension", "warning:version:client-extension"}},
		{"unknown key", "unk", "---\nname: unk\ndescription: x\nauthor: me\n---\n", []string{"error:author:unknown-field"}},
		{"metadata values must be strings", "meta", "---\nname: meta\ndescription: x\nmetadata:\n  n: 3\n---\n", []string{"error:metadata.n:metadata-type"}},
		{"unquoted colon is a warning", "colon", "---\nname: colon\ndescription: Use when: X\n---\n", []string{"warning::yaml"}},
		{"no front matter", "none", "# title\n", []string{"error::front-matter"}},
		{"a date as the description", "dated", "---\nname: dated\ndescription: 2024-01-02\n---\n", []string{"error:description:description-type"}},
		{"a date as the name", "day", "---\nname: 2024-01-01\ndescription: x\n---\n", []string{"error:name:name-type"}},
		{"a date in metadata", "meta-date", "---\nname: meta-date\ndescription: x\nmetadata:\n  since: 2024-01-02\n---\n", []string{"error:metadata.since:metadata-type"}},
		{"front matter that is a list", "listed", "---\n- name\n- description\n---\n", []string{"error::yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeSkill(t, tt.folder, tt.content)
			got := sources.Validate(p[:len(p)-len("/SKILL.md")])
			if diff := cmp.Diff(tt.want, rules(got)); diff != "" {
				t.Errorf("(-want +got):\n%s\n%v", diff, got)
			}
			for _, d := range got {
				if d.Path != p || d.Message == "" {
					t.Errorf("finding %+v does not name %s or say what is wrong", d, p)
				}
				if goType.MatchString(d.Message) {
					t.Errorf("finding %v names a Go type, not a YAML one", d)
				}
			}
		})
	}
}

func TestValidateNotASkill(t *testing.T) {
	got := sources.Validate(t.TempDir())
	if len(got) != 1 || got[0].Severity != sources.Error || !strings.Contains(got[0].Message, "SKILL.md") {
		t.Errorf("got %v", got)
	}
}

func TestValidateUnknownKeySuggests(t *testing.T) {
	p := writeSkill(t, "typo", "---\nname: typo\ndescription: x\nlicence: MIT\n---\n")
	got := sources.Validate(p)
	if len(got) != 1 || !strings.Contains(got[0].Message, `did you mean "license"`) {
		t.Errorf("got %v", got)
	}
}

// TestValidateMissedSkillFiles checks that a folder whose SKILL.md is a
// link to nothing, or whose skill file has the wrong letter case, is told
// so rather than said to hold no SKILL.md.
func TestValidateMissedSkillFiles(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		t.Skip("needs symlinks and file names that tell cases apart")
	}
	dangling := filepath.Join(t.TempDir(), "dangling")
	if err := os.MkdirAll(dangling, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("moved-away.md", filepath.Join(dangling, "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	lower := filepath.Dir(writeSkill(t, "lower", "---\nname: lower\ndescription: x\n---\n"))
	if err := os.Rename(filepath.Join(lower, "SKILL.md"), filepath.Join(lower, "skill.md")); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]sources.Diagnostic{
		dangling: {Severity: sources.Error, Path: filepath.Join(dangling, "SKILL.md"), Rule: "link",
			Message: "SKILL.md is a link to moved-away.md, which does not exist; point the link at the file, or put the file in its place"},
		lower: {Severity: sources.Error, Path: filepath.Join(lower, "skill.md"), Rule: "skill-file-name",
			Message: "found skill.md; the file must be named SKILL.md, in capitals, for its folder to be a skill"},
	} {
		if diff := cmp.Diff([]sources.Diagnostic{want}, sources.Validate(dir)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", dir, diff)
		}
	}
}

// A name the specification refuses gets a suggestion that keeps its
// letters: accents go, the letters stay.
func TestNameSuggestionKeepsAccentedLetters(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "summer")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte("---\nname: Été Notes\ndescription: x\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, d := range sources.Validate(dir) {
		msgs = append(msgs, d.Message)
	}
	if !strings.Contains(strings.Join(msgs, "\n"), `(try "ete-notes")`) {
		t.Errorf("messages:\n%s", strings.Join(msgs, "\n"))
	}
}
