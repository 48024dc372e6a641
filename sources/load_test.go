package sources_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/skillmux/skillmux/sources"
)

// writeSkill writes content as <dir>/<folder>/SKILL.md and returns its path.
func writeSkill(t *testing.T, folder, content string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), folder)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "SKILL.md")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func rules(ds []sources.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Severity.String()+":"+d.Field+":"+d.Rule)
	}
	return out
}

func TestLoad(t *testing.T) {
	longDesc := strings.Repeat("Handles very long descriptions. ", 40) // > 1024
	tests := []struct {
		name     string
		folder   string
		content  string
		wantName string
		wantDesc string
		wantFM   map[string]any // checked when non-nil
		wantDiag []string
	}{
		{
			name:     "plain",
			folder:   "pdf",
			content:  "---\nname: pdf\ndescription: Work with PDF files.\n---\n# PDF\n",
			wantName: "pdf", wantDesc: "Work with PDF files.",
		},
		{
			name:     "CRLF line endings",
			folder:   "crlf",
			content:  "---\r\nname: crlf\r\ndescription: Windows line endings.\r\n---\r\nbody\r\n",
			wantName: "crlf", wantDesc: "Windows line endings.",
		},
		{
			name:     "UTF-8 BOM",
			folder:   "bom",
			content:  "\xef\xbb\xbf---\nname: bom\ndescription: Starts with a byte order mark.\n---\n",
			wantName: "bom", wantDesc: "Starts with a byte order mark.",
		},
		{
			name:     "literal block scalar keeps line breaks",
			folder:   "block",
			content:  "---\nname: block\ndescription: |-\n  First line.\n  Second line: with a colon.\nlicense: MIT\n---\n",
			wantName: "block", wantDesc: "First line.\nSecond line: with a colon.",
		},
		{
			name:     "folded block scalar",
			folder:   "folded",
			content:  "---\nname: folded\ndescription: >\n  One sentence\n  over two lines.\n---\n",
			wantName: "folded", wantDesc: "One sentence over two lines.",
		},
		{
			name:     "double-quoted string over several lines",
			folder:   "quoted",
			content:  "---\nname: quoted\ndescription: \"A quoted value\n  that continues.\"\n---\n",
			wantName: "quoted", wantDesc: "A quoted value that continues.",
		},
		{
			name:     "flow list and nested map with non-string values",
			folder:   "lists",
			content:  "---\nname: lists\ndescription: Has lists.\nallowed-tools: [Read, \"Bash(git:*)\"]\nmetadata:\n  version: 2\n  tags: {a: 1}\n---\n",
			wantName: "lists", wantDesc: "Has lists.",
			wantFM: map[string]any{
				"name": "lists", "description": "Has lists.",
				"allowed-tools": []any{"Read", "Bash(git:*)"},
				"metadata":      map[string]any{"version": 2, "tags": map[string]any{"a": 1}},
			},
		},
		{
			name:     "unquoted colon in a value is retried as a string",
			folder:   "colon",
			content:  "---\nname: colon\ndescription: Use when: you need X. Also: Y\n---\n",
			wantName: "colon", wantDesc: "Use when: you need X. Also: Y",
		},
		{
			name:     "dashes inside the description and the body",
			folder:   "dashes",
			content:  "---\nname: dashes\ndescription: \"a --- b\"\n---\nbody\n---\nmore\n---\n",
			wantName: "dashes", wantDesc: "a --- b",
		},
		{
			name:     "name differs from folder: warned, served under its name",
			folder:   "template",
			content:  "---\nname: template-skill\ndescription: A template.\n---\n",
			wantName: "template-skill", wantDesc: "A template.",
			wantDiag: []string{"warning:name:name-matches-folder"},
		},
		{
			name:     "missing name falls back to the folder",
			folder:   "nameless",
			content:  "---\ndescription: No name.\n---\n",
			wantName: "nameless", wantDesc: "No name.",
			wantDiag: []string{"warning:name:name-required"},
		},
		{
			name:     "over-long description is warned and served",
			folder:   "long",
			content:  "---\nname: long\ndescription: " + longDesc + "\n---\n",
			wantName: "long", wantDesc: strings.TrimSpace(longDesc),
			wantDiag: []string{"warning:description:description-length"},
		},
		{
			name:     "bidirectional controls in a description are warned",
			folder:   "bidi",
			content:  "---\nname: bidi\ndescription: \"Reads \u202eesrever\u202c.\"\n---\n",
			wantName: "bidi", wantDesc: "Reads \u202eesrever\u202c.",
			wantDiag: []string{"warning:description:description-bidi"},
		},
		{
			name:     "unknown keys are warned, client extensions are not",
			folder:   "extra",
			content:  "---\nname: extra\ndescription: Extra keys.\nversion: 1.0.0\nuser-invocable: true\nargument-hint: \"[file]\"\ndisable-model-invocation: false\ndescripton: typo\n---\n",
			wantName: "extra", wantDesc: "Extra keys.",
			wantDiag: []string{"warning:descripton:unknown-field"},
		},
		{
			name:     "name with a colon cannot be served as is",
			folder:   "odd",
			content:  "---\nname: \"a:b\"\ndescription: Odd name.\n---\n",
			wantName: "odd", wantDesc: "Odd name.",
			wantDiag: []string{"warning:name:name-format", "warning:name:name-matches-folder", "warning:name:name-unusable"},
		},
		{
			name:     "numeric description is accepted as text",
			folder:   "num",
			content:  "---\nname: num\ndescription: 42\n---\n",
			wantName: "num", wantDesc: "42",
			wantDiag: []string{"warning:description:description-type"},
		},
		{
			name:     "a date as the description is accepted as text, as written",
			folder:   "dated",
			content:  "---\nname: dated\ndescription: 2024-01-02\n---\n",
			wantName: "dated", wantDesc: "2024-01-02",
			wantDiag: []string{"warning:description:description-type"},
		},
		{
			name:     "a time stamp as the description is accepted as text, as written",
			folder:   "stamped",
			content:  "---\nname: stamped\ndescription: 2001-12-14T21:59:43.10-05:00\n---\n",
			wantName: "stamped", wantDesc: "2001-12-14T21:59:43.10-05:00",
			wantDiag: []string{"warning:description:description-type"},
		},
		{
			name:     "a null key is an unknown key, named as written",
			folder:   "nullkey",
			content:  "---\nname: nullkey\ndescription: x\n~: y\n---\n",
			wantName: "nullkey", wantDesc: "x",
			wantDiag: []string{"warning:~:unknown-field"},
		},
		{
			name:     "a date as the name gives way to the folder's name",
			folder:   "day",
			content:  "---\nname: 2024-01-01\ndescription: A day.\n---\n",
			wantName: "day", wantDesc: "A day.",
			wantDiag: []string{"warning:name:name-type"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeSkill(t, tt.folder, tt.content)
			sk, err := sources.Load(p, sources.LoadOptions{Source: "test", Scope: sources.ScopeRoot})
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			if sk.Ref.Name != tt.wantName {
				t.Errorf("name = %q, want %q", sk.Ref.Name, tt.wantName)
			}
			if sk.Description != tt.wantDesc {
				t.Errorf("description = %q, want %q", sk.Description, tt.wantDesc)
			}
			if tt.wantFM != nil {
				fm, err := sk.Fields()
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.wantFM, fm); diff != "" {
					t.Errorf("front matter (-want +got):\n%s", diff)
				}
			}
			if diff := cmp.Diff(tt.wantDiag, rules(sk.Diagnostics)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\n%v", diff, sk.Diagnostics)
			}
			for _, d := range sk.Diagnostics {
				if d.Path != p {
					t.Errorf("diagnostic %v does not name the file %s", d, p)
				}
				if goType.MatchString(d.Message) {
					t.Errorf("diagnostic %v names a Go type, not a YAML one", d)
				}
				if strings.HasSuffix(d.Rule, "-type") && !strings.Contains(d.Message, "; quote it: "+d.Field+": ") {
					t.Errorf("diagnostic %v does not say how to make the value a string", d)
				}
			}
			if sk.Dir != filepath.Dir(p) || sk.Path != p || sk.Kind != sources.KindSkill || sk.Source != "test" {
				t.Errorf("location = %+v", sk)
			}
		})
	}
}

// TestLoadNumbersAsWritten checks that a description YAML reads as a
// number or a boolean is served as it is written, not as the value the
// YAML library decodes (2.10 is not 2.1, 0123 is not 83), and that the
// warning says to quote that text, on the fast path and on the YAML
// library's (an anchor sends a file there).
func TestLoadNumbersAsWritten(t *testing.T) {
	for _, written := range []string{"2.10", "0123", "1e3", "0x1F", "1_000", ".inf", "-0.0", "123456789012345678901234567890", "True"} {
		for _, path := range []struct{ name, desc string }{{"fast", written}, {"yaml", "&d " + written}} {
			t.Run(written+"/"+path.name, func(t *testing.T) {
				p := writeSkill(t, "num", "---\nname: num\ndescription: "+path.desc+"\n---\n")
				sk, err := sources.Load(p, sources.LoadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if sk.Description != written {
					t.Errorf("description = %q, want %q", sk.Description, written)
				}
				want := fmt.Sprintf("; quote it: description: %q", written)
				if len(sk.Diagnostics) != 1 || !strings.HasSuffix(sk.Diagnostics[0].Message, want) {
					t.Errorf("diagnostics = %v, want one ending %q", sk.Diagnostics, want)
				}
			})
		}
	}
}

// goType matches Go's names of the types the YAML library decodes to,
// which say nothing to the author of a SKILL.md.
var goType = regexp.MustCompile(`interface \{\}|time\.Time|map\[|\[\]|int64|float64`)

func TestLoadRefuses(t *testing.T) {
	tests := []struct {
		name     string
		content  string
		wantRule string
		wantLine int
		wantText string
	}{
		{"YAML that cannot be parsed", "---\nname: bad\ndescription: [unclosed\n---\n", "yaml", 0, "not valid YAML"},
		{"no description", "---\nname: nodesc\n---\nbody\n", "description-required", 0, "description"},
		{"empty description", "---\nname: empty\ndescription: \"  \"\n---\n", "description-required", 0, "empty"},
		{"description of control characters only", "---\nname: ctl\ndescription: \"\\x01\\x02\"\n---\n", "description-required", 0, "shows nothing"},
		{"description of bidirectional controls only", "---\nname: bidi\ndescription: \"\\u202e \\u2066\"\n---\n", "description-required", 0, "shows nothing"},
		{"description of a zero-width space only", "---\nname: zw\ndescription: \"\\u200b\"\n---\n", "description-required", 0, "shows nothing"},
		{"description of Hangul fillers and a braille blank only", "---\nname: fill\ndescription: \"\\u3164\\u3164 \\u2800\"\n---\n", "description-required", 0, "shows nothing"},
		{"description is a list", "---\nname: list\ndescription: [a, b]\n---\n", "description-type", 0, "must be a string"},
		{"no front matter", "# Just markdown\n", "front-matter", 1, "must start with a line `---`"},
		{"an empty file", "", "front-matter", 1, "no front matter: the file is empty; the file must start with a line `---`"},
		{"a binary file", "\x00\x01\x02\xff\xfe---\n", "front-matter", 1, "no front matter: the file holds NUL bytes: it is not UTF-8 text"},
		{"Latin-1 text", "# R\xe9sum\xe9\n---\nname: l\n", "front-matter", 1, "no front matter: its first line is not UTF-8 text"},
		{"one empty line", "\n", "front-matter", 1, "no front matter: the file is empty"},
		{"a blank line first", "\n---\nname: b\ndescription: x\n---\n", "front-matter", 1, "no front matter: its first line is blank, and the line `---` must be the very first"},
		{"TOML front matter", "+++\nname = \"t\"\n+++\n", "front-matter", 1, "no front matter: it starts with `+++`, TOML front matter"},
		{"a symbolic link stored as a plain file", "../../shared/pdf/SKILL.md", "front-matter", 1, `no front matter: the file holds only the path "../../shared/pdf/SKILL.md", as a symbolic link does: it is a link stored as a plain file`},
		{"a symbolic link stored as a plain file, with a line end", "../../shared/pdf/SKILL.md\n", "front-matter", 1, `the file holds only the path "../../shared/pdf/SKILL.md", as a symbolic link does`},
		{"one line of words with a slash", "see ../pdf/SKILL.md", "front-matter", 1, "must start with a line `---`"},
		{"a path, then more", "../pdf/SKILL.md\nmore\n", "front-matter", 1, "must start with a line `---`"},
		{"a key that is a list", "---\nname: k\ndescription: x\n[a, b]: c\n---\n", "yaml", 4, "a key must be a plain word, got a list"},
		{"a key that is a map, nested", "---\nname: k\ndescription: x\nmetadata:\n  {a: 1}: c\n---\n", "yaml", 5, "a key must be a plain word, got a map"},
		{"a key that is a block list", "---\nname: k\ndescription: x\n? - a\n  - b\n: c\n---\n", "yaml", 4, "a key must be a plain word, got a list"},
		{"UTF-16, little-endian", "\xff\xfe-\x00-\x00-\x00\n\x00n\x00", "front-matter", 1, "the file is UTF-16; save it as UTF-8"},
		{"UTF-16, big-endian", "\xfe\xff\x00-\x00-\x00-\x00\n\x00n", "front-matter", 1, "the file is UTF-16; save it as UTF-8"},
		{"lines that end with CR alone", "---\rname: cr\rdescription: x\r---\r", "front-matter", 1, "its lines end with a carriage return (CR) alone; save it with LF (or CRLF) line ends"},
		{"front matter not closed", "---\nname: open\ndescription: never closed\n", "front-matter", 0, "not closed"},
		{"front matter is not a map", "---\n# a list\n- a\n- b\n---\n", "yaml", 3, "front matter is a list, not a map of keys to values"},
		{"description is a map", "---\nname: m\ndescription: {a: b}\n---\n", "description-type", 0, "must be a string, got a map"},
		{"YAML error line counts from the top of the file", "---\nname: x\ndescription: y\n\tbad: z\n---\n", "yaml", 4, "indent with spaces"},
		{"a key set twice, lines counted from the top of the file", "---\nname: x\ndescription: a\ndescription: b\n---\n", "yaml", 4,
			`front matter is not valid YAML: the key "description" is set twice, here and on line 3; keep one`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeSkill(t, "s", tt.content)
			sk, err := sources.Load(p, sources.LoadOptions{})
			if err == nil {
				t.Fatalf("Load accepted it: %+v", sk)
			}
			var d sources.Diagnostic
			if !errors.As(err, &d) {
				t.Fatalf("error %v is not a Diagnostic", err)
			}
			if d.Path != p || d.Rule != tt.wantRule || d.Severity != sources.Error || !strings.Contains(d.Message, tt.wantText) || goType.MatchString(d.Message) {
				t.Errorf("got %+v; want path %s, rule %s, message containing %q", d, p, tt.wantRule, tt.wantText)
			}
			if tt.wantLine != 0 && d.Line != tt.wantLine {
				t.Errorf("line = %d, want %d (%s)", d.Line, tt.wantLine, d)
			}
		})
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := sources.Load(filepath.Join(t.TempDir(), "gone", "SKILL.md"), sources.LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("err = %v, want one naming the file", err)
	}
}

func TestLoadLearnedNote(t *testing.T) {
	dir := t.TempDir()
	note := filepath.Join(dir, "deploy-tips.md")
	os.WriteFile(note, []byte("---\ndescription: How we deploy.\n---\nUse the blue button.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "other.md"), []byte("---\ndescription: Another.\n---\n"), 0o644)
	sk, err := sources.Load(note, sources.LoadOptions{Kind: sources.KindLearned})
	if err != nil {
		t.Fatal(err)
	}
	if sk.Ref.Name != "deploy-tips" || sk.Kind != sources.KindLearned || len(sk.Diagnostics) != 0 {
		t.Errorf("got %+v", sk)
	}
	if sk.EntryFile() != "deploy-tips.md" {
		t.Errorf("entry = %q", sk.EntryFile())
	}
	if _, err := sk.Files.Open("other.md"); err == nil {
		t.Error("a learned note exposes its neighbours")
	}
}

func TestSplitFrontMatter(t *testing.T) {
	front, body, err := sources.SplitFrontMatter([]byte("---\r\na: 1\r\n---\r\nbody ---\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	if string(front) != "a: 1\n" || string(body) != "body ---\n---\n" {
		t.Errorf("front %q body %q", front, body)
	}
}

func TestRef(t *testing.T) {
	tests := []struct {
		in   string
		want sources.Ref
		str  string
	}{
		{"pdf", sources.Ref{Name: "pdf"}, "pdf"},
		{"example-skills:pdf", sources.Ref{Namespace: "example-skills", Name: "pdf"}, "example-skills:pdf"},
		{" a:b:c ", sources.Ref{Namespace: "a:b", Name: "c"}, "a:b:c"},
	}
	for _, tt := range tests {
		got := sources.ParseRef(tt.in)
		if got != tt.want || got.String() != tt.str {
			t.Errorf("ParseRef(%q) = %+v (%s)", tt.in, got, got)
		}
	}
	if sources.ParseRef("A:B").Key() != sources.ParseRef("a:b").Key() {
		t.Error("keys are not case-insensitive")
	}
}

func TestLoadInvocationFlags(t *testing.T) {
	tests := []struct {
		name, extra          string
		wantDisable, wantUse bool
	}{
		{"absent: the defaults", "", false, true},
		{"disable-model-invocation: true", "disable-model-invocation: true\n", true, true},
		{"user-invocable: false", "user-invocable: false\n", false, false},
		{"both, spelled as YAML allows", "disable-model-invocation: True\nuser-invocable: FALSE\n", true, false},
		{"strings are not booleans", "disable-model-invocation: \"true\"\nuser-invocable: 'false'\n", false, true},
		{"yes and no are strings", "disable-model-invocation: yes\nuser-invocable: no\n", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := writeSkill(t, "flags", "---\nname: flags\ndescription: Flags.\n"+tt.extra+"---\n")
			sk, err := sources.Load(p, sources.LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if sk.DisableModelInvocation != tt.wantDisable || sk.UserInvocable != tt.wantUse {
				t.Errorf("DisableModelInvocation, UserInvocable = %v, %v; want %v, %v", sk.DisableModelInvocation, sk.UserInvocable, tt.wantDisable, tt.wantUse)
			}
			// A value that is not a boolean is named in a warning.
			warned := slices.ContainsFunc(sk.Diagnostics, func(d sources.Diagnostic) bool { return d.Rule == "flag-type" })
			if want := strings.Contains(tt.name, "strings"); warned != want {
				t.Errorf("flag-type warning: %v, want %v: %+v", warned, want, sk.Diagnostics)
			}
		})
	}
}

// A front matter longer than the limit, closed or not, is refused for its
// length, not as one without an end.
func TestLoadFrontMatterTooLong(t *testing.T) {
	p := writeSkill(t, "long", "---\nname: long\ndescription: "+strings.Repeat("x", sources.MaxFrontMatter+100)+"\n---\nBody.\n")
	_, err := sources.Load(p, sources.LoadOptions{})
	var d sources.Diagnostic
	if !errors.As(err, &d) || !strings.Contains(d.Message, "not closed within 64 KiB") {
		t.Fatalf("err = %v", err)
	}
}

// A reader of the text alone (the search index) reads the first limit
// bytes of an entry file over it, cut at a character, not none of it.
func TestPeekEntryReadsTheHeadOfALargeFile(t *testing.T) {
	body := strings.Repeat("é", 600) // 1,200 bytes
	p := writeSkill(t, "big", "---\nname: big\ndescription: Big.\n---\n"+body+"\n")
	sk, err := sources.Load(p, sources.LoadOptions{Source: "test", Scope: sources.ScopeRoot})
	if err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int64{1001, 1002} { // one cuts an é in two
		data, err := sources.PeekEntryInto(sk, limit, nil)
		if err != nil || int64(len(data)) > limit || int64(len(data)) < limit-1 || !utf8.Valid(data) || !strings.HasPrefix(string(data), "---\nname: big") {
			t.Errorf("limit %d: %d bytes, %v", limit, len(data), err)
		}
		if body, err := sources.PeekBody(sk, limit); err != nil || !strings.HasPrefix(string(body), "éé") {
			t.Errorf("limit %d: the body: %v", limit, err)
		}
	}
	if _, err := sources.ReadEntry(sk, 1000); !errors.Is(err, sources.ErrTooLarge) {
		t.Errorf("ReadEntry of more than its limit: %v; want ErrTooLarge", err)
	}
}
