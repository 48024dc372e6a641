package search

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/skillmux/skillmux/sources"
)

// Ranking. A skill's score is BM25 with field weights: for each term of
// the query, the term's inverse document frequency times the weighted sum
// of its saturated frequency in each field (the name counts most, then the
// description, then the body), long fields discounted:
//
//	tf~_f = tf_f / (1 - b_f + b_f · len_f / avglen_f)
//	score = Σ_t idf(t) · Σ_f weight_f · tf~_f / (k1 + tf~_f)
//	idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5))
//
// Each field saturates on its own (rather than summing the frequencies
// before saturating, as BM25F does), so a term in the description counts
// on top of the same term in a long body. The ranking is checked on the
// shared corpus by ranking_test.go.
//
// A query that is a skill's whole name (short or qualified, spaces and
// underscores taken for hyphens) puts that skill first, and a query that
// is a skill's full name, the name that loads it, puts it before those
// whose short name it is ("access" before "discord:access" and
// "telegram:access"): ExactBoost is added to the score of each, which is
// then raised, if need be, to ExactBoost more than the best of the hits
// it comes before.
var (
	weights = [numFields]float64{fieldName: 3, fieldDesc: 2, fieldBody: 1}
	bParam  = [numFields]float64{fieldName: 0.3, fieldDesc: 0.5, fieldBody: 0.75}
)

const k1 = 1.2

// ExactBoost is added to the score of a skill whose name is the query,
// and is the least by which it outscores the hits it comes before.
const ExactBoost = 10

// Hit is one skill found by Search.
type Hit struct {
	Skill *sources.Skill
	Score float64
	// Exact is true when the query is the skill's name.
	Exact bool
	// Unread is true when the index could not read the skill's entry
	// file (it holds its name and description only): reading it again for
	// an excerpt would fail, or wait for a hung plugin, again.
	Unread bool
	key    string // the qualified name, case-folded, for ties
}

// scratch is the per-query memory of Search, pooled: a score per
// document and the documents touched.
type scratch struct {
	scores  []float32 // by document
	bestOf  []float32 // by document: its best variant of the term at hand
	touched []uint32  // the documents with a score
	best    []uint32  // the documents with a bestOf
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// Search ranks the indexed skills against query and returns the best limit
// of those for which accept returns true (every one when accept is nil),
// best first, equal scores by qualified name. A skill matches when it
// holds at least one term of the query (or a variant of one, see
// variants). accept is called only for skills that would enter the
// results, so a search costs about the same whatever it leaves out.
func (ix *Index) Search(query string, limit int, accept func(*sources.Skill) bool) []Hit {
	qterms := QueryTerms(query)
	exact := normalizeName(query)

	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.live == 0 || limit <= 0 {
		return nil
	}
	s := scratchPool.Get().(*scratch)
	defer scratchPool.Put(s)
	if cap(s.scores) < len(ix.docs) {
		s.scores = make([]float32, len(ix.docs))
		s.bestOf = make([]float32, len(ix.docs))
	}
	scores, best := s.scores[:len(ix.docs)], s.bestOf[:len(ix.docs)]
	s.touched = s.touched[:0]
	defer func() {
		for _, id := range s.touched {
			scores[id] = 0
		}
	}()

	n := float64(ix.live)
	// Per field, tf / (1 - b + b·len/avglen) is tf / (base + scale·len).
	var base, scale [numFields]float64
	for f := range numFields {
		avg := max(ix.sumLen[f]/n, 1)
		base[f], scale[f] = 1-bParam[f], bParam[f]/avg
	}
	for _, term := range qterms {
		// The term itself, and the terms it is a prefix of or that are a
		// prefix of it ("fail" and "failur", from "failing" and
		// "failure"), which count for less: a skill scores for a term by
		// the best of its variants. A variant never counts for more than
		// the term itself: a rare variant of a common word ("skillz" for
		// "skill") must not outweigh it.
		variants := ix.variants(term)
		s.best = s.best[:0]
		capIDF := float32(math.MaxFloat32)
		for _, v := range variants {
			list := &ix.lists[v.tid]
			// Document frequency counts the live documents only: dead
			// ones, left until a compaction, would lower every term's
			// weight they held (a checkout that replaced a few skills
			// ranked a small catalog otherwise than a fresh index).
			// Counting them takes a pass over the list, made only when
			// there are dead documents.
			df := float64(list.count)
			if ix.dead > 0 {
				df = float64(ix.liveIn(v.tid))
			}
			idf := float32(math.Log(1 + max(n-df, 0)/(df+0.5) + 0.5/(df+0.5)))
			if v.weight == 1 {
				capIDF = idf
			}
			idf = v.weight * min(idf, capIDF)
			direct := len(variants) == 1 // no max to take: add straight to the scores
			data, prev := list.data, uint32(0)
			for len(data) > 0 {
				gap, k := binary.Uvarint(data)
				data = data[k:]
				flags, k := binary.Uvarint(data)
				data = data[k:]
				var tfName, tfDesc uint64
				if flags&2 != 0 {
					tfName, k = binary.Uvarint(data)
					data = data[k:]
				}
				if flags&1 != 0 {
					tfDesc, k = binary.Uvarint(data)
					data = data[k:]
				}
				prev += uint32(gap)
				id := prev - 1
				d := &ix.docs[id]
				if d.skill == nil {
					continue
				}
				var sat float64
				if tf := flags >> 2; tf > 0 {
					tfn := float64(tf) / (base[fieldBody] + scale[fieldBody]*float64(d.lens[fieldBody]))
					sat += weights[fieldBody] * tfn / (k1 + tfn)
				}
				if tfDesc > 0 {
					tfn := float64(tfDesc) / (base[fieldDesc] + scale[fieldDesc]*float64(d.lens[fieldDesc]))
					sat += weights[fieldDesc] * tfn / (k1 + tfn)
				}
				if tfName > 0 {
					tfn := float64(tfName) / (base[fieldName] + scale[fieldName]*float64(d.lens[fieldName]))
					sat += weights[fieldName] * tfn / (k1 + tfn)
				}
				c := idf * float32(sat)
				if direct {
					if scores[id] == 0 {
						s.touched = append(s.touched, id)
					}
					scores[id] += c
					continue
				}
				if best[id] == 0 {
					s.best = append(s.best, id)
				}
				best[id] = max(best[id], c)
			}
		}
		for _, id := range s.best {
			if scores[id] == 0 {
				s.touched = append(s.touched, id)
			}
			scores[id] += best[id]
			best[id] = 0
		}
	}
	// A skill whose name is the query comes first, matched or not, and
	// one whose full name it is before one whose short name it is.
	exactIDs := ix.names[exact]
	for _, id := range exactIDs {
		if scores[id] == 0 {
			s.touched = append(s.touched, id)
		}
		scores[id] += ExactBoost
	}
	if len(exactIDs) > 0 {
		full := func(id uint32) bool { return ix.docs[id].key == exact }
		// First every exact hit over the others, then the full names
		// over the short ones.
		for _, fullOnly := range []bool{false, true} {
			var below float32
			for _, id := range s.touched {
				if !slices.Contains(exactIDs, id) || fullOnly && !full(id) {
					below = max(below, scores[id])
				}
			}
			for _, id := range exactIDs {
				if !fullOnly || full(id) {
					scores[id] = max(scores[id], below+ExactBoost)
				}
			}
		}
	}

	var hits []Hit
	floor := float32(-1) // the score to beat once hits is full
	for _, id := range s.touched {
		sc := scores[id]
		if sc < floor {
			continue
		}
		d := &ix.docs[id]
		h := Hit{Skill: d.skill, Score: float64(sc), Unread: d.hash == 0, key: d.key}
		if len(hits) == limit && !better(h, hits[limit-1]) {
			continue
		}
		if accept != nil && !accept(d.skill) {
			continue
		}
		h.Exact = sc >= ExactBoost && slices.Contains(ix.names[exact], id)
		// While an update is under way, a changed skill has its new
		// document beside its old one: a place is one hit, its best.
		if j := slices.IndexFunc(hits, func(o Hit) bool { return o.key == h.key && o.Skill.Path == h.Skill.Path }); j >= 0 {
			if !better(h, hits[j]) {
				continue
			}
			hits = slices.Delete(hits, j, j+1)
		}
		i, _ := slices.BinarySearchFunc(hits, h, func(a, b Hit) int {
			if better(a, b) {
				return -1
			}
			return 1
		})
		if len(hits) < limit {
			hits = slices.Insert(hits, i, h)
		} else {
			copy(hits[i+1:], hits[i:limit-1])
			hits[i] = h
		}
		if len(hits) == limit {
			floor = float32(hits[limit-1].Score)
		}
	}
	return hits
}

// better orders hits: higher score first, then by qualified name, then
// by path (skills of one name, one of them shadowed, in any order the
// index's history gave their documents).
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.key != b.key {
		return a.key < b.key
	}
	return a.Skill.Path < b.Skill.Path
}

// normalizeName is the query as a skill name would be written: lower
// case, trimmed, with runs of spaces and underscores as one hyphen.
func normalizeName(q string) string {
	q = sources.NameKey(strings.TrimSpace(q))
	if q == "" {
		return ""
	}
	var b strings.Builder
	sep := false
	for _, r := range q {
		if unicode.IsSpace(r) || r == '_' {
			sep = true
			continue
		}
		if sep {
			b.WriteByte('-')
			sep = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// QueryTerms returns the distinct terms of query as the index sees them
// (folded, stemmed, without stop words), in order. A query without any
// finds nothing.
func QueryTerms(query string) []string {
	var out []string
	for _, term := range newTokenizer().terms(query) {
		if !slices.Contains(out, term) {
			out = append(out, term)
		}
	}
	return out
}

// variant is a term of the index that stands for a term of a query, and
// how much it counts.
type variant struct {
	tid    uint32
	weight float32
}

// Variants of a query term other than itself count for this much.
const (
	variantWeight = 0.5
	maxVariants   = 16
	minVariantLen = 4 // shorter prefixes are too loose
	maxVariantGap = 3 // letters a variant may have more or fewer: "fail" and "failur", not "test" and "testament"
)

// variants returns the terms of the index that stand for a query term: the
// term itself, and, for English words of at least minVariantLen letters,
// the longer terms it starts and the shorter ones that start it. ix.mu must
// be held.
func (ix *Index) variants(term string) []variant {
	var out []variant
	if tid, ok := ix.terms[term]; ok {
		out = append(out, variant{tid, 1})
	}
	if len(term) < minVariantLen || !isASCIILetters(term) {
		return out
	}
	for n := max(minVariantLen, len(term)-maxVariantGap); n < len(term); n++ {
		if tid, ok := ix.terms[term[:n]]; ok {
			out = append(out, variant{tid, variantWeight})
		}
	}
	sorted := ix.sortedTerms()
	i, _ := slices.BinarySearch(sorted, term)
	for added := 0; i < len(sorted) && added < maxVariants && strings.HasPrefix(sorted[i], term); i++ {
		if sorted[i] != term && len(sorted[i]) <= len(term)+maxVariantGap {
			out = append(out, variant{ix.terms[sorted[i]], variantWeight})
			added++
		}
	}
	return out
}

// liveIn counts the live documents in the list of term tid, once after
// each change of the documents. ix.mu must be held for reading.
func (ix *Index) liveIn(tid uint32) int {
	counts := ix.liveDF.Load()
	if counts == nil {
		ix.liveDF.CompareAndSwap(nil, new(sync.Map))
		counts = ix.liveDF.Load()
	}
	if n, ok := counts.Load(tid); ok {
		return n.(int)
	}
	n := 0
	ix.lists[tid].each(func(id uint32, _ [numFields]uint32) {
		if ix.docs[id].skill != nil {
			n++
		}
	})
	counts.Store(tid, n)
	return n
}
