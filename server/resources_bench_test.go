package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// BenchmarkSkillsList pages through skills/list over a whole catalog,
// through the SDK's in-memory transport, the SDK on both sides:
//   - corpus: the shared corpus served as one folder tree (62 skills and
//     7 shadowed ones, 389 files, 4 MB);
//   - 10k: 10,000 real-shaped skills, the corpus's 69 skill folders copied
//     over and over by skillgen.Replicate (each copy renamed, its
//     description varied, its other files hard links), about 600 MB.
//
// cold is a new server, whose digest cache is empty, for each listing (the
// files are in the page cache: they were just written); warm is one
// server listing again, each file's digest taken from the cache after a
// stat.
func BenchmarkSkillsList(b *testing.B) {
	catalogs := []struct {
		name string
		dir  func(b *testing.B) string
	}{
		{"corpus", func(b *testing.B) string { return corpus.Dir(b) }},
		{"10k", replicatedCorpus},
	}
	for _, c := range catalogs {
		b.Run(c.name, func(b *testing.B) {
			dir := c.dir(b)
			r := resolver.New([]sources.Source{dirtree.New(dir, nil)}, nil)
			if _, err := r.Reload(context.Background()); err != nil {
				b.Fatal(err)
			}
			b.Run("cold", func(b *testing.B) {
				skills, files := 0, 0
				for b.Loop() {
					b.StopTimer()
					cs := benchExtClient(b, server.New(r, nil))
					b.StartTimer()
					skills, files = listAll(b, cs)
					b.StopTimer()
					cs.Close()
					b.StartTimer()
				}
				b.ReportMetric(float64(skills), "skills")
				b.ReportMetric(float64(files), "files")
			})
			b.Run("warm", func(b *testing.B) {
				cs := benchExtClient(b, server.New(r, nil))
				listAll(b, cs)
				for b.Loop() {
					listAll(b, cs)
				}
			})
		})
	}
}

// BenchmarkResourceRead reads a 200 kB skill file with resources/read,
// next to a ping in the same run: the round trip of the SDK and the
// in-memory transport alone.
func BenchmarkResourceRead(b *testing.B) {
	dir := b.TempDir()
	sourcetest.WriteFile(b, filepath.Join(dir, "big", "SKILL.md"), "---\nname: big\ndescription: A skill with a large reference.\n---\n")
	var ref strings.Builder
	for i := 0; ref.Len() < 200_000; i++ {
		fmt.Fprintf(&ref, "Line %d of a long reference, in markdown, with some words that repeat.\n", i)
	}
	sourcetest.WriteFile(b, filepath.Join(dir, "big", "references", "long.md"), ref.String())
	r := resolver.New([]sources.Source{dirtree.New(dir, nil)}, nil)
	if _, err := r.Reload(context.Background()); err != nil {
		b.Fatal(err)
	}
	cs := benchExtClient(b, server.New(r, nil))
	b.Run("read-200kB", func(b *testing.B) {
		b.SetBytes(int64(ref.Len()))
		b.ReportAllocs()
		for b.Loop() {
			res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "skill://big/references/long.md"})
			if err != nil || len(res.Contents[0].Text) != ref.Len() {
				b.Fatal(err)
			}
		}
	})
	b.Run("ping", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := cs.Ping(context.Background(), nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkResourceReadStdio is the same over ServeStdio on a pipe, with
// raw JSON lines on the client's side: the server's whole cost, framing
// included, without the SDK's client decoding the answer.
func BenchmarkResourceReadStdio(b *testing.B) {
	dir := b.TempDir()
	sourcetest.WriteFile(b, filepath.Join(dir, "big", "SKILL.md"), "---\nname: big\ndescription: A skill with a large reference.\n---\n")
	var ref strings.Builder
	for i := 0; ref.Len() < 200_000; i++ {
		fmt.Fprintf(&ref, "Line %d of a long reference, in markdown, with some words that repeat.\n", i)
	}
	sourcetest.WriteFile(b, filepath.Join(dir, "big", "references", "long.md"), ref.String())
	r := resolver.New([]sources.Source{dirtree.New(dir, nil)}, nil)
	if _, err := r.Reload(context.Background()); err != nil {
		b.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		server.New(r, nil).ServeStdio(ctx, inR, outW)
	}()
	b.Cleanup(func() { cancel(); inW.Close(); outR.Close(); <-done })
	out := bufio.NewReaderSize(outR, 1<<20)
	id := 0
	call := func(method, params string) string {
		id++
		if _, err := fmt.Fprintf(inW, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params); err != nil {
			b.Fatal(err)
		}
		line, err := out.ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		return line
	}
	call("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
	if _, err := io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	b.Run("read-200kB", func(b *testing.B) {
		b.SetBytes(int64(ref.Len()))
		for b.Loop() {
			if line := call("resources/read", `{"uri":"skill://big/references/long.md"}`); len(line) < ref.Len() {
				b.Fatal(line)
			}
		}
	})
	b.Run("ping", func(b *testing.B) {
		for b.Loop() {
			call("ping", `{}`)
		}
	})
}

func benchExtClient(b *testing.B, srv *server.Server) *mcp.ClientSession {
	b.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	if err := mcp.AddSendingCustomMethod[*listSkillsParams, *listSkillsResult](client, "skills/list"); err != nil {
		b.Fatal(err)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ss.Close() })
	cs, err := client.Connect(context.Background(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cs.Close() })
	return cs
}

// listAll pages through skills/list and counts skills and files.
func listAll(b *testing.B, cs *mcp.ClientSession) (skills, files int) {
	cursor := ""
	for {
		res, err := mcp.CallCustomMethod[*listSkillsParams, *listSkillsResult](context.Background(), cs, "skills/list", &listSkillsParams{Cursor: cursor})
		if err != nil {
			b.Fatal(err)
		}
		skills += len(res.Skills)
		for _, s := range res.Skills {
			files += len(s.Resources)
		}
		if cursor = res.NextCursor; cursor == "" {
			return skills, files
		}
	}
}

// replicatedCorpus writes 10,000 skills shaped like the corpus's
// (skillgen.Replicate: each copy renamed, its description varied, its
// other files hard links).
func replicatedCorpus(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	if _, err := skillgen.Replicate(dir, corpus.Dir(b), 10_000, nil); err != nil {
		b.Fatal(err)
	}
	return dir
}
