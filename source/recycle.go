package source

// Recycler is a Source that writes new events into the memory of events it sent earlier, once
// the consumer has said it is done with them. Replaying a capture emits about one frame per
// 500 bytes read; fresh memory for each (cleared by the allocator, faulted in by the kernel,
// then collected) was ~15 % of the whole process's CPU on a 1 M-row framestats capture.
//
// The contract, for a consumer that calls Release: from then on it reads nothing through the
// batch (its frames, their Phases, summaries and their Histogram, polls): what it keeps it has
// copied by value (strings it may keep; a source never rewrites a string's bytes). A consumer
// that never calls Release needs nothing: a batch never released is never reused.
type Recycler interface {
	Source
	// Release says the consumer is done with batch, one Run sent on out. Safe to call from any
	// goroutine, once per batch; a batch this source did not send is ignored.
	Release(batch []Event)
}
