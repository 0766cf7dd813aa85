package metrics

import "github.com/fpstop/fpstop/source"

// JankTracker applies the rules of Android's libs/hwui/JankTracker.cpp to one window's frames,
// in order, so fpstop's numbers can be held against what `dumpsys gfxinfo` prints ("Total
// frames rendered", "Janky frames", "Janky frames (legacy)", the HISTOGRAM and percentiles).
// It keeps the little state Android keeps per window (the buffer-stuffing tracker). The zero
// value is ready for frames from gfxinfo rows; use one tracker per window and Reset it when the
// window's process restarts.
//
// What it reproduces (Android 12+ finishFrame / calculateLegacyJank):
//   - Frames flagged SkippedFrame never reach finishFrame: not counted.
//   - The histogram duration is FrameInfo::duration(IntendedVsync, FrameCompleted): the span
//     minus the UI→RenderThread stall (SyncStart − SyncQueued) when positive, clamped at 0. A
//     frame whose duration is 0 is not counted (not in Total frames rendered either).
//   - Legacy jank: duration(IntendedVsync, SwapBuffersCompleted) > the display's frame interval
//     (FrameCompleted before Android 12, and for frames without a SwapBuffersCompleted),
//     SurfaceCanvas frames exempt. Android's dequeueBuffer
//     "forgiveness" depends on the device's SF/app vsync offsets, which dumps do not print; it
//     is not applied (the real captures match without it).
//   - Deadline jank (Android 12+): GpuCompleted ≥ FrameDeadline, where a frame that started
//     while the pipeline was buffer-stuffed ("triple buffered": it began more than 0.1 × the
//     interval before the next unstuffed start) gets one more interval. Android writes the
//     extended deadline back into the FrameInfo it later prints, so gfxinfo rows already carry
//     it: the tracker adds the interval itself only when RawDeadlines is set (frames whose
//     deadline is Choreographer's original one; no source sends those: the simulator prints
//     the extension as Android does). The real captures
//     reproduce Android's "Janky frames" exactly only this way.
//
// Before Android 12 (rows without FrameDeadline, FrameTimelineVsyncId and
// SwapBuffersCompleted) the legacy rule is the only jank rule; Android 7 counted
// "duration ≥ interval" and kept exempt slow frames out of the histogram, Android 8–11 count
// "duration > interval" with every frame in the histogram, which is what the tracker does.
type JankTracker struct {
	// RawDeadlines says frames carry Choreographer's original FrameDeadline (not hwui's
	// buffer-stuffing-extended one that gfxinfo rows print).
	RawDeadlines bool

	nextUnstuffed int64 // mNextFrameStartUnstuffed; Android starts it at -1
	started       bool
}

// AndroidFrame is what Android's JankTracker made of one frame.
type AndroidFrame struct {
	// Counted: the frame is in Android's "Total frames rendered" and histogram.
	Counted bool
	// DurationNs is the duration Android puts in its histogram (0 when not counted).
	DurationNs int64
	// LegacyJanky: counted in "Janky frames (legacy)" (before Android 12: "Janky frames").
	// Android decides it before (and independently of) Counted, so a frame can be legacy-janky
	// without being counted; real rows never show that.
	LegacyJanky bool
	// HasDeadline: the frame carries an Android 12+ deadline and GPU completion, so the
	// deadline rule applied.
	HasDeadline bool
	// DeadlineJanky: counted in Android 12+'s "Janky frames" (missed its deadline).
	DeadlineJanky bool
	// Stuffed: the frame started in a buffer-stuffed pipeline and still made its (extended)
	// deadline; Android counts it under "High input latency".
	Stuffed bool
}

// Reset forgets the buffer-stuffing state (a new process or a `reset`).
func (j *JankTracker) Reset() { j.nextUnstuffed, j.started = -1, true }

// Frame applies JankTracker's rules to f, the window's next frame in order. intervalNs is the
// display's frame interval (JankTracker's legacy mFrameIntervalLegacy, fixed at process
// start); when it is not positive the frame's own IntervalNs is used. The deadline rule always
// uses the frame's own interval when it has one.
func (j *JankTracker) Frame(f *source.Frame, intervalNs int64) (out AndroidFrame) {
	if !j.started {
		j.Reset()
	}
	if f == nil || f.Flags&source.FlagSkippedFrame != 0 {
		return out
	}
	var completed, syncQueued, syncStart, swapDone, gpuDone, vsyncActual int64
	if ph := f.Phases; ph != nil {
		completed, syncQueued, syncStart = ph.FrameCompleted, ph.SyncQueued, ph.SyncStart
		swapDone, gpuDone, vsyncActual = ph.SwapBuffersCompleted, ph.GpuCompleted, ph.Vsync
	}
	if completed == 0 {
		completed = f.DoneNs
	}
	if syncStart == 0 {
		syncStart = f.UIDoneNs
	}
	// hwui's FrameInfo::duration subtracts the UI→RenderThread stall when positive
	var stall int64
	if d := syncStart - syncQueued; syncQueued > 0 && d > 0 {
		stall = d
	}
	if intervalNs <= 0 {
		intervalNs = f.IntervalNs
	}
	frameInterval := f.IntervalNs
	if frameInterval <= 0 {
		frameInterval = intervalNs
	}
	exempt := f.Flags&source.FlagSurfaceCanvas != 0
	modern := f.DeadlineNs != 0 || f.VsyncID != 0 || swapDone != 0

	// Legacy jank.
	legacyEnd := completed
	if modern && swapDone > 0 {
		legacyEnd = swapDone
	}
	legacyDur := duration(f.VsyncNs, legacyEnd, stall)
	if legacyDur > 0 && !exempt && intervalNs > 0 && legacyDur > intervalNs {
		out.LegacyJanky = true
	}

	dur := duration(f.VsyncNs, completed, stall)
	if dur <= 0 {
		return out
	}
	out.Counted, out.DurationNs = true, dur
	// Without a GPU completion (frames that did not come from gfxinfo rows) Android's own
	// fallback applies: GpuCompleted = FrameCompleted.
	if gpuDone <= 0 {
		gpuDone = completed
	}
	if exempt || !modern || f.DeadlineNs <= 0 || frameInterval <= 0 {
		return out
	}

	out.HasDeadline = true
	stuffed := float64(j.nextUnstuffed-f.VsyncNs) > float64(frameInterval)*0.1
	deadline := f.DeadlineNs
	if stuffed && j.RawDeadlines {
		deadline += frameInterval
	}
	if gpuDone < deadline {
		if stuffed {
			out.Stuffed = true
			j.nextUnstuffed += frameInterval
		}
		return out
	}
	out.DeadlineJanky = true
	vsync := vsyncActual
	if vsync == 0 {
		vsync = f.VsyncNs
	}
	jitter := gpuDone - vsync
	j.nextUnstuffed = gpuDone - jitter%frameInterval + frameInterval
	return out
}

// duration is hwui's FrameInfo::duration for a span starting at start (IntendedVsync) and
// ending at end past SyncQueued: end − start, minus the SyncQueued→SyncStart stall (stall, 0
// when not positive), 0 when start is unset, never negative.
func duration(start, end, stall int64) int64 {
	if start <= 0 {
		return 0
	}
	gap := end - start - stall
	if gap < 0 {
		return 0
	}
	return gap
}
