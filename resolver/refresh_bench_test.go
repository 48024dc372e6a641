//go:build unix

package resolver_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	corpusdir "github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// benchmarkEdit times the refresh work one edited SKILL.md costs a
// catalog of n skills: the tree re-reads the file the watcher named,
// assembles its listing, and the resolver builds and swaps the new
// snapshot. Writing the file is left out of the timing.
func benchmarkEdit(b *testing.B, dir string, n int, skillFile string) {
	ctx := context.Background()
	tree := dirtree.New(dir, nil)
	r := resolver.New([]sources.Source{tree}, nil)
	snap, err := r.Reload(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if got := snap.Len(); got != n {
		b.Fatalf("served %d skills, want %d", got, n)
	}
	orig, err := os.ReadFile(skillFile)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.WriteFile(skillFile, orig, 0o644) })
	// The edit appends a line to the body: the file's key changes, its
	// front matter does not, so every round re-reads the same work.
	b.ReportAllocs()
	i := 0
	var cpu time.Duration // the process's CPU time in the timed part
	for b.Loop() {
		b.StopTimer()
		i++
		edited := append(bytes.Clone(orig), fmt.Sprintf("\nedit %d\n", i)...)
		if err := os.WriteFile(skillFile, edited, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		c0 := cpuTime()
		tree.Changed(skillFile)
		r.MarkChanged(tree)
		snap, err := r.Refresh(ctx)
		if err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
		if got := snap.Len(); got != n {
			b.Fatalf("served %d skills after the edit, want %d", got, n)
		}
	}
	// On a shared machine the wall time also counts waiting for a core;
	// the CPU time is the work itself (garbage collection included).
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkEdit10k: one edit in 10,000 synthetic skills.
func BenchmarkEdit10k(b *testing.B) {
	dir := b.TempDir()
	if err := skillgen.Generate(dir, 10_000, nil); err != nil {
		b.Fatal(err)
	}
	file, err := firstSkillFile(dir)
	if err != nil {
		b.Fatal(err)
	}
	benchmarkEdit(b, dir, 10_000, file)
}

// BenchmarkEditReal10k: one edit in 10,000 real-shaped skills.
func BenchmarkEditReal10k(b *testing.B) {
	corpus := corpusdir.Dir(b)
	dir := b.TempDir()
	reps, err := skillgen.Replicate(dir, corpus, 10_000, nil)
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(dir, filepath.FromSlash(reps[len(reps)/2].Dir), "SKILL.md")
	benchmarkEdit(b, dir, 10_000, file)
}

// firstSkillFile finds one SKILL.md under dir.
func firstSkillFile(dir string) (string, error) {
	var found string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if found == "" && d.Name() == "SKILL.md" {
			found = p
			return filepath.SkipAll
		}
		return nil
	})
	if err == nil && found == "" {
		err = fmt.Errorf("no SKILL.md under %s", dir)
	}
	return found, err
}
