package sources

import (
	"strings"
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
		// Lengths, which the fuzzer leaves out (see maxFuzzLen): keys at
		// and past the fast path's cap, a key past YAML's limit of 1024
		// characters for an implicit key (found by the fuzzer), a long
		// description.
		strings.Repeat("k", 128) + ": v\n",
		strings.Repeat("k", 129) + ": v\n",
		"A" + strings.Repeat("0", 1024) + ": A",
		longDescription,
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
	for _, in := range []string{"name: pdf\ndescription: Work with PDF files.\n", longDescription} {
		if _, ok := parseSimple([]byte(in)); !ok {
			t.Errorf("the common shape must take the fast path: %.40q", in)
		}
	}
}

// longDescription is front matter of the common shape with a description
// past the 1024 characters the specification allows.
var longDescription = "name: pdf\ndescription: " + strings.Repeat("Fills and reads PDF forms. ", 60) + "\n"

// maxFuzzLen bounds the inputs FuzzParseSimple checks. Nothing the fast
// path does depends on length past its 128-byte cap on keys, but the
// fuzzer minimises each new input it keeps, at a cost that grows with the
// square of the input's length: unbounded, it kept inputs of one to four
// kilobytes (long values, which reach new code in the YAML library) and
// spent up to 12 s of a 20-second run minimising them, at 0 executions
// per second. Longer inputs are in TestParseSimpleAgreesWithYAML.
const maxFuzzLen = 256

func FuzzParseSimple(f *testing.F) {
	f.Add("name: pdf\ndescription: Work with PDF files.\n")
	f.Add("name: x\ndescription: a: b\n")
	f.Add("a: Null\nb: ~x\n")
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > maxFuzzLen {
			return
		}
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
