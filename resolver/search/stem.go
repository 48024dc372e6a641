package search

import "strings"

// stem returns the stem of an English word written in lower-case ASCII
// letters, by the Porter2 ("English") stemming algorithm as the Snowball
// project describes it: "debugging", "debugged" and "debugs" all become
// "debug", "configuration" and "configure" both "configur". Words of one
// or two letters are left as they are.
func stem(word string) string {
	if len(word) <= 2 {
		return word
	}
	if s, ok := invariant[word]; ok {
		return s
	}
	b := []byte(word)
	// A y that is a consonant is written Y while the steps run.
	if b[0] == 'y' {
		b[0] = 'Y'
	}
	for i := 1; i < len(b); i++ {
		if b[i] == 'y' && isVowel(b[i-1]) {
			b[i] = 'Y'
		}
	}
	r1, r2 := regions(b)
	b = step1a(b)
	if afterStep1a[string(b)] {
		return restoreY(b)
	}
	b = step1b(b, r1)
	b = step1c(b)
	b = step2(b, r1)
	b = step3(b, r1, r2)
	b = step4(b, r2)
	b = step5(b, r1, r2)
	return restoreY(b)
}

// invariant holds the words the algorithm lists as exceptions, with their
// stems.
var invariant = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli", "singly": "singl",
	"sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas", "cosmos": "cosmos", "bias": "bias", "andes": "andes",
}

// afterStep1a are the words left as they are once step 1a has run.
var afterStep1a = map[string]bool{
	"inning": true, "outing": true, "canning": true, "herring": true, "earring": true,
	"proceed": true, "exceed": true, "succeed": true,
}

func isVowel(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

// regions returns where R1 and R2 start: R1 after the first consonant that
// follows a vowel, R2 the same within R1. A region that is empty starts at
// len(b).
func regions(b []byte) (r1, r2 int) {
	after := func(from int) int {
		for i := from + 1; i < len(b); i++ {
			if !isVowel(b[i]) && isVowel(b[i-1]) {
				return i + 1
			}
		}
		return len(b)
	}
	r1 = after(0)
	for _, p := range []string{"gener", "commun", "arsen"} {
		if strings.HasPrefix(string(b), p) {
			r1 = len(p)
		}
	}
	r2 = after(r1)
	if r1 >= len(b) {
		r2 = len(b)
	}
	return r1, r2
}

func hasSuffix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[len(b)-len(s):]) == s
}

// longest returns the longest of suffixes that b ends with, or "".
func longest(b []byte, suffixes []string) string {
	best := ""
	for _, s := range suffixes {
		if len(s) > len(best) && hasSuffix(b, s) {
			best = s
		}
	}
	return best
}

func replace(b []byte, suffix, with string) []byte {
	return append(b[:len(b)-len(suffix)], with...)
}

func hasVowel(b []byte) bool {
	for _, c := range b {
		if isVowel(c) {
			return true
		}
	}
	return false
}

// endsShortSyllable reports whether b ends with a short syllable: a
// consonant, a vowel and a consonant other than w, x or Y; or, for a word
// of two letters, a vowel and a consonant.
func endsShortSyllable(b []byte) bool {
	n := len(b)
	switch {
	case n == 2:
		return isVowel(b[0]) && !isVowel(b[1])
	case n >= 3:
		c := b[n-1]
		return !isVowel(b[n-3]) && isVowel(b[n-2]) && !isVowel(c) && c != 'w' && c != 'x' && c != 'Y'
	}
	return false
}

func step1a(b []byte) []byte {
	switch s := longest(b, []string{"sses", "ied", "ies", "us", "ss", "s"}); s {
	case "sses":
		return replace(b, s, "ss")
	case "ied", "ies":
		if len(b)-len(s) > 1 {
			return replace(b, s, "i")
		}
		return replace(b, s, "ie")
	case "s":
		if hasVowel(b[:len(b)-2]) {
			return b[:len(b)-1]
		}
	}
	return b
}

func step1b(b []byte, r1 int) []byte {
	s := longest(b, []string{"eed", "eedly", "ed", "edly", "ing", "ingly"})
	switch s {
	case "":
		return b
	case "eed", "eedly":
		if len(b)-len(s) >= r1 {
			return replace(b, s, "ee")
		}
		return b
	}
	stemPart := b[:len(b)-len(s)]
	if !hasVowel(stemPart) {
		return b
	}
	b = stemPart
	switch {
	case hasSuffix(b, "at") || hasSuffix(b, "bl") || hasSuffix(b, "iz"):
		return append(b, 'e')
	case endsDouble(b):
		return b[:len(b)-1]
	case endsShortSyllable(b) && r1 >= len(b):
		return append(b, 'e')
	}
	return b
}

func endsDouble(b []byte) bool {
	for _, d := range []string{"bb", "dd", "ff", "gg", "mm", "nn", "pp", "rr", "tt"} {
		if hasSuffix(b, d) {
			return true
		}
	}
	return false
}

func step1c(b []byte) []byte {
	n := len(b)
	if n > 2 && (b[n-1] == 'y' || b[n-1] == 'Y') && !isVowel(b[n-2]) {
		b[n-1] = 'i'
	}
	return b
}

var step2Suffixes = map[string]string{
	"tional": "tion", "enci": "ence", "anci": "ance", "abli": "able", "entli": "ent",
	"izer": "ize", "ization": "ize", "ational": "ate", "ation": "ate", "ator": "ate",
	"alism": "al", "aliti": "al", "alli": "al", "fulness": "ful", "ousli": "ous", "ousness": "ous",
	"iveness": "ive", "iviti": "ive", "biliti": "ble", "bli": "ble", "fulli": "ful", "lessli": "less",
	"ogi": "og", "li": "",
}

var step2List = keys(step2Suffixes)

func step2(b []byte, r1 int) []byte {
	s := longest(b, step2List)
	if s == "" || len(b)-len(s) < r1 {
		return b
	}
	rest := b[:len(b)-len(s)]
	switch s {
	case "ogi":
		if !hasSuffix(rest, "l") {
			return b
		}
	case "li":
		if len(rest) == 0 || !strings.ContainsRune("cdeghkmnrt", rune(rest[len(rest)-1])) {
			return b
		}
	}
	return replace(b, s, step2Suffixes[s])
}

var step3Suffixes = map[string]string{
	"tional": "tion", "ational": "ate", "alize": "al", "icate": "ic", "iciti": "ic", "ical": "ic",
	"ful": "", "ness": "", "ative": "",
}

var step3List = keys(step3Suffixes)

func step3(b []byte, r1, r2 int) []byte {
	s := longest(b, step3List)
	if s == "" || len(b)-len(s) < r1 {
		return b
	}
	if s == "ative" && len(b)-len(s) < r2 {
		return b
	}
	return replace(b, s, step3Suffixes[s])
}

var step4List = []string{"al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ism", "ate", "iti", "ous", "ive", "ize", "ion"}

func step4(b []byte, r2 int) []byte {
	s := longest(b, step4List)
	if s == "" || len(b)-len(s) < r2 {
		return b
	}
	rest := b[:len(b)-len(s)]
	if s == "ion" && !hasSuffix(rest, "s") && !hasSuffix(rest, "t") {
		return b
	}
	return rest
}

func step5(b []byte, r1, r2 int) []byte {
	n := len(b)
	switch {
	case hasSuffix(b, "e"):
		if n-1 >= r2 || n-1 >= r1 && !endsShortSyllable(b[:n-1]) {
			return b[:n-1]
		}
	case hasSuffix(b, "l"):
		if n-1 >= r2 && hasSuffix(b[:n-1], "l") {
			return b[:n-1]
		}
	}
	return b
}

func restoreY(b []byte) string {
	for i, c := range b {
		if c == 'Y' {
			b[i] = 'y'
		}
	}
	return string(b)
}

func keys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
