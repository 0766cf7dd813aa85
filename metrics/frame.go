package metrics

import (
	"github.com/fpstop/fpstop/internal/hwui"
	"github.com/fpstop/fpstop/source"
)

// addFrame counts one frame. looperDropped is the drops LooperFrames worked out for a
// Looper-derived frame (they depend on when the next frame started, which only it knows), −1
// for every other frame.
func (p *Pipeline) addFrame(f *source.Frame, looperDropped int64) {
	if f.Flags&source.FlagSkippedFrame != 0 || p.countedElsewhere(f) {
		return // hwui's skipped frames are not frames; their timestamps are garbage
	}
	end := f.DoneNs
	if end == 0 {
		end = f.UIDoneNs
		// A Looper-derived frame's intended vsync (DESIGN §4's rule: at or after the previous
		// frame's Finished) can fall after its own Finished when the previous frame overran:
		// it was on time for the tick it was meant for, so its main-thread cost is 0.
		if end > 0 && end < f.VsyncNs {
			end = f.VsyncNs
		}
	}
	if f.VsyncNs <= 0 || end <= 0 || end < f.VsyncNs {
		p.warn.add("frames with impossible timestamps ignored")
		return
	}
	if p.aligner != nil {
		p.aligner.ObserveFrame(f)
	}
	// Consecutive frames mostly share a window: the last one is tried first.
	w := p.lastWin
	if w == nil || w.name != f.Window || w.process == "" {
		w = p.window(f.Window, f.Process)
	}
	t := p.intervalFor(f, w)
	vsync := f.VsyncNs
	w.lastVsync = vsync
	cost := end - vsync
	// The facts are filled by classify and read in place (agg.add takes a pointer).
	var ff frameFacts
	p.classify(f, w, t, cost, looperDropped, &ff)
	if !f.History {
		// A frame drawn before a live session started is history: it sets neither the
		// session's origin nor a slice (DESIGN §4).
		// p.touch(vsync) then p.touch(end), with end ≥ vsync > 0: the vsync can only set the
		// origin
		if !p.hasOrigin {
			p.originNs, p.endNs, p.hasOrigin = vsync, vsync, true
		}
		p.endNs = max(p.endNs, end)
		p.main.noteFrame(f, vsync, end)
	}
	idx := int64(0)
	if vsync > p.originNs {
		idx = p.sliceOf(vsync - p.originNs)
	}
	ff.endIdx = idx // only read for a late frame
	if ff.dropped >= 1 && end > p.originNs {
		ff.endIdx = p.sliceOf(end - p.originNs)
	}
	if ff.late {
		p.keepLate(w, f, &ff, idx, end)
	}
	p.countWindowFrame(w, &ff, idx, vsync)
	if !f.History {
		// A frame occupies its refresh: the slice it falls in is at least that long for
		// fps_wall, so a rate never exceeds R in a slice the session is still in.
		slotEnd := vsync + t - p.originNs
		if p.session.Layer == "" {
			p.total.slotEnd = max(p.total.slotEnd, slotEnd)
		}
		w.agg.slotEnd = max(w.agg.slotEnd, slotEnd)
	}

	rf := &p.recent[p.rhead]
	if rf.window != w.name {
		// (the slot mostly held this window's frame before: no write barrier while the
		// GC marks, which had every frame pay two)
		rf.window = w.name
	}
	rf.vsync, rf.cost, rf.interval, rf.dropped = vsync, cost, t, ff.dropped
	rf.level, rf.uiDone, rf.doneNs = ff.level, f.UIDoneNs, f.DoneNs
	rf.phases.set(f.Phases)
	if p.rhead++; p.rhead == len(p.recent) {
		p.rhead = 0
	}
	if p.rlen < len(p.recent) {
		p.rlen++
	}
	if !f.History {
		// Worst frames are for finding the message behind a stutter: a frame drawn before
		// the session started has none to find (logcat and the clock start with the session).
		if len(p.worst) < worstKeep || cost > p.worst[len(p.worst)-1].cost {
			p.considerWorst(w.name, f, cost, ff.dropped) // (the test it starts with, inline)
		}
		if p.hist.max >= 0 {
			p.hist.add(FrameMark{Window: w.name, VsyncNs: vsync, CostNs: cost, Dropped: ff.dropped, Level: ff.level,
				BudgetNs: ff.budget, Detail: frameDetail(f, ff.dropped)})
		}
	}
	if p.onFrame != nil {
		p.onFrame(ClassifiedFrame{Frame: *f, IntervalNs: t, CostNs: cost, Dropped: ff.dropped, Level: ff.level})
	}
}

// classify fills ff with what the frame counts as: Android's own view of it (histogram
// duration, deadline and legacy jank) from JankTracker's rules, its dropped refreshes and
// drop level. Every source, the simulator included, carries FrameDeadline as Android prints
// it (hwui's stuffing extension already in it).
func (p *Pipeline) classify(f *source.Frame, w *windowState, t, cost, looperDropped int64, ff *frameFacts) {
	var af AndroidFrame
	w.jank.frame(f, t, &af)
	ff.cost, ff.interval = cost, t
	ff.dropped = p.dropped(f, w, t, cost, af.Counted, af.DurationNs, looperDropped, &ff.late, &ff.budget)
	ff.inHist, ff.histNs = af.Counted, af.DurationNs
	if af.Counted {
		ff.histIdx = hwui.Index(af.DurationNs)
	}
	// (a frame only known because it was logged as slow counts as history does: not in a rate)
	ff.flagged, ff.history = f.Flags != 0, f.History || f.Logged
	ff.hasDeadline, ff.deadlineJanky = af.HasDeadline, af.DeadlineJanky
	ff.legacyKnown, ff.legacyJanky = f.DoneNs > 0, af.LegacyJanky
	ff.displayNs = (ff.dropped + 1) * t
	if t != p.levelsT {
		p.levelsT, p.levels = t, p.thresholdsFor(RateHz(t))
	}
	ff.level = Classify(ff.dropped, p.levels)
	if f.Timeline != nil {
		p.addTimeline(f, w)
	}
}

// sliceOf is the index of the slice rel (ns from the origin, > 0) falls in. Frames come in
// time order, so the slice of the frame before mostly answers without a division (two 64-bit
// divisions a frame were visible in perf on the framestats path).
func (p *Pipeline) sliceOf(rel int64) int64 {
	if rel >= p.sliceLo && rel-p.sliceLo < p.cfg.SliceNs {
		return p.sliceIdx
	}
	p.sliceIdx = rel / p.cfg.SliceNs
	p.sliceLo = p.sliceIdx * p.cfg.SliceNs
	return p.sliceIdx
}

// dropped is DESIGN §4's `dropped` for one frame: against the budget the frame really had on
// Android 12+ rows (DeadlineDropped), by the era's rule on rows without a deadline (Android's
// JankTracker duration, IntendedVsync → FrameCompleted less the sync stall, in whole periods
// past the first), and from the main thread's own vsync grid for Looper-derived frames
// (looperDropped ≥ 0: LooperFrames' pipelined rule). *late is set for a frame charged against
// a budget other than its own printed one (Report settles it).
func (p *Pipeline) dropped(f *source.Frame, w *windowState, t, cost int64, counted bool, durNs, looperDropped int64, late *bool, budget *int64) int64 {
	if looperDropped >= 0 {
		return looperDropped
	}
	if tl := f.Timeline; tl != nil && (tl.NoExpected || tl.Unseen()) {
		// no deadline to be late against, or jank no user saw (DESIGN §4b)
		return 0
	}
	// the era's rule: late past one period
	*budget = t
	if f.DoneNs == 0 { // main-thread cost only, from elsewhere than LooperFrames
		return Dropped(cost, t)
	}
	if f.DeadlineNs != 0 {
		if b, onTime := onTimeBudget(f, t); onTime {
			w.budgets.add(b)
			*budget = b
			return overDropped(f, t, b)
		}
		// charged now against the budget known so far; Report settles it (latestart.go)
		*late = true
		if b, ok := p.lateBudget(w, t, saneDeadline(f)); ok {
			*budget = b
			return overDropped(f, t, b)
		}
	}
	if counted {
		return Dropped(durNs, t)
	}
	return Dropped(cost, t)
}

// countedElsewhere reports whether f is a frame logged as slow (Davey) that the session
// already counts: gfxinfo's rows, or the frame derived from its vsync message, carry it.
func (p *Pipeline) countedElsewhere(f *source.Frame) bool {
	return f.Logged && (p.session.Source == source.KindGfxinfoLogcat || p.msgs.paired > 0)
}

// countWindowFrame counts a window's frame in the window and the run, or, while a layer is
// measured, in the window only (measured.go).
func (p *Pipeline) countWindowFrame(w *windowState, ff *frameFacts, idx, vsync int64) {
	if p.session.Layer == "" {
		addPair(p.total, w.agg, ff, idx, vsync)
		return
	}
	w.agg.add(ff, idx, vsync)
	if w.unmeasured == nil {
		w.unmeasured = newAgg(1)
	}
	w.unmeasured.count(ff, vsync)
	if !ff.history {
		w.unmeasured.rateFrames++
		w.unmeasured.displayNs += ff.displayNs
	}
}
