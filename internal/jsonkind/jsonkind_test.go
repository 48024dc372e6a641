package jsonkind

import "testing"

func TestOf(t *testing.T) {
	for raw, want := range map[string]string{
		" null": "null", `{"a":1}`: "an object", "[1]": "an array", `"x"`: "a string",
		"true": "a boolean", "false": "a boolean", "2.5": "a number", "-1": "a number",
	} {
		if got := Of([]byte(raw)); got != want {
			t.Errorf("Of(%s) = %q, want %q", raw, got, want)
		}
	}
}
