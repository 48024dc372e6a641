package server_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/skillmux/skillmux/internal/corpus"
	"github.com/skillmux/skillmux/internal/skillgen"
	"github.com/skillmux/skillmux/resolver"
	"github.com/skillmux/skillmux/server"
	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/dirtree"
)

// BenchmarkRefreshReal10k times what one edited description costs a
// serving process at 10,000 real-shaped skills, from the watcher's report
// to the notifications handed to the SDK: the tree re-reads the file, the
// resolver swaps in a new snapshot, and the server works out what each
// session is due (here one session, which has listed the tools and the
// resources, as clients do at their start). Editing the file is left out
// of the timing.
func BenchmarkRefreshReal10k(b *testing.B) {
	dir := b.TempDir()
	reps, err := skillgen.Replicate(dir, corpus.Dir(b), 10_000, nil)
	if err != nil {
		b.Fatal(err)
	}
	file := filepath.Join(dir, filepath.FromSlash(reps[len(reps)/2].Dir), "SKILL.md")
	orig, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	tree := dirtree.New(dir, nil)
	r := resolver.New([]sources.Source{tree}, nil)
	if _, err := r.Reload(ctx); err != nil {
		b.Fatal(err)
	}
	srv := server.New(r, nil)
	cs := benchExtClient(b, srv)
	if _, err := cs.ListTools(ctx, nil); err != nil {
		b.Fatal(err)
	}
	if _, err := cs.ListResources(ctx, &mcp.ListResourcesParams{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		b.StopTimer()
		i++
		// A new description each round: the skill tool's text changes.
		edited := bytes.Replace(orig, []byte("\ndescription: "), fmt.Appendf(nil, "\ndescription: Edit %d. ", i), 1)
		if err := os.WriteFile(file, edited, 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		tree.Changed(file)
		r.MarkChanged(tree)
		if _, err := r.Refresh(ctx); err != nil {
			b.Fatal(err)
		}
		srv.Refresh()
	}
	b.StopTimer()
	if err := os.WriteFile(file, orig, 0o644); err != nil {
		b.Fatal(err)
	}
}
