// Package editdist measures how far apart two names are, for "did you
// mean" suggestions in skill lookups and configuration errors.
package editdist

import "strings"

// Distance is the Levenshtein edit distance between a and b, counted in
// bytes; the names it compares are ASCII in practice.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Closest returns the candidate nearest to s, ignoring case, if it is
// within limit edits; else "".
func Closest(s string, candidates []string, limit int) string {
	best, bestD := "", limit+1
	for _, c := range candidates {
		if d := Distance(strings.ToLower(s), strings.ToLower(c)); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
