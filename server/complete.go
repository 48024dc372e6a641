package server

import (
	"context"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

// maxCompletions is the most values completion/complete returns, as the
// protocol allows.
const maxCompletions = 100

// completeResource completes the arguments of the resource templates: "skill"
// with the skill paths of the session's view (matched by prefix, of the
// whole path or of the skill's name, without regard to case), and
// "path" with the files of the skill already chosen. Anything else
// completes to nothing. Values are as a template's {+var} takes them
// (templateValue); what is typed, and the skill in the context, may be
// written so or as the URI holds them.
func (s *Server) completeResource(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	p := req.Params
	if p == nil || p.Ref == nil || p.Ref.Type != "ref/resource" || !isSkillTemplate(p.Ref.URI) {
		return res, nil
	}
	v := s.viewOf(req)
	typed := strings.ToLower(p.Argument.Value)
	values := []string{} // never null: the schema wants an array
	truncated := false   // values are some of the matches, of a number not known
	switch p.Argument.Name {
	case "skill":
		for _, a := range v.snap.Addresses() {
			path := a.URI.Path()
			value := resolver.TemplateValue(path)
			// As written in the URI, or as a value, with or without
			// accents, or by the skill's name.
			if begins(path, typed) || strings.HasPrefix(sources.WithoutMarks(strings.ToLower(value)), sources.WithoutMarks(typed)) ||
				strings.HasPrefix(strings.ToLower(a.Match.Ref.Name), typed) {
				values = append(values, value)
			}
		}
	case "path":
		var skill string
		if p.Context != nil {
			skill = p.Context.Arguments["skill"]
		}
		if skill == "" {
			return res, nil
		}
		a, snap, err := s.resolve(v, "skill://"+resolver.ExpandReserved(skill))
		if err != nil {
			// Spelled as lookups take names: in another Unicode form
			// (as macOS types accents), in another case.
			if near := nearURI(v.snap, "skill://"+resolver.ExpandReserved(skill)); near != "" {
				a, snap, err = s.resolve(v, near)
			}
		}
		if err != nil || a.Match.Skill == nil || a.Match.Skill.Files == nil {
			return res, nil
		}
		fsys, done := sources.Pin(a.Match.Skill.Files)
		defer done()
		root := a.URI.Root() + "/"
		encoded := func(p string) string { return strings.TrimPrefix(a.URI.File(p), root) }
		// Only the folders on the way to what is typed are walked, and
		// only the files it begins are counted against the walk's bound.
		served := addressable(snap, a, s.walkAllow(a.Match.Skill, ""))
		allow := func(p string, dir bool) bool {
			if !served(p, dir) {
				return false
			}
			enc := encoded(p)
			if dir {
				enc += "/"
				value := resolver.TemplateValue(enc)
				return begins(value, typed) || begins(enc, typed) || begins(typed, strings.ToLower(value)) || begins(typed, strings.ToLower(enc))
			}
			return begins(resolver.TemplateValue(enc), typed) || begins(enc, typed)
		}
		var files []sources.WalkedFile
		files, truncated, _ = sources.WalkFiles(fsys, &sources.WalkOptions{Allow: allow})
		for _, f := range files {
			values = append(values, resolver.TemplateValue(encoded(f.Path)))
		}
	default:
		return res, nil
	}
	slices.Sort(values)
	res = completion(values)
	if truncated {
		// The walk stopped at its bound: how many files match is not
		// known, only that there are more.
		res.Completion.Total, res.Completion.HasMore = 0, true
	}
	return res, nil
}

func isSkillTemplate(uri string) bool {
	for _, t := range resourceTemplates {
		if t.URITemplate == uri {
			return true
		}
	}
	return false
}

// begins reports whether s begins with the lower-case prefix, without
// regard to case.
func begins(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.ToLower(s[:len(prefix)]) == prefix
}
