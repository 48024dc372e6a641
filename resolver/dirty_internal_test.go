package resolver

import (
	"testing"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// A source marked changed after SetSources dropped it (its watcher, not
// stopped yet, saw an edit) is not remembered: the resolver would hold
// it, and all it holds, for ever.
func TestMarkChangedIgnoresDroppedSources(t *testing.T) {
	old, next := &sourcetest.Fake{SourceName: "old"}, &sourcetest.Fake{SourceName: "next"}
	r := New([]sources.Source{old}, nil)
	r.SetSources([]sources.Source{next})
	r.MarkChanged(old, next)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dirty[old] || !r.dirty[next] {
		t.Errorf("dirty: old %v, next %v; want only next", r.dirty[old], r.dirty[next])
	}
}
