package resolver

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/skillmux/skillmux/sources"
)

// Shown says how a skill is offered to the model.
type Shown uint8

const (
	// ShownOn: in the catalog with its description, and in search.
	ShownOn Shown = iota
	// ShownNameOnly: in the catalog by name only, and in search.
	ShownNameOnly
	// ShownOff: in neither the catalog, nor search, nor the lists; still
	// loaded when asked for by its exact name.
	ShownOff
)

// Values of catalog.visibility, in the order of Shown.
var visibilityValues = []string{"on", "name-only", "off"}

// VisibilityValues lists the values a visibility rule may take.
func VisibilityValues() []string { return slices.Clone(visibilityValues) }

func (s Shown) String() string { return visibilityValues[s] }

// Visibility maps glob patterns over qualified names to how the skills
// they match are shown. Patterns are path.Match patterns matched without
// regard to case against the qualified name ("pdf", "example-skills:*",
// "*:access"); where several match, the most specific wins (the one with
// the most characters that are not wildcards), and between equally
// specific ones, the more hidden. A nil *Visibility shows every skill.
type Visibility struct {
	rules []visibilityRule
	// memo caches the answer for each qualified name (case-folded).
	memo sync.Map
}

type visibilityRule struct {
	pattern  string // lower case
	literals int    // characters that are not wildcards
	shown    Shown
}

// NewVisibility compiles rules, pattern to value ("on", "name-only" or
// "off"). The error names the first bad pattern or value.
func NewVisibility(rules map[string]string) (*Visibility, error) {
	if len(rules) == 0 {
		return nil, nil
	}
	v := &Visibility{}
	for _, p := range slices.Sorted(maps.Keys(rules)) {
		i := slices.Index(visibilityValues, rules[p])
		if i < 0 {
			return nil, fmt.Errorf("visibility of %q: %q is not a visibility; use %s", p, rules[p], strings.Join(visibilityValues, ", "))
		}
		lp := sources.NameKey(p) // as names are compared
		if _, err := path.Match(lp, ""); err != nil {
			return nil, fmt.Errorf("visibility: %q is not a valid pattern (use * and ? and [a-z])", p)
		}
		v.rules = append(v.rules, visibilityRule{pattern: lp, literals: literals(lp), shown: Shown(i)})
	}
	return v, nil
}

// literals counts the characters of a pattern that are not wildcards.
func literals(p string) int {
	n := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '*', '?':
		case '[':
			if j := strings.IndexByte(p[i:], ']'); j > 0 {
				i += j
			}
		case '\\':
			i++
			n++
		default:
			n++
		}
	}
	return n
}

// Of returns how the skill with ref is shown.
func (v *Visibility) Of(ref sources.Ref) Shown { return v.ofKey(ref.Key()) }

// ofKey is Of for a qualified name already case-folded (Ref.Key).
func (v *Visibility) ofKey(key string) Shown {
	if v == nil {
		return ShownOn
	}
	if s, ok := v.memo.Load(key); ok {
		return s.(Shown)
	}
	best, shown := -1, ShownOn
	for _, r := range v.rules {
		if ok, _ := path.Match(r.pattern, key); !ok {
			continue
		}
		if r.literals > best || r.literals == best && r.shown > shown {
			best, shown = r.literals, r.shown
		}
	}
	v.memo.Store(key, shown)
	return shown
}

// Offered reports whether a skill is offered to the model in the catalog
// and in search: not when its front matter says disable-model-invocation
// (it is for the user to invoke) nor when its visibility is off.
func (v *Visibility) Offered(sk *sources.Skill) bool {
	return !sk.DisableModelInvocation && v.Of(sk.Ref) != ShownOff
}
