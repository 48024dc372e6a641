package resolver

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/skillmux/skillmux/resolver/search"
	"github.com/skillmux/skillmux/sources"
)

// Limits of a search.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 25
	// MaxQueryLength bounds a query, in characters (Unicode code points,
	// as a JSON Schema's maxLength counts them): a longer one is a paste,
	// not a search.
	MaxQueryLength = 1000
)

// ArgumentError says that an argument of a request is wrong: which one,
// and what would be right. The server answers it as invalid params; the
// command line exits with status 2.
type ArgumentError struct {
	Arg     string
	Message string
}

func (e *ArgumentError) Error() string { return fmt.Sprintf("argument %q %s", e.Arg, e.Message) }

// SearchQuery is a ranked search of the skills a snapshot serves.
type SearchQuery struct {
	// Text is what to look for; required.
	Text string
	// Limit is the most hits returned, 1 to MaxSearchLimit; 0 means
	// DefaultSearchLimit.
	Limit int
	// Source, Namespace and Kind, when set, keep only the skills of that
	// source (its name, as `skillmux list` shows it), of that namespace
	// (a plugin's name), or of that kind.
	Source, Namespace string
	Kind              sources.Kind
}

// SearchHit is one skill found, as a client is told.
type SearchHit struct {
	// Name is the qualified name that loads the skill.
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Location    string       `json:"location"`
	Source      string       `json:"source"`
	Kind        sources.Kind `json:"kind"`
	// Score is the relevance, higher is better; comparable only within
	// one search.
	Score float64 `json:"score"`
	// Excerpt is about 160 characters of the skill around the best match.
	Excerpt string `json:"excerpt"`
}

// SearchResult is what a search found.
type SearchResult struct {
	Query string      `json:"query"`
	Hits  []SearchHit `json:"hits"`
}

// Check returns an *ArgumentError for a query that cannot be run on s.
func (q *SearchQuery) Check(s *Snapshot) error {
	switch {
	case strings.TrimFunc(q.Text, invisible) == "":
		return &ArgumentError{Arg: "query", Message: "must not be empty: say what the skill should do, e.g. \"fill in a PDF form\""}
	case utf8.RuneCountInString(q.Text) > MaxQueryLength:
		return &ArgumentError{Arg: "query", Message: fmt.Sprintf("is %d characters long; a query is at most %d: say in a few words what the skill should do", utf8.RuneCountInString(q.Text), MaxQueryLength)}
	case q.Limit < 0 || q.Limit > MaxSearchLimit:
		return &ArgumentError{Arg: "limit", Message: fmt.Sprintf("must be an integer from 1 to %d (default %d), got %d", MaxSearchLimit, DefaultSearchLimit, q.Limit)}
	case q.Kind != "" && q.Kind != sources.KindSkill && q.Kind != sources.KindLearned:
		return &ArgumentError{Arg: "kind", Message: fmt.Sprintf("must be %q or %q, got %q", sources.KindSkill, sources.KindLearned, q.Kind)}
	}
	if q.Source != "" {
		names := s.SourceNames()
		if !slices.ContainsFunc(names, func(n string) bool { return sources.NameKey(n) == sources.NameKey(q.Source) }) {
			return &ArgumentError{Arg: "source", Message: fmt.Sprintf("names no source: %q; the sources are %s", q.Source, quotedList(names))}
		}
	}
	if q.Namespace != "" {
		names := s.Namespaces()
		if !slices.Contains(names, strings.ToLower(q.Namespace)) {
			if len(names) == 0 {
				return &ArgumentError{Arg: "namespace", Message: fmt.Sprintf("names no namespace: %q; no skill served has one (plugins' skills do: <plugin>:<skill>), so leave it out", q.Namespace)}
			}
			return &ArgumentError{Arg: "namespace", Message: fmt.Sprintf("names no namespace: %q; the namespaces are %s", q.Namespace, quotedList(names))}
		}
	}
	return nil
}

// invisible reports whether r shows nothing on its own: white space, a
// format character such as a zero-width space, a mark with nothing to mark
// (a variation selector, a combining grapheme joiner), or one of the
// Hangul fillers. A query of only those is empty.
func invisible(r rune) bool {
	return unicode.IsSpace(r) || unicode.In(r, unicode.Cf, unicode.Mn, unicode.Me) ||
		r == '\u115f' || r == '\u1160' || r == '\u3164' || r == '\uffa0'
}

// quotedList renders at most 20 names, quoted.
func quotedList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, n := range names {
		if i == 20 {
			fmt.Fprintf(&b, " and %d more", len(names)-20)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", n)
	}
	return b.String()
}

// SourceNames returns the names of the sources the snapshot was built
// from, in precedence order.
func (s *Snapshot) SourceNames() []string {
	var out []string
	for _, in := range s.inputs {
		if !slices.Contains(out, in.Source) {
			out = append(out, in.Source)
		}
	}
	return out
}

// Namespaces returns the namespaces of the served skills, case-folded and
// sorted.
func (s *Snapshot) Namespaces() []string {
	seen := map[string]bool{}
	for _, sk := range s.skills {
		if sk.Ref.Namespace != "" {
			seen[strings.ToLower(sk.Ref.Namespace)] = true
		}
	}
	out := make([]string, 0, len(seen))
	for ns := range seen {
		out = append(out, ns)
	}
	slices.Sort(out)
	return out
}

// servedFor returns the skill s serves in sk's place, with the name that
// reaches it: sk itself, or the skill read again from the same file under
// the same name; a shadowed skill under its alias. An index may be a
// refresh ahead of or behind the snapshot a session sees (a source returns
// a new *sources.Skill when it reads a skill again, with its file list
// filled in, say); a hit on a skill the snapshot still serves counts, and
// is shown as the snapshot has it. ok is false when s does not serve it.
func (s *Snapshot) servedFor(sk *sources.Skill) (m Match, ok bool) {
	key := sk.Ref.Key()
	cur := s.byKey[key]
	if cur == sk || (cur != nil && cur.Path == sk.Path && cur.Source == sk.Source) {
		return Match{Ref: cur.Ref, Skill: cur}, true
	}
	if len(s.shadowed) == 0 {
		return Match{}, false
	}
	if i, ok := s.shadowedFiles()[skillFile{key, sk.Path, sk.Source}]; ok {
		sh := s.shadowed[i]
		return Match{Ref: sh.Alias, Skill: sh.Skill}, true
	}
	return Match{}, false
}

// skillFile tells a skill apart from one read again from the same file
// under the same name.
type skillFile struct{ key, path, source string }

// shadowedFiles maps the shadowed skills to their index in s.shadowed,
// made on the first search that needs it.
func (s *Snapshot) shadowedFiles() map[skillFile]int {
	s.shadowedAt.once.Do(func() {
		s.shadowedAt.m = make(map[skillFile]int, len(s.shadowed))
		for i, sh := range s.shadowed {
			s.shadowedAt.m[skillFile{sh.Skill.Ref.Key(), sh.Skill.Path, sh.Skill.Source}] = i
		}
	})
	return s.shadowedAt.m
}

// IndexedSkills returns every skill of the snapshot's sources, the
// shadowed included: what a search index of it holds, so that search
// finds a shadowed skill under its alias.
func (s *Snapshot) IndexedSkills() []*sources.Skill {
	out := make([]*sources.Skill, 0, len(s.skills)+len(s.shadowed))
	out = append(out, s.skills...)
	for _, sh := range s.shadowed {
		out = append(out, sh.Skill)
	}
	return out
}

// Search runs q, which Check accepted, over ix, an index of s (or of the
// snapshot s is a view of): the skills s serves and offers to the model
// (vis; disable-model-invocation), ranked, with an excerpt of each. A
// shadowed skill is found too, under the alias that loads it, offered
// unless its own name or its alias is hidden.
func (s *Snapshot) Search(ix *search.Index, q SearchQuery, vis *Visibility) SearchResult {
	limit := q.Limit
	if limit == 0 {
		limit = DefaultSearchLimit
	}
	ns, src := strings.ToLower(q.Namespace), sources.NameKey(q.Source)
	accept := func(hit *sources.Skill) bool {
		m, ok := s.servedFor(hit)
		sk := m.Skill
		return ok && vis.Offered(sk) && (aliased(m) == 0 || vis.Of(m.Ref) != ShownOff) &&
			(src == "" || sources.NameKey(sk.Source) == src) &&
			(ns == "" || strings.ToLower(sk.Ref.Namespace) == ns) &&
			(q.Kind == "" || sk.Kind == q.Kind)
	}
	res := SearchResult{Query: q.Text}
	hits := ix.Search(q.Text, limit, accept)
	matches := make([]Match, len(hits))
	for i, h := range hits {
		matches[i], _ = s.servedFor(h.Skill)
	}
	// The index knows a shadowed skill by its own name: a query that is
	// the name puts first the skill the name loads, then those reached by
	// an alias, and a query that is an alias puts that one first (the
	// exact hits come first).
	exact := 0
	for exact < len(hits) && hits[exact].Exact {
		exact++
	}
	order := make([]int, len(hits))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order[:exact], func(a, b int) int {
		return cmp.Compare(aliased(matches[a]), aliased(matches[b]))
	})
	// Among equal scores, the skill a name loads before those an alias
	// reaches, then by the name shown: the index ranks a shadowed skill
	// by its own name, which it shares with the one it is shadowed by.
	slices.SortStableFunc(order[exact:], func(a, b int) int {
		return cmp.Or(cmp.Compare(hits[b].Score, hits[a].Score),
			cmp.Compare(aliased(matches[a]), aliased(matches[b])),
			cmp.Compare(matches[a].Ref.String(), matches[b].Ref.String()))
	})
	asked := sources.NameKey(strings.TrimSpace(q.Text))
	if i := slices.IndexFunc(order, func(j int) bool { return aliased(matches[j]) == 1 && matches[j].Ref.Key() == asked }); i > 0 {
		j := order[i]
		copy(order[1:i+1], order[:i])
		order[0] = j
	}
	terms := search.QueryTerms(q.Text)
	res.Hits = make([]SearchHit, len(hits))
	var wg sync.WaitGroup
	for i, j := range order {
		h, m := hits[j], matches[j]
		sk := m.Skill
		res.Hits[i] = SearchHit{
			Name: m.Ref.String(), Description: sk.Description, Location: sk.Path,
			Source: sk.Source, Kind: sk.Kind, Score: math.Round(h.Score*1000) / 1000,
		}
		if h.Unread {
			res.Hits[i].Excerpt = search.DescriptionExcerpt(sk.Description)
			continue
		}
		wg.Go(func() { res.Hits[i].Excerpt = search.Excerpt(sk, terms) })
	}
	wg.Wait()
	return res
}

// aliased is 1 for a match reached by an alias, else 0.
func aliased(m Match) int {
	if m.Ref == m.Skill.Ref {
		return 0
	}
	return 1
}

// SubstringMatch is a skill in which every token of a query occurs.
type SubstringMatch struct {
	Skill *sources.Skill
	// Score is the number of tokens matched.
	Score int
	// Excerpt is about 160 characters around the first match.
	Excerpt string
}

// SubstringTokens splits a query as SearchSubstrings does: lower case,
// at white space.
func SubstringTokens(query string) []string {
	return strings.Fields(strings.ToLower(query))
}

// SearchSubstrings finds the skills s serves and offers to the model in
// whose text every token of query (lower-cased, split at white space)
// occurs: the text is the qualified name, the front matter and the
// SKILL.md body, lower-cased, each body read now. This is the plain search
// of the earlier `sk` server, kept exactly for its users; Search ranks
// better. The matches come in name order.
func (s *Snapshot) SearchSubstrings(ctx context.Context, query string, vis *Visibility) ([]SubstringMatch, error) {
	tokens := SubstringTokens(query)
	if len(tokens) == 0 {
		return nil, &ArgumentError{Arg: "query", Message: "must not be empty"}
	}
	var skills []*sources.Skill
	for _, sk := range s.skills {
		if vis.Offered(sk) {
			skills = append(skills, sk)
		}
	}
	found := make([]*SubstringMatch, len(skills))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), 4) {
		wg.Go(func() {
			for i := range next {
				found[i] = matchSubstrings(skills[i], tokens)
			}
		})
	}
	var err error
	for i := range skills {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err != nil {
		return nil, err
	}
	var out []SubstringMatch
	for _, m := range found {
		if m != nil {
			out = append(out, *m)
		}
	}
	return out, nil
}

// matchSubstrings matches one skill; nil when a token is missing. The
// body is read only when the name and front matter do not hold every
// token.
func matchSubstrings(sk *sources.Skill, tokens []string) *SubstringMatch {
	meta := bytes.ToLower(append([]byte(sk.Ref.String()+"\n"), sk.FrontMatter...))
	text := meta
	for _, t := range tokens {
		if !bytes.Contains(meta, []byte(t)) {
			body, err := sources.PeekBody(sk, search.MaxEntry)
			if errors.Is(err, sources.ErrUnterminated) {
				break // the name and front matter alone, as the index has them
			}
			if err != nil {
				return nil
			}
			text = slices.Concat(meta, []byte("\n"), bytes.ToLower(body))
			break
		}
	}
	first := -1
	for _, t := range tokens {
		i := bytes.Index(text, []byte(t))
		if i < 0 {
			return nil
		}
		if first < 0 || i < first {
			first = i
		}
	}
	return &SubstringMatch{Skill: sk, Score: len(tokens), Excerpt: excerptAround(text, first)}
}

// excerptAround returns about 160 characters of text around at, on one
// line, marked with "…" where cut.
func excerptAround(text []byte, at int) string {
	const before, length = 60, 160
	start := max(0, at-before)
	for start > 0 && !utf8.RuneStart(text[start]) {
		start--
	}
	var b strings.Builder
	if start > 0 {
		b.WriteString("…")
	}
	n, space := 0, false
	rest := text[start:]
	for len(rest) > 0 && n < length {
		r, size := utf8.DecodeRune(rest)
		rest = rest[size:]
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && n > 0 {
			b.WriteByte(' ')
			n++
		}
		space = false
		b.WriteRune(r)
		n++
	}
	if len(bytes.TrimSpace(rest)) > 0 {
		b.WriteString("…")
	}
	return b.String()
}
