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
	if bagDistance(a, b) > k {
		return inf
	}
	// Two rows; on the stack for names of up to 64 bytes, as skill names
	// are: a lookup of an unknown name compares it with every name of the
	// catalog.
	var rows [2][65]int
	prev, cur := rows[0][:], rows[1][:]
	if len(b) >= len(rows[0]) {
		prev, cur = make([]int, len(b)+1), make([]int, len(b)+1)
	}
	prev, cur = prev[:len(b)+1], cur[:len(b)+1]
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

// bagDistance is a lower bound of the edit distance between a and b that
// costs one pass over each: the bytes one has more of than the other, the
// larger count of the two ways. Each edit changes each count by one at
// most. Most names of a catalog are that far from a typo already, and
// skip the table.
func bagDistance(a, b string) int {
	var count [256]int32
	for i := 0; i < len(a); i++ {
		count[a[i]]++
	}
	for i := 0; i < len(b); i++ {
		count[b[i]]--
	}
	more, fewer := 0, 0
	for i := 0; i < len(a); i++ {
		if c := count[a[i]]; c > 0 {
			more += int(c)
			count[a[i]] = 0
		}
	}
	for i := 0; i < len(b); i++ {
		if c := count[b[i]]; c < 0 {
			fewer -= int(c)
			count[b[i]] = 0
		}
	}
	return max(more, fewer)
}
