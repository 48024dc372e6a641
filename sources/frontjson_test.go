package sources_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/sources"
)

// The front matter as JSON has the values a YAML 1.2 reader finds, which
// is what a client compares it with.
func TestFrontMatterJSON(t *testing.T) {
	for _, tt := range []struct{ yaml, json string }{
		{"name: pdf\ndescription: Read PDFs.\n", `{"description":"Read PDFs.","name":"pdf"}`},
		{"date: 2024-01-01\nwhen: 2024-01-01T10:00:00Z\n", `{"date":"2024-01-01","when":"2024-01-01T10:00:00Z"}`},
		{"a: 014\nb: 0o14\nc: 0x1F\nd: -7\ne: +3\n", `{"a":14,"b":12,"c":31,"d":-7,"e":3}`},
		{"a: yes\nb: on\nc: 1_000\nd: True\ne: FALSE\n", `{"a":"yes","b":"on","c":"1_000","d":true,"e":false}`},
		{"a: 1.5\nb: .5\nc: 1e3\nd: 12345678901234567890\n", `{"a":1.5,"b":0.5,"c":1000,"d":12345678901234567890}`},
		{"a: ~\nb: null\nc:\nd: '~'\ne: \"1\"\n", `{"a":null,"b":null,"c":null,"d":"~","e":"1"}`},
		{"allowed-tools: [Read, Grep]\nmetadata:\n  version: 1.0\n  tags: [a, b]\n", `{"allowed-tools":["Read","Grep"],"metadata":{"tags":["a","b"],"version":1}}`},
		{"description: |-\n  Two\n  lines\n", `{"description":"Two\nlines"}`},
		{"base: &b {k: v}\nm: *b\n", `{"base":{"k":"v"},"m":{"k":"v"}}`},
		{"a: !!str 12\n", `{"a":"12"}`},
		{"", `{}`},
	} {
		raw, _, err := sources.FrontMatterJSON([]byte(tt.yaml))
		if err != nil {
			t.Errorf("%q: %v", tt.yaml, err)
			continue
		}
		if string(raw) != tt.json {
			t.Errorf("%q:\n got %s\nwant %s", tt.yaml, raw, tt.json)
		}
	}
	for _, bad := range []string{
		"a: .inf\n", "a: .nan\n", "a: 1e999\n", "? [a, b]\n: c\n",
		"description: Use when: you need it\n", // ParseFrontMatter's fix-up only
		"a: 1\na: 2\n", "- a\n- b\n", aliasBomb(),
	} {
		if raw, _, err := sources.FrontMatterJSON([]byte(bad)); err == nil {
			t.Errorf("%.40q: got %s, want an error", bad, raw)
		}
	}
}

// Every SKILL.md of the corpus has a JSON front matter that agrees with
// what serving reads for its name and description.
func TestFrontMatterJSONCorpus(t *testing.T) {
	dir := corpus.Dir(t)
	n := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Name() != sources.SkillFile {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		front, _, err := sources.SplitFrontMatter(data)
		if err != nil {
			return nil
		}
		n++
		raw, fields, err := sources.FrontMatterJSON(front)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		var back map[string]any
		if err := json.Unmarshal(raw, &back); err != nil {
			t.Errorf("%s: %v", p, err)
		}
		served, err := sources.ParseFrontMatter(front)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return nil
		}
		for _, k := range []string{"name", "description"} {
			if diff := cmp.Diff(served[k], fields[k]); diff != "" {
				t.Errorf("%s: %s differs:\n%s", p, k, diff)
			}
		}
		if !strings.Contains(string(raw), `"description"`) {
			t.Errorf("%s: no description in %s", p, raw)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 60 {
		t.Errorf("only %d SKILL.md files in the corpus", n)
	}
}
