package gfxinfo

import (
	"testing"

	"github.com/fpstop/fpstop/source"
)

// TestRecyclerThrough: a slab is reused once every batch up to the newest that may hold its
// events was released, whatever order the releases came in (a switched-away source's batches
// are dropped while earlier ones are still applied); a batch it did not send changes nothing.
func TestRecyclerThrough(t *testing.T) {
	r := newRecycler()
	batches := make([][]source.Event, 6)
	for i := range batches {
		batches[i] = []source.Event{&source.Tick{NowNs: int64(i)}}
		r.sending(batches[i])
	}
	steps := []struct {
		release int // index into batches; -1 a batch not sent
		through uint64
	}{{1, 0}, {2, 0}, {-1, 0}, {0, 3}, {0, 3}, {4, 3}, {3, 5}, {5, 6}}
	for i, s := range steps {
		b := []source.Event{&source.Tick{}}
		if s.release >= 0 {
			b = batches[s.release]
		}
		r.release(b)
		if got := r.through.Load(); got != s.through {
			t.Fatalf("step %d (release batch %d): through %d, want %d", i, s.release+1, got, s.through)
		}
	}
	if len(r.sent) != 0 || len(r.done) != 0 {
		t.Errorf("after every release: %d sent and %d done left", len(r.sent), len(r.done))
	}
	if b := r.batch(); cap(b) == 0 || len(b) != 0 || b[:1][0] != nil {
		t.Errorf("a released batch's storage comes back empty and cleared: len %d cap %d", len(b), cap(b))
	}
}

// TestRecyclerTurnsOff: a consumer that leaves maxUnreleased batches unreleased is taken not to
// release at all: no batch is numbered any more and no slab is kept for reuse.
func TestRecyclerTurnsOff(t *testing.T) {
	r := newRecycler()
	var p slabPool[source.Poll]
	for i := 0; i <= maxUnreleased+1; i++ {
		p.carve(r, 64, 64) // a slab a batch
		r.sending([]source.Event{&source.Tick{}})
	}
	if !r.off || len(r.sent) != 0 {
		t.Fatalf("after %d batches never released: off %v, %d awaiting release", maxUnreleased+2, r.off, len(r.sent))
	}
	p.carve(r, 64, 64)
	if len(p.retired) != 0 {
		t.Errorf("%d slabs kept for a consumer that does not release", len(p.retired))
	}
}
