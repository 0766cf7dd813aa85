package sim

import "github.com/fpstop/fpstop/source"

// doFrame runs Choreographer's frame for the vsync message m starting at s: the late-start
// correction, input and animation, then for each window to draw its main-thread part
// (traversal, draw, sync) and its RenderThread and GPU stages, which run on while the main
// thread goes on (pipeline.go).
func (e *engine) doFrame(m *qmsg, s int64) {
	r, p, T := e.rng, e.prof, e.T
	tf := float64(T)
	intended := m.when
	startNanos := s + uniform(r, 2*us, 8*us)
	frameTime, skippedEv := e.lateStart(intended, startNanos)
	draw, touching, animating := e.windowsToDraw(intended)
	his := startNanos + uniform(r, 2*us, 5*us)
	inputDur := uniform(r, 1*us, 3*us)
	if touching {
		inputDur = int64(tf * 0.03 * p.fixedWork() * noise(r, p.sigma))
	}
	as := his + inputDur
	animDur := uniform(r, 1*us, 3*us)
	if animating {
		animDur = int64(tf * 0.04 * p.fixedWork() * noise(r, p.sigma))
	}
	cur := as + animDur
	frames := make([]*source.Frame, 0, len(draw))
	for _, w := range draw {
		var f *source.Frame
		f, cur = e.drawWindow(w, cur, intended)
		f.VsyncID = e.vsyncIDBase + (intended-e.t0)/T
		if frameTime != intended {
			f.StartVsyncNs = frameTime
		}
		f.Phases.Vsync = frameTime
		f.Phases.FrameStartTime = startNanos
		f.Phases.HandleInputStart = his
		f.Phases.AnimationStart = as
		frames = append(frames, f)
	}
	end := cur + uniform(r, 15*us, 50*us)
	e.mainFree = end
	if skippedEv != nil {
		// sent with its vsync message, so a logcat rendered batch by batch stays in order
		e.emit(end, skippedEv)
	}
	e.emit(end, &source.Message{Pid: e.pid, Tid: e.pid, Thread: "main", Handler: m.handler,
		Callback: m.callback, What: 0, StartNs: s, EndNs: end})
	e.finishFrames(draw, frames, end)
}

// lateStart applies Choreographer's jitter correction: a doFrame starting one interval or more
// after its vsync snaps its frame time (the row's Vsync) to the last tick at or before the
// start, while IntendedVsync keeps the original tick; 30 or more intervals late it logs
// "Skipped N frames!".
func (e *engine) lateStart(intended, startNanos int64) (frameTime int64, skipped *source.Skipped) {
	T := e.T
	frameTime = intended
	if jitter := startNanos - intended; jitter >= T {
		n := jitter / T
		frameTime = startNanos - jitter%T
		if n >= skipWarningFrames {
			skipped = &source.Skipped{AtNs: startNanos, Pid: e.pid, Frames: int(n)}
		}
	}
	return frameTime, skipped
}

// windowsToDraw returns the windows this frame draws and whether any is touched or animating.
// A window draws when it needed the frame at the request (an animation that ended while the
// vsync message waited still draws its last frame) or was invalidated since.
func (e *engine) windowsToDraw(intended int64) (draw []*window, touching, animating bool) {
	for _, w := range e.wins {
		if !w.attached || !(w.pending || w.dirty) {
			continue
		}
		w.pending = false
		draw = append(draw, w)
		if w.touchUntil > intended {
			touching = true
		}
		if w.animUntil > intended {
			animating = true
		}
	}
	return draw, touching, animating
}

// drawWindow runs window w's part of the frame on the main thread from cur (traversal, draw,
// the sync with the RenderThread, which waits until the RenderThread has swapped the previous
// frame: the back-pressure of a slow RenderThread or a full buffer queue), then its
// RenderThread and GPU stages. It returns the frame (start fields not set) and the time the
// main thread resumes.
func (e *engine) drawWindow(w *window, cur, intended int64) (*source.Frame, int64) {
	r, p := e.rng, e.prof
	tf := float64(e.T)
	pts := cur
	trav := int64(tf * p.trav * w.weight * noise(r, p.sigma))
	if w.spikes && p.spikeP > 0 && r.Float64() < p.spikeP {
		trav += int64(tf * (p.spikeLo + r.Float64()*(p.spikeHi-p.spikeLo)))
	}
	ds := pts + trav
	sq := ds + int64(tf*p.draw*w.weight*noise(r, p.sigma))
	ss := max(sq+uniform(r, 5*us, 40*us), e.rtFree)
	idc := ss + int64(tf*0.025*p.fixedWork()*noise(r, p.sigma)) + 20*us
	resume := idc + uniform(r, 10*us, 60*us) // main thread resumes after the sync
	var flags int64
	if w.first {
		flags = source.FlagWindowLayoutChanged
		w.first = false
	}
	w.dirty = false
	f := &source.Frame{
		Window:     w.title,
		Process:    e.pkg,
		VsyncNs:    intended,
		IntervalNs: e.T,
		Flags:      flags,
		Phases: &source.Phases{
			PerformTraversalsStart: pts,
			DrawStart:              ds,
			SyncQueued:             sq,
			SyncStart:              ss,
			IssueDrawCommandsStart: idc,
		},
	}
	w.pipe.warmUp(intended, e.T)
	e.render(w, f)
	return f, resume
}

// finishFrames completes the frames of one doFrame that ended at end: completion times,
// presentation and hwui's JankTracker (pipeline.go), then emits each at its completion.
func (e *engine) finishFrames(draw []*window, frames []*source.Frame, end int64) {
	var prev int64
	for i, f := range frames {
		ph := f.Phases
		if len(frames) > 1 && ph.GpuCompleted <= end {
			// several windows in one doFrame: the GPU composes their buffers after the last
			// window synced, so that DoneNs ≥ UIDoneNs holds for every frame (in order: the
			// GPU is one stage)
			ph.GpuCompleted = max(end+uniform(e.rng, 100*us, 600*us), prev+50*us)
			e.gpuFree = max(e.gpuFree, ph.GpuCompleted)
		}
		prev = ph.GpuCompleted
		ph.FrameCompleted = ph.GpuCompleted
		f.DoneNs = ph.FrameCompleted
		f.UIDoneNs = end
		e.present(draw[i], f)
		e.jankTracker(draw[i], f)
		e.emit(f.DoneNs, f)
	}
}
