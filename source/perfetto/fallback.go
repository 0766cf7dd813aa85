package perfetto

import "github.com/fpstop/fpstop/source"

// fallback makes frames from atrace alone, for a trace without FrameTimeline (Android 11 and
// older, or the data source off): each Choreographer#doFrame <token> on an app's main thread
// is a frame from its start (the vsync it ran on; the intended one is unknown) to the end of
// the RenderThread's DrawFrames <token> (the main thread's end when there is none). No
// deadline, no present, no blame: the end-of-input notice says so.
type fallback struct {
	first    int64
	started  bool
	decided  bool // no FrameTimeline after decideNs of trace time: atrace frames are the frames
	queue    []*Slice
	frames   int
	mainOnly int
}

// decideNs: FrameTimeline packets arrive from the first frames of a session; a trace without
// one by then has none.
const decideNs = 2_000_000_000

func (j *joiner) fallbackSection(s *Slice) {
	fb := &j.fb
	if !fb.started {
		fb.first, fb.started = s.StartNs, true
	}
	if _, ok := FrameToken(s.Name, "Choreographer#doFrame "); !ok || !j.wanted(s.Pid, "") {
		return
	}
	if len(fb.queue) < 1<<16 {
		fb.queue = append(fb.queue, s)
	}
}

// fallbackAdvance releases atrace frames once the trace has shown it has no FrameTimeline.
func (j *joiner) fallbackAdvance(final bool) {
	fb := &j.fb
	if j.p.SawFrameTimeline {
		fb.queue = nil
		return
	}
	if !fb.decided && (final || (fb.started && j.now-fb.first > decideNs)) {
		fb.decided = true
	}
	if !fb.decided {
		return
	}
	n := 0
	for n < len(fb.queue) && (final || fb.queue[n].EndNs+releaseDelayNs <= j.now) {
		j.fallbackFrame(fb.queue[n])
		fb.queue[n] = nil
		n++
	}
	fb.queue = fb.queue[n:]
}

func (j *joiner) fallbackFrame(d *Slice) {
	token, _ := FrameToken(d.Name, "Choreographer#doFrame ")
	f := &source.Frame{Window: j.p.ProcessName(d.Pid), Process: j.p.ProcessName(d.Pid),
		VsyncNs: j.p.ToMono(d.StartNs), UIDoneNs: j.p.ToMono(d.EndNs), VsyncID: token}
	end := d.EndNs
	if r := j.sections[d.Pid]; r != nil {
		for _, s := range r.since(d.StartNs) {
			if t, ok := FrameToken(s.Name, "DrawFrames "); ok && t == token && s.EndNs > end {
				end = s.EndNs
				f.DoneNs = j.p.ToMono(end)
			}
		}
	}
	if f.DoneNs == 0 {
		j.fb.mainOnly++
	}
	j.interval(f)
	j.nameSession(d.Pid)
	j.apps[d.Pid] = true
	f.Sections = j.frameSections(d.Pid, token, d.StartNs, end)
	j.fb.frames++
	j.emit(f)
}
