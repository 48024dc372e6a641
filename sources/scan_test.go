package sources

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// agreeWithYAML checks the scanner against the YAML library on front, and
// returns the scanner's summary and whether it was sure. When it is sure,
// the library must accept front and give the same summary, and the same
// value for every top-level key whose value the scanner resolved.
func agreeWithYAML(t *testing.T, front string) (frontSummary, bool) {
	t.Helper()
	values := map[string]fieldValue{}
	got, sure := scanFront([]byte(front), func(k string, v fieldValue) { values[k] = v })
	if !sure {
		return got, false
	}
	m, dates, err := unmarshalMap([]byte(front))
	if err != nil {
		t.Fatalf("%q: the scanner is sure of what the YAML library rejects: %v", front, err)
	}
	want := summarize(m, dates)
	if got.name != want.name || got.description != want.description ||
		got.disableModelInvocation != want.disableModelInvocation || got.userInvocable != want.userInvocable ||
		!slices.Equal(got.keys, want.keys) {
		t.Fatalf("%q: the scanner and the YAML library disagree (-yaml +scanner):\n%s", front,
			cmp.Diff(want, got, cmp.AllowUnexported(frontSummary{}, fieldValue{})))
	}
	for k, v := range values {
		if w := valueOf(m[k], dates[k]); v != w {
			t.Fatalf("%q: key %q: the scanner reads %#v, the YAML library %#v", front, k, v, w)
		}
	}
	return got, true
}

// TestScanCorpus checks that every real front matter of the shared corpus
// takes the fast path, and that the skill served from it is the one the
// YAML library's reading gives.
func TestScanCorpus(t *testing.T) {
	for _, p := range corpusSkillFiles(t) {
		rel, _ := filepath.Rel(filepath.Join("..", "..", "shared", "corpus"), p)
		t.Run(rel, func(t *testing.T) {
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			front, err := ReadFrontMatter(f)
			f.Close()
			if err != nil {
				t.Fatal(err)
			}
			if _, sure := agreeWithYAML(t, string(front)); !sure {
				t.Errorf("falls back to the YAML library:\n%s", front)
			}
			fm, dates, err := parseFrontMatter(front)
			if err != nil {
				t.Fatal(err)
			}
			want, wantErr := skillOf(front, localLocation(p, KindSkill), summarize(fm, dates), LoadOptions{})
			got, gotErr := newSkill(p, front, LoadOptions{})
			if diff := cmp.Diff(wantErr, gotErr); diff != "" {
				t.Errorf("error (-yaml +fast):\n%s", diff)
			}
			if want == nil || got == nil {
				return
			}
			type view struct {
				Ref                                   Ref
				Description                           string
				Diagnostics                           []Diagnostic
				DisableModelInvocation, UserInvocable bool
			}
			if diff := cmp.Diff(
				view{want.Ref, want.Description, want.Diagnostics, want.DisableModelInvocation, want.UserInvocable},
				view{got.Ref, got.Description, got.Diagnostics, got.DisableModelInvocation, got.UserInvocable},
			); diff != "" {
				t.Errorf("skill (-yaml +fast):\n%s", diff)
			}
		})
	}
}

// TestScanScalars decodes tricky descriptions in each scalar style. Each
// must be read by the scanner (sure), with the value given, which the
// YAML library must agree with.
func TestScanScalars(t *testing.T) {
	str := func(s string) fieldValue { return fieldValue{kind: stringValue, text: s} }
	tests := []struct {
		name, front string
		want        fieldValue
	}{
		// plain
		{"plain", "description: Work with PDF files.\n", str("Work with PDF files.")},
		{"plain, trailing spaces and comment", "description: a b  # not this\n", str("a b")},
		{"plain with inner colon, hash and quotes", "description: C# at http://x 'q' \"d\" [a] {b}\n", str(`C# at http://x 'q' "d" [a] {b}`)},
		{"plain folded over lines", "description: one\n  two\n\n  three\n\n\n   four\nname: x\n", str("one two\nthree\n\nfour")},
		{"plain on the next line", "description:\n  one\n two\n", str("one two")},
		{"plain continued by a dash line", "description: a\n  - b\n", str("a - b")},
		{"plain ended by a comment line", "description: a\n# note\nname: x\n", str("a")},
		{"plain starting with a dash, colon or question mark", "description: -x :y ?z\n", str("-x :y ?z")},
		{"plain yes is a string", "description: yes\n", str("yes")},
		{"plain No is a string", "description: No\n", str("No")},
		{"plain true", "description: true\n", fieldValue{kind: boolValue, text: "true"}},
		{"plain FALSE", "description: FALSE\n", fieldValue{kind: boolValue, text: "FALSE"}},
		{"plain hexadecimal", "description: 0x1F\n", fieldValue{kind: intValue, text: "0x1F"}},
		{"plain octal, old style", "description: 017\n", fieldValue{kind: intValue, text: "017"}},
		{"plain binary", "description: 0b101\n", fieldValue{kind: intValue, text: "0b101"}},
		{"plain binary with a sign after the prefix", "description: 0b-1\n", fieldValue{kind: intValue, text: "0b-1"}},
		{"plain with underscores", "description: 1_000\n", fieldValue{kind: intValue, text: "1_000"}},
		{"plain past int64", "description: 18446744073709551615\n", fieldValue{kind: intValue, text: "18446744073709551615"}},
		{"plain past uint64", "description: 99999999999999999999\n", fieldValue{kind: floatValue, text: "99999999999999999999"}},
		{"plain 08 is a float", "description: 08\n", fieldValue{kind: floatValue, text: "08"}},
		{"plain exponent", "description: 1e3\n", fieldValue{kind: floatValue, text: "1e3"}},
		{"plain leading dot", "description: .5\n", fieldValue{kind: floatValue, text: ".5"}},
		{"plain .inf", "description: .inf\n", fieldValue{kind: floatValue, text: ".inf"}},
		{"plain -.INF", "description: -.INF\n", fieldValue{kind: floatValue, text: "-.INF"}},
		{"plain .NaN", "description: .NaN\n", fieldValue{kind: floatValue, text: ".NaN"}},
		{"plain version keeps its zero", "description: 2.10\n", fieldValue{kind: floatValue, text: "2.10"}},
		{"plain leading zero keeps it", "description: 0123\n", fieldValue{kind: intValue, text: "0123"}},
		{"plain negative zero", "description: -0.0\n", fieldValue{kind: floatValue, text: "-0.0"}},
		{"plain True as written", "description: True\n", fieldValue{kind: boolValue, text: "True"}},
		{"plain .Nan is a string", "description: .Nan\n", str(".Nan")},
		{"plain 1.2.3 is a string", "description: 1.2.3\n", str("1.2.3")},
		{"plain ~", "description: ~\n", fieldValue{kind: nullValue}},
		{"plain Null", "description: Null\n", fieldValue{kind: nullValue}},
		{"empty", "description:\nname: x\n", fieldValue{kind: nullValue}},
		{"empty with a comment", "description: # none\n", fieldValue{kind: nullValue}},
		// single-quoted
		{"single-quoted", "description: 'it''s # here: yes'\n", str("it's # here: yes")},
		{"single-quoted keeps backslashes", `description: 'a\nb'` + "\n", str(`a\nb`)},
		{"single-quoted folded", "description: 'one  \n   two\n\n  three '\n", str("one two\nthree ")},
		// double-quoted
		{"double-quoted escapes", `description: "a\tb\n\"c\" \\ \x41\u00e9\U0001F600 \/"` + "\n", fieldValue{}},
		{"double-quoted known escapes", `description: "\0\a\b\v\f\r\e\ \_\N\L\P\'"` + "\n", str("\x00\a\b\v\f\r\x1b \u00a0\u0085\u2028\u2029'")},
		{"double-quoted unicode", `description: "\x41\u00e9\U0001F600"` + "\n", str("Aé😀")},
		{"double-quoted folded", "description: \"one\n  two  \n\n  three\"\n", str("one two\nthree")},
		{"double-quoted escaped line break", "description: \"one \\\n   two\\\n\n  three\"\n", str("one two\nthree")},
		{"double-quoted keeps inner spaces", "description: \"  a  \"\n", str("  a  ")},
		{"double-quoted on the next line", "description:\n  \"a\n  b\"\n", str("a b")},
		{"double-quoted then a comment", "description: \"a\" # b\n", str("a")},
		// literal
		{"literal", "description: |\n  a\n   b\n\n  c\n\n\nname: x\n", str("a\n b\n\nc\n")},
		{"literal strip", "description: |-\n  a\n\n", str("a")},
		{"literal keep", "description: |+\n  a\n\n\nname: x\n", str("a\n\n\n")},
		{"literal with an indentation indicator", "description: |2-\n    a\n  b\n", str("  a\nb")},
		{"literal with both indicators the other way", "description: |+1\n  a\n", str(" a\n")},
		{"literal with a comment after its header", "description: | # note\n  a # not a comment\n", str("a # not a comment\n")},
		{"literal with leading empty lines", "description: |\n\n \n  a\n", str("\n\na\n")},
		{"literal at the end without a line break", "description: |\n  a", str("a")},
		{"literal empty", "description: |\nname: x\n", str("")},
		{"literal empty, keep", "description: |+\n\nname: x\n", str("\n")},
		// folded
		{"folded", "description: >\n  one\n  two\n\n  three\n   more\n  four\n", str("one two\nthree\n more\nfour\n")},
		{"folded strip", "description: >-\n  a\n  b\n\n", str("a b")},
		// collections
		{"flow list", "description: [a, \"b\"]\n", fieldValue{kind: listValue}},
		{"block list", "description:\n- a\n- b\n", fieldValue{kind: listValue}},
		{"block map", "description:\n  a: b\n", fieldValue{kind: mapValue}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, sure := agreeWithYAML(t, tt.front)
			if !sure {
				if tt.want != (fieldValue{}) {
					t.Fatalf("not sure of %q", tt.front)
				}
				return
			}
			if tt.want == (fieldValue{}) {
				t.Fatalf("sure of %q, which it should leave to the YAML library", tt.front)
			}
			if got.description != tt.want {
				t.Errorf("description = %#v, want %#v", got.description, tt.want)
			}
		})
	}
}

// TestScanNotSure lists front matter the scanner must leave to the YAML
// library.
func TestScanNotSure(t *testing.T) {
	for _, front := range []string{
		"description: &a x\nname: *a\n",      // anchor, alias
		"description: !!str 1\n",             // tag
		"? description\n: x\n",               // complex key
		"description: {a: 1}\n",              // flow map as the description
		"description: x\n\tname: y\n",        // tab
		"description: x\nname: y\nname: z\n", // duplicate key
		"metadata:\n  a: 1\n  a: 2\ndescription: x\n",
		"description: x\n--- \nname: y\n",         // document marker
		"description: \ufeffx\n",                  // byte order mark
		"description: 2001-12-14\n",               // timestamp
		"<<: {description: x}\n",                  // merge key
		"description: Use when: you need X\n",     // YAML rejects it
		"description: a\n  b: c\n",                // YAML rejects it
		"  description: x\n",                      // indented root
		"description: \"a\nb\"\n",                 // quoted line not indented
		"tools: [a, # c\n  b]\ndescription: x\n",  // comment inside a flow list
		"description: x\nname: [a,\nb]\n",         // flow line not indented
		"description: |0\n  x\n",                  // bad indentation indicator
		"description: |\n   \n  x\n",              // empty line more indented than the text
		"description: x\r\n",                      // carriage return
		"description: \"\\ud800\"\n",              // surrogate escape
		"description: \"\\/\"\n",                  // unknown escape
		"description: x\n1: y\n",                  // key that is not a string
		"description: [a: b]\n",                   // single-pair map in a flow list
		"\"a\\\"b\": x\ndescription: y\n",         // escape in a key
		"description: x\n" + deep(scanMaxDepth+1), // too deep
		"description: x\ntools: [" + strings.Repeat("a, ", MaxValues) + "]\n",
		"description: x\ntools:\n" + strings.Repeat("- a\n", MaxValues),
	} {
		if _, sure := agreeWithYAML(t, front); sure {
			t.Errorf("sure of %q, which it should leave to the YAML library", front)
		}
	}
}

// deep returns a key nesting n block mappings.
func deep(n int) string {
	var b []byte
	for i := range n {
		b = append(b, make([]byte, 2*i)...)
		for j := len(b) - 2*i; j < len(b); j++ {
			b[j] = ' '
		}
		b = append(b, "k:\n"...)
	}
	return string(b)
}

// TestScanFields checks the keys and the flags.
func TestScanFields(t *testing.T) {
	front := "name: x\ndescription: y\n\"quoted key\": 1\nuser-invocable: false\ndisable-model-invocation: True\n" +
		"metadata:\n  short-description: s\n  tags: [a, {b: c}]\nallowed-tools:\n- Read\n- Bash(git:*)\nhooks: {a: [1, 2], 'b': \"c\"}\n"
	got, sure := agreeWithYAML(t, front)
	if !sure {
		t.Fatal("not sure")
	}
	want := []string{"allowed-tools", "description", "disable-model-invocation", "hooks", "metadata", "name", "quoted key", "user-invocable"}
	if diff := cmp.Diff(want, got.keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if !got.disableModelInvocation || got.userInvocable {
		t.Errorf("flags = %v, %v; want true, false", got.disableModelInvocation, got.userInvocable)
	}
	// Within MaxValues, a long list is read like a short one.
	if _, sure := agreeWithYAML(t, "description: x\ntools: ["+strings.Repeat("a, ", MaxValues-10)+"]\n"); !sure {
		t.Error("not sure of a list within MaxValues")
	}
	for front, want := range map[string]bool{
		"description: x\n":                          true,
		"description: x\nuser-invocable: yes\n":     true, // a string, not a boolean
		"description: x\nuser-invocable: 'false'\n": true,
		"description: x\nuser-invocable: FALSE\n":   false,
	} {
		if got, sure := agreeWithYAML(t, front); !sure || got.userInvocable != want {
			t.Errorf("%q: userInvocable = %v (sure: %v), want %v", front, got.userInvocable, sure, want)
		}
	}
}

func FuzzScanFrontMatter(f *testing.F) {
	for _, seed := range []string{
		"name: pdf\ndescription: Work with PDF files.\nlicense: Complete terms in LICENSE.txt\n",
		"name: x\ndescription: |-\n  First line.\n  Second: with a colon.\n\n  Last.\nlicense: MIT\n",
		"description: >+2\n   folded\n  text\n\n# c\n",
		"description: \"A \\\"quoted\\\" value\\tand \\u00e9\n  that \\\n  continues.\"\nversion: 0.1.0\n",
		"description: 'it''s\n\n  single'\nname: \"a:b\"\n",
		"description:\n  plain over\n  two lines # and a comment\nargument-hint: <arg> [opt]\n",
		"name: x\ndescription: Use when: X\n",
		"description: 0x1F\nname: 1e3\nuser-invocable: false\ndisable-model-invocation: true\n",
		"description: [a, b]\nallowed-tools: [Read, \"Bash(git:*)\", Bash(ls *)]\n",
		"description: x\nallowed-tools:\n  - Read\n  - Bash(ls *)\nmetadata:\n  version: 2\n  tags: {a: 1, 'b': [c]}\n",
		"description: x\nhooks:\n- matcher: a\n  run:\n  - b\n-\n  - c\n",
		"description: ~\nname: .inf\n# comment\n",
		"description: &a x\nname: *a\n",
		"description: 2.10\nname: 0123\nversion: 1_000\nlicense: -0.0\nuser-invocable: True\n",
		"description: &v 1e3\nname: *v\n",
		"description: .INF\nname: 0b-1\ndisable-model-invocation: TRUE\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, front string) {
		// Real front matter is a few hundred bytes, and every shape fits
		// in fewer; larger inputs would only make the fuzzer spend its
		// time minimizing them.
		if len(front) > 1024 {
			return
		}
		agreeWithYAML(t, front)
	})
}
