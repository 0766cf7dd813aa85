// A row's phase columns as a frame's Phases, and the checks on a row's times.

package gfxinfo

import "github.com/fpstop/fpstop/source"

// phasesOf returns row r's phase columns as a frame's Phases. FrameStartTime is the column's
// value here; emitRow corrects it once the period has been told from the start time.
func phasesOf(r *[numCols]int64) source.Phases {
	return source.Phases{
		Vsync:                      r[colVsync],
		HandleInputStart:           r[colHandleInput],
		AnimationStart:             r[colAnimation],
		PerformTraversalsStart:     r[colTraversals],
		DrawStart:                  r[colDrawStart],
		SyncQueued:                 r[colSyncQueued],
		SyncStart:                  r[colSyncStart],
		IssueDrawCommandsStart:     r[colIssueDraw],
		SwapBuffers:                r[colSwapBuffers],
		FrameCompleted:             r[colFrameCompleted],
		DequeueBufferDuration:      r[colDequeue],
		QueueBufferDuration:        r[colQueue],
		GpuCompleted:               r[colGpuCompleted],
		SwapBuffersCompleted:       r[colSwapCompleted],
		DisplayPresentTime:         r[colPresent],
		CommandSubmissionCompleted: r[colCommandSubmission],
		FrameStartTime:             r[colFrameStart],
		WorkloadTarget:             r[colWorkload],
	}
}

// impossibleDone reports whether no frame of a dump printed at Uptime up (ns, 0 unknown) can
// have completed at done: it is negative, or more than 10 s after the dump. (On an Uptime so
// large that the bound wraps negative, every row is impossible, as always.)
func impossibleDone(done, up int64) bool {
	return done < 0 || (up > 0 && done > up+10_000_000_000)
}

// setUptime records the dump's Uptime and emitRow's bound from it: impossibleDone(done, up) is
// uint64(done) >= lim, negative values being the largest unsigned ones.
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
