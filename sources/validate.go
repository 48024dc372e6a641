package sources

import (
	"os"
	"path/filepath"
)

// Validate checks the skill folder dir (or a SKILL.md path) strictly against
// the Agent Skills specification: the name's format and its equality with
// the folder name, the lengths of description and compatibility, the types
// of the optional fields, and that no key outside the specification is used
// (keys that well-known clients understand are warnings). It returns every
// finding; the skill is valid when none has Severity Error.
func Validate(path string) []Diagnostic {
	dir, file := path, filepath.Join(path, SkillFile)
	if st, err := os.Stat(path); err == nil && !st.IsDir() {
		dir, file = filepath.Dir(path), path
	}
	abs, err := filepath.Abs(file)
	if err == nil {
		file = abs
		dir = filepath.Dir(abs)
	}
	if st, err := os.Stat(file); err == nil && !st.Mode().IsRegular() {
		return []Diagnostic{{Severity: Error, Path: file, Rule: "read", Message: "not a regular file; SKILL.md must be a file"}}
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return []Diagnostic{{Severity: Error, Path: file, Rule: "read", Message: "cannot read: " + unwrapPath(err) + "; a skill is a folder holding a SKILL.md"}}
	}
	front, _, err := SplitFrontMatter(data)
	if err != nil {
		return []Diagnostic{frontMatterDiagnostic(file, err)}
	}
	fm, err := ParseFrontMatter(front)
	if err != nil {
		return []Diagnostic{yamlDiagnostic(file, err)}
	}
	c := &checker{path: file, strict: true}
	if _, err := unmarshalMap(front); err != nil {
		d := yamlDiagnostic(file, err)
		d.Severity = Warning
		d.Message += " (skillmux reads it with the value quoted, other clients may not)"
		c.diags = append(c.diags, d)
	}
	c.checkName(fm, filepath.Base(dir))
	c.checkDescription(fm)
	c.checkFields(fm)
	return c.diags
}
