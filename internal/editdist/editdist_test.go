package editdist

import (
	"strings"
	"testing"
)

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

// full is the textbook dynamic program, the reference for AtMost.
func full(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
		}
	}
	return d[len(a)][len(b)]
}

func TestAtMostAgreesWithTheFullDistance(t *testing.T) {
	// The long ones take the rows off the stack.
	long := strings.Repeat("skill-name-", 7)
	words := []string{"", "a", "ab", "abc", "acess", "access", "kitten", "sitting", "release-notes", "relase-note", "pdf", "docx", "xxxxxxxxxxxx",
		long, long[1:], long + "s", strings.Replace(long, "name", "nmae", 2)}
	for _, a := range words {
		for _, b := range words {
			want := full(a, b)
			for k := 0; k <= 14; k++ {
				got := AtMost(a, b, k)
				if want <= k && got != want || want > k && got != k+1 {
					t.Errorf("AtMost(%q, %q, %d) = %d; distance is %d", a, b, k, got, want)
				}
			}
		}
	}
}

func FuzzAtMost(f *testing.F) {
	f.Add("kitten", "sitting", 3)
	f.Fuzz(func(t *testing.T, a, b string, k int) {
		if len(a) > 100 || len(b) > 100 || k < 0 || k > 110 {
			return
		}
		want := full(a, b)
		got := AtMost(a, b, k)
		if want <= k && got != want || want > k && got != k+1 {
			t.Errorf("AtMost(%q, %q, %d) = %d; distance is %d", a, b, k, got, want)
		}
	})
}
