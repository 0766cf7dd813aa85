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
	// fit, when set, sizes the window to the disorder the stream shows (a live trace).
	fit *windowFit
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
	if s.fit != nil && s.seq > 1 {
		s.windowNs = s.fit.see(s.maxTs-e.ts, max(s.maxTs, e.ts))
	}
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

// windowFit sizes a live trace's sort window to how far behind the newest event the stream
// delivers events (the phone commits each CPU's and each producer's data in chunks): a quarter
// more than the worst seen in the last fitSpanNs or so (trace time), plus fitSlackNs, within
// [lo, hi]. A window fitted to the stream holds frames no longer than their order needs; one
// fixed for the worst phone held every frame a second. It starts from prior, so the first
// frames, before any disorder was seen, are ordered as safely as later ones.
type windowFit struct {
	lo, hi    int64
	cur, prev int64 // the worst lateness in this span and the one before
	spanStart int64
	started   bool
}

const (
	fitSpanNs  = 5_000_000_000
	fitSlackNs = 50_000_000
)

func newWindowFit(lo, hi, prior int64) *windowFit {
	return &windowFit{lo: lo, hi: hi, prev: prior}
}

// see takes an event's lateness (the newest time already seen less its own; ≤ 0: in order)
// at trace time now and returns the window.
func (f *windowFit) see(late, now int64) int64 {
	if !f.started {
		f.spanStart, f.started = now, true
	}
	if gone := now - f.spanStart; gone >= fitSpanNs {
		f.prev, f.cur, f.spanStart = f.cur, 0, now
		if gone >= 2*fitSpanNs {
			f.prev = 0 // a quiet span: nothing was late in it
		}
	}
	f.cur = max(f.cur, late)
	return f.window()
}

func (f *windowFit) window() int64 {
	worst := max(f.cur, f.prev)
	return min(max(worst+worst/4+fitSlackNs, f.lo), f.hi)
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
