package sources

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkLoad loads the SKILL.md files of the shared corpus (real front
// matter: block scalars, quoted strings, lists, nested maps) and as many
// generated ones (one plain "key: value" per line), as a scan does: each
// op loads every file once, from the page cache. "file" also times
// opening and reading; "front" times newSkill alone, on front matter
// already in memory, which is the part the parser decides.
func BenchmarkLoad(b *testing.B) {
	corpus := corpusSkillFiles(b)
	// As many plain skills, written here: internal/skillgen imports this
	// package.
	plainDir := b.TempDir()
	var plain []string
	for i := range corpus {
		name := fmt.Sprintf("plain-%03d", i)
		p := filepath.Join(plainDir, name, SkillFile)
		md := "---\nname: " + name + "\ndescription: Summarize a report table and chart the figures that matter for the quarterly review.\n---\n\n# " + name + "\n"
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(md), 0o644); err != nil {
			b.Fatal(err)
		}
		plain = append(plain, p)
	}
	for _, set := range []struct {
		name  string
		files []string
	}{{"corpus", corpus}, {"plain", plain}} {
		b.Run(set.name+"/file", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, p := range set.files {
					if _, err := Load(p, LoadOptions{}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(set.files)), "ns/skill")
		})
		fronts := make([][]byte, len(set.files))
		for i, p := range set.files {
			f, err := os.Open(p)
			if err != nil {
				b.Fatal(err)
			}
			fronts[i], err = ReadFrontMatter(f)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
		b.Run(set.name+"/front", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for i, p := range set.files {
					if _, err := newSkill(p, fronts[i], LoadOptions{}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(set.files)), "ns/skill")
		})
	}
}
