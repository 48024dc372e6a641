package search

import (
	"unicode"
	"unicode/utf8"
)

// maxTokenRunes bounds a token: a longer run of letters is a hash, a
// base64 blob or a URL's tail, which nobody searches for, and it is
// dropped.
const maxTokenRunes = 64

// tokenizer splits text into terms: maximal runs of letters, digits and
// combining marks, case-folded (with ß as ss and the accents of Latin
// letters dropped, so "Café" and "cafe" meet), with every ideograph and
// kana a term of its own (those scripts put no spaces between words), then
// stemmed when they are English words and dropped when they are stop
// words. Hyphens, underscores, dots and every other character separate
// terms: "test-driven" is "test" and "driven".
//
// A tokenizer keeps a cache of the terms it made, so tokenizing a large
// catalog stems each distinct word once. It is not safe for concurrent
// use: each goroutine has its own.
type tokenizer struct {
	buf, comp []byte
	text      []byte               // a copy of a string to tokenize (see each)
	words     map[string]*termInfo // folded word → its term (nil for a stop word)
	byTerm    map[string]*termInfo // the same terms, by term
	doc       uint64               // the document being tokenized (see startDoc)
}

// startDoc starts a new document, for counts kept in termInfo. The cache
// is bounded here, between documents, where starting it over loses no
// count.
func (t *tokenizer) startDoc() {
	if len(t.words) >= maxStemCache {
		clear(t.words)
		clear(t.byTerm)
	}
	t.doc++
}

// termInfo is a term as one tokenizer knows it. Whoever tokenizes may
// keep per-document counts in it: a word costs one map look-up.
type termInfo struct {
	term string
	doc  uint64 // the document slot was given for
	slot int32
}

// maxStemCache bounds the cache; past it the cache starts over.
const maxStemCache = 1 << 17

func newTokenizer() *tokenizer {
	return &tokenizer{buf: make([]byte, 0, 64), words: map[string]*termInfo{}, byTerm: map[string]*termInfo{}}
}

// each calls f with every term of s. Words joined by a dot, a hyphen, an
// underscore or a slash with nothing else between them ("CLAUDE.md",
// "p5.js", "test-driven") give, after the term of each, one more term for
// the whole compound written without its joiners ("claudemd"): rare
// compounds are telling, and a query that writes one the same way finds
// it.
func (t *tokenizer) each(s []byte, f func(term *termInfo)) {
	start, runes := -1, 0
	t.buf = t.buf[:0]
	// The compound under way: its words so far, where its last word ends,
	// and how many words it has.
	t.comp = t.comp[:0]
	compEnd, parts := 0, 0
	endCompound := func() {
		if parts >= 2 && parts <= maxCompoundParts {
			if term := t.term(t.comp); term != nil {
				f(term)
			}
		}
		t.comp, parts = t.comp[:0], 0
	}
	flush := func(end int) {
		if start >= 0 && runes <= maxTokenRunes {
			if term := t.term(t.buf); term != nil {
				f(term)
			}
			if parts > 0 && start == compEnd+1 && isJoiner(s[compEnd]) && len(t.comp)+len(t.buf) <= maxTokenRunes {
				t.comp = append(t.comp, t.buf...)
				parts++
			} else {
				endCompound()
				t.comp = append(t.comp, t.buf...)
				parts = 1
			}
			compEnd = end
		}
		start, runes = -1, 0
		t.buf = t.buf[:0]
	}
	for i := 0; i < len(s); {
		r, n := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRune(s[i:])
		}
		switch {
		case r < utf8.RuneSelf:
			switch {
			case 'a' <= r && r <= 'z' || '0' <= r && r <= '9':
			case 'A' <= r && r <= 'Z':
				r += 'a' - 'A'
			default:
				flush(i)
				i += n
				continue
			}
			if start < 0 {
				start = i
			}
			runes++
			t.buf = append(t.buf, byte(r))
		case isIdeograph(r):
			flush(i)
			endCompound()
			if term := t.term(utf8.AppendRune(t.buf[:0], r)); term != nil {
				f(term)
			}
			t.buf = t.buf[:0]
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) && start >= 0:
			if start < 0 {
				start = i
			}
			runes++
			t.buf = appendFolded(t.buf, r)
		default:
			flush(i)
		}
		i += n
	}
	flush(len(s))
	endCompound()
}

// maxCompoundParts bounds the words of a compound: a longer chain is a
// path or a version, not a name.
const maxCompoundParts = 4

func isJoiner(c byte) bool { return c == '.' || c == '-' || c == '_' || c == '/' }

// terms returns the terms of s, in order, repeats included.
func (t *tokenizer) terms(s string) []string {
	var out []string
	t.each([]byte(s), func(term *termInfo) { out = append(out, term.term) })
	return out
}

// term returns the term of a folded word: its stem, or nil for a stop
// word.
func (t *tokenizer) term(folded []byte) *termInfo {
	if ti, ok := t.words[string(folded)]; ok { // no allocation for the lookup
		return ti
	}
	word := string(folded)
	var ti *termInfo
	if !stopWords[word] {
		term := word
		if isASCIILetters(word) {
			term = stem(word)
		}
		if ti = t.byTerm[term]; ti == nil {
			ti = &termInfo{term: term}
			t.byTerm[term] = ti
		}
	}
	t.words[word] = ti
	return ti
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'a' || s[i] > 'z' {
			return false
		}
	}
	return true
}

// isIdeograph reports whether r belongs to a script written without
// spaces between words, where each character is taken as a term.
func isIdeograph(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// appendFolded appends the case-folded form of r: lower case, with the
// other case variants of a letter ('ſ', the Kelvin sign, final sigma)
// brought to the same form, ß as "ss", and the accents of Latin letters
// dropped.
func appendFolded(b []byte, r rune) []byte {
	if r == 'ß' || r == 'ẞ' {
		return append(b, "ss"...)
	}
	r = unicode.ToLower(unicode.ToUpper(r))
	if base, ok := latinBase[r]; ok {
		return append(b, base...)
	}
	if 0x300 <= r && r <= 0x36f {
		return b // a combining accent: dropped, as the precomposed ones are
	}
	return utf8.AppendRune(b, r)
}

// latinBase maps accented Latin letters (Latin-1 and Latin Extended-A, in
// lower case) to their unaccented letters.
var latinBase = func() map[rune]string {
	m := map[rune]string{}
	for base, letters := range map[string]string{
		"a": "àáâãäåāăą", "c": "çćĉċč", "d": "ďđ", "e": "èéêëēĕėęě", "g": "ĝğġģ", "h": "ĥħ",
		"i": "ìíîïĩīĭįı", "j": "ĵ", "k": "ķ", "l": "ĺļľŀł", "n": "ñńņňŉ", "o": "òóôõöøōŏő",
		"r": "ŕŗř", "s": "śŝşš", "t": "ţťŧ", "u": "ùúûüũūŭůűų", "w": "ŵ", "y": "ýÿŷ", "z": "źżž",
		"ae": "æ", "oe": "œ", "th": "þ", "dh": "ð",
	} {
		for _, r := range letters {
			m[r] = base
		}
	}
	return m
}()

// stopWords are English words too common to tell skills apart, left out of
// the index and of queries.
var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{
		"a", "about", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be", "been", "being",
		"but", "by", "can", "could", "d", "did", "do", "does", "doing", "don", "for", "from", "had",
		"has", "have", "he", "her", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just",
		"let", "ll", "m", "me", "my", "no", "not", "of", "on", "or", "our", "out", "re", "s", "she",
		"should", "so", "some", "such", "t", "than", "that", "the", "their", "them", "then", "there",
		"these", "they", "this", "those", "to", "up", "us", "ve", "very", "was", "we", "were", "what",
		"which", "while", "who", "whom", "why", "will", "with", "would", "you", "your",
	} {
		m[w] = true
	}
	return m
}()
