package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"hash/maphash"
	"io/fs"
	"maps"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

// Subscriptions and change notifications of the skill:// resources.
//
// A client subscribes to a URI (resources/subscribe, or subscriptions/listen
// from protocol 2026-07-28, which the SDK turns into the same handler).
// The server remembers, for each subscription, a fingerprint of what the
// URI names: a file's content (its digest, read again only when its
// identity, size or times changed, so that a touch is no update), or, for
// a skill's root (skill://<skill-path>, with or without the trailing '/')
// or another folder, that of every file below it; and for skill:// and
// the folders above skills, the identity, size and times (FileKey) of
// every SKILL.md below, which may be thousands. A file larger than
// resources.max_file_size, never served, is summed by its FileKey too. After each snapshot swap Refresh computes them again in
// the session's view; a URI whose fingerprint changed gets
// notifications/resources/updated. The resource list a session knows (its
// view's skills and their file lists) is compared the same way, and a
// change gets notifications/resources/list_changed.
//
// The SDK sends both notifications to every session subscribed (or, for
// list_changed, to every session), so, as for tools/list_changed
// (session.go), a sending middleware lets one reach a session only when
// it is due there: after the session's handshake, and only when what that
// session sees changed.

// resSession is what a session knows of the resources. The Server's mu
// guards it.
type resSession struct {
	listed      *resolver.Snapshot // the view whose resources the session first listed, until listSig is known
	listSig     uint64             // the signature of the resource list the session knows, when hasSig
	hasSig      bool
	subs        map[string]string   // subscribed URI → fingerprint of what the session was last told of
	spellings   map[string][]string // ParsedURI.Key → the subscribed URIs that spell it
	updates     map[string]bool     // URIs whose notifications/resources/updated are due
	listChanged bool                // notifications/resources/list_changed is due
}

// maxSubscriptions bounds the URIs one session may be subscribed to at
// once. A URI that names nothing may be subscribed to, so only this bounds
// the memory subscriptions take.
const maxSubscriptions = 10_000

// subscribe records a subscription. A URI that names nothing yet may be
// subscribed to (it is told when it appears); a URI that breaks the rules
// of skill URIs is refused, and so is a new one past maxSubscriptions.
func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	p, err := resolver.ParseURI(uri)
	if err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "cannot subscribe: " + err.Error()}
	}
	v := s.viewOfSession(req.Session)
	a, snap, err := s.resolve(v, uri)
	if err == nil && a.Match.Skill != nil && a.File != "" && !s.allowed(a.Match.Skill, a.File, a.Slash) {
		// Never served, so never updated: say so now.
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "cannot subscribe: " + pathMessage(uri, &sources.PathError{Path: a.File, Rule: sources.RuleNotAllowed})}
	}
	if err != nil {
		// A URI that names nothing yet may be subscribed to; one that
		// spells a skill served as lookups take names (skill://PDF/) is
		// a mistake that would never be told of anything.
		if near := nearURI(snap, uri); near != "" {
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("cannot subscribe: %s names no resource; did you mean %s? (URIs are exact)", clipURI(uri), clipURI(near))}
		}
	}
	fp := s.fingerprint(v, uri)
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sessionLocked(req.Session)
	if _, ok := st.res.subs[uri]; !ok && len(st.res.subs) >= maxSubscriptions {
		return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("cannot subscribe to %s: this session is subscribed to %d URIs, the most one session may be; unsubscribe from some it no longer needs (resources/unsubscribe), or subscribe to a whole skill (skill://<skill-path> covers every file of it, skill:// every SKILL.md)", clipURI(uri), maxSubscriptions)}
	}
	if st.res.subs == nil {
		st.res.subs, st.res.spellings = map[string]string{}, map[string][]string{}
	}
	if _, ok := st.res.subs[uri]; !ok {
		k := p.Key()
		st.res.spellings[k] = append(st.res.spellings[k], uri)
	}
	st.res.subs[uri] = fp
	return nil
}

// unsubscribe ends the session's subscriptions to the resource the URI
// names, however each was spelled: skill://%61lpha/x.md and
// skill://alpha/x.md are one resource.
func (s *Server) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	p, err := resolver.ParseURI(req.Params.URI)
	if err != nil {
		return nil // never subscribed: subscribe refuses it
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.sessionLocked(req.Session)
	k := p.Key()
	for _, uri := range st.res.spellings[k] {
		delete(st.res.subs, uri)
		delete(st.res.updates, uri)
	}
	delete(st.res.spellings, k)
	return nil
}

// refreshResources works out, after a snapshot swap, which sessions are
// due which resource notifications, and has the SDK send them. Calls are
// serialized; fingerprints are computed outside s.mu, so requests are not
// held up by the stats they take.
func (s *Server) refreshResources(snap *resolver.Snapshot) {
	s.resRefresh.Lock()
	defer s.resRefresh.Unlock()
	type work struct {
		st     *session
		known  bool   // the session knows a resource list
		oldSig uint64 // its signature
		old    *resolver.Snapshot
		cur    *view
		subs   map[string]string
	}
	var ws []work
	s.mu.Lock()
	for ss, st := range s.sessions {
		if !st.initialized && !s.modern(ss) {
			continue // nothing goes out before the handshake ends
		}
		w := work{st: st, known: st.res.hasSig, oldSig: st.res.listSig, old: st.res.listed, cur: s.viewLocked(snap, st), subs: maps.Clone(st.res.subs)}
		ws = append(ws, w)
	}
	s.mu.Unlock()

	sigs := map[*resolver.Snapshot]uint64{} // one per view
	sigOf := func(snap *resolver.Snapshot) uint64 {
		sig, ok := sigs[snap]
		if !ok {
			sig = listSignature(snap, &s.listSums)
			sigs[snap] = sig
		}
		return sig
	}
	defer s.listSums.round()
	updated := map[string]bool{}
	listChanged := false
	for _, w := range ws {
		if !w.known && w.old != nil {
			w.known, w.oldSig = true, sigOf(w.old)
		}
		sig := sigOf(w.cur.snap)
		changed := w.known && sig != w.oldSig
		fresh := map[string]string{}
		for uri, fp := range w.subs {
			if now := s.fingerprint(w.cur, uri); now != fp {
				fresh[uri] = now
			}
		}
		s.mu.Lock()
		if w.known {
			w.st.res.listed, w.st.res.listSig, w.st.res.hasSig = nil, sig, true
		}
		if changed {
			w.st.res.listChanged, listChanged = true, true
		}
		for uri, fp := range fresh {
			if _, still := w.st.res.subs[uri]; !still {
				continue
			}
			w.st.res.subs[uri] = fp
			if w.st.res.updates == nil {
				w.st.res.updates = map[string]bool{}
			}
			w.st.res.updates[uri], updated[uri] = true, true
		}
		s.mu.Unlock()
	}
	for uri := range updated {
		if err := s.mcp.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			s.logger.Warn("notifications/resources/updated failed", "uri", uri, "err", err)
		}
	}
	if listChanged {
		// Registering a template again makes the SDK announce
		// notifications/resources/list_changed to every session;
		// filterResourceNotes keeps it from those it is not due to.
		s.mcp.AddResourceTemplate(resourceTemplates[0], s.readTemplate)
		s.notifyNow(resourcesChanged, snap)
	}
}

// filterResourceNotes lets the resource notifications reach only the
// sessions they are due to, once.
func (s *Server) filterResourceNotes(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "notifications/resources/updated" && method != resourcesChanged {
			return next(ctx, method, req)
		}
		ss, ok := req.GetSession().(*mcp.ServerSession)
		if !ok {
			return next(ctx, method, req)
		}
		s.mu.Lock()
		st := s.sessionLocked(ss)
		var send bool
		if method == resourcesChanged {
			send = s.dueLocked(ss, st, nil, method)
		} else if p, ok := req.GetParams().(*mcp.ResourceUpdatedNotificationParams); ok {
			send = st.res.updates[p.URI]
			delete(st.res.updates, p.URI)
		}
		s.mu.Unlock()
		if !send {
			return nil, nil
		}
		return next(ctx, method, req)
	}
}

// fingerprint sums up what uri names in view v now, as the hex of a
// SHA-256: the skill and file it resolves to with their contents (see
// sumFile; the SKILL.md files of a collection with their FileKeys), or
// "absent". Files not on a local file system (no identity in their key)
// are summed by their content.
func (s *Server) fingerprint(v *view, uri string) string {
	a, snap, err := s.resolve(v, uri)
	if err != nil {
		return "absent"
	}
	h := sha256.New()
	switch sk := a.Match.Skill; {
	case sk == nil: // skill:// or a folder above skills: every SKILL.md below
		// By the files' keys, not their content: a collection may hold
		// every SKILL.md of a large catalog, and a touch of one tells
		// its subscribers of an update (of nothing).
		for _, e := range snap.Addresses() {
			if a.Prefix == "" || strings.HasPrefix(e.URI.Path(), a.Prefix+"/") {
				fmt.Fprintf(h, "%s\x00", e.URI.Entry())
				s.sumFile(h, e.Match.Skill, e.Match.Skill.EntryFile(), false)
			}
		}
	case sk.Files == nil:
		fmt.Fprintf(h, "%s\x00unreadable", sk.Path)
	default:
		fmt.Fprintf(h, "%s\x00%s\x00", sk.Path, a.File)
		info, err := fs.Stat(sk.Files, a.File)
		if a.File != "" && (err != nil || !info.IsDir()) {
			s.sumFile(h, sk, a.File, true)
			break
		}
		fsys, done := sources.Pin(sk.Files)
		files, truncated, _ := sources.WalkFiles(fsys, &sources.WalkOptions{Allow: s.walkAllow(sk, a.File)})
		for _, f := range files {
			fmt.Fprintf(h, "%s\x00", f.Path)
			s.sumContent(h, fsys, sk, f)
		}
		done()
		fmt.Fprintf(h, "%v", truncated)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// sumFile adds what identifies the file name of sk now to h: its
// content when byContent (read again only when its key changed, so a
// touch or a rewrite of the same bytes is no update), else its key.
func (s *Server) sumFile(h hash.Hash, sk *sources.Skill, name string, byContent bool) {
	if sk.Files == nil {
		h.Write([]byte("unreadable\x00"))
		return
	}
	info, err := fs.Stat(sk.Files, name)
	if err != nil {
		h.Write([]byte("absent\x00"))
		return
	}
	if byContent {
		s.sumContent(h, sk.Files, sk, sources.WalkedFile{Path: name, Size: info.Size(), Key: sources.KeyOf(info)})
		return
	}
	sumKey(h, sk.Files, name, sources.KeyOf(info))
}

// sumContent adds the content's digest of the file f of sk, in fsys, to
// h, from the server's digests while the file's key is unchanged. A file
// larger than the server serves (resources.max_file_size) is summed by
// its key: its content is never sent, and reading it would cost the
// refresh a read of as much.
func (s *Server) sumContent(h hash.Hash, fsys fs.FS, sk *sources.Skill, f sources.WalkedFile) {
	if f.Size > s.maxFileSize {
		sumKey(h, fsys, f.Path, f.Key)
		return
	}
	sum, size, err := s.digests.Sum(fsys, sk.Dir, f)
	if err != nil {
		h.Write([]byte("unreadable\x00"))
		return
	}
	fmt.Fprintf(h, "%d/", size)
	h.Write(sum[:])
}

func sumKey(h hash.Hash, fsys fs.FS, name string, key sources.FileKey) {
	if key.Ino != 0 {
		fmt.Fprintf(h, "%d/%d/%d/%d/%d\x00", key.Dev, key.Ino, key.Size, key.Mtime, key.Ctime)
		return
	}
	data, err := sources.ReadFileLimit(fsys, name, maxSkillBytes)
	if err != nil {
		h.Write([]byte("unreadable\x00"))
		return
	}
	sum := sha256.Sum256(data)
	h.Write(sum[:])
}

// listSignature sums up the resource list a view gives: its skills' URIs,
// where they are, their front matter and their file lists, as the sources
// last listed them.
// It runs on every snapshot swap, for every view, so it costs one map
// look-up per skill: each entry's hash comes from the name it is listed
// under and its skill's sum, which sums memoizes; the entries are added
// up, in no order. The hash is seeded per process (signatures are only
// compared within one); a collision, one chance in 2^64 per change, would
// cost one resources/list_changed.
func listSignature(snap *resolver.Snapshot, sums *skillSums) uint64 {
	type entry struct {
		ref sources.Ref // the URI is made of it
		sum uint64
	}
	n := len(snap.Skills()) + len(snap.Shadowed())
	sums.largest = max(sums.largest, n)
	sig := uint64(n)
	for _, sk := range snap.Skills() {
		sig += maphash.Comparable(listSeed, entry{sk.Ref, sums.of(sk)})
	}
	for _, sh := range snap.Shadowed() {
		sig += maphash.Comparable(listSeed, entry{sh.Alias, sums.of(sh.Skill)})
	}
	return sig
}

var listSeed = maphash.MakeSeed()

// skillSums memoizes, by skill, the part of a list signature that a skill
// gives whatever name it is listed under: where it is, its entry file, its
// front matter, and its file list. A source returns the same *sources.Skill while a skill is
// unchanged, so only new and changed skills are hashed. The sums of skills
// no longer listed are dropped once they outnumber the listed ones.
type skillSums struct {
	sums    map[*sources.Skill]uint64
	largest int // the most entries a signature of this round had
}

func (m *skillSums) of(sk *sources.Skill) uint64 {
	if v, ok := m.sums[sk]; ok {
		return v
	}
	var h maphash.Hash
	h.SetSeed(listSeed)
	h.WriteString(sk.Path)
	h.WriteByte(0)
	h.WriteString(sk.EntryFile())
	h.WriteByte(0)
	h.Write(sk.FrontMatter) // resources/list gives the description, skills/list all of it
	h.WriteByte(0)
	if sk.FileListTruncated {
		h.WriteByte(1)
	}
	for _, f := range sk.FileList {
		h.WriteString(f)
		h.WriteByte(0)
	}
	v := h.Sum64()
	if m.sums == nil {
		m.sums = map[*sources.Skill]uint64{}
	}
	m.sums[sk] = v
	return v
}

// round ends a round of signatures.
func (m *skillSums) round() {
	if len(m.sums) > 2*m.largest+1024 {
		m.sums = nil // made again, from the skills listed, next round
	}
	m.largest = 0
}

// warnOnce logs a warning the first time key is seen.
func (s *Server) warnOnce(key, msg string, args ...any) {
	s.mu.Lock()
	if s.warned[key] {
		s.mu.Unlock()
		return
	}
	if len(s.warned) >= maxWarned {
		// Clearing the map made every listing of more than this many
		// skills to warn about warn of each again, and again.
		first := !s.warnedAll
		s.warnedAll = true
		s.mu.Unlock()
		if first {
			s.logger.Warn(fmt.Sprintf("%d warnings about skills were logged; the rest are not (skillmux list --all shows them all)", maxWarned))
		}
		return
	}
	s.warned[key] = true
	s.mu.Unlock()
	s.logger.Warn(msg, args...)
}

// maxWarned bounds the warnings warnOnce logs, each once.
const maxWarned = 10_000
