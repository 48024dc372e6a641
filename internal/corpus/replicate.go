package corpus

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
)

// Replicate writes n skills made of the corpus's SKILL.md files under dst,
// for tests and benchmarks at a scale the corpus does not reach: copy i
// is dst/group-<i/100>/<name>-<i>/SKILL.md, the i-th file of the corpus
// (in path order, round and round) with its front matter's name set to
// "<name>-<i>" and everything else byte for byte, so the catalog has real
// descriptions and real bodies. Only SKILL.md files are written. It skips
// or fails the test as Dir does when the corpus is absent, and returns the
// names given, in order.
func Replicate(tb testing.TB, dst string, n int) []string {
	tb.Helper()
	root := Dir(tb)
	var files []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() == "SKILL.md" {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	slices.Sort(files)
	if len(files) == 0 {
		tb.Fatalf("corpus: no SKILL.md under %s", root)
	}
	srcs := make([]original, len(files))
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		srcs[i] = splitName(data, filepath.Base(filepath.Dir(f)))
	}
	names := make([]string, n)
	for i := range n {
		s := srcs[i%len(srcs)]
		name := fmt.Sprintf("%s-%05d", s.name, i)
		dir := filepath.Join(dst, fmt.Sprintf("group-%04d", i/100), name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
		content := slices.Concat(s.head, []byte("name: "+name+"\n"), s.rest)
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), content, 0o644); err != nil {
			tb.Fatal(err)
		}
		names[i] = name
	}
	return names
}

// nameLine is a top-level name key of a front matter.
var nameLine = regexp.MustCompile(`(?m)^name:[^\n]*\n`)

// original is a SKILL.md of the corpus cut around its name line.
type original struct {
	name       string
	head, rest []byte // before and after the name line
}

// splitName cuts a SKILL.md around the name line of its front matter
// (after the opening "---" line when it has none), and returns the name
// it gives, else folder.
func splitName(data []byte, folder string) original {
	out := original{name: folder}
	end := len(data)
	if i := bytes.Index(data[min(4, len(data)):], []byte("\n---")); i >= 0 {
		end = i + min(4, len(data))
	}
	if loc := nameLine.FindIndex(data[:end]); loc != nil {
		v := bytes.TrimSpace(data[loc[0]+len("name:") : loc[1]])
		if name := string(bytes.Trim(v, `"'`)); name != "" {
			out.name = name
		}
		out.head, out.rest = data[:loc[0]], data[loc[1]:]
		return out
	}
	nl := bytes.IndexByte(data, '\n') + 1
	out.head, out.rest = data[:nl], data[nl:]
	return out
}
