// Package search finds skills by what they say: an in-memory full-text
// index of every skill's name, description and SKILL.md body, ranked with
// BM25 over weighted fields (see Index.Search), that follows the catalog one skill at a time.
//
// The parts: tokenize.go splits text into terms (Unicode letters and
// digits, case-folded, accents of Latin letters dropped, each ideograph a
// term, English stop words left out) and stem.go brings English words to
// their stems (Porter2); index.go holds the inverted index, with
// compressed posting lists, and its Update, which indexes only the skills
// that are new or changed since the last one; query.go ranks; excerpt.go
// cuts the excerpt shown with a hit; live.go keeps an index current in the
// background, so that building it is never on the way of a server's start.
//
// The index reads each SKILL.md body from disk when it indexes the skill
// and keeps only terms and counts, not the text; an excerpt reads the file
// again. Why a purpose-built index rather than a search library: see
// BENCHMARKS.md ("Search index").
package search
