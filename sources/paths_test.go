package sources_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skillmux/skillmux/sources"
)

func TestCheckPath(t *testing.T) {
	for p, want := range map[string]sources.PathRule{
		"SKILL.md":                      "",
		"references/forms.md":           "",
		"a b/c%20d.md":                  "", // a literal name; only separators are refused encoded
		"v%2e1.txt":                     "",
		"":                              sources.RuleEmpty,
		"a//b":                          sources.RuleEmpty,
		"a/":                            sources.RuleEmpty,
		"/etc/passwd":                   sources.RuleAbsolute,
		"../x":                          sources.RuleParent,
		"a/../../x":                     sources.RuleParent,
		"./x":                           sources.RuleDot,
		`a\b`:                           sources.RuleBackslash,
		`..\..\x`:                       sources.RuleBackslash,
		"a\x00b":                        sources.RuleNUL,
		"0\x80":                         sources.RuleNotUTF8,
		"ok/\xff\xfe.md":                sources.RuleNotUTF8,
		"café/naïve.md":                 "",
		"%2e%2e/x":                      "", // names on disk: a URI was decoded once before
		"%2E%2E":                        "",
		"x%2Fy.md":                      "",
		"a%5Cb":                         "",
		"a%00b":                         "",
		strings.Repeat("a", 256):        sources.RuleTooLong,
		strings.Repeat("abc/", 300):     sources.RuleTooLong,
		strings.Repeat("a", 255) + "/b": "",
	} {
		err := sources.CheckPath(p)
		var pe *sources.PathError
		switch {
		case want == "" && err != nil:
			t.Errorf("%.40q: %v", p, err)
		case want != "" && (!errors.As(err, &pe) || pe.Rule != want):
			t.Errorf("%.40q: got %v, want rule %s", p, err, want)
		case want != "" && !strings.Contains(err.Error(), string(want)):
			t.Errorf("%.40q: the message does not name the rule: %v", p, err)
		}
	}
}

// A symlink out of the skill folder is refused by the same rule whether
// its target exists or not, so a refusal tells nothing about the outside.
func TestConfineSymlinksOut(t *testing.T) {
	base := t.TempDir()
	skill := filepath.Join(base, "skill")
	mkfile(t, filepath.Join(skill, "SKILL.md"), "x")
	mkfile(t, filepath.Join(base, "secret.txt"), "secret")
	mkfile(t, filepath.Join(base, "secrets", "key"), "secret")
	mkfile(t, filepath.Join(skill, "inside.md"), "inside")
	for name, target := range map[string]string{
		"to-file":     filepath.Join(base, "secret.txt"),
		"to-dir":      filepath.Join(base, "secrets"),
		"to-nothing":  filepath.Join(base, "missing.txt"),
		"relative":    "../secret.txt",
		"rel-missing": "../missing.txt",
		"ok":          "inside.md",
	} {
		if err := os.Symlink(target, filepath.Join(skill, name)); err != nil {
			t.Fatal(err)
		}
	}
	fsys := sources.DirFS(skill)
	for _, name := range []string{"to-file", "to-dir/key", "to-nothing", "relative", "rel-missing"} {
		_, err := sources.ReadFileLimit(fsys, name, 1<<20)
		err = sources.Confine(name, err)
		var pe *sources.PathError
		if !errors.As(err, &pe) || pe.Rule != sources.RuleOutside {
			t.Errorf("%s: got %v, want rule %s", name, err, sources.RuleOutside)
		} else if strings.Contains(err.Error(), base) {
			t.Errorf("%s: the message shows the outside: %v", name, err)
		}
	}
	if data, err := sources.ReadFileLimit(fsys, "ok", 1<<20); err != nil || string(data) != "inside" {
		t.Errorf("a symlink inside the folder: %q %v", data, err)
	}
}
