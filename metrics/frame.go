package metrics

import "github.com/fpstop/fpstop/source"

// addFrame is one window frame's walk through the pipeline, in three stages: classification
// (classify.go: the frame's verdict), aggregation (agg.go: the counts the numbers come from)
// and what is kept of the frame itself (below: the recent frames, the worst frames and the
// history). looperDropped is the drops LooperFrames worked out for a Looper-derived frame, −1
// for every other frame.
func (p *Pipeline) addFrame(f *source.Frame, looperDropped int64) {
	if f.Flags&source.FlagSkippedFrame != 0 || p.countedElsewhere(f) {
		return // hwui's skipped frames are not frames; their timestamps are garbage
	}
	end, ok := frameDone(f)
	if !ok {
		p.warn.add("frames with impossible timestamps ignored")
		return
	}
	if p.aligner != nil {
		p.aligner.ObserveFrame(f)
	}
	w := p.window(f.Window, f.Process)
	ff := p.classify(f, w, end, looperDropped)
	p.countFrame(f, w, &ff, end)
	p.keepFrame(f, w, &ff)
}

// countedElsewhere reports whether f is a frame logged as slow (Davey) that the session
// already counts: gfxinfo's rows, or the frame derived from its vsync message, carry it.
func (p *Pipeline) countedElsewhere(f *source.Frame) bool {
	return f.Logged && (p.session.Source.TwoClocks() || p.msgs.paired > 0)
}

// keepFrame keeps what the screen and the exports show of a counted frame itself: the recent
// frames, the worst ones (with their messages) and the history, and hands it to OnFrame.
func (p *Pipeline) keepFrame(f *source.Frame, w *windowState, ff *frameFacts) {
	p.addRecent(recentFrame{window: w.name, vsync: f.VsyncNs, cost: ff.cost, interval: ff.interval,
		dropped: ff.dropped, level: ff.level, phases: f.Phases, uiDone: f.UIDoneNs, doneNs: f.DoneNs})
	if !f.History {
		// Worst frames are for finding the message behind a stutter: a frame drawn before
		// the session started has none to find (logcat and the clock start with the session).
		p.considerWorst(w.name, f, ff.cost, ff.dropped)
		p.hist.add(FrameMark{Window: w.name, VsyncNs: f.VsyncNs, CostNs: ff.cost, Dropped: ff.dropped,
			Level: ff.level, BudgetNs: ff.budget, Detail: frameDetail(f, ff.dropped)})
	}
	if p.onFrame != nil {
		p.onFrame(ClassifiedFrame{Frame: *f, IntervalNs: ff.interval, CostNs: ff.cost, Dropped: ff.dropped, Level: ff.level})
	}
}

// recentFrame is a frame kept for the screen's frame-time graph.
type recentFrame struct {
	window         string
	vsync          int64
	cost, interval int64
	dropped        int64
	level          Level
	phases         *source.Phases
	uiDone, doneNs int64
}

// addRecent puts a frame in the recent-frames ring, over the oldest one when it is full.
func (p *Pipeline) addRecent(rf recentFrame) {
	p.recent[p.rhead] = rf
	p.rhead = (p.rhead + 1) % len(p.recent)
	p.rlen = min(p.rlen+1, len(p.recent))
}
