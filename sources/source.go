package sources

import (
	"context"
	"errors"
)

// Source lists skills from one place.
//
// List is called whenever the catalog is rebuilt, possibly concurrently with
// reads of skills from an earlier call, so a Source must return fresh Skill
// values rather than mutate old ones. List returns an error only when the
// source as a whole cannot be read (its folder vanished, a plugin is down);
// one bad skill is a Diagnostic in the Listing, never an error, so it cannot
// take the others down.
type Source interface {
	// Name identifies the source in logs, in `skillmux list` and in
	// qualified names of shadowed skills. It is stable and unique among the
	// sources of one catalog.
	Name() string
	// List returns the skills the source holds now, in its own precedence
	// order (the first of two equal names wins).
	List(ctx context.Context) (*Listing, error)
}

// Listing is what one Source holds at one moment.
type Listing struct {
	// Skills are the skills that can be served.
	Skills []*Skill
	// Problems are files that were skipped (with Severity Error) and
	// source-level warnings, such as a traversal bound being hit or a listed
	// path that does not exist.
	Problems []Diagnostic
}

// Sentinel errors shared by sources and their consumers.
var (
	// ErrNotFound means no skill answers to a name.
	ErrNotFound = errors.New("skill not found")
	// ErrAmbiguous means a short name matches several skills.
	ErrAmbiguous = errors.New("ambiguous skill name")
	// ErrNoFrontMatter means a SKILL.md does not start with a "---" line.
	ErrNoFrontMatter = errors.New("no front matter")
	// ErrUnterminated means the front matter has no closing "---" line.
	ErrUnterminated = errors.New("front matter not terminated")
)
