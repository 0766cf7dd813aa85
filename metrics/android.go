package metrics

import "github.com/fpstop/fpstop/source"

// AndroidJank applies the rules of Android's libs/hwui/JankTracker.cpp to one frame, so
// fpstop's numbers can be held against what `dumpsys gfxinfo` prints ("Total frames rendered",
// "Janky frames", "Janky frames (legacy)", the HISTOGRAM and percentiles).
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
//   - Deadline jank (Android 12+): GpuCompleted ≥ FrameDeadline. JankTracker gives a frame that
//     started while the pipeline was buffer-stuffed one more interval and writes the extended
//     deadline back into the FrameInfo it later prints, so gfxinfo rows already carry it and
//     Android's buffer-stuffing state needs no tracking here (the simulator prints the
//     extension as Android does). The real captures reproduce Android's "Janky frames" exactly
//     only this way.
//
// Before Android 12 (rows without FrameDeadline, FrameTimelineVsyncId and
// SwapBuffersCompleted) the legacy rule is the only jank rule; Android 7 counted
// "duration ≥ interval" and kept exempt slow frames out of the histogram, Android 8–11 count
// "duration > interval" with every frame in the histogram, which is what AndroidJank does.
//
// intervalNs is the display's frame interval (JankTracker's legacy mFrameIntervalLegacy, fixed
// at process start); when it is not positive the frame's own IntervalNs is used. The deadline
// rule applies only to a frame with an interval, as JankTracker's does.
func AndroidJank(f *source.Frame, intervalNs int64) (out AndroidFrame) {
	if f == nil || f.Flags&source.FlagSkippedFrame != 0 {
		return out
	}
	var completed, syncQueued, syncStart, swapDone, gpuDone int64
	if ph := f.Phases; ph != nil {
		completed, syncQueued, syncStart = ph.FrameCompleted, ph.SyncQueued, ph.SyncStart
		swapDone, gpuDone = ph.SwapBuffersCompleted, ph.GpuCompleted
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
	if exempt || !modern || f.DeadlineNs <= 0 || intervalNs <= 0 {
		return out
	}
	out.HasDeadline = true
	out.DeadlineJanky = gpuDone >= f.DeadlineNs
	return out
}

// AndroidFrame is what Android's JankTracker makes of one frame.
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
