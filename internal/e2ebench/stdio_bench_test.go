//go:build e2ebench

package e2ebench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// The benchmarks below run the server's stdio path in process, over
// io.Pipe, with raw JSON lines as the harness writes them: the same work
// as a round trip of TestE2EBench without the process and the kernel
// pipes, so that it can be profiled:
//
//	go test -tags e2ebench -run '^$' -bench Stdio -benchmem -cpuprofile cpu.out -memprofile mem.out ./internal/e2ebench/

func BenchmarkStdioPing10k(b *testing.B) {
	benchmarkStdio(b, generatedDir(b, 10_000), func(int) string { return `"method":"ping","params":{}` })
}

func BenchmarkStdioSkill10k(b *testing.B) {
	benchmarkStdio(b, generatedDir(b, 10_000), func(i int) string {
		return fmt.Sprintf(`"method":"tools/call","params":{"name":"skill","arguments":{"name":"skill-%05d"}}`, (i*7919)%10_000)
	})
}

func BenchmarkStdioPingReal10k(b *testing.B) {
	dir, _ := replicatedDir(b, 10_000)
	benchmarkStdio(b, dir, func(int) string { return `"method":"ping","params":{}` })
}

// BenchmarkStdioSkillReal10k calls skills shaped like real ones, whose
// answers are larger than the synthetic ones' (11 kB on average).
func BenchmarkStdioSkillReal10k(b *testing.B) {
	dir, names := replicatedDir(b, 10_000)
	benchmarkStdio(b, dir, func(i int) string {
		return fmt.Sprintf(`"method":"tools/call","params":{"name":"skill","arguments":{"name":%q}}`, names[(i*7919)%len(names)])
	})
}

// generatedDir writes n generated skills into a temporary folder.
func generatedDir(b *testing.B, n int) string {
	dir := b.TempDir()
	if err := skillgen.Generate(dir, n, nil); err != nil {
		b.Fatal(err)
	}
	return dir
}

// replicatedDir writes n copies of the corpus's skills into a temporary
// folder and returns it with the copies' names.
func replicatedDir(b *testing.B, n int) (string, []string) {
	dir := b.TempDir()
	reps, err := skillgen.Replicate(dir, corpus.Dir(b), n, nil)
	if err != nil {
		b.Fatal(err)
	}
	names := make([]string, len(reps))
	for i, r := range reps {
		names[i] = r.Name
	}
	return dir, names
}

// benchmarkStdio serves the skills under dir on pipes and times one round
// trip per iteration: the request body(i) written, its whole answer line
// read.
func benchmarkStdio(b *testing.B, dir string, body func(i int) string) {
	res := resolver.New([]sources.Source{dirtree.New(dir, nil)}, nil)
	if _, err := res.Reload(context.Background()); err != nil {
		b.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- server.New(res, nil).ServeStdio(context.Background(), inR, outW)
		outW.Close()
	}()
	out := bufio.NewReaderSize(outR, 1<<20)
	id := 0
	roundTrip := func(msg string) []byte {
		id++
		if _, err := fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,%s}`+"\n", id, msg); err != nil {
			b.Fatal(err)
		}
		want := []byte(fmt.Sprintf(`"id":%d,`, id))
		for {
			line, err := out.ReadBytes('\n')
			if err != nil {
				b.Fatal(err)
			}
			if bytes.Contains(line, want) {
				if bytes.Contains(line, []byte(`"error":`)) || bytes.Contains(line, []byte(`"isError":true`)) {
					b.Fatalf("error answer: %.300s", line)
				}
				return line
			}
		}
	}
	roundTrip(`"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
	fmt.Fprintln(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	// A search waits for the index that the start builds in the
	// background: the round trips are timed once that work is done.
	roundTrip(`"method":"tools/call","params":{"name":"skills_search","arguments":{"query":"pdf"}}`)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		roundTrip(body(i))
		i++
	}
	b.StopTimer()
	inW.Close()
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}
