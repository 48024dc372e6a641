package sources

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseSimpleAgreesWithYAML(t *testing.T) {
	for _, in := range []string{
		"name: pdf\ndescription: Work with PDF files.\n",
		"name: pdf\ndescription: Use when: X\n",
		"name: pdf\ndescription: true\n",
		"name: pdf\ndescription: Yes\n",
		"name: pdf\ndescription: 12 rules\n",
		"name: pdf\ndescription: a # comment\n",
		"name: pdf\nname: again\n",
		"name: pdf\ndescription: |\n  block\n",
		"name: pdf\ndescription: trailing spaces   \n",
		"name: pdf\ndescription: it's \"quoted\" inside, [and] {braces}\n",
		"name: pdf\ndescription: ends with colon:\n",
		"name: pdf\ndescription: unicode é — 😀\n",
		"name: pdf\n\ndescription: blank line\n",
		"name: pdf\ndescription: x\n# comment line\n",
	} {
		got, ok := parseSimple([]byte(in))
		want, err := unmarshalMap([]byte(in))
		if !ok {
			continue
		}
		if err != nil {
			t.Errorf("%q: fast path accepted what YAML rejects: %v", in, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q: (-yaml +fast):\n%s", in, diff)
		}
	}
	if _, ok := parseSimple([]byte("name: pdf\ndescription: Work with PDF files.\n")); !ok {
		t.Error("the common shape must take the fast path")
	}
}

func FuzzParseSimple(f *testing.F) {
	f.Add("name: pdf\ndescription: Work with PDF files.\n")
	f.Add("name: x\ndescription: a: b\n")
	f.Add("a: Null\nb: ~x\n")
	f.Fuzz(func(t *testing.T, in string) {
		got, ok := parseSimple([]byte(in))
		if !ok {
			return
		}
		want, err := unmarshalMap([]byte(in))
		if err != nil {
			t.Fatalf("%q: fast path accepted what YAML rejects: %v", in, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q: (-yaml +fast):\n%s", in, diff)
		}
	})
}
