package server

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// A request waits for the start until it is complete, or for its wait; a
// start whose wait once ran out is not waited for again, and a request
// whose context ends stops waiting. (Time is synctest's: the durations
// are exact.)
func TestStartGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		done := make(chan struct{})
		g := &startGate{done: done}
		began := time.Now()
		go func() {
			time.Sleep(time.Second)
			close(done)
		}()
		if g.wait(context.Background(), 5*time.Second); time.Since(began) != time.Second {
			t.Errorf("waited %v for a start that took 1 s", time.Since(began))
		}
		began = time.Now()
		if g.wait(context.Background(), 5*time.Second); time.Since(began) != 0 {
			t.Errorf("waited %v for a start already complete", time.Since(began))
		}

		never := &startGate{done: make(chan struct{})}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		began = time.Now()
		if never.wait(ctx, 5*time.Second); time.Since(began) != time.Second {
			t.Errorf("a request ended after 1 s waited %v", time.Since(began))
		}
		began = time.Now()
		if never.wait(context.Background(), 5*time.Second); time.Since(began) != 5*time.Second {
			t.Errorf("waited %v; want the whole wait, 5 s", time.Since(began))
		}
		began = time.Now()
		if never.wait(context.Background(), 5*time.Second); time.Since(began) != 0 {
			t.Errorf("waited %v again for a start whose wait ran out", time.Since(began))
		}

		began = time.Now()
		if (&startGate{}).wait(context.Background(), time.Second); time.Since(began) != 0 {
			t.Errorf("waited %v without a start to wait for", time.Since(began))
		}
	})
}
