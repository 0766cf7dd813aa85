package sim

import "github.com/fpstop/fpstop/source"

// The Android 12+ rendering pipeline after the main thread (see model.go for the main thread):
//
//   - the RenderThread is one stage: it syncs a frame only after it has swapped the previous one
//     (SwapBuffersCompleted), so a slow RenderThread holds the main thread in the next sync;
//   - a window's surface has three buffers: frame n reuses frame n−3's buffer, which is free
//     once SurfaceFlinger latched frame n−2 (which replaced it on screen); a frame finding no
//     free buffer waits in dequeueBuffer (inside the RenderThread stage, so the wait
//     back-pressures the main thread through the sync too);
//   - the GPU is one stage: a frame's GPU work starts after its swap and after the previous
//     frame's GPU work, and the frame is complete when it ends (GpuCompleted = FrameCompleted,
//     after SwapBuffersCompleted, as on the real captures);
//   - SurfaceFlinger presents at most one frame of a window per vsync: a frame is shown on the
//     first tick at least latchMarginNs after its GPU work ends, and never before one period
//     after the window's previous frame (a queue that already holds a frame is "stuffed": every
//     later frame is shown one refresh later, until the app skips a vsync). DisplayPresentTime
//     is printed a little before the tick, as the real captures show (≈ IntendedVsync + 3
//     periods in a steady 120 Hz scroll);
//   - Choreographer prints FrameDeadline = the vsync the frame started on + a base (BaseDeadlineNs),
//     and hwui's JankTracker (libs/hwui/JankTracker.cpp, finishFrame) extends it when the
//     pipeline is stuffed and writes the extension back into the row (jankTracker below).

// latchMarginNs is how long before a vsync a buffer must be ready for SurfaceFlinger to latch it.
const latchMarginNs = 500 * us

// BaseDeadlineNs is the FrameDeadline − Vsync that Choreographer prints for a frame of period t
// before hwui's stuffing extension: one period at 120 Hz and above, as the real 120 Hz captures
// print it (8.33 ms), and 1.2 periods below, which is the 20.0 ms the real 60 Hz captures print
// (16.67 ms + 3.33 ms). 90 Hz (13.3 ms) and 144 Hz (6.94 ms) follow the same two rules; no capture
// at those rates was available to check them.
func BaseDeadlineNs(t int64) int64 {
	if 1e9/float64(t) >= 110 {
		return t
	}
	return t + t/5
}

// pipeState is one window's surface as the model sees it.
type pipeState struct {
	present [2]int64 // present ticks of the window's last two frames, newest first (0: none)
	latch   [2]int64 // when SurfaceFlinger latched them, newest first
	// nextUnstuffed is JankTracker's mNextFrameStartUnstuffed (0: never set).
	nextUnstuffed int64
	// warm says the window was drawing on every vsync before the run began, its queue one
	// frame ahead (stuffed): the first frame the run sees finds the pipeline in that state.
	warm bool
}

// warmUp puts a warm window's pipeline in the state a steady stuffed scroll leaves it in just
// before the frame of vsync iv: the previous frame was shown at iv + 2 periods and JankTracker
// expects the next unstuffed start one period after iv.
func (p *pipeState) warmUp(iv, t int64) {
	if !p.warm {
		return
	}
	p.warm = false
	p.present = [2]int64{iv + 2*t, iv + t}
	p.latch = [2]int64{iv + t, iv}
	p.nextUnstuffed = iv + t
}

// render runs the frame's RenderThread stage (from IssueDrawCommandsStart) and its GPU stage.
func (e *engine) render(w *window, f *source.Frame) {
	r, p := e.rng, e.prof
	tf := float64(e.T)
	ph := f.Phases
	sb := ph.IssueDrawCommandsStart + int64(tf*p.issue*w.weight*noise(r, p.sigma))
	deq := uniform(r, 8*us, 45*us)
	if p.stuffP > 0 && r.Float64() < p.stuffP {
		deq += int64(tf * (0.3 + r.Float64()))
	}
	// the buffer of the frame before last's predecessor comes back when SurfaceFlinger
	// latched the frame before last
	if free := w.pipe.latch[1]; free > sb+deq {
		deq = free - sb
	}
	que := uniform(r, 120*us, 380*us)
	sbc := sb + deq + que + uniform(r, 30*us, 120*us)
	e.rtFree = sbc
	gpu := max(sb, e.gpuFree) + int64(tf*p.gpu*w.weight*noise(r, p.sigma))
	gpu = max(gpu, sbc+uniform(r, 50*us, 400*us))
	e.gpuFree = gpu
	ph.SwapBuffers = sb
	ph.CommandSubmissionCompleted = sb
	ph.DequeueBufferDuration = deq
	ph.QueueBufferDuration = que
	ph.SwapBuffersCompleted = sbc
	ph.GpuCompleted = gpu
}

// present decides when SurfaceFlinger shows the complete frame f of window w.
func (e *engine) present(w *window, f *source.Frame) {
	T := e.T
	ready := f.Phases.GpuCompleted + latchMarginNs
	tick := e.t0 + ceilDiv(ready-e.t0, T)*T
	if last := w.pipe.present[0]; last != 0 && tick < last+T {
		tick = last + T
	}
	w.pipe.present = [2]int64{tick, w.pipe.present[0]}
	w.pipe.latch = [2]int64{max(tick-T, ready), w.pipe.latch[0]}
	f.PresentNs = tick - uniform(e.rng, 40*us, 120*us)
	f.Phases.DisplayPresentTime = f.PresentNs
}

// jankTracker sets the FrameDeadline the row prints: Choreographer's (the vsync the frame
// started on + BaseDeadlineNs, with the few µs of disagreement between the vsync event's
// timestamp and SurfaceFlinger's prediction that real rows show), extended by hwui's JankTracker
// as libs/hwui/JankTracker.cpp finishFrame does and writes back: the pipeline is "triple
// buffered" (stuffed) when the next unstuffed start is more than 0.1 periods after the frame's
// IntendedVsync, and then the deadline becomes that start + the frame's workload target
// (deadline − Vsync); a frame that meets its deadline while stuffed moves the next unstuffed
// start one period on, a frame that misses it moves it to the vsync after the frame completed.
// In the pre-12 mode there is no deadline.
func (e *engine) jankTracker(w *window, f *source.Frame) {
	if e.pre12 {
		f.DeadlineNs = 0
		return
	}
	T := e.T
	start := f.VsyncNs
	if f.StartVsyncNs != 0 {
		start = f.StartVsyncNs
	}
	workload := e.baseNs + uniform(e.rng, 0, 30*us)
	deadline := start + workload
	js := &w.pipe
	stuffed := js.nextUnstuffed != 0 && 10*(js.nextUnstuffed-f.VsyncNs) > T
	if stuffed {
		deadline = js.nextUnstuffed + workload
	}
	gpu := f.Phases.GpuCompleted
	switch {
	case gpu >= deadline:
		js.nextUnstuffed = gpu - (gpu-start)%T + T
	case stuffed:
		js.nextUnstuffed += T
	}
	f.DeadlineNs = deadline
}

// ceilDiv is ⌈a/b⌉ for b > 0.
func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return -(-a / b)
	}
	return (a + b - 1) / b
}
