package sources

import (
	"context"
	"errors"
)

// Source lists skills from one place.
//
// List is called whenever the catalog is rebuilt, possibly concurrently with
// reads of skills from an earlier call, so a Skill is immutable once List
// returned it: a Source may return the same *Skill again while nothing
// about it changed (which spares the catalog work), but never changes one
// it returned. List returns an error only when the
// source as a whole cannot be read (its folder vanished, a plugin is down);
// one bad skill is a Diagnostic in the Listing, never an error, so it cannot
// take the others down. A catalog keeps serving the last good listing of a
// source whose List fails, unless the error wraps ErrUnavailable.
type Source interface {
	// Name identifies the source in logs, in `skillmux list` and in
	// qualified names of shadowed skills. It is stable and unique among the
	// sources of one catalog.
	Name() string
	// List returns the skills the source holds now, in its own precedence
	// order (the first of two equal names wins). With an error it returns
	// a nil Listing.
	//
	// List honours ctx. Called with a context that is already done, it
	// returns promptly, doing no work, a nil Listing and an error that
	// wraps ctx.Err(): errors.Is(err, context.Canceled) holds for a
	// cancelled context. A listing that ctx cuts short ends the same way,
	// never as a partial Listing. sourcetest.Run checks this of every
	// implementation.
	List(ctx context.Context) (*Listing, error)
}

// Listing is what one Source holds at one moment.
type Listing struct {
	// Skills are the skills that can be served.
	Skills []*Skill
	// Nested is the number of skills at the end of Skills whose folders
	// are inside other skills' folders. A catalog serves them after every
	// skill that is not, of every source: a source may find them only
	// after its first listing (a deferred scan), and one must not take a
	// name from a skill served before. Sources without nested skills
	// leave it 0.
	Nested int
	// Problems are files that were skipped (with Severity Error) and
	// source-level warnings, such as a traversal bound being hit or a listed
	// path that does not exist.
	Problems []Diagnostic
	// Packages are the bundles of skills the source considered, such as
	// Claude Code plugins, served or not, so that a person can see why one
	// is missing. Sources without bundles leave it empty.
	Packages []Package
}

// NestedCount is Nested within the bounds of Skills: the nested skills
// are l.Skills[len(l.Skills)-l.NestedCount():].
func (l *Listing) NestedCount() int { return min(max(l.Nested, 0), len(l.Skills)) }

// Package is a bundle of skills a source considered serving, such as an
// installed Claude Code plugin, with whether it is served and why not.
type Package struct {
	// Name is how the source knows it ("discord@claude-plugins-official").
	Name string `json:"name"`
	// Source is the name of the Source that considered it.
	Source string `json:"source"`
	// Namespace qualifies its skills, when it is served.
	Namespace string `json:"namespace,omitempty"`
	// Path is its folder, when known.
	Path  string       `json:"path,omitempty"`
	State PackageState `json:"state"`
	// Reason says, in a sentence, why it is not served, or what to know
	// about it.
	Reason string `json:"reason,omitempty"`
	// Skills counts the skills it holds that are served.
	Skills int `json:"skills"`
}

// PackageState is whether a Package is served, and if not, the kind of
// reason.
type PackageState string

const (
	PackageServed       PackageState = "served"
	PackageDisabled     PackageState = "disabled"      // installed, not enabled
	PackageOtherProject PackageState = "other-project" // installed for a project other than this one
	PackageNotInstalled PackageState = "not-installed" // enabled, but no install record
	PackageMissing      PackageState = "missing"       // its folder does not exist
	PackageInvalid      PackageState = "invalid"       // its record or manifest cannot be read
	PackageLeftOut      PackageState = "left-out"      // served, but not to a client that loads it itself
)

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
	// ErrUnavailable, wrapped in the error of a List, means the source
	// cannot be listed now and its skills must not be served meanwhile:
	// a source plugin that is down past its grace period. A catalog then
	// drops the source's last good listing instead of serving it, as it
	// does for other errors, until a List succeeds again.
	ErrUnavailable = errors.New("source unavailable")
)
