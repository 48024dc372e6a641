package sources

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// corpusSkillFiles returns the SKILL.md files of the shared corpus of
// real-world skills (../../shared/corpus), read in place. The test is
// skipped when the corpus is absent, unless SKILLMUX_REQUIRE_CORPUS=1.
func corpusSkillFiles(tb testing.TB) []string {
	tb.Helper()
	root, err := filepath.Abs(filepath.Join("..", "..", "shared", "corpus"))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := os.Stat(root); err != nil {
		if os.Getenv("SKILLMUX_REQUIRE_CORPUS") == "1" {
			tb.Fatalf("corpus required (SKILLMUX_REQUIRE_CORPUS=1) but absent: %v", err)
		}
		tb.Skip("corpus not present:", root)
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
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
