package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

// ListToolName is the name of the tool that lists skills with their
// metadata.
const ListToolName = "skills_list"

var listInputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"query": map[string]any{
			"type":        "string",
			"description": "Optional substring filter applied to the install name, meta.name or description, without regard to case.",
		},
		"includeBody": map[string]any{
			"type":        "boolean",
			"description": "Include the SKILL.md body (minus YAML front-matter) in the structured payload.",
		},
	},
	"additionalProperties": false,
}

var listedSchema = map[string]any{
	"installName": map[string]any{"type": "string", "description": "The name that loads the skill with the skill tool."},
	"meta": map[string]any{
		"type":       "object",
		"properties": map[string]any{"name": map[string]any{"type": "string"}, "description": map[string]any{"type": "string"}},
		"required":   []string{"name", "description"},
	},
	"skillPath": map[string]any{"type": "string", "description": "The skill's folder."},
	"skillFile": map[string]any{"type": "string", "description": "Its SKILL.md."},
	"body":      map[string]any{"type": "string"},
}

var listOutputSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"skills": map[string]any{
			"type":  "array",
			"items": map[string]any{"type": "object", "properties": listedSchema, "required": []string{"installName", "meta", "skillPath", "skillFile"}},
		},
	},
	"required": []string{"skills"},
}

// listed is a skill as skills_list (and sk's skills.list) shows it.
type listed struct {
	InstallName string     `json:"installName"`
	Meta        listedMeta `json:"meta"`
	SkillPath   string     `json:"skillPath"`
	SkillFile   string     `json:"skillFile"`
	Body        *string    `json:"body,omitempty"`
}

type listedMeta struct {
	Name        string `json:"name"`
	Description string `json:"description"`
}

type listResult struct {
	Skills []listed `json:"skills"`
}

func (s *Server) listTool() *tool { return s.listToolNamed(ListToolName) }

func (s *Server) listToolNamed(name string) *tool {
	return &tool{def: &mcp.Tool{
		Name:  name,
		Title: "List skills",
		Description: "List every Agent Skill with its metadata (name, description, folder, SKILL.md), optionally filtered by a substring, " +
			"optionally with each SKILL.md body. For exhaustive metadata; to find a skill by what it does, search instead.",
		InputSchema:  listInputSchema,
		OutputSchema: listOutputSchema,
		Annotations:  &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(false)},
	}, handle: s.callList}
}

func (s *Server) callList(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a, err := parseArgs(req.Params.Arguments, "query", "includeBody")
	if err != nil {
		return nil, err
	}
	query, err := a.str("query")
	if err != nil {
		return nil, err
	}
	withBody, err := a.boolean("includeBody")
	if err != nil {
		return nil, err
	}
	v := s.viewOf(req)
	q := strings.ToLower(strings.TrimSpace(query))
	res := listResult{Skills: []listed{}}
	bodies, withheld := 0, 0 // bytes of bodies in the answer; bodies left out
	meta, cut := 0, 0        // bytes of the skills' metadata in the answer; skills left out
	var unread []string      // the first skills whose bodies cannot be read, and why
	unreadable := 0
	for _, sk := range v.snap.Skills() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if s.catalogOpts.Visibility.Of(sk.Ref) == resolver.ShownOff {
			continue // listed nowhere; loaded by its exact name
		}
		l := listedOf(sk)
		if q != "" && !strings.Contains(strings.ToLower(l.InstallName), q) && !strings.Contains(strings.ToLower(l.Meta.Name), q) && !strings.Contains(strings.ToLower(l.Meta.Description), q) {
			continue
		}
		size := l.size()
		if cut > 0 || meta > 0 && meta+size > maxListMeta {
			cut++
			continue
		}
		meta += size
		if withBody && withheld == 0 {
			body, err := readBody(sk)
			if err != nil {
				// Left out, not given as empty: an empty body is a body.
				s.logger.Warn("cannot read a skill's body for skills_list", "name", sk.Ref.String(), "err", err)
				if unreadable++; len(unread) < 5 {
					unread = append(unread, fmt.Sprintf("%s (%v)", sk.Ref, unwrapPathError(sources.Confine(sk.EntryFile(), err))))
				}
			} else if n := jsonLen(body); n > maxListBodies {
				if unreadable++; len(unread) < 5 {
					unread = append(unread, fmt.Sprintf("%s (its body makes %s of JSON, more than an answer holds; load it with the skill tool)", sk.Ref, mib(n)))
				}
			} else if bodies+n > maxListBodies {
				withheld++
			} else {
				l.Body = &body
				bodies += n
			}
		} else if withBody {
			withheld++
		}
		res.Skills = append(res.Skills, l)
	}
	listed := count(len(res.Skills), "skill")
	if cut > 0 {
		listed = fmt.Sprintf("%d of %s", len(res.Skills), count(len(res.Skills)+cut, "skill"))
	}
	text := listed + "."
	if q != "" {
		text = fmt.Sprintf("%s match %q.", listed, query)
	}
	if cut > 0 {
		text += fmt.Sprintf(" The last %s left out: the answer holds at most %d MiB of names, descriptions and paths; narrow it with query, or search.", isAre(count(cut, "skill"), cut), maxListMeta>>20)
	}
	if withheld > 0 {
		text += fmt.Sprintf(" The bodies of the last %s are left out: the answer holds at most %d MiB of bodies; narrow the query, or load a skill by name.", count(withheld, "skill"), maxListBodies>>20)
	}
	if unreadable > 0 {
		if more := unreadable - len(unread); more > 0 {
			unread = append(unread, fmt.Sprintf("%d more", more))
		}
		what := "The body of 1 skill is"
		if unreadable > 1 {
			what = fmt.Sprintf("The bodies of %d skills are", unreadable)
		}
		text += fmt.Sprintf(" %s left out: %s.", what, strings.Join(unread, "; "))
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: res}, nil
}

func listedOf(sk *sources.Skill) listed {
	return listed{
		InstallName: sk.Ref.String(),
		Meta:        listedMeta{Name: sk.Ref.Name, Description: toolText(sk.Description)},
		SkillPath:   sk.Dir,
		SkillFile:   sk.Path,
	}
}

// isAre is what, n things, followed by "is" or "are".
func isAre(what string, n int) string {
	if n == 1 {
		return what + " is"
	}
	return what + " are"
}

// maxListMeta bounds the metadata of the skills in one skills_list answer,
// in bytes of JSON (as listed.size counts them): 20,000 skills of
// 1,024-character descriptions were 22.8 MB, past what clients take in
// one message. With maxListBodies, an answer stays within maxContents.
const maxListMeta = 3 << 20

// size is the bytes l's metadata takes in an answer, as JSON.
func (l *listed) size() int {
	return jsonLen(l.InstallName) + jsonLen(l.Meta.Name) + jsonLen(l.Meta.Description) + jsonLen(l.SkillPath) + jsonLen(l.SkillFile) + 100
}

// maxListBodies bounds the bodies in one skills_list answer, in bytes of
// JSON; a body longer than that alone is left out, and said to be.
const maxListBodies = 6 << 20

// readBody reads the skill's entry file now and returns it without its
// front matter.
func readBody(sk *sources.Skill) (string, error) {
	body, err := sources.ReadBody(sk, MaxSkillFileSize)
	return string(body), err
}
