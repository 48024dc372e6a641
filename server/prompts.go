package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
)

// Every skill is also an MCP prompt, which clients offer as a slash
// command: named by its qualified name, described by its description,
// with one optional argument, "arguments", whose text replaces $ARGUMENTS
// in the skill's body (or, when the body has none, follows it as
// "ARGUMENTS: ..."). A skill whose front matter says user-invocable: false
// is the model's only, and is not a prompt; one whose visibility is off is
// listed nowhere, but its prompt answers to its exact name.
//
// One more prompt, LoaderPromptName, loads any skill by name, as the skill
// tool does: with many skills it is easier to find than a long list, and
// its "name" argument is completed (completion/complete) with the skills'
// names. A skill of that very name is reached through it, and is no
// prompt of its own: PromptWarning says so, in the log at the first
// prompts/list that leaves it out, and in `skillmux list --all`.
//
// Each session lists the prompts of its own view (clients.go), so prompts
// are answered here rather than registered with the SDK; the SDK is only
// asked to announce notifications/prompts/list_changed, which
// filterListChanged lets through to the sessions whose prompts changed.

// LoaderPromptName is the prompt that loads any skill by name.
const LoaderPromptName = "skill"

// ArgumentsName is the argument of a skill's prompt.
const ArgumentsName = "arguments"

// promptPageSize is the most prompts in one page of prompts/list.
const promptPageSize = 1000

// promptList is the prompts of one view, in name order, made once.
type promptList struct {
	once    sync.Once
	prompts []*mcp.Prompt
	sum     uint64               // of names and descriptions, to tell lists apart; never 0
	hidden  []sources.Diagnostic // why skills that would be prompts are not (PromptWarning)
}

// promptsOf returns the prompts of v.
func (s *Server) promptsOf(v *view) *promptList {
	pl := v.prompts
	pl.once.Do(func() {
		h := fnv.New64a()
		pl.prompts = append(pl.prompts, loaderPrompt())
		for _, sk := range v.snap.Skills() {
			if !sk.UserInvocable || s.catalogOpts.Visibility.Of(sk.Ref) == resolver.ShownOff {
				continue
			}
			if d, ok := PromptWarning(sk); ok {
				pl.hidden = append(pl.hidden, d)
				continue
			}
			p := skillPrompt(sk)
			pl.prompts = append(pl.prompts, p)
			fmt.Fprintf(h, "%s\x00%s\x00%s\x00", p.Name, p.Description, p.Arguments[0].Description)
		}
		slices.SortFunc(pl.prompts, func(a, b *mcp.Prompt) int { return strings.Compare(a.Name, b.Name) })
		pl.sum = h.Sum64() | 1
	})
	return pl
}

// PromptWarning returns, for a skill that would be a prompt but whose
// name the loader prompt takes, a warning that says how to reach it.
func PromptWarning(sk *sources.Skill) (sources.Diagnostic, bool) {
	if !sk.UserInvocable || !strings.EqualFold(sk.Ref.String(), LoaderPromptName) {
		return sources.Diagnostic{}, false
	}
	return sources.Diagnostic{Severity: sources.Warning, Path: sk.Path, Field: "name", Rule: "prompt-name",
		Message: fmt.Sprintf("%q is no prompt of its own: the prompt %q loads any skill by name; reach this one with that prompt and the argument name: %s, or rename the skill",
			sk.Ref.String(), LoaderPromptName, sk.Ref.String())}, true
}

func loaderPrompt() *mcp.Prompt {
	return &mcp.Prompt{
		Name:        LoaderPromptName,
		Title:       "Load a skill",
		Description: "Load an Agent Skill by name and follow it.",
		Arguments: []*mcp.PromptArgument{
			{Name: "name", Description: "The skill's name, e.g. \"pdf\" or \"example-skills:pdf\" (completed as you type).", Required: true},
			{Name: ArgumentsName, Description: "Optional text for the skill: it replaces $ARGUMENTS in the skill."},
		},
	}
}

func skillPrompt(sk *sources.Skill) *mcp.Prompt {
	desc := "Optional text for the skill: it replaces $ARGUMENTS in the skill."
	if hint := argumentHint(sk); hint != "" {
		desc += " Expected: " + hint
	}
	return &mcp.Prompt{
		Name:        sk.Ref.String(),
		Description: listedText(sk.Description),
		Arguments:   []*mcp.PromptArgument{{Name: ArgumentsName, Description: desc}},
	}
}

// argumentHint returns the front matter's argument-hint, which Claude Code
// shows beside a slash command; the YAML is parsed only when it has one.
func argumentHint(sk *sources.Skill) string {
	if !bytes.Contains(sk.FrontMatter, []byte("argument-hint")) {
		return ""
	}
	fm, err := sk.Fields()
	if err != nil {
		return ""
	}
	if h, ok := fm["argument-hint"].(string); ok {
		return strings.Join(strings.Fields(h), " ")
	}
	return ""
}

// servePrompts answers prompts/list and prompts/get from the view of the
// session that asks.
func (s *Server) servePrompts(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "prompts/list":
			r, ok := req.(*mcp.ListPromptsRequest)
			if !ok {
				break
			}
			return s.listPrompts(r)
		case "prompts/get":
			r, ok := req.(*mcp.GetPromptRequest)
			if !ok {
				break
			}
			return s.getPrompt(ctx, r)
		}
		return next(ctx, method, req)
	}
}

func (s *Server) listPrompts(req *mcp.ListPromptsRequest) (*mcp.ListPromptsResult, error) {
	v := s.viewOf(req)
	pl := s.promptsOf(v)
	for _, d := range pl.hidden {
		s.warnOnce("prompt-name\x00"+d.Path, "skill not offered as a prompt", "path", d.Path, "why", d.Message)
	}
	cursor := ""
	if req.Params != nil {
		cursor = req.Params.Cursor
	}
	start, err := pageStart("prompts/list", cursor, len(pl.prompts), func(i int) string { return pl.prompts[i].Name })
	if err != nil {
		return nil, err
	}
	end := min(start+promptPageSize, len(pl.prompts))
	res := &mcp.ListPromptsResult{Prompts: slices.Clone(pl.prompts[start:end])}
	res.CacheScope = "private" // each session has its view
	if end < len(pl.prompts) {
		res.NextCursor = encodeCursor("prompts/list", pl.prompts[end-1].Name)
	}
	if ss, ok := req.GetSession().(*mcp.ServerSession); ok {
		s.mu.Lock()
		st := s.sessionLocked(ss)
		st.promptsListed, st.promptsAnnounced = pl.sum, 0
		s.mu.Unlock()
	}
	return res, nil
}

func (s *Server) getPrompt(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	if req.Params == nil || strings.TrimSpace(req.Params.Name) == "" {
		return nil, invalidParams(`missing the prompt's "name"`)
	}
	args := req.Params.Arguments
	name := req.Params.Name
	if name == LoaderPromptName {
		name = args["name"]
		if strings.TrimSpace(name) == "" {
			return nil, invalidParams(fmt.Sprintf(`prompt %q needs the argument "name": the skill to load`, LoaderPromptName))
		}
	}
	loader := req.Params.Name == LoaderPromptName
	for k := range args {
		if k != ArgumentsName && !(loader && k == "name") {
			takes := fmt.Sprintf("%q", ArgumentsName)
			if loader {
				takes = fmt.Sprintf("%q and %q", "name", ArgumentsName)
			}
			return nil, invalidParams(fmt.Sprintf("prompt %q takes no argument %q; it takes %s", clipURI(req.Params.Name), clipURI(k), takes))
		}
	}
	m, err := findDuringStart(ctx, s.started, func() (resolver.Match, error) { return s.lookup(s.viewOf(req), name) })
	if err != nil {
		return nil, invalidParams(fmt.Sprintf("unknown prompt: %v", err))
	}
	if !m.Skill.UserInvocable {
		return nil, invalidParams(fmt.Sprintf("skill %s is not a prompt: its front matter says user-invocable: false (the model loads it with the skill tool)", m.Ref))
	}
	handled, err := s.reads.acquire(ctx, min(sources.EntrySize(m.Skill)+int64(len(args[ArgumentsName])), maxPromptSize))
	if err != nil {
		return nil, err
	}
	defer handled()
	body, err := readBody(m.Skill)
	if err != nil {
		if errors.Is(err, sources.ErrTooLarge) {
			return nil, invalidParams(fmt.Sprintf("skill %s is too large to be a prompt: its SKILL.md is over %d MiB", m.Ref, MaxSkillFileSize>>20))
		}
		if entryGone(m.Skill, err) {
			return nil, invalidParams(goneMessage(m))
		}
		if err := sources.Confine(m.Skill.EntryFile(), err); filesFault(err) {
			// The user's files, not the server, are at fault.
			return nil, invalidParams(fmt.Sprintf("cannot read skill %s: %v", m.Ref, err))
		}
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("cannot read skill %s: %v", m.Ref, err)}
	}
	arguments := args[ArgumentsName]
	if n := max(strings.Count(body, "$ARGUMENTS"), 1); len(body)+n*len(arguments) > maxPromptSize {
		return nil, invalidParams(fmt.Sprintf("argument %q is too long for skill %s: its %d bytes, put in place of $ARGUMENTS %d times, would make a prompt of more than %d MiB", ArgumentsName, m.Ref, len(arguments), n, maxPromptSize>>20))
	}
	s.usage.Record(m.Skill.Ref.Key())
	text := fmt.Sprintf("Base directory for this skill: %s\n\n%s", baseDirectory(m, s.tools.has(SkillResourceToolName)), SubstituteArguments(body, arguments))
	return &mcp.GetPromptResult{
		Description: shownText(m.Skill.Description),
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}

// maxPromptSize bounds the text of a prompt: a body of up to
// MaxSkillFileSize with its arguments in place.
const maxPromptSize = 2 * MaxSkillFileSize

// SubstituteArguments puts arguments in place of every $ARGUMENTS in body;
// when body has none, non-empty arguments follow it as "ARGUMENTS: ...",
// as Claude Code does for its own skills.
func SubstituteArguments(body, arguments string) string {
	if strings.Contains(body, "$ARGUMENTS") {
		return strings.ReplaceAll(body, "$ARGUMENTS", arguments)
	}
	if strings.TrimSpace(arguments) == "" {
		return body
	}
	return strings.TrimRight(body, "\n") + "\n\nARGUMENTS: " + arguments
}

// announcePrompts makes the SDK send notifications/prompts/list_changed
// to every session (filterListChanged keeps it from those whose prompts
// did not change): adding a prompt to the SDK announces a change. The
// prompt added is never listed, since servePrompts answers the lists.
func (s *Server) announcePrompts() {
	s.mcp.AddPrompt(&mcp.Prompt{Name: "skillmux-prompts-changed"}, func(context.Context, *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		return nil, invalidParams("no such prompt")
	})
}

// completePrompt completes an argument of a prompt: the skill names of
// the loader's "name", in name order, those that start with what was typed
// (the qualified name or the short one) first, then those that contain it.
// A skill prompt's "arguments" is free text: no values.
func (s *Server) completePrompt(req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	p := req.Params
	v := s.viewOf(req)
	arg := p.Argument.Name
	if p.Ref.Name == LoaderPromptName {
		switch arg {
		case "name":
			return completion(s.skillNames(v, p.Argument.Value)), nil
		case ArgumentsName:
			return completion(nil), nil
		}
		return nil, invalidParams(fmt.Sprintf("prompt %q has no argument %q; it has \"name\" and %q", LoaderPromptName, clipURI(arg), ArgumentsName))
	}
	m, err := s.lookup(v, p.Ref.Name) // as prompts/get finds it
	if err != nil || !m.Skill.UserInvocable {
		return nil, invalidParams(fmt.Sprintf("unknown prompt %q", clipURI(p.Ref.Name)))
	}
	if arg != ArgumentsName {
		return nil, invalidParams(fmt.Sprintf("prompt %q has no argument %q; it has %q", m.Ref, clipURI(arg), ArgumentsName))
	}
	return completion(nil), nil
}

// skillNames returns the names of the user-invocable skills of v that
// match typed, without regard to case.
func (s *Server) skillNames(v *view, typed string) []string {
	typed = sources.NameKey(strings.TrimSpace(typed))
	var prefix, within []string
	for _, sk := range v.snap.Skills() {
		if !sk.UserInvocable || s.catalogOpts.Visibility.Of(sk.Ref) == resolver.ShownOff {
			continue
		}
		key := sk.Ref.Key()
		switch {
		case strings.HasPrefix(key, typed) || strings.HasPrefix(sources.NameKey(sk.Ref.Name), typed):
			prefix = append(prefix, sk.Ref.String())
		case strings.Contains(key, typed):
			within = append(within, sk.Ref.String())
		case strings.Contains(sources.WithoutMarks(key), typed):
			// Typed without its accents ("ete" for "été"), as the skill
			// tool's suggestions take it.
			within = append(within, sk.Ref.String())
		}
	}
	// A shadowed skill is a prompt by its alias (prompts/get takes it),
	// offered once what is typed begins it ("team:").
	for _, sh := range v.snap.Shadowed() {
		off := s.catalogOpts.Visibility.Of(sh.Alias) == resolver.ShownOff || s.catalogOpts.Visibility.Of(sh.Skill.Ref) == resolver.ShownOff
		if sh.Skill.UserInvocable && !off && typed != "" && strings.HasPrefix(sh.Alias.Key(), typed) {
			prefix = append(prefix, sh.Alias.String())
		}
	}
	return append(prefix, within...)
}

// completion answers with at most maxCompletions of values.
func completion(values []string) *mcp.CompleteResult {
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}, Total: len(values)}}
	if len(values) > maxCompletions {
		res.Completion.HasMore = true
		values = values[:maxCompletions]
	}
	res.Completion.Values = append(res.Completion.Values, values...)
	return res
}

// shownText is a skill's description as a client shows it to the user (a
// prompt in a slash-command menu, a resource in a picker): its lines as
// written, without the control characters other than line breaks and
// tabs, and without the bidirectional controls, which would make it
// display in another order than it reads (the catalog drops them too).
func shownText(s string) string {
	if !strings.ContainsFunc(s, hiddenRune) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if hiddenRune(r) {
			return -1
		}
		return r
	}, s)
}

// toolText is a description as the tools' structured answers give it
// (search hits, skills_list, check_skill_exists): on one line, as the
// catalog shows it, and cut as lists cut it, so that ten hits of 60 kB
// descriptions are not an answer of 600 kB.
func toolText(s string) string { return listedText(resolver.OneLine(s)) }

// listedText is shownText for the lists (prompts/list, resources/list):
// cut to the specification's limit, with an ellipsis, when longer. A page
// of a thousand prompts then stays a few megabytes, whatever the
// descriptions served leniently; the skill itself has the whole text.
func listedText(s string) string {
	s = shownText(s)
	if _, more := cutRunes(s, sources.MaxDescriptionLen); !more {
		return s
	}
	head, _ := cutRunes(s, sources.MaxDescriptionLen-1)
	return head + "…"
}

// cutRunes returns the first n characters of s, and whether s has more,
// without decoding past them.
func cutRunes(s string, n int) (string, bool) {
	end := 0
	for range n {
		if end == len(s) {
			return s, false
		}
		_, size := utf8.DecodeRuneInString(s[end:])
		end += size
	}
	return s[:end], end < len(s)
}

func hiddenRune(r rune) bool {
	return unicode.IsControl(r) && r != '\n' && r != '\t' || sources.IsBidiControl(r)
}
