package sources

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Ref is the qualified name of a skill: a plain Name for skills from folder
// trees, or Namespace:Name for namespaced sources such as plugin packages.
// Comparisons between Refs are case-insensitive; use [Ref.Key] as a map key.
type Ref struct {
	Namespace string
	Name      string
}

// ParseRef splits "namespace:name" at its last colon; a string without a
// colon is a plain name.
func ParseRef(s string) Ref {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		return Ref{Namespace: s[:i], Name: s[i+1:]}
	}
	return Ref{Name: s}
}

// String returns "name" or "namespace:name".
func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Name
	}
	return r.Namespace + ":" + r.Name
}

// Key is the case-folded form of the Ref, for lookups (see NameKey).
func (r Ref) Key() string { return NameKey(r.String()) }

// NameKey is the form of a name that lookups compare: case-folded, and in
// Unicode's composed form (NFC), so that "été" typed with combining
// accents is the name written with accented letters, as both look the
// same.
func NameKey(name string) string {
	k := strings.ToLower(name)
	if !isASCII(k) {
		k = norm.NFC.String(k)
	}
	return k
}

// WithoutMarks is s without its combining marks (accents), as decomposed:
// "été" is "ete". Names differ by their accents, but one typed without
// them is nearer than any typo (suggestions use it).
func WithoutMarks(s string) string {
	if isASCII(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Mn, r) {
			return -1
		}
		return r
	}, norm.NFD.String(s))
}

// isASCII reports whether s holds ASCII only, which needs no
// normalization.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// IsQualified reports whether the Ref carries a namespace.
func (r Ref) IsQualified() bool { return r.Namespace != "" }

// Kind tells what shape a skill has on disk.
type Kind string

const (
	// KindSkill is a folder holding a SKILL.md and optional other files.
	KindSkill Kind = "skill"
	// KindLearned is a flat markdown note with front matter, not in a folder
	// of its own.
	KindLearned Kind = "learned"
)

// Scope tells which kind of place a skill came from; it decides precedence
// and is shown to users.
type Scope string

const (
	ScopeUser    Scope = "user"    // the person's own folders
	ScopeProject Scope = "project" // folders of the current workspace
	ScopePlugin  Scope = "plugin"  // a Claude Code plugin package (not a source plugin: see ScopeSourcePlugin)
	ScopeRoot    Scope = "root"    // a folder tree named on the command line or in config
	// ScopeSourcePlugin is a third-party source plugin: a separate
	// process that skillmux starts and asks for skills over gRPC (package
	// plugins). Its skills have no local folder of their own.
	ScopeSourcePlugin Scope = "source-plugin"
)

// Skill is one skill as a source found it. A Skill is immutable once a
// source has returned it.
type Skill struct {
	// Ref is the qualified name under which the skill is served.
	Ref Ref
	// Description is the front matter's description, trimmed.
	Description string
	// DisableModelInvocation is true when the front matter says
	// `disable-model-invocation: true` (a YAML boolean): the skill is for
	// the user to invoke, and a client should not offer it to the model.
	DisableModelInvocation bool
	// UserInvocable is false when the front matter says
	// `user-invocable: false` (a YAML boolean): the skill is for the model
	// only, and a client should not offer it to the user. It defaults to
	// true: whoever builds a Skill other than through Load must set it.
	UserInvocable bool
	// FrontMatter is the front matter block as written, without its "---"
	// lines and with CRLF turned into LF; Fields parses it. The raw bytes
	// are kept rather than a parsed map: they cost less, and they are what
	// the file says.
	FrontMatter []byte
	// Path is the absolute path of the SKILL.md (or of the note file for
	// KindLearned), or, for a skill whose files are not a local folder
	// (a source plugin's), an address such as
	// "plugin://zipped/pdf/SKILL.md".
	Path string
	// RealPath is Path with the symlinked folders on its way resolved,
	// when the source knows it and it differs from Path: a skill folder
	// reached through a link (~/.agents/skills linked to
	// ~/.claude/skills) has the RealPath of the folder it leads to, and
	// two skills with the same Identity are one folder reached twice.
	RealPath string
	// Dir is the absolute skill folder: the base directory for relative
	// paths in the body. For KindLearned it is the folder holding the note.
	// For a skill whose files are not a local folder it is where a
	// read-only local copy of them is made on first load (a source plugin's
	// skills: see package plugins), so that agents can read them with
	// their own tools; the folder may not exist before the skill is loaded.
	Dir string
	// Source is the name of the Source that listed the skill.
	Source string
	// Scope is the kind of place the skill came from.
	Scope Scope
	// Kind is the skill's shape on disk.
	Kind Kind
	// Convention names the well-known folder the skill was found under,
	// as clients name them (".claude/skills", "~/.agents/skills",
	// "claude-plugins"), so that a client that already loads that folder
	// itself can be spared a second copy. Empty for folders a user named.
	Convention string
	// Diagnostics are the cosmetic problems found while loading; the skill
	// is served regardless.
	Diagnostics []Diagnostic
	// Files reads the skill's files, with paths relative to Dir. For local
	// folders every read stays inside the folder's real path. For a skill
	// whose files are not a local folder, it reads them from wherever they
	// are (a source plugin), with the same bounds. Nil when the skill has
	// no readable files.
	Files fs.FS
	// FileList names the skill's other files (not its entry file, nor the
	// files of skills nested in its folder), slash-separated, relative to
	// Dir and sorted, when the source has looked; nil when it has not (a
	// reader then lists Files itself). At most MaxListedFiles, and
	// FileListTruncated says when there were more.
	FileList          []string
	FileListTruncated bool
}

// Fields parses the front matter: every key, including unknown ones, with
// its YAML type (nested maps have string keys, so the result encodes as
// JSON).
func (s *Skill) Fields() (map[string]any, error) { return ParseFrontMatter(s.FrontMatter) }

// Identity is the real path of the skill's entry file: RealPath when the
// source resolved one, else Path.
func (s *Skill) Identity() string {
	if s.RealPath != "" {
		return s.RealPath
	}
	return s.Path
}

// EntryFile is the name, relative to Files, of the file an agent loads:
// "SKILL.md" for folder skills, the note's base name for learned notes.
func (s *Skill) EntryFile() string {
	if s.Kind == KindLearned {
		return filepath.Base(s.Path)
	}
	return SkillFile
}

// SkillFile is the name of the file that makes a folder a skill.
const SkillFile = "SKILL.md"

// MisnamedSkillFile reports whether name is SKILL.md in other letter
// cases (skill.md, Skill.md): a file meant to make its folder a skill,
// which does not where file names tell cases apart.
func MisnamedSkillFile(name string) bool {
	return name != SkillFile && strings.EqualFold(name, SkillFile)
}

// MisnamedDiagnostic says that the file at path, whose name is a
// MisnamedSkillFile, does not make its folder a skill.
func MisnamedDiagnostic(sev Severity, path string) Diagnostic {
	return Diagnostic{Severity: sev, Path: path, Rule: "skill-file-name",
		Message: fmt.Sprintf("found %s; the file must be named %s, in capitals, for its folder to be a skill", filepath.Base(path), SkillFile)}
}

// HoldsSkill reports whether a folder with these entries is a skill
// folder: it holds a SKILL.md.
func HoldsSkill(entries []fs.DirEntry) bool {
	return slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == SkillFile })
}
