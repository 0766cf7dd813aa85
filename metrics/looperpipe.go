package metrics

import "math"

// The pipeline's side of Looper-derived frames (LooperFrames, cost basis main_thread).

// setupLooper starts deriving frames from Looper messages, with the device's refresh interval
// when known and the session's package as the app's window name.
func (p *Pipeline) setupLooper() {
	if p.looper != nil {
		return
	}
	var t int64
	if p.refreshHz > 0 {
		t = int64(math.Round(1e9 / p.refreshHz))
	}
	p.looper = NewLooperFrames(t)
	if p.session.Package != "" && p.session.Pid > 0 {
		p.looper.SetProcessName(p.session.Pid, p.session.Package)
	}
}

// addLooperFrames counts frames LooperFrames released, each with the drops it worked out (they
// depend on when the next frame started, which only it knows).
func (p *Pipeline) addLooperFrames(lfs []LooperFrame) {
	for i := range lfs {
		p.addFrame(&lfs[i].Frame, lfs[i].Dropped)
	}
}

// flushLooper releases Looper-derived frames still held back (the vsync grid being learned, or
// a long frame waiting for its next frame) at the end of the input.
func (p *Pipeline) flushLooper() {
	if p.looper != nil {
		p.addLooperFrames(p.looper.Flush())
	}
}
