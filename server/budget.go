package server

import (
	"context"
	"io/fs"
	"sync"
	"sync/atomic"

	"golang.org/x/sync/semaphore"

	"github.com/skillmux/skillmux/sources"
)

// minReadBudget is the least memory that the answers of reads may hold
// at once across the process (see readBudget); a larger
// resources.max_file_size raises it to twice that.
const minReadBudget = 32 << 20

// smallRead is the largest read that takes its share from the budget of
// small reads, smallBudget, rather than from the shared one: a SKILL.md or
// a reference of a few kilobytes, which an agent waits on, never waits
// behind reads of large files (a read of 2 bytes waited 4.9 s behind 40
// reads of 15 MiB). smallBudget holds hundreds of such reads at once, and
// four of smallRead.
const (
	smallRead   = 1 << 20
	smallBudget = 4 * readCost * smallRead
)

// readCost is what a read of a file holds, in multiples of the file's
// size, until its answer is written: the bytes read, the text made of
// them, the SDK's encoding of the result and the line written. Measured
// from outside, a resources/read of a 9 MB file peaks at about 8.7 times
// its size with the garbage it leaves.
const readCost = 4

// readBudget bounds the memory that the handlers returning file content
// (resources/read of a file or a collection, prompts/get, the skill and
// skill_resource tools) hold at once across the process, from the read
// until the answer is written, a read weighing readCost times its file's
// size: about 8 MiB of files are read and answered at once, and a larger
// file alone. The 64 requests a session may have in flight would otherwise
// all hold one: reads of large files wait their turn instead. A read takes
// its whole weight at once, never piecemeal, so two reads cannot each hold
// part and wait for the rest; a weight larger than the budget is cut to
// it, so every read can run alone. Reads of at most smallRead bytes take
// their share from a budget of their own (see smallRead).
type readBudget struct {
	sem   *semaphore.Weighted
	size  int64
	small *semaphore.Weighted // of smallBudget, for reads of at most smallRead
	// taken, when set (by tests), is told the size of each read, before
	// its weight is taken.
	taken func(n int64)
}

func newReadBudget(maxFileSize int64) *readBudget {
	size := max(minReadBudget, 2*maxFileSize)
	return &readBudget{sem: semaphore.NewWeighted(size), size: size, small: semaphore.NewWeighted(smallBudget)}
}

// acquire waits until the weight of a read of n bytes is free in the
// budget, or ctx is done, and holds it until both the handler has
// returned, which calls the returned function, and the request's context
// has ended: the SDK ends it once the answer is written, so the share
// covers the answer's encodings and its wait for the client to read it;
// and a client that cancels the request, or stops sending, ends it while
// the handler may still be reading. A context that never ends leaves the
// share to the handler.
func (b *readBudget) acquire(ctx context.Context, n int64) (handled func(), err error) {
	if b.taken != nil {
		b.taken(n)
	}
	sem := b.sem
	if n <= smallRead {
		sem = b.small
	}
	n = min(max(n, 1), b.size/readCost) * readCost
	if err := sem.Acquire(ctx, n); err != nil {
		return nil, err
	}
	if ctx.Done() == nil {
		return sync.OnceFunc(func() { sem.Release(n) }), nil
	}
	var holders atomic.Int32 // the handler and the context
	holders.Store(2)
	let := func() {
		if holders.Add(-1) == 0 {
			sem.Release(n)
		}
	}
	context.AfterFunc(ctx, let)
	return sync.OnceFunc(let), nil
}

// openRead opens the file name of the skill sk, with open, for a read that
// holds its share of the budget, for at most limit bytes, until handled is
// called and the request's context has ended (see acquire). A file in a
// local folder is opened first and weighed by its size once open, without
// a stat before; a session has at most MaxInFlight requests, and so
// files, waiting. Another source's file (a plugin's, read as it is
// opened) is weighed by a stat of sk.Files, and opened once its share is
// taken.
//
// handled is nil when the share was not taken: the open failed first, or
// ctx ended while the read waited, and err says which.
func (b *readBudget) openRead(ctx context.Context, sk *sources.Skill, name string, limit int64, open func() (*sources.File, error)) (f *sources.File, handled func(), err error) {
	if !sources.LocalFiles(sk) {
		var size int64 // 0 when it cannot be told: the open says why
		if sk.Files != nil {
			if info, err := fs.Stat(sk.Files, name); err == nil {
				size = info.Size()
			}
		}
		if handled, err = b.acquire(ctx, min(size, limit)); err != nil {
			return nil, nil, err
		}
		f, err = open()
		return f, handled, err
	}
	if f, err = open(); err != nil {
		return nil, nil, err
	}
	if handled, err = b.acquire(ctx, min(f.Size(), limit)); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, handled, nil
}
