package server_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/skillmux/skillmux/sources"
	"github.com/skillmux/skillmux/sources/sourcetest"
)

// Several clients call the skill tool and list tools while the catalog is
// refreshed again and again: every answer is whole and from one snapshot,
// and the race detector sees nothing.
func TestConcurrentClientsDuringRefreshes(t *testing.T) {
	src := &sourcetest.Fake{SourceName: "s"}
	for i := range 50 {
		src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: fmt.Sprintf("skill-%02d", i), Description: "Stable."})
	}
	var mu sync.Mutex // guards src between reloads
	r, srv := refreshing(t, &lockedSource{Fake: src, mu: &mu})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var reloads sync.WaitGroup
	reloads.Go(func() {
		for i := 0; ctx.Err() == nil; i++ {
			mu.Lock()
			src.Skills[i%50].Description = fmt.Sprintf("Version %d.", i)
			if i%2 == 0 {
				src.Skills = append(src.Skills, sourcetest.FakeSkill{Name: "flicker", Description: "Comes and goes."})
			} else {
				src.Skills = src.Skills[:50]
			}
			mu.Unlock()
			r.Reload(ctx)
		}
	})
	var clients sync.WaitGroup
	for c := range 8 {
		cs, _ := connectAs(t, srv, fmt.Sprintf("client-%d", c))
		clients.Go(func() {
			for i := range 40 {
				name := fmt.Sprintf("skill-%02d", (c*7+i)%50)
				res, err := callSkill(t, cs, map[string]any{"name": name})
				if err != nil || res.IsError || !strings.HasPrefix(text(t, res.Content[0]), "Loading: "+name+"\n") {
					t.Errorf("%s: %v %+v", name, err, res)
					return
				}
				if i%10 == 0 {
					if _, err := cs.ListTools(ctx, nil); err != nil {
						t.Error(err)
						return
					}
				}
			}
		})
	}
	clients.Wait()
	cancel()
	reloads.Wait()
}

// lockedSource lists a Fake under a lock its test also takes to change it.
type lockedSource struct {
	*sourcetest.Fake
	mu *sync.Mutex
}

func (l *lockedSource) List(ctx context.Context) (*sources.Listing, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.Fake.List(ctx)
}
