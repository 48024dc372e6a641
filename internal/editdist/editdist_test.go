package editdist

import "testing"

func TestDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "abc", 0}, {"", "abc", 3}, {"kitten", "sitting", 3}, {"paht", "path", 2}, {"acess", "access", 1},
	} {
		if got := Distance(tt.a, tt.b); got != tt.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestClosest(t *testing.T) {
	c := []string{"path", "paths", "name", "type"}
	if got := Closest("PAHT", c, 2); got != "path" {
		t.Errorf("got %q", got)
	}
	if got := Closest("zzzzzz", c, 2); got != "" {
		t.Errorf("got %q", got)
	}
}
