package yamlerr_test

import (
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/skillmux/skillmux/internal/yamlerr"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		doc      string
		wantLine int
		wantMsg  string
	}{
		{"name: x\ndescription: y\n\tbad: z\n", 3, "a tab is used for indentation; indent with spaces"},
		{"a: 1\nb:\n\tc: 2\n", 3, "found character that cannot start any token"},
		{"a: [1,\nb: 2\n", 2, "did not find expected ',' or ']'"},
		{"a: 1\n  b: 2\n", 2, "mapping values are not allowed in this context"},
	}
	for _, tt := range tests {
		var v any
		err := yaml.Unmarshal([]byte(tt.doc), &v)
		if err == nil {
			t.Fatalf("%q parsed", tt.doc)
		}
		line, msg := yamlerr.Split(err, []byte(tt.doc))
		if line != tt.wantLine || msg != tt.wantMsg {
			t.Errorf("%q: got line %d %q, want line %d %q (from %v)", tt.doc, line, msg, tt.wantLine, tt.wantMsg, err)
		}
	}
}
