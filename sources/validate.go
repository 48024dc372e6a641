package sources

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Validate checks the skill folder dir (or a SKILL.md path) strictly against
// the Agent Skills specification: the name's format and its equality with
// the folder name, the lengths of description and compatibility, the types
// of the optional fields, and that no key outside the specification is used
// (keys that well-known clients understand are warnings). It returns every
// finding; the skill is valid when none has Severity Error.
//
// Only the front matter is read, with the same bounds and the same
// confinement as serving: a huge SKILL.md costs no more than a small one.
func Validate(path string) []Diagnostic {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return []Diagnostic{{Severity: Error, Path: path, Rule: "read", Message: "does not exist; give a skill folder, a SKILL.md or a folder of skills"}}
	case err != nil:
		return []Diagnostic{{Severity: Error, Path: path, Rule: "read", Message: "cannot read: " + unwrapPath(err)}}
	}
	dir, file := path, filepath.Join(path, SkillFile)
	if !st.IsDir() {
		dir, file = filepath.Dir(path), path
		if name := filepath.Base(file); name != SkillFile && !sameFile(st, filepath.Join(dir, SkillFile)) {
			// Its text is checked as a SKILL.md's, but it makes no
			// folder a skill.
			d := MisnamedDiagnostic(Error, file)
			if !MisnamedSkillFile(name) {
				d = Diagnostic{Severity: Warning, Path: file, Rule: "skill-file-name",
					Message: fmt.Sprintf("checked as a %s, but only a file named %s makes its folder a skill", SkillFile, SkillFile)}
			}
			return append([]Diagnostic{d}, validateEntry(path, dir, file, st)...)
		}
	}
	return validateEntry(path, dir, file, st)
}

// sameFile reports whether the file at path is the one st describes: a
// name in other letter cases that a case-insensitive file system takes to
// the SKILL.md.
func sameFile(st fs.FileInfo, path string) bool {
	other, err := os.Stat(path)
	return err == nil && os.SameFile(st, other)
}

// validateEntry is Validate of the entry file file in the skill folder
// dir; path and st are the path given and its stat.
func validateEntry(path, dir, file string, st fs.FileInfo) []Diagnostic {
	f, err := openEntry(dir, filepath.Base(file))
	if err != nil {
		if why, ok := linkProblem(file); ok {
			return []Diagnostic{{Severity: Error, Path: file, Rule: "link", Message: why}}
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist) && st.IsDir():
		if entries, err := os.ReadDir(dir); err == nil {
			for _, e := range entries {
				if MisnamedSkillFile(e.Name()) {
					return []Diagnostic{MisnamedDiagnostic(Error, filepath.Join(dir, e.Name()))}
				}
			}
		}
		return []Diagnostic{{Severity: Error, Path: path, Rule: "read", Message: "holds no SKILL.md; a skill is a folder holding a SKILL.md"}}
	case errors.Is(err, ErrNotRegular):
		return []Diagnostic{{Severity: Error, Path: file, Rule: "read", Message: unwrapPath(err) + "; SKILL.md must be a file"}}
	case err != nil:
		return []Diagnostic{{Severity: Error, Path: file, Rule: "read", Message: "cannot read: " + unwrapPath(err)}}
	}
	if d, ok := Oversized(file, f.Key().Size); ok {
		f.Close()
		return []Diagnostic{d}
	}
	front, err := ReadFrontMatter(f)
	f.Close()
	if err != nil {
		return []Diagnostic{frontMatterDiagnostic(file, err)}
	}
	fm, written, err := parseFrontMatter(front)
	if err != nil {
		return []Diagnostic{yamlDiagnostic(file, front, err)}
	}
	c := &checker{path: file, strict: true}
	if _, _, err := unmarshalMap(front); err != nil {
		d := yamlDiagnostic(file, front, err)
		d.Severity = Warning
		d.Message += " (skillmux reads it with the value quoted, other clients may not)"
		c.diags = append(c.diags, d)
	}
	sum := summarize(fm, written)
	c.checkName(sum.name, filepath.Base(dir))
	c.checkDescription(sum.description)
	c.checkFieldTypes(fm)
	c.checkKeys(sum.keys)
	return c.diags
}
