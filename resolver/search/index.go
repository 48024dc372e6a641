package search

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/maphash"
	"maps"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skillmux/skillmux/sources"
)

// The fields of a skill that are indexed.
const (
	fieldName = iota // the skill's name and namespace
	fieldDesc        // its description
	fieldBody        // the body of its SKILL.md
	numFields
)

// MaxEntry bounds the bytes of a SKILL.md read for indexing; the skill tool
// serves at most 8 MiB, and a body of more than a mebibyte is data, not
// instructions worth ranking on.
const MaxEntry = 1 << 20

// minDead is the fewest dead documents that make a compaction worth its
// pass (see Index).
const minDead = 4

// maxTermsPerDoc bounds the words indexed of one skill.
const maxTermsPerDoc = 1 << 16

// Index is an in-memory full-text index of skills: an inverted index of
// their names, descriptions and SKILL.md bodies, ranked with BM25 over
// weighted fields, each saturated on its own (see Search). It follows a catalog skill by skill: Update compares the skills
// it is given with those it holds, by pointer (a source returns the same
// *sources.Skill while a skill is unchanged), and indexes only the new and
// changed ones.
//
// Removing a skill marks its document dead; its postings stay until dead
// documents are more than an eighth of the live ones (and more than a
// few), when the postings are compacted in one pass over the index (no
// file is read again). So an edit costs the reading and tokenizing of one
// file; the dead documents do not count in the document frequencies (a
// search counts the live entries of a list while some are dead), so an
// updated index ranks as one built afresh.
//
// Search may be called concurrently with everything; Update calls are
// serialized.
type Index struct {
	seed maphash.Seed

	// updating serializes Update, which alone writes what mu guards: it
	// reads without mu and writes under it.
	updating sync.Mutex
	// mu guards the fields below.
	mu      sync.RWMutex
	docs    []doc
	bySkill map[*sources.Skill]uint32
	byPlace map[place]uint32 // live documents by location and name
	terms   map[string]uint32
	lists   []postings          // by term number
	names   map[string][]uint32 // live documents by name and by qualified name, case-folded
	live    int
	dead    int
	sumLen  [numFields]float64 // total length of each field over live documents

	// liveDF holds, while there are dead documents, the live documents
	// of each term's list (by term number) that searches counted; every
	// change of the documents drops it.
	liveDF atomic.Pointer[sync.Map]

	// sortMu guards sorted, which searches (holding mu for reading) make
	// when the terms have changed since it was last made.
	sortMu sync.Mutex
	sorted []string // the terms in order; nil when out of date
}

// sortedTerms returns the terms in order. ix.mu must be held.
func (ix *Index) sortedTerms() []string {
	ix.sortMu.Lock()
	defer ix.sortMu.Unlock()
	if ix.sorted == nil {
		ix.sorted = slices.Sorted(maps.Keys(ix.terms))
	}
	return ix.sorted
}

// place is where a skill is and the name it is served under: a source that
// returns an unchanged skill anew (with its file list filled in, say)
// keeps its place.
type place struct{ path, key string }

func placeOf(sk *sources.Skill) place { return place{sk.Path, sk.Ref.Key()} }

// doc is one indexed skill.
type doc struct {
	skill *sources.Skill // nil once the document is dead
	key   string         // skill.Ref.Key()
	lens  [numFields]uint32
	hash  uint64 // of the entry file as read; 0 when it could not be read
}

// postings is the posting list of one term: for each document holding
// it, in increasing order, the gap from the previous document (plus one),
// then the term's frequency in the body shifted left by two, with one bit
// each saying that a frequency in the name and in the description follow.
// All numbers are uvarints: two bytes for most entries.
type postings struct {
	data  []byte
	last  uint32 // the last document number, plus one; 0 for none
	count uint32 // entries, dead documents included
}

func (p *postings) add(id uint32, tf [numFields]uint32) {
	p.data = binary.AppendUvarint(p.data, uint64(id+1-p.last))
	flags := uint64(tf[fieldBody]) << 2
	if tf[fieldName] > 0 {
		flags |= 2
	}
	if tf[fieldDesc] > 0 {
		flags |= 1
	}
	p.data = binary.AppendUvarint(p.data, flags)
	if tf[fieldName] > 0 {
		p.data = binary.AppendUvarint(p.data, uint64(tf[fieldName]))
	}
	if tf[fieldDesc] > 0 {
		p.data = binary.AppendUvarint(p.data, uint64(tf[fieldDesc]))
	}
	p.last = id + 1
	p.count++
}

// each decodes the list, calling f for every entry.
func (p *postings) each(f func(id uint32, tf [numFields]uint32)) {
	data, prev := p.data, uint32(0)
	for len(data) > 0 {
		gap, n := binary.Uvarint(data)
		data = data[n:]
		flags, n := binary.Uvarint(data)
		data = data[n:]
		var tf [numFields]uint32
		tf[fieldBody] = uint32(flags >> 2)
		if flags&2 != 0 {
			v, n := binary.Uvarint(data)
			data, tf[fieldName] = data[n:], uint32(v)
		}
		if flags&1 != 0 {
			v, n := binary.Uvarint(data)
			data, tf[fieldDesc] = data[n:], uint32(v)
		}
		prev += uint32(gap)
		f(prev-1, tf)
	}
}

// NewIndex returns an empty Index.
func NewIndex() *Index {
	return &Index{
		seed:    maphash.MakeSeed(),
		bySkill: map[*sources.Skill]uint32{},
		byPlace: map[place]uint32{},
		terms:   map[string]uint32{},
		names:   map[string][]uint32{},
	}
}

// Stats says what an Update did.
type Stats struct {
	// Indexed skills were read and tokenized: new ones and changed ones.
	Indexed int
	// Rebound skills were returned anew by their source but had not
	// changed: their documents were kept.
	Rebound int
	// Removed skills are no longer in the catalog.
	Removed int
	// Kept skills were the same *sources.Skill as before.
	Kept int
	// Took is the time the update took.
	Took time.Duration
}

// prepared is a skill read and tokenized, ready to be added.
type prepared struct {
	skill  *sources.Skill
	hash   uint64
	lens   [numFields]uint32
	terms  []string
	tfs    [][numFields]uint32
	rebind int64  // the document to give to skill instead, or -1
	was    uint64 // the hash of that document's file
}

// Update makes the index hold exactly skills: it adds the new ones, indexes
// again the changed ones and removes the others. Searches go on while it
// reads files; they see the new skills a batch at a time, and the removed
// ones go at the end. If ctx ends first, the index is as it was and
// Update returns ctx's error. progress, when not nil, is called with the
// number of skills read so far.
func (ix *Index) Update(ctx context.Context, skills []*sources.Skill, progress func(done, total int)) (Stats, error) {
	start := time.Now()
	ix.updating.Lock()
	defer ix.updating.Unlock()
	var st Stats
	keep := make([]bool, len(ix.docs))
	var todo []*prepared
	var fresh []*sources.Skill
	seen := map[*sources.Skill]bool{} // the fresh ones, against repeats
	for _, sk := range skills {
		if sk == nil {
			continue
		}
		if id, ok := ix.bySkill[sk]; ok {
			if !keep[id] {
				keep[id] = true
				st.Kept++
			}
			continue
		}
		if !seen[sk] {
			seen[sk] = true
			fresh = append(fresh, sk)
		}
	}
	// A skill returned anew may take over the document of the skill that
	// was at its place, if that one is gone and nothing changed.
	claimed := map[uint32]bool{}
	for _, sk := range fresh {
		p := &prepared{skill: sk, rebind: -1}
		if id, ok := ix.byPlace[placeOf(sk)]; ok && !keep[id] && !claimed[id] {
			if old := ix.docs[id].skill; old.Description == sk.Description && old.Ref == sk.Ref && string(old.FrontMatter) == string(sk.FrontMatter) {
				p.rebind, p.was = int64(id), ix.docs[id].hash
				claimed[id] = true
			}
		}
		todo = append(todo, p)
	}
	// Each skill is added as soon as it is read and tokenized, so that only
	// one per goroutine is held at a time (a build of ten thousand real
	// skills would hold hundreds of megabytes otherwise). Until the last
	// step removes the documents replaced, a search may see a changed
	// skill twice.
	oldLen := len(ix.docs)
	added, err := ix.prepare(ctx, todo, progress)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		// Leave the index as it was.
		ix.mu.Lock()
		for _, id := range added {
			ix.kill(id)
		}
		ix.mu.Unlock()
		return Stats{}, err
	}
	st.Indexed = len(added)

	ix.mu.Lock()
	defer ix.mu.Unlock()
	rebound := map[uint32]*sources.Skill{}
	for _, p := range todo {
		if p.rebind >= 0 {
			rebound[uint32(p.rebind)] = p.skill
		}
	}
	for id := range oldLen {
		d := &ix.docs[id]
		if d.skill == nil || keep[id] {
			continue
		}
		if sk, ok := rebound[uint32(id)]; ok {
			ix.unbind(uint32(id))
			ix.bind(uint32(id), sk)
			st.Rebound++
			continue
		}
		ix.kill(uint32(id))
		st.Removed++
	}
	switch {
	case ix.dead > max(minDead, ix.live/8):
		ix.compact()
	case st.Indexed > 1024:
		ix.trim() // a large update leaves lists with room to grow
	}
	st.Took = time.Since(start)
	return st, nil
}

// prepare reads and tokenizes the skills of todo, on a few goroutines,
// and adds each new or changed one to the index at once. A skill whose
// file has not changed since the document it may rebind to was made keeps
// p.rebind, for Update to apply; the others have theirs cleared. It
// returns the documents added.
func (ix *Index) prepare(ctx context.Context, todo []*prepared, progress func(done, total int)) ([]uint32, error) {
	if progress != nil {
		progress(0, len(todo))
	}
	workers := min(runtime.GOMAXPROCS(0), 4, max(1, len(todo)/64))
	if slices.ContainsFunc(todo, func(p *prepared) bool { return p.skill.Scope == sources.ScopeSourcePlugin }) {
		// A plugin's files are read over a connection, from a process
		// that may be slow or hung until its timeout: reads wait more
		// than they work, and one plugin's must not queue the others'.
		// Half of what one plugin takes at once (plugins: 16), so that
		// an agent's reads of its files meanwhile are not refused.
		workers = min(len(todo), 8)
	}
	next := make(chan *prepared)
	var wg sync.WaitGroup
	var mu sync.Mutex // guards done
	done := 0
	var added []uint32 // guarded by ix.mu
	for range workers {
		wg.Go(func() {
			t := newTokenizer()
			var terms []string
			var tfs [][numFields]uint32
			var buf []byte // the entry file read last
			for p := range next {
				p.terms, p.tfs = terms[:0], tfs[:0]
				buf = ix.prepareOne(t, p, buf)
				if p.rebind < 0 {
					ix.mu.Lock()
					added = append(added, ix.add(p))
					ix.mu.Unlock()
				}
				terms, tfs = p.terms, p.tfs // kept for the next skill
				p.terms, p.tfs = nil, nil
				if progress != nil {
					mu.Lock()
					done++
					progress(done, len(todo))
					mu.Unlock()
				}
				// A build runs in the background of a server in use:
				// between two skills, what else is ready to run (a
				// refresh, an answer) goes first.
				runtime.Gosched()
			}
		})
	}
	var err error
	for _, p := range todo {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- p
	}
	close(next)
	wg.Wait()
	return added, err
}

// prepareOne reads and tokenizes p's skill, reading its entry file into
// buf's memory; it returns the buffer, for the next skill (no term keeps
// a part of it: the tokenizer copies what it keeps).
func (ix *Index) prepareOne(t *tokenizer, p *prepared, buf []byte) []byte {
	sk := p.skill
	data, err := sources.PeekEntryInto(sk, MaxEntry, buf)
	if cap(data) > cap(buf) && cap(data) <= maxKeptBuffer {
		buf = data
	}
	var body []byte
	if err == nil {
		p.hash = maphash.Bytes(ix.seed, data) | 1 // never 0, which means unread
		_, body, err = sources.SplitFrontMatter(data)
		if errors.Is(err, sources.ErrNoFrontMatter) {
			err = nil // a note without front matter: all of it is body
		}
	}
	if err != nil {
		body = nil // unreadable now: its name and description are indexed
	}
	if p.rebind >= 0 {
		if p.hash != 0 && p.was == p.hash {
			return buf
		}
		p.rebind = -1
	}
	t.startDoc()
	p.terms, p.tfs = p.terms[:0], p.tfs[:0]
	add := func(f int, text []byte) {
		t.each(text, func(ti *termInfo) {
			if ti.doc != t.doc {
				if len(p.terms) >= maxTermsPerDoc {
					return
				}
				ti.doc, ti.slot = t.doc, int32(len(p.terms))
				p.terms = append(p.terms, ti.term)
				p.tfs = append(p.tfs, [numFields]uint32{})
			}
			p.lens[f]++
			p.tfs[ti.slot][f]++
		})
	}
	addString := func(f int, text string) {
		t.text = append(t.text[:0], text...)
		add(f, t.text)
	}
	addString(fieldName, sk.Ref.Name)
	if sk.Ref.Namespace != "" {
		addString(fieldName, sk.Ref.Namespace)
	}
	addString(fieldDesc, sk.Description)
	add(fieldBody, body)
	return buf
}

// maxKeptBuffer bounds the buffer a preparing goroutine keeps between
// skills: a rare large file is read into memory of its own.
const maxKeptBuffer = 256 << 10

// trim gives every posting list exactly the memory it uses.
// ix.mu must be held for writing.
func (ix *Index) trim() {
	for i := range ix.lists {
		if l := &ix.lists[i]; cap(l.data) > len(l.data)+len(l.data)/8 {
			l.data = append([]byte(nil), l.data...)
		}
	}
}

// nameKeys are the names under which a query finds a skill exactly.
func nameKeys(sk *sources.Skill) []string {
	short, key := sources.NameKey(sk.Ref.Name), sk.Ref.Key()
	if short == key {
		return []string{key}
	}
	return []string{short, key}
}

// bind makes id the document of sk. ix.mu must be held for writing.
func (ix *Index) bind(id uint32, sk *sources.Skill) {
	ix.docs[id].skill, ix.docs[id].key = sk, sk.Ref.Key()
	ix.bySkill[sk] = id
	ix.byPlace[placeOf(sk)] = id
	for _, k := range nameKeys(sk) {
		ix.names[k] = append(ix.names[k], id)
	}
}

// unbind is bind undone. ix.mu must be held for writing.
func (ix *Index) unbind(id uint32) {
	sk := ix.docs[id].skill
	delete(ix.bySkill, sk)
	if ix.byPlace[placeOf(sk)] == id {
		delete(ix.byPlace, placeOf(sk))
	}
	for _, k := range nameKeys(sk) {
		ids := slices.DeleteFunc(ix.names[k], func(x uint32) bool { return x == id })
		if len(ids) == 0 {
			delete(ix.names, k)
		} else {
			ix.names[k] = ids
		}
	}
	ix.docs[id].skill = nil
}

// add appends a document for p and returns its number. ix.mu must be
// held for writing.
func (ix *Index) add(p *prepared) uint32 {
	id := uint32(len(ix.docs))
	ix.docs = append(ix.docs, doc{lens: p.lens, hash: p.hash})
	ix.bind(id, p.skill)
	for i, term := range p.terms {
		tid, ok := ix.terms[term]
		if !ok {
			tid = uint32(len(ix.lists))
			ix.terms[term] = tid
			ix.lists = append(ix.lists, postings{})
			ix.sorted = nil
		}
		ix.lists[tid].add(id, p.tfs[i])
	}
	ix.live++
	for f := range numFields {
		ix.sumLen[f] += float64(p.lens[f])
	}
	ix.liveDF.Store(nil)
	return id
}

// kill marks a document dead. ix.mu must be held for writing.
func (ix *Index) kill(id uint32) {
	d := &ix.docs[id]
	ix.unbind(id)
	ix.live--
	ix.dead++
	ix.liveDF.Store(nil)
	for f := range numFields {
		ix.sumLen[f] -= float64(d.lens[f])
	}
}

// compact drops the dead documents: live ones are numbered again in
// order, and every posting list is rewritten without the dead. ix.mu must
// be held for writing.
func (ix *Index) compact() {
	renum := make([]uint32, len(ix.docs))
	docs := make([]doc, 0, ix.live)
	for id, d := range ix.docs {
		if d.skill == nil {
			renum[id] = ^uint32(0)
			continue
		}
		renum[id] = uint32(len(docs))
		docs = append(docs, d)
	}
	terms := map[string]uint32{}
	var lists []postings
	for term, tid := range ix.terms {
		var out postings
		ix.lists[tid].each(func(id uint32, tf [numFields]uint32) {
			if n := renum[id]; n != ^uint32(0) {
				out.add(n, tf)
			}
		})
		if len(out.data) == 0 {
			continue
		}
		out.data = append([]byte(nil), out.data...) // exactly sized
		terms[term] = uint32(len(lists))
		lists = append(lists, out)
	}
	ix.docs, ix.terms, ix.lists, ix.dead, ix.sorted = docs, terms, lists, 0, nil
	ix.liveDF.Store(nil) // the terms are numbered again
	clear(ix.bySkill)
	clear(ix.byPlace)
	clear(ix.names)
	for id, d := range docs {
		ix.bind(uint32(id), d.skill)
	}
}

// Len is the number of skills indexed.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.live
}

// Has reports whether sk, this very *sources.Skill, is indexed.
func (ix *Index) Has(sk *sources.Skill) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, ok := ix.bySkill[sk]
	return ok
}

// Terms is the number of distinct terms indexed.
func (ix *Index) Terms() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.terms)
}
