// A row's phase columns as a frame's Phases, copied as one block.

package gfxinfo

import (
	"unsafe"

	"github.com/fpstop/fpstop/source"
)

// phasesOf returns row r's columns colVsync..colWorkload as a source.Phases (their order is
// Phases' field order; the checks below fail to compile when either changes). emitRow copies
// it whole, then sets FrameStartTime (it holds r[colFrameStart], read before the period was
// told from the start): 18 loads and 18 stores field by field, a third of that as a block
// (emitRow self, fs17-200k.txt: 28.4 M → 25.7 M instructions).
func phasesOf(r *[numCols]int64) *source.Phases {
	return (*source.Phases)(unsafe.Pointer(&r[colVsync]))
}

// Each line fails to compile (an index out of range, or a constant overflowing uintptr) unless
// the field stands where its column does in the block phasesOf reads.
const phaseCol = unsafe.Sizeof(int64(0))

var (
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.Vsync)] // (colVsync: the first)
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.HandleInputStart)-phaseCol*(colHandleInput-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.AnimationStart)-phaseCol*(colAnimation-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.PerformTraversalsStart)-phaseCol*(colTraversals-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.DrawStart)-phaseCol*(colDrawStart-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.SyncQueued)-phaseCol*(colSyncQueued-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.SyncStart)-phaseCol*(colSyncStart-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.IssueDrawCommandsStart)-phaseCol*(colIssueDraw-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.SwapBuffers)-phaseCol*(colSwapBuffers-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.FrameCompleted)-phaseCol*(colFrameCompleted-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.DequeueBufferDuration)-phaseCol*(colDequeue-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.QueueBufferDuration)-phaseCol*(colQueue-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.GpuCompleted)-phaseCol*(colGpuCompleted-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.SwapBuffersCompleted)-phaseCol*(colSwapCompleted-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.DisplayPresentTime)-phaseCol*(colPresent-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.CommandSubmissionCompleted)-phaseCol*(colCommandSubmission-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.FrameStartTime)-phaseCol*(colFrameStart-colVsync)]
	_ = [1]int{}[unsafe.Offsetof(source.Phases{}.WorkloadTarget)-phaseCol*(colWorkload-colVsync)]
	// The block is all of Phases and ends inside the row.
	_ = [1]int{}[unsafe.Sizeof(source.Phases{})-phaseCol*(colWorkload-colVsync+1)]
	_ = [1]int{}[numCols-1-colWorkload]
)

// impossibleDone reports whether no frame of a dump printed at Uptime up (ns, 0 unknown) can
// have completed at done: it is negative, or more than 10 s after the dump. (On an Uptime so
// large that the bound wraps negative, every row is impossible, as always.)
func impossibleDone(done, up int64) bool {
	return done < 0 || (up > 0 && done > up+10_000_000_000)
}

// setUptime records the dump's Uptime and emitRow's bound from it: impossibleDone(done, up) is
// uint64(done) >= lim, negative values being the largest unsigned ones. emitRow tested it on
// every row through p.d (15 instructions a row; with the bound at hand, 2: emitRow self on
// fs17-200k.txt 25.7 M → 24.2 M).
func (p *parser) setUptime(up, rt int64) {
	p.d.UptimeNs, p.d.RealtimeNs = up, rt
	lim := uint64(1) << 63 // no Uptime: only a negative done
	if up > 0 {
		if cut := up + 10_000_000_000; cut < 0 {
			lim = 0 // (wrapped: every done)
		} else {
			lim = uint64(cut) + 1
		}
	}
	p.doneCut = lim ^ (1 << 63)
}
