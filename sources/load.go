package sources

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// LoadOptions says where a skill being loaded belongs.
type LoadOptions struct {
	// Namespace qualifies the skill's name; empty for plain names.
	Namespace string
	// Source and Scope are copied into the Skill.
	Source string
	Scope  Scope
	// Kind is KindSkill (a SKILL.md in its folder) or KindLearned (a flat
	// note, whose name falls back to the file name).
	Kind Kind
	// Regular says the caller has already seen that path is a regular
	// file (in a folder listing), so Load need not stat it: a scan of ten
	// thousand skills saves as many system calls.
	Regular bool
}

// Load reads the front matter of the SKILL.md (or learned note) at path and
// returns the skill it describes, with the lenient checks of serving: a
// name that differs from its folder, an over-long description or an unknown
// key is a warning in Skill.Diagnostics. Only a file that cannot be read,
// whose YAML cannot be parsed or that has no description is refused; the
// error is then a Diagnostic that names the file and says why.
//
// Only the front matter is read: the body is read when an agent loads the
// skill.
func Load(path string, o LoadOptions) (*Skill, error) {
	path = filepath.Clean(path)
	if !o.Regular {
		if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
			// A FIFO or a device would block the scan or never end.
			return nil, Diagnostic{Severity: Error, Path: path, Rule: "read", Message: "not a regular file"}
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, Diagnostic{Severity: Error, Path: path, Rule: "read", Message: "cannot read: " + unwrapPath(err)}
	}
	front, err := ReadFrontMatter(f)
	f.Close()
	if err != nil {
		return nil, frontMatterDiagnostic(path, err)
	}
	fm, err := ParseFrontMatter(front)
	if err != nil {
		return nil, yamlDiagnostic(path, err)
	}
	return newSkill(path, fm, o)
}

func newSkill(path string, fm map[string]any, o LoadOptions) (*Skill, error) {
	if o.Kind == "" {
		o.Kind = KindSkill
	}
	dir := filepath.Dir(path)
	folder := filepath.Base(dir)
	fallback := folder
	if o.Kind == KindLearned {
		folder = ""
		fallback = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	c := &checker{path: path}
	desc, ok := c.checkDescription(fm)
	if !ok {
		return nil, c.diags[len(c.diags)-1]
	}
	if o.Kind == KindLearned {
		if _, has := fm["name"]; has {
			c.checkName(fm, folder)
		}
	} else {
		c.checkName(fm, folder)
	}
	c.checkFields(fm)

	name := fallback
	if s, ok := fm["name"].(string); ok && usableName(s) {
		name = strings.TrimSpace(s)
	} else if ok {
		c.add(Warning, "name", "name-unusable", "%q cannot be served as a name; serving it as %q", s, fallback)
	}
	files := DirFS(dir)
	if o.Kind == KindLearned {
		files = noteFS{dir: files, name: filepath.Base(path)}
	}
	return &Skill{
		Ref:         Ref{Namespace: o.Namespace, Name: name},
		Description: desc,
		FrontMatter: fm,
		Path:        path,
		Dir:         dir,
		Source:      o.Source,
		Scope:       o.Scope,
		Kind:        o.Kind,
		Diagnostics: c.diags,
		Files:       files,
	}, nil
}

// usableName reports whether s can be a skill name in a Ref and in a
// resource URI, even when it breaks the specification's format.
func usableName(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && !strings.ContainsAny(s, ":/\\\n\r\t") && s != "." && s != ".."
}

func frontMatterDiagnostic(path string, err error) Diagnostic {
	d := Diagnostic{Severity: Error, Path: path, Rule: "front-matter"}
	switch {
	case errors.Is(err, ErrNoFrontMatter):
		d.Line = 1
		d.Message = "no front matter: the file must start with a line `---`, then YAML with name and description, then a line `---`"
	case errors.Is(err, ErrUnterminated):
		d.Message = "front matter is not closed: add a line `---` after the YAML"
	default:
		d.Rule = "read"
		d.Message = "cannot read: " + unwrapPath(err)
	}
	return d
}

// unwrapPath drops the path from an *fs.PathError message; the Diagnostic
// carries the path already.
func unwrapPath(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s: %v", pe.Op, pe.Err)
	}
	return err.Error()
}
