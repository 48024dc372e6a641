package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/claudeplugins"
)

type validated struct {
	Path        string               `json:"path"`
	Valid       bool                 `json:"valid"`
	Diagnostics []sources.Diagnostic `json:"diagnostics"`
}

func newValidateCmd(e *env) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "validate PATH...",
		Short: "Check skill folders strictly against the Agent Skills specification",
		Long: `Check skill folders strictly against the Agent Skills specification:
name of 1-64 lowercase letters, digits and single hyphens, equal to the folder
name; description of 1-1024 characters; compatibility of at most 500; only the
specification's keys (keys that some clients understand, such as version or
argument-hint, are warnings); and no bidirectional control characters in the
description, which show text in another order than it reads.

PATH is a skill folder, a SKILL.md, or a folder of skill folders (every
SKILL.md below it is checked); a Claude Code plugin or marketplace folder has
its .claude-plugin manifests checked too, as serving reads them. Each finding
names the file, the field and the rule. The exit status is 1 when any error
is found, else 0.`,
		Example: `  skillmux validate examples/skills/release-notes
  skillmux validate --json ~/.claude/skills`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError("validate needs at least one PATH: a skill folder, a SKILL.md or a folder of skills; for example: skillmux validate ~/.claude/skills")
			}
			for _, arg := range args {
				if strings.TrimSpace(arg) == "" {
					// It would be the working folder: a variable left unset.
					return usageError("validate: a PATH is empty; give a skill folder, a SKILL.md or a folder of skills, such as skillmux validate ~/.claude/skills")
				}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var results []validated
			skills := 0
			for _, arg := range args {
				// A leading ~ is the home folder, as for --root: clients
				// pass arguments without a shell.
				arg = expandHome(arg, e.home())
				paths, unread := skillPaths(arg)
				for _, d := range unread {
					results = append(results, validated{Path: d.Path, Diagnostics: []sources.Diagnostic{d}})
				}
				if manifest := pluginManifests(cmd.Context(), arg); len(manifest) > 0 {
					results = append(results, validated{Path: arg, Valid: !slices.ContainsFunc(manifest, isError), Diagnostics: manifest})
				}
				for _, p := range paths {
					ds := sources.Validate(p)
					if isSkill(p) {
						skills++
					}
					v := validated{Path: p, Valid: true, Diagnostics: ds}
					if v.Diagnostics == nil {
						v.Diagnostics = []sources.Diagnostic{}
					}
					v.Valid = !slices.ContainsFunc(ds, isError)
					results = append(results, v)
				}
			}
			errs, warns := 0, 0
			for _, r := range results {
				for _, d := range r.Diagnostics {
					if d.Severity == sources.Error {
						errs++
					} else {
						warns++
					}
				}
			}
			if asJSON {
				enc := json.NewEncoder(e.stdout)
				enc.SetIndent("", "  ")
				if err := enc.Encode(results); err != nil {
					return err
				}
			} else {
				for _, r := range results {
					for _, d := range r.Diagnostics {
						d.Path = escaped(d.Path)
						fmt.Fprintln(e.stdout, d)
					}
				}
				fmt.Fprintf(e.stdout, "%s checked: %s, %s\n", plural(skills, "skill"), plural(errs, "error"), plural(warns, "warning"))
			}
			if errs > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// pluginManifests checks the manifests of a Claude Code plugin folder (or
// marketplace folder), dir: what a plugin author runs validate on before
// publishing. It returns what reading them as serving does finds of the
// manifests themselves; the skills are checked on their own.
func pluginManifests(ctx context.Context, dir string) []sources.Diagnostic {
	if !isDir(filepath.Join(dir, ".claude-plugin")) {
		return nil
	}
	l, err := claudeplugins.Dirs([]string{dir}, nil).List(ctx)
	if err != nil {
		return []sources.Diagnostic{{Severity: sources.Error, Path: dir, Rule: "plugin-json", Message: err.Error()}}
	}
	// What serving warns of and goes on without (a listed folder that
	// is missing, an entry of the wrong shape, two plugins of one name)
	// leaves a plugin or a skill unserved: for its author, an error.
	var out []sources.Diagnostic
	for _, d := range l.Problems {
		if base := filepath.Base(d.Path); base == "plugin.json" || base == "marketplace.json" || d.Path == dir {
			d.Severity = sources.Error
			out = append(out, d)
		}
	}
	return out
}

func isError(d sources.Diagnostic) bool { return d.Severity == sources.Error }

func isDir(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.IsDir()
}

// isSkill reports whether a path skillPaths returned is a skill to count:
// a file (checked as a SKILL.md), or a folder that holds one, in whatever
// letter case; not a path that does not exist or a folder without one,
// whose error says so.
func isSkill(p string) bool {
	st, err := os.Stat(p)
	if err != nil {
		return false
	}
	if !st.IsDir() {
		return true
	}
	entries, _ := os.ReadDir(p)
	for _, d := range entries {
		if d.Name() == sources.SkillFile || sources.MisnamedSkillFile(d.Name()) {
			return true
		}
	}
	return false
}

// skillPaths expands a folder without a SKILL.md into the skill folders
// below it; anything else is checked as given, so a wrong path is reported.
func skillPaths(arg string) (paths []string, unread []sources.Diagnostic) {
	st, err := os.Stat(arg)
	if err != nil || !st.IsDir() {
		return []string{arg}, nil
	}
	if _, err := os.Lstat(filepath.Join(arg, sources.SkillFile)); err == nil {
		return []string{arg}, nil
	}
	// Every SKILL.md is checked, whatever it is (a folder, a link that
	// leads nowhere), and so is a folder holding one in other letter
	// cases: what serving skips, validating reports. A folder that cannot
	// be read is an error of its own: the skills in it go unchecked, and
	// a check that passed over them must not pass.
	// Links to folders are followed, as serving follows them (skill
	// folders linked from a dotfiles repository), each real folder once.
	var out []string
	seen := map[string]bool{}    // skill folders listed
	visited := map[string]bool{} // real paths of the folders walked
	var walk func(dir string)
	walk = func(dir string) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			if visited[real] {
				return
			}
			visited[real] = true
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			why := err.Error()
			if pe, ok := errors.AsType[*fs.PathError](err); ok {
				why = pe.Err.Error()
			}
			unread = append(unread, sources.Diagnostic{Severity: sources.Error, Path: dir, Rule: "read",
				Message: "cannot read folder: " + why + "; the skills in it are not checked"})
			return
		}
		for _, d := range entries {
			p := filepath.Join(dir, d.Name())
			isDir := d.IsDir()
			if d.Type()&fs.ModeSymlink != 0 {
				st, err := os.Stat(p)
				isDir = err == nil && st.IsDir()
			}
			switch name := d.Name(); {
			case name == sources.SkillFile || sources.MisnamedSkillFile(name):
				if !seen[dir] {
					seen[dir] = true
					out = append(out, dir)
				}
			case isDir && !sources.SkipDir(name):
				walk(p)
			}
		}
	}
	walk(arg)
	if len(out) == 0 && len(unread) == 0 {
		return []string{arg}, nil
	}
	return out, unread
}
