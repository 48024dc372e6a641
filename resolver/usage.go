package resolver

import (
	"maps"
	"sync"
)

// Usage counts how often skills are loaded, so that the catalog can list
// the most used first within each group (see CatalogOptions). Keys are
// qualified names as Ref.Key gives them. Implementations are safe for
// concurrent use: MemoryUsage counts for the life of the process; a store
// that outlives it can implement the same two methods.
type Usage interface {
	// Record counts one load of the skill with key.
	Record(key string)
	// Counts returns the count of every skill loaded at least once, by
	// key. The caller must not modify the map.
	Counts() map[string]int
}

// MemoryUsage is a Usage kept in memory. The zero value is ready to use.
type MemoryUsage struct {
	// mu guards counts.
	mu     sync.Mutex
	counts map[string]int
}

var _ Usage = (*MemoryUsage)(nil)

// Record counts one load of key.
func (u *MemoryUsage) Record(key string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.counts == nil {
		u.counts = map[string]int{}
	}
	u.counts[key]++
}

// Counts returns a copy of the counts.
func (u *MemoryUsage) Counts() map[string]int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return maps.Clone(u.counts)
}
