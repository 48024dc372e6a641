package yamlerr_test

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/skillmux/skillmux/internal/yamlerr"
)

func parse(b []byte) error {
	var v any
	return yaml.Unmarshal(b, &v)
}

// The configuration loader's tests cover the cases in depth; these pin
// the ones the SKILL.md parser meets most.
func TestLocate(t *testing.T) {
	tests := []struct {
		doc      string
		wantLine int
		wantMsg  string
	}{
		{"name: x\ndescription: y\n\tbad: z\n", 3, "indent with spaces"},
		{"a: 1\nb:\n\tc: 2\n", 3, "indent with spaces"},
		{"a: [1,\nb: 2\n", 3, "did not find expected ',' or ']'"},
		{"a: 1\n  b: 2\n", 2, "mapping values are not allowed in this context"},
		{"a: *nope\n", 1, "unknown anchor"},
		{"name: x\ndescription: a\ndescription: b\n", 3, `the key "description" is set twice, here and on line 2; keep one`},
		{"a: 1\nb: 2\nb: 3\na: 4\n", 3, `the key "b" is set twice, here and on line 2; keep one`},
		{"m:\n  k: 1\n  k: 2\n", 3, `the key "k" is set twice, here and on line 2; keep one`},
	}
	for _, tt := range tests {
		err := parse([]byte(tt.doc))
		if err == nil {
			t.Fatalf("%q parsed", tt.doc)
		}
		line, msg := yamlerr.Locate([]byte(tt.doc), 0, err, parse)
		if line != tt.wantLine || !strings.Contains(msg, tt.wantMsg) || !strings.HasPrefix(msg, "not valid YAML: ") {
			t.Errorf("%q: got line %d %q, want line %d and %q (from %v)", tt.doc, line, msg, tt.wantLine, tt.wantMsg, err)
		}
	}
}

// TestLocateOffset: with data taken from further down a file, both the
// line returned and a line the message names count from the file's top.
func TestLocateOffset(t *testing.T) {
	tests := []struct {
		doc      string
		wantLine int
		wantMsg  string
	}{
		{"name: x\ndescription: a\ndescription: b\n", 4, `not valid YAML: the key "description" is set twice, here and on line 3; keep one`},
		{"a: 1\nb:\n\tc: 2\n", 4, "not valid YAML: a tab is used for indentation; indent with spaces"},
	}
	for _, tt := range tests {
		err := parse([]byte(tt.doc))
		line, msg := yamlerr.Locate([]byte(tt.doc), 1, err, parse)
		if line != tt.wantLine || msg != tt.wantMsg {
			t.Errorf("%q: got line %d %q, want line %d %q", tt.doc, line, msg, tt.wantLine, tt.wantMsg)
		}
	}
}

func TestBadChar(t *testing.T) {
	if line, msg := yamlerr.BadChar([]byte("a: 1\nb: \xff\n")); line != 2 || !strings.Contains(msg, "UTF-8") {
		t.Errorf("got %d %q", line, msg)
	}
	if line, _ := yamlerr.BadChar([]byte("a: 1\n")); line != 0 {
		t.Errorf("clean text: line %d", line)
	}
}
