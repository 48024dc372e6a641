package server

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxNamed bounds the skills a change note names; the rest are counted.
const maxNamed = 5

// changeNote returns, once per change of the catalog a session sees, a
// sentence saying what changed since the session last heard of it (since
// it started, or since the last note): many
// clients ignore tools/list_changed, and a model that read the catalog at
// the start would not know of a new skill otherwise. It returns "" when
// nothing changed.
func (s *Server) changeNote(req mcp.Request, v *view) string {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok {
		return ""
	}
	now, marks := v.snap.Keys(), v.snap.Marks()
	s.mu.Lock()
	st := s.sessionLocked(ss)
	seen, seenMarks, heard := st.seen, st.seenMarks, st.heard
	st.seen, st.seenMarks, st.heard = now, marks, true
	s.mu.Unlock()
	if !heard || sameList(seen, now) {
		// The common case, which costs nothing: the catalog is the one
		// this session last heard of.
		return ""
	}
	added, removed, changed := diffNames(seen, seenMarks, now, marks)
	if len(added) == 0 && len(removed) == 0 && len(changed) == 0 {
		return ""
	}
	s.mu.Lock()
	noted := st.noted
	st.noted = true
	s.mu.Unlock()
	// Keys are case-folded: an added or changed skill is named as it is
	// served; a removed one, which the snapshot no longer has, by its key.
	for _, list := range [][]string{added, changed} {
		for i, k := range list[:min(len(list), maxNamed)] { // the ones the note names
			if m, err := v.snap.Lookup(k); err == nil && m.Skill != nil {
				list[i] = m.Skill.Ref.String()
			}
		}
	}
	var b strings.Builder
	if noted {
		b.WriteString("The skill catalog changed again since the last note:")
	} else {
		b.WriteString("The skill catalog changed since this session started:")
	}
	sep := ""
	for _, part := range []struct {
		list []string
		what string
	}{{added, "added"}, {removed, "removed"}, {changed, "changed"}} {
		if len(part.list) > 0 {
			fmt.Fprintf(&b, "%s %s %s (%s)", sep, count(len(part.list), "skill"), part.what, names(part.list))
			sep = ";"
		}
	}
	b.WriteString(". Call this tool with a skill's name to load any of them.")
	return b.String()
}

// diffNames returns the names in b and not in a, those in a and not in
// b, and those in both whose marks differ (a skill whose description
// changed, or that its name now loads from another file). Both name
// lists are sorted (Snapshot.Keys), and each has its marks beside it
// (Snapshot.Marks).
func diffNames(a []string, am []uint64, b []string, bm []uint64) (added, removed, changed []string) {
	// Marks that do not match their names (a snapshot made without them)
	// tell no change.
	marked := len(am) == len(a) && len(bm) == len(b)
	var i, j int
	for i < len(a) || j < len(b) {
		switch {
		case i == len(a) || j < len(b) && b[j] < a[i]:
			added = append(added, b[j])
			j++
		case j == len(b) || a[i] < b[j]:
			removed = append(removed, a[i])
			i++
		default:
			if marked && am[i] != bm[j] {
				changed = append(changed, b[j])
			}
			i, j = i+1, j+1
		}
	}
	return added, removed, changed
}

// sameList reports whether a and b are the same list (not only equal).
func sameList(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

func names(list []string) string {
	if len(list) <= maxNamed {
		return strings.Join(list, ", ")
	}
	return strings.Join(list[:maxNamed], ", ") + fmt.Sprintf(" and %d more", len(list)-maxNamed)
}

func count(n int, one string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %ss", n, one)
}
