package server

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A tool profile is a set of tools under the names a known skill server
// gave them, so that its users keep the surface they know:
//
//	default     skill, skills_search, skill_resource
//	sk          skills.list, skills.search (the earlier Rust `sk mcp-server`)
//	skills-mcp  skill, get_skill_resource, execute_skill_script
//	skill-jack  skill, skill-resource
//	catalog     search_skills, check_skill_exists, cite_skill, suggest_skills
//	all         every tool this version serves, once each, without dots
//
// Options.Tools adds (Enable) and removes (Disable) tools by name. A tool
// named that this version does not serve is reported at start-up, by
// name and with the reason, never left out silently.
var profiles = map[string][]string{
	ProfileDefault: {SkillToolName, SearchToolName, "skill_resource"},
	"sk":           {skListName, skSearchName},
	"skills-mcp":   {SkillToolName, "get_skill_resource", "execute_skill_script"},
	"skill-jack":   {SkillToolName, "skill-resource"},
	"catalog":      {catalogSearchName, checkExistsName, citeName, suggestName},
	ProfileAll:     nil, // every known tool
}

// Profile names with a meaning of their own.
const (
	ProfileDefault = "default"
	ProfileAll     = "all"
)

// notServed gives, for each tool a profile names that this version does
// not serve, the reason.
var notServed = map[string]string{
	"execute_skill_script": "skillmux does not run the scripts of skills: a script is code from wherever the skill came from, and the client's own shell tool runs it in view of the user, " +
		"under the client's permissions; the skill tool gives the script's path",
}

// aliases are the names under which other servers serve a tool of ours
// (skill_resource, skills_search, skills_list); a profile names them, and
// "all" leaves them out, having the tool once. "all" leaves out the sk
// profile's dotted names too, which several clients refuse.
var aliases = map[string]bool{"get_skill_resource": true, "skill-resource": true, catalogSearchName: true}

// toolMaker makes one tool of a Server.
type toolMaker func(s *Server) *tool

// tool is a tool definition and its handler.
type tool struct {
	def    *mcp.Tool
	handle mcp.ToolHandler
}

// toolMakers returns every tool this version serves, by name. Adding a
// tool is adding its file and its line here.
func toolMakers() map[string]toolMaker {
	return map[string]toolMaker{
		SkillToolName:         (*Server).skillTool,
		SearchToolName:        (*Server).searchTool,
		SkillResourceToolName: (*Server).skillResourceTool,
		"get_skill_resource":  func(s *Server) *tool { return s.skillResourceToolNamed("get_skill_resource") },
		"skill-resource":      func(s *Server) *tool { return s.skillResourceToolNamed("skill-resource") },
		ListToolName:          (*Server).listTool,
		skListName:            (*Server).skListTool,
		skSearchName:          (*Server).skSearchTool,
		catalogSearchName:     (*Server).catalogSearchTool,
		checkExistsName:       (*Server).checkExistsTool,
		citeName:              (*Server).citeTool,
		suggestName:           (*Server).suggestTool,
	}
}

// Profiles returns the names of the tool profiles, sorted.
func Profiles() []string { return slices.Sorted(maps.Keys(profiles)) }

// ToolNames returns every tool name a profile, Enable or Disable may use,
// served or not, sorted.
func ToolNames() []string {
	names := map[string]bool{}
	for n := range toolMakers() {
		names[n] = true
	}
	for n := range notServed {
		names[n] = true
	}
	return slices.Sorted(maps.Keys(names))
}

// ToolsOptions chooses the tools a Server serves. A nil *ToolsOptions is
// the default profile.
type ToolsOptions struct {
	// Profile is one of Profiles; "" means ProfileDefault.
	Profile string
	// Enable adds tools to the profile's, Disable removes some; names
	// from ToolNames.
	Enable, Disable []string
}

// toolSet is the outcome of ToolsOptions: the tools to serve, in order,
// and those named but not served, with why.
type toolSet struct {
	served      []string
	unavailable []string // "name: reason"
	unknown     []string // names that no version knows (the configuration checks them first)
	idle        []string // enable or disable entries that change nothing, said why
}

// resolveTools applies o.
func resolveTools(o *ToolsOptions) toolSet {
	var opts ToolsOptions
	if o != nil {
		opts = *o
	}
	profile := opts.Profile
	if profile == "" {
		profile = ProfileDefault
	}
	var names []string
	var set toolSet
	want, ok := profiles[profile]
	switch {
	case profile == ProfileAll:
		names = slices.DeleteFunc(ToolNames(), func(n string) bool {
			return aliases[n] || notServed[n] != "" || strings.Contains(n, ".")
		})
	case ok:
		names = slices.Clone(want)
	default:
		set.unknown = append(set.unknown, "profile "+profile)
		names = slices.Clone(profiles[ProfileDefault])
	}
	for _, n := range opts.Enable {
		if !slices.Contains(names, n) {
			names = append(names, n)
		} else if !slices.Contains(opts.Disable, n) {
			set.idle = append(set.idle, fmt.Sprintf("tools.enable names %s, which profile %s serves already", n, profile))
		}
	}
	for _, n := range opts.Disable {
		if !slices.Contains(names, n) {
			set.idle = append(set.idle, fmt.Sprintf("tools.disable names %s, which profile %s does not serve", n, profile))
		}
	}
	names = slices.DeleteFunc(names, func(n string) bool { return slices.Contains(opts.Disable, n) })
	makers := toolMakers()
	for _, n := range slices.Concat(names, opts.Disable) {
		_, served := makers[n]
		_, known := notServed[n]
		switch {
		case served || known:
		case !slices.Contains(set.unknown, n):
			set.unknown = append(set.unknown, n)
		}
	}
	for _, n := range names {
		switch {
		case makers[n] != nil:
			set.served = append(set.served, n)
		case notServed[n] != "":
			set.unavailable = append(set.unavailable, n+": "+notServed[n])
		}
	}
	return set
}

// dotted returns the served tools whose names hold a dot.
func (ts toolSet) dotted() []string {
	var out []string
	for _, n := range ts.served {
		if strings.Contains(n, ".") {
			out = append(out, n)
		}
	}
	return out
}

// report logs what a client will not find: tools named but not served,
// and names with dots, which several clients refuse.
func (s *Server) reportTools(ts toolSet) {
	if len(ts.unknown) > 0 {
		s.logger.Error("unknown tool names ignored; known: "+strings.Join(ToolNames(), ", ")+"; profiles: "+strings.Join(Profiles(), ", "), "names", strings.Join(ts.unknown, ", "))
	}
	for _, u := range ts.unavailable {
		name, reason, _ := strings.Cut(u, ": ")
		s.logger.Warn(fmt.Sprintf("tool %s is not available in this version", name), "reason", reason)
	}
	if d := ts.dotted(); len(d) > 0 {
		s.logger.Warn("tool names with a dot ("+strings.Join(d, ", ")+") are refused or mangled by several clients (Claude Desktop, Codex, Cursor accept only letters, digits, _ and -); use them only with a client known to accept them", "tools", strings.Join(d, ", "))
	}
	for _, why := range ts.idle {
		s.logger.Warn(why + "; the entry changes nothing")
	}
	if len(ts.served) == 0 {
		s.logger.Warn("no tool is served: tools.disable takes out every tool of the profile; a client reaches the skills only as prompts and resources, which many clients do not show the model; set tools.disable to fewer tools")
	}
	s.logger.Info("tools served", "tools", strings.Join(ts.served, ", "))
}

// searches reports whether a tool of the set searches the index
// (search.go): a ranked search, or a tool built on one.
func (ts toolSet) searches() bool {
	return ts.has(SearchToolName) || ts.has(catalogSearchName) || ts.has(checkExistsName) || ts.has(suggestName)
}

// unlisted says how to reach, with the tools of the set, a skill that
// the instructions do not list (resolver.CatalogOptions.Unlisted): a
// search, else the skill tool, else a list of every skill, else a read
// of its files by name; with none of these, its SKILL.md is a resource.
func (ts toolSet) unlisted() string {
	for _, name := range []string{SearchToolName, catalogSearchName, skSearchName, checkExistsName, suggestName} {
		if ts.has(name) {
			return "find them with " + name
		}
	}
	if ts.has(SkillToolName) {
		return "load any of them by name with the skill tool"
	}
	for _, name := range []string{ListToolName, skListName} {
		if ts.has(name) {
			return "list them all with " + name
		}
	}
	for _, name := range []string{SkillResourceToolName, "get_skill_resource", "skill-resource"} {
		if ts.has(name) {
			return "read any of them by name with " + name + " (argument skill)"
		}
	}
	return "each one's SKILL.md is a resource, in resources/list"
}

// has reports whether the set serves a tool.
func (ts toolSet) has(name string) bool { return slices.Contains(ts.served, name) }
