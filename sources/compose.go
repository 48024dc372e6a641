package sources

import (
	"context"
	"errors"
	"path"
	"slices"
	"sync"
)

// Concat returns a Source named name that lists each of srcs in turn, in
// precedence order, as one listing. It is how a provider made of several
// folders (the user's ~/.claude/skills, ~/.agents/skills, ...) presents
// itself as one source. A part that fails is reported as a problem of the
// whole, with its last good listing (a folder closed for a moment does not
// take its skills away), and the other parts are still listed.
func Concat(name string, srcs ...Source) Source {
	return &concat{name: name, parts: srcs, last: make([]*Listing, len(srcs))}
}

type concat struct {
	name  string
	parts []Source

	mu   sync.Mutex
	last []*Listing // each part's last good listing, by index
}

func (c *concat) Name() string { return c.name }

func (c *concat) List(ctx context.Context) (*Listing, error) {
	var parts []*Listing
	for i, p := range c.parts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l, err := p.List(ctx)
		c.mu.Lock()
		switch {
		case err == nil:
			c.last[i] = l
		case c.last[i] != nil && !errors.Is(err, ErrUnavailable) && ctx.Err() == nil:
			last := c.last[i]
			l = &Listing{Skills: last.Skills, Nested: last.Nested, Packages: last.Packages,
				Problems: append(slices.Clone(last.Problems), Diagnostic{Severity: Error, Path: p.Name(), Rule: "source", Message: err.Error() + "; its last listing is served"})}
		default:
			l = &Listing{Problems: []Diagnostic{{Severity: Error, Path: p.Name(), Rule: "source", Message: err.Error()}}}
		}
		c.mu.Unlock()
		parts = append(parts, l)
	}
	out := Merge(parts...)
	// Checked again after the loop: a source of no parts, or whose last
	// part was cut short by ctx, must not pass for a whole listing.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// Merge joins listings given in precedence order into one: their skills
// in that order, but the nested ones of every listing after all the
// others (see Listing.Nested), and their problems and packages.
func Merge(parts ...*Listing) *Listing {
	out := &Listing{}
	var nested []*Skill
	for _, l := range parts {
		top := len(l.Skills) - l.NestedCount()
		out.Skills = append(out.Skills, l.Skills[:top]...)
		nested = append(nested, l.Skills[top:]...)
		out.Problems = append(out.Problems, l.Problems...)
		out.Packages = append(out.Packages, l.Packages...)
	}
	out.Skills = append(out.Skills, nested...)
	out.Nested = len(nested)
	return out
}

// Unwrap returns the parts, so capabilities of the parts stay reachable.
func (c *concat) Unwrap() []Source { return c.parts }

// Filter returns a Source that serves only the skills of src whose name
// matches one of include (all when include is empty) and none of exclude.
// Patterns use path.Match syntax and are matched against both the
// qualified name ("plugin:skill") and the short name ("skill").
func Filter(src Source, include, exclude []string) Source {
	if len(include) == 0 && len(exclude) == 0 {
		return src
	}
	return &filter{src: src, include: include, exclude: exclude}
}

type filter struct {
	src              Source
	include, exclude []string
}

func (f *filter) Name() string { return f.src.Name() }

// Unwrap returns the filtered source.
func (f *filter) Unwrap() Source { return f.src }

func (f *filter) List(ctx context.Context) (*Listing, error) {
	l, err := f.src.List(ctx)
	if err != nil {
		return nil, err
	}
	out := &Listing{Problems: l.Problems, Packages: l.Packages}
	top := len(l.Skills) - l.NestedCount()
	for i, sk := range l.Skills {
		if (len(f.include) == 0 || matchAny(f.include, sk.Ref)) && !matchAny(f.exclude, sk.Ref) {
			out.Skills = append(out.Skills, sk)
			if i >= top {
				out.Nested++
			}
		}
	}
	return out, nil
}

func matchAny(patterns []string, r Ref) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, r.String()); ok {
			return true
		}
		if ok, _ := path.Match(p, r.Name); ok {
			return true
		}
	}
	return false
}

// Places returns the folders (and, for Claude Code's plugins, the files)
// src reads skills from, for people asking where skillmux looked: those
// its Places method names, a folder tree's root, or the parts' of a source
// made of others. Sources of no place on this disk (a source plugin) have
// none.
func Places(src Source) []string {
	switch s := src.(type) {
	case interface{ Places() []string }:
		return s.Places()
	case interface{ Root() string }:
		return []string{s.Root()}
	case interface{ Unwrap() []Source }:
		var out []string
		for _, p := range s.Unwrap() {
			out = append(out, Places(p)...)
		}
		return out
	case interface{ Unwrap() Source }:
		return Places(s.Unwrap())
	}
	return nil
}
