package gfxinfo

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/fpstop/fpstop/source"
)

// A capture replay (fileSource) is a source.Recycler: the frames, phases, summaries and polls
// it emits are carved from slabs (frameSlab), and a slab whose events were all released by the
// consumer is carved again instead of a new one being allocated. Measured on the 1 M-row
// framestats17 capture, whole process at GOMAXPROCS=1 (perf stat, 8 alternating runs on this
// 2-core VM): task-clock min 309 → 243 ms, page faults ~10,500 → ~6,300; on the 200 k-row one
// 488 M → 435 M instructions (callgrind). The allocator's clearing of new slabs
// (memclrNoHeapPointers, 4.3 % of samples), their first-touch page faults and the collector's
// work on them were most of it. A live poller (whose consumer never releases) and a test that
// reads Run's channel itself get new slabs, as before.

// recycler numbers the batches a source sends and learns which of them the consumer released.
type recycler struct {
	// next is the number the batch being gathered will have (the source's goroutine only).
	next uint64
	// off: the consumer left more than maxUnreleased batches unreleased, so it is taken not to
	// release at all (a test reading Run's channel, a wrapper): no batch is numbered and no slab
	// kept for reuse from then on (the source's goroutine only).
	off bool
	// through: every batch numbered up to it has been released.
	through atomic.Uint64

	mu sync.Mutex
	// sent: a batch sent and not released (the address of its first element: not a pointer, so
	// that a batch the consumer dropped without releasing is not kept alive) → its number
	sent map[uintptr]uint64
	done map[uint64]bool  // released, numbered above through + 1 (released out of order)
	free [][]source.Event // released batches' storage, cleared, for new batches
	// poison (tests): a slab whose events were all released is overwritten with values no
	// event has and dropped instead of carved again, so a consumer that still reads it reads
	// nonsense; poisoned counts them.
	poison   bool
	poisoned atomic.Int64
	reused   atomic.Int64 // slabs carved again
}

// maxFreeBatches bounds the released batches kept for reuse (the batches in flight between a
// capture replay and the pipeline are at most ~7: internal/session's queues).
const maxFreeBatches = 8

// maxUnreleased is how many batches may await their release before the consumer is taken not
// to release any (several times the ~7 a releasing consumer has in flight).
const maxUnreleased = 64

func newRecycler() *recycler {
	return &recycler{next: 1, sent: map[uintptr]uint64{}, done: map[uint64]bool{}}
}

// key identifies a batch.
func key(batch []source.Event) uintptr { return uintptr(unsafe.Pointer(&batch[0])) }

// sending registers batch, about to be sent, under the next number (before the send: the
// consumer may release it at once).
func (r *recycler) sending(batch []source.Event) {
	if r == nil || r.off || len(batch) == 0 {
		return
	}
	r.mu.Lock()
	if r.off = r.next-r.through.Load() > maxUnreleased; r.off {
		clear(r.sent)
	} else {
		r.sent[key(batch)] = r.next
	}
	r.mu.Unlock()
	r.next++
}

// release records that the consumer is done with batch (source.Recycler.Release).
func (r *recycler) release(batch []source.Event) {
	if r == nil || len(batch) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	n, ok := r.sent[key(batch)]
	if !ok {
		return
	}
	delete(r.sent, key(batch))
	t := r.through.Load()
	if n != t+1 {
		r.done[n] = true
		return
	}
	for t++; r.done[t+1]; t++ {
		delete(r.done, t+1)
	}
	r.through.Store(t)
	if len(r.free) < maxFreeBatches && !r.poison {
		clear(batch[:cap(batch)]) // (no pointer into the released events is left behind)
		r.free = append(r.free, batch[:0])
	}
}

// batch returns storage for the next batch: a released one, or nil.
func (r *recycler) batch() []source.Event {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.free); n > 0 {
		b := r.free[n-1]
		r.free = r.free[:n-1]
		return b
	}
	return nil
}

// slabPool is where the slabs of one kind of event storage come from: new, or retired ones
// whose events were all released.
type slabPool[T any] struct {
	cur     []T
	retired []retiredSlab[T] // in order of retirement, so of last
}

type retiredSlab[T any] struct {
	s    []T
	last uint64 // the newest batch that may hold events in it
}

// maxRetired bounds the retired slabs a pool keeps waiting for their release: a consumer that
// never releases (or releases late) costs new slabs, never unbounded memory.
const maxRetired = 32

// carve returns the next n elements of the pool's slab, starting a slab of size elements (or
// n) when it has no room. The elements are written whole by the caller.
func (p *slabPool[T]) carve(rc *recycler, n, size int) []T {
	if cap(p.cur)-len(p.cur) < n {
		p.cur = p.slab(rc, max(n, size))
	}
	l := len(p.cur)
	p.cur = p.cur[:l+n]
	return p.cur[l : l+n : l+n]
}

// slab retires the current slab (its newest events go out in the batch being gathered) and
// returns an empty one of at least size elements.
func (p *slabPool[T]) slab(rc *recycler, size int) []T {
	if rc == nil || rc.off {
		p.retired = nil
		return make([]T, 0, size)
	}
	if cap(p.cur) > 0 {
		if len(p.retired) >= maxRetired {
			p.retired = append(p.retired[:0], p.retired[1:]...) // (the oldest is left to the GC)
		}
		p.retired = append(p.retired, retiredSlab[T]{s: p.cur, last: rc.next})
	}
	through := rc.through.Load()
	for len(p.retired) > 0 && p.retired[0].last <= through {
		s := p.retired[0].s
		p.retired = append(p.retired[:0], p.retired[1:]...)
		if rc.poison {
			poisonSlab(s[:cap(s)])
			rc.poisoned.Add(1)
			continue
		}
		if cap(s) >= size {
			rc.reused.Add(1)
			return s[:0]
		}
	}
	return make([]T, 0, size)
}

// poisonAll (the test mode) waits until every batch sent was released, then poisons every slab
// of s, the current ones too: a consumer that kept a pointer into any event, the last ones
// included, reads poison in the report and snapshot it makes after the source ended.
func (r *recycler) poisonAll(ctx context.Context, s *frameSlab) {
	for r.through.Load() < r.next-1 {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Millisecond):
		}
	}
	r.poisoned.Add(poisonPool(&s.frames) + poisonPool(&s.phases) + poisonPool(&s.buckets) +
		poisonPool(&s.sums) + poisonPool(&s.polls))
}

// poisonPool poisons p's slabs and drops them; it returns how many there were.
func poisonPool[T any](p *slabPool[T]) int64 {
	n := int64(len(p.retired))
	for _, r := range p.retired {
		poisonSlab(r.s[:cap(r.s)])
	}
	if cap(p.cur) > 0 {
		poisonSlab(p.cur[:cap(p.cur)])
		n++
	}
	p.cur, p.retired = nil, nil
	return n
}

// The values a poisoned slab holds: none is a value an event could carry.
var (
	poisonPhases = source.Phases{Vsync: -poisonNs, HandleInputStart: -poisonNs, AnimationStart: -poisonNs,
		PerformTraversalsStart: -poisonNs, DrawStart: -poisonNs, SyncQueued: -poisonNs, SyncStart: -poisonNs,
		IssueDrawCommandsStart: -poisonNs, SwapBuffers: -poisonNs, FrameCompleted: -poisonNs}
	poisonCount = int64(-poisonNs)
	poisonMs    = float64(-poisonNs)
)

const (
	poisonNs    = 7_777_777_777_777
	poisonTitle = "released/.Poisoned"
)

// poisonSlab overwrites s with poison (the test mode of recycler).
func poisonSlab[T any](s []T) {
	switch v := any(s).(type) {
	case []source.Frame:
		for i := range v {
			v[i] = source.Frame{Window: poisonTitle, Process: poisonTitle, VsyncNs: -poisonNs, DoneNs: -poisonNs,
				UIDoneNs: -poisonNs, IntervalNs: -poisonNs, DeadlineNs: -poisonNs, VsyncID: -poisonNs,
				Flags: -1, Phases: &poisonPhases}
		}
	case []source.Phases:
		for i := range v {
			v[i] = poisonPhases
		}
	case []source.Bucket:
		for i := range v {
			v[i] = source.Bucket{Ms: -1, Count: poisonCount}
		}
	case []source.AndroidSummary:
		for i := range v {
			v[i] = source.AndroidSummary{AtNs: -poisonNs, Window: poisonTitle, Process: poisonTitle, Pid: -1,
				TotalFrames: &poisonCount, JankyFrames: &poisonCount, JankyLegacy: &poisonCount,
				P50Ms: &poisonMs, P90Ms: &poisonMs, P95Ms: &poisonMs, P99Ms: &poisonMs}
		}
	case []source.Poll:
		for i := range v {
			v[i] = source.Poll{AtNs: -poisonNs, Window: poisonTitle, Pid: -1, TotalFrames: poisonCount}
		}
	default:
		clear(s) // (a new kind of slab: zeros, until it has a poison of its own)
	}
}
