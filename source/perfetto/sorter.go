package perfetto

import "container/heap"

// sorter orders events by timestamp in a bounded window before anything is paired, as
// trace_processor's sorter does: Perfetto writes each CPU's and each producer's buffer in
// chunks, so file order is not time order, but an event is never later than the window. An
// event that arrives after its time was already passed is still used, and counted.
type sorter struct {
	h        evHeap
	seq      uint64
	maxTs    int64
	lastOut  int64
	windowNs int64
	maxLen   int
	emit     func(*event)
	// Late counts events that arrived after later events had already been handed on.
	Late int
}

// Default sort window: Perfetto flushes its buffers every few seconds at most; the cap on
// events keeps memory bounded whatever the timestamps say.
const (
	sortWindowNs = 5_000_000_000
	sortMaxLen   = 1 << 17
)

func newSorter(emit func(*event)) *sorter {
	return &sorter{windowNs: sortWindowNs, maxLen: sortMaxLen, emit: emit, lastOut: -1 << 63}
}

func (s *sorter) push(e event) {
	e.seq = s.seq
	s.seq++
	if e.ts > s.maxTs {
		s.maxTs = e.ts
	}
	heap.Push(&s.h, e)
	for len(s.h) > 0 && (len(s.h) > s.maxLen || s.h[0].ts < s.maxTs-s.windowNs) {
		s.pop()
	}
}

func (s *sorter) pop() {
	e := heap.Pop(&s.h).(event)
	if e.ts < s.lastOut {
		s.Late++
	} else {
		s.lastOut = e.ts
	}
	s.emit(&e)
}

// flush hands on everything left (the end of the input).
func (s *sorter) flush() {
	for len(s.h) > 0 {
		s.pop()
	}
}

type evHeap []event

func (h evHeap) Len() int { return len(h) }
func (h evHeap) Less(i, j int) bool {
	if h[i].ts != h[j].ts {
		return h[i].ts < h[j].ts
	}
	return h[i].seq < h[j].seq
}
func (h evHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *evHeap) Push(x any)   { *h = append(*h, x.(event)) }
func (h *evHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = event{}
	*h = old[:len(old)-1]
	return e
}
