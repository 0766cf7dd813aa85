package gfxinfo

// slabPool hands out a capture's event storage (frames, phases, summaries, polls) carved from
// slabs of many elements: one allocation per slab instead of one per event. A slab is never
// written again once carved; it is freed when no event points into it.
type slabPool[T any] struct {
	cur []T
}

// carve returns the next n elements of the pool's slab, starting a slab of size elements (or
// n) when it has no room. The elements are written whole by the caller.
func (p *slabPool[T]) carve(n, size int) []T {
	if cap(p.cur)-len(p.cur) < n {
		p.cur = make([]T, 0, max(n, size))
	}
	l := len(p.cur)
	p.cur = p.cur[:l+n]
	return p.cur[l : l+n : l+n]
}
