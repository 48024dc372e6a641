package plugins

import (
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// The plugin of these benchmarks is the test binary serving a generated
// folder (mode dir: a dirtree source behind Serve), as a real process
// over a Unix socket.

func benchDir(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	if err := skillgen.Generate(dir, n, nil); err != nil {
		b.Fatal(err)
	}
	return dir
}

func benchSource(b *testing.B, dir string, o *Options) *Source {
	b.Helper()
	if o == nil {
		o = &Options{NoCache: true}
	}
	o.Env = map[string]string{envPlugin: "dir", envDir: dir}
	src, err := New("bench", pluginCommand(), o)
	if err != nil {
		b.Fatal(err)
	}
	return src
}

// BenchmarkStartToFirstListing: process start, handshake, Describe and the
// first List of 10 skills, then Close.
func BenchmarkStartToFirstListing(b *testing.B) {
	dir := benchDir(b, 10)
	for b.Loop() {
		src := benchSource(b, dir, nil)
		if _, err := src.List(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		src.Close()
		b.StartTimer()
	}
}

func benchList(b *testing.B, n int) {
	dir := benchDir(b, n)
	src := benchSource(b, dir, nil)
	defer src.Close()
	if _, err := src.List(context.Background()); err != nil { // start, and the plugin's first scan
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := src.List(context.Background())
		if err != nil || len(l.Skills) != n {
			b.Fatalf("%d skills, %v", len(l.Skills), err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N)/float64(n), "µs/skill")
}

// BenchmarkList1k and BenchmarkList10k list a running plugin: the
// plugin's rescan of its folder, the protocol, and skillmux's checks.
func BenchmarkList1k(b *testing.B)  { benchList(b, 1000) }
func BenchmarkList10k(b *testing.B) { benchList(b, 10000) }

// BenchmarkListLocal1k is the same folder listed in process, for scale.
func BenchmarkListLocal1k(b *testing.B) {
	dir := benchDir(b, 1000)
	src := dirtree.New(dir, &dirtree.Options{Name: "bench"})
	src.List(context.Background())
	for b.Loop() {
		if _, err := src.List(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadFile reads a skill's SKILL.md (about 3 kB): through the
// plugin (each read a ReadFile call, no local copy), from the local copy
// a plugin skill gets at its first load, and from the folder directly.
func BenchmarkReadFile(b *testing.B) {
	dir := benchDir(b, 10)
	b.Run("plugin", func(b *testing.B) {
		src := benchSource(b, dir, nil)
		defer src.Close()
		l, err := src.List(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		sk := l.Skills[0]
		for b.Loop() {
			if _, err := fs.ReadFile(sk.Files, sources.SkillFile); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("plugin-copy", func(b *testing.B) {
		cache := b.TempDir()
		defer removeAll(cache)
		src := benchSource(b, dir, &Options{CacheDir: cache})
		defer src.Close()
		l, err := src.List(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		sk := l.Skills[0]
		if _, err := sources.ReadEntry(sk, 1<<20); err != nil { // makes the copy
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := sources.ReadEntry(sk, 1<<20); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("local", func(b *testing.B) {
		path := filepath.Join(dir, "group-00", "skill-00000", sources.SkillFile)
		sk, err := sources.Load(path, sources.LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := sources.ReadEntry(sk, 1<<20); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkCopyCacheFill makes 1,000 copies of 2 kB skills in a cache
// with room for 100, so that every copy after the hundredth evicts one:
// the cost of a copy with the cache full (each eviction used to walk the
// whole cache folder, which made filling it quadratic).
func BenchmarkCopyCacheFill(b *testing.B) {
	const size, copies = 2 << 10, 1000
	contents := make([]string, copies)
	metas := make([][]fileMeta, copies)
	keys := make([]string, copies)
	for i := range copies {
		contents[i] = fmt.Sprintf("%0*d", size, i)
		metas[i] = []fileMeta{{path: "SKILL.md", size: size, sha256: digestOf(contents[i])}}
		keys[i] = contentKey(map[string]fileMeta{"SKILL.md": metas[i][0]}, nil)
	}
	for b.Loop() {
		root := b.TempDir()
		c := newCopyCache(root, 100*size)
		for i := range copies {
			if err := c.ensure(keys[i], "s", metas[i], func(fileMeta) ([]byte, error) { return []byte(contents[i]), nil }); err != nil {
				b.Fatal(err)
			}
		}
		b.StopTimer()
		removeAll(root)
		b.StartTimer()
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*copies), "µs/copy")
}
