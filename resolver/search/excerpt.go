package search

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/skillmux/skillmux/sources"
)

// ExcerptLength is about how many characters an excerpt has.
const ExcerptLength = 160

// maxTermHits bounds the occurrences of one term an excerpt considers.
const maxTermHits = 16

// isWordEnd reports whether c, the byte before a match, ends a word (a
// byte of a multi-byte character counts as one).
func isWordEnd(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c >= utf8.RuneSelf
}

// maxExcerptScan bounds how much of a body an excerpt looks through: the
// start of a SKILL.md says what it is for, and an excerpt is a hint.
const maxExcerptScan = 16 << 10

// Excerpt returns about ExcerptLength characters of the skill around the
// best match of terms (QueryTerms of the query): the stretch of the
// SKILL.md body (read now) that holds the most distinct terms, or, when
// the body holds none, the start of the description. White space is
// collapsed, and "…" marks a cut.
func Excerpt(sk *sources.Skill, terms []string) string {
	body, _ := sources.PeekBody(sk, MaxEntry) // unreadable: the description stands in
	if len(body) > maxExcerptScan {
		body = body[:maxExcerptScan]
	}
	if s := excerptOf(body, terms); s != "" {
		return s
	}
	return DescriptionExcerpt(sk.Description)
}

// DescriptionExcerpt is Excerpt of a skill whose body is not read: the
// start of its description.
func DescriptionExcerpt(desc string) string { return excerptOf([]byte(desc), nil) }

// excerptOf cuts the window of text that holds the most distinct terms,
// or the start of text when terms is empty or none is found. It looks for
// each term at the start of words, in a lower-cased copy of text: a stem
// is the start of the words it stands for ("debug" in "debugging"), near
// enough for an excerpt.
func excerptOf(text []byte, terms []string) string {
	if len(bytes.TrimSpace(text)) == 0 {
		return ""
	}
	type hit struct{ at, term int }
	var hits []hit
	if len(terms) > 0 {
		// ASCII letters lowered, every offset kept: the terms are folded,
		// and a stem of another script is looked for as it is.
		lower := asciiLower(text)
		// Each term where a word starts with it, its first few times:
		// the best window is rarely further on.
		for ti, term := range terms {
			for from, n := 0, 0; n < maxTermHits; n++ {
				i := bytes.Index(lower[from:], []byte(term))
				if i < 0 {
					break
				}
				at := from + i
				if at == 0 || !isWordEnd(lower[at-1]) {
					hits = append(hits, hit{at, ti})
				} else {
					n-- // inside a word: not a hit
				}
				from = at + len(term)
			}
		}
		slices.SortFunc(hits, func(a, b hit) int { return a.at - b.at })
	}
	start := 0
	if len(hits) > 0 {
		// The window of ExcerptLength bytes (about as many characters)
		// starting at a hit that holds the most distinct terms; the
		// earliest of equals.
		best, bestN := 0, 0
		for i := range hits {
			var seen uint64
			n := 0
			for j := i; j < len(hits) && hits[j].at-hits[i].at < ExcerptLength*3/4; j++ {
				if bit := uint64(1) << (hits[j].term % 64); seen&bit == 0 {
					seen |= bit
					n++
				}
			}
			if n > bestN {
				best, bestN = i, n
			}
		}
		start = max(0, hits[best].at-ExcerptLength/4)
	} else if len(terms) > 0 {
		return ""
	}
	return window(text, start)
}

// asciiLower lowers ASCII letters only, keeping every offset. It works
// eight bytes at a time: a byte whose low seven bits lie in 'A'..'Z' and
// whose high bit is clear gains 0x20.
func asciiLower(b []byte) []byte {
	const (
		ones = 0x0101010101010101
		high = 0x8080808080808080
	)
	out := make([]byte, len(b))
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		h := x &^ high
		upper := ((h + (0x80-'A')*ones) ^ (h + (0x80-'Z'-1)*ones)) &^ x & high
		binary.LittleEndian.PutUint64(out[i:], x|upper>>2)
	}
	for ; i < len(b); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// window returns about ExcerptLength characters of text from start, moved
// to the start of a word, cut at the end of a word, on one line.
func window(text []byte, start int) string {
	if start > 0 {
		for start < len(text) && !utf8.RuneStart(text[start]) {
			start++
		}
		// Start at the next word: after a space, unless that is too far.
		if i := bytes.IndexFunc(text[start:], unicode.IsSpace); i >= 0 && i < 24 {
			start += i
		}
	}
	var b strings.Builder
	n, space, cut := 0, start > 0, false
	if start > 0 {
		b.WriteString("…")
	}
	rest := text[start:]
	for len(rest) > 0 {
		r, size := utf8.DecodeRune(rest)
		rest = rest[size:]
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space {
			if n >= ExcerptLength {
				cut = true
				break
			}
			if b.Len() > 0 && !strings.HasSuffix(b.String(), "…") {
				b.WriteByte(' ')
				n++
			}
			space = false
		}
		if n >= ExcerptLength+24 { // a very long word: cut inside it
			cut = true
			break
		}
		b.WriteRune(r)
		n++
	}
	out := b.String()
	if cut {
		out = strings.TrimRight(out, " ,;:.") + "…"
	}
	return out
}
