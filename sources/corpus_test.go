package sources

import (
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/skillmux/skillmux/internal/corpus"
)

// corpusSkillFiles returns the SKILL.md files of the shared corpus of
// real-world skills, read in place (see internal/corpus).
func corpusSkillFiles(tb testing.TB) []string {
	tb.Helper()
	root := corpus.Dir(tb)
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == SkillFile {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(files) == 0 {
		tb.Fatalf("no %s under %s", SkillFile, root)
	}
	return files
}
