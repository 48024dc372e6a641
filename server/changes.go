package server

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
)

// maxNamed bounds the skills a change note names; the rest are counted.
const maxNamed = 5

// changeNote returns, once per change of the catalog a session sees, a
// sentence saying what changed since the session last heard of it: many
// clients ignore tools/list_changed, and a model that read the catalog at
// the start would not know of a new skill otherwise. It returns "" when
// nothing changed.
func (s *Server) changeNote(req mcp.Request, v *view) string {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok {
		return ""
	}
	s.mu.Lock()
	st := s.sessionLocked(ss)
	seen := st.seen
	st.seen = v.snap
	s.mu.Unlock()
	if seen == nil || seen == v.snap {
		return ""
	}
	added, removed := diffNames(seen, v.snap)
	if len(added) == 0 && len(removed) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("The skill catalog changed since this session started:")
	if len(added) > 0 {
		fmt.Fprintf(&b, " %s added (%s)", count(len(added), "skill"), names(added))
	}
	if len(removed) > 0 {
		if len(added) > 0 {
			b.WriteString(";")
		}
		fmt.Fprintf(&b, " %s removed (%s)", count(len(removed), "skill"), names(removed))
	}
	b.WriteString(". Call this tool with a skill's name to load any of them.")
	return b.String()
}

// diffNames returns the qualified names served in b and not in a, and
// those served in a and not in b.
func diffNames(a, b *resolver.Snapshot) (added, removed []string) {
	in := func(s *resolver.Snapshot) map[string]bool {
		m := make(map[string]bool, s.Len())
		for _, sk := range s.Skills() {
			m[sk.Ref.String()] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	for _, sk := range b.Skills() {
		if !ma[sk.Ref.String()] {
			added = append(added, sk.Ref.String())
		}
	}
	for _, sk := range a.Skills() {
		if !mb[sk.Ref.String()] {
			removed = append(removed, sk.Ref.String())
		}
	}
	return added, removed
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
