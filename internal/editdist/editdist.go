// Package editdist measures how far apart two names are, for "did you
// mean" suggestions in skill lookups and configuration errors.
package editdist

import "strings"

// Distance is the Levenshtein edit distance between a and b, counted in
// bytes; the names it compares are ASCII in practice. It costs the product
// of the lengths: use AtMost when only near names matter.
func Distance(a, b string) int {
	return AtMost(a, b, max(len(a), len(b)))
}

// AtMost is the edit distance between a and b when it is at most k, and
// k+1 otherwise. Only a band of 2k+1 cells of each row is computed, and
// the work stops as soon as no cell of a row is within k, so it costs
// about len(a)·k rather than len(a)·len(b): long names that are far apart
// cost little.
func AtMost(a, b string, k int) int {
	if k < 0 {
		return k + 1
	}
	if d := len(a) - len(b); d > k || -d > k {
		return k + 1
	}
	inf := k + 1
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = min(j, inf)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-k), min(len(b), i+k)
		cur[0] = min(i, inf)
		if lo > 1 {
			cur[lo-1] = inf
		}
		best := cur[0]
		for j := lo; j <= hi; j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost, inf)
			cur[j] = v
			best = min(best, v)
		}
		if hi < len(b) {
			cur[hi+1] = inf
		}
		if best > k {
			return inf
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
		if d := AtMost(strings.ToLower(s), strings.ToLower(c), bestD-1); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
