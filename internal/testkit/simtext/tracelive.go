package simtext

import (
	"strconv"
	"strings"

	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// TraceFrame is what a trace says of one frame (FrameFacts): its FrameTimeline facts and the
// sections written for it. The fake phone keeps it as its truth.
type TraceFrame struct {
	Window string `json:"window"`
	// Token is the frame's vsync id (FrameTimeline token, gfxinfo FrameTimelineVsyncId).
	Token   int64 `json:"token"`
	VsyncNs int64 `json:"vsync_ns"`
	// StartNs and EndNs bound the actual surface frame (the vsync it started on → GPU done);
	// DeadlineNs ends the expected one.
	StartNs    int64 `json:"start_ns"`
	EndNs      int64 `json:"end_ns"`
	DeadlineNs int64 `json:"deadline_ns"`
	// Jank is the actual surface frame's jank_type bits; PresentType 1 on time, 2 late.
	Jank        int64 `json:"jank"`
	PresentType int32 `json:"present_type"`
	// SlowWork names the slow work written into the frame (TraceOptions.SlowWork), "" none.
	SlowWork string `json:"slow_work,omitempty"`
	// Slowest is the frame's longest section other than the wrappers every frame has
	// (Choreographer#doFrame, traversal, DrawFrames), with its length; "" when it has none.
	Slowest   string `json:"slowest,omitempty"`
	SlowestNs int64  `json:"slowest_ns,omitempty"`

	prints []print
}

// SlowWorkName is what the app's trace calls the slow part of frame token's traversal:
// RecyclerView's layout pass ("RV OnLayout") or a view inflation ("inflate"), by turns.
func SlowWorkName(token int64) string {
	if token%2 == 0 {
		return "RV OnLayout"
	}
	return "inflate"
}

// FrameFacts decides what a trace records of frame f: APP_DEADLINE_MISSED (late) when its work
// ended after its deadline; with o.Stuffing, BUFFER_STUFFING (late) when it ended after its own
// vsync's deadline only within hwui's extension; SF_CPU_DEADLINE_MISSED (late) on every
// o.SFJankEvery-th token; and the sections of its doFrame and DrawFrames. It depends on the
// frame alone, so overlapping sessions of one phone agree.
func FrameFacts(f *source.Frame, o TraceOptions) TraceFrame {
	if o.Pid == 0 {
		o.Pid = sim.DefaultPid
	}
	start := f.VsyncNs
	if f.Phases != nil && f.Phases.Vsync > 0 {
		start = f.Phases.Vsync
	}
	if f.StartVsyncNs > 0 {
		start = f.StartVsyncNs
	}
	tf := TraceFrame{Window: f.Window, Token: f.VsyncID, VsyncNs: f.VsyncNs, StartNs: start, EndNs: f.DoneNs,
		DeadlineNs: f.DeadlineNs, Jank: source.JankNone, PresentType: 1}
	T := f.IntervalNs
	switch {
	case f.DeadlineNs > 0 && tf.EndNs > f.DeadlineNs:
		tf.Jank, tf.PresentType = source.JankAppDeadline, 2
	case o.Stuffing && T > 0 && f.DeadlineNs > start+sim.BaseDeadlineNs(T)+100_000 && tf.EndNs > start+sim.BaseDeadlineNs(T):
		tf.Jank, tf.PresentType = source.JankBufferStuffing, 2
	}
	if o.SFJankEvery > 0 && tf.Token%int64(o.SFJankEvery) == 0 {
		tf.Jank = tf.Jank&^source.JankNone | source.JankSFCPU
		tf.PresentType = 2
	}
	if o.SlowWork {
		tf.prints, tf.SlowWork = liveSections(nil, o.Pid, tf.Token, start, f)
	} else {
		tf.prints = frameSections(nil, o.Pid, tf.Token, start, f)
	}
	tf.Slowest, tf.SlowestNs = slowestOwn(tf.prints)
	return tf
}

// liveSections are frameSections with the slow part of a long traversal named: when the
// layout part (traversal start → draw start) is longer than half a period and than draw, a
// SlowWorkName section covers nine tenths of it, nested in traversal (so it is the frame's
// slowest section besides its wrappers). Sections are written nested and in
// time order.
func liveSections(p []print, pid int, token, start int64, f *source.Frame) ([]print, string) {
	ph := f.Phases
	if ph == nil || f.UIDoneNs <= start || !(ph.PerformTraversalsStart > start && ph.DrawStart >= ph.PerformTraversalsStart &&
		ph.SyncQueued >= ph.DrawStart && ph.SyncQueued <= f.UIDoneNs) {
		return frameSections(p, pid, token, start, f), ""
	}
	start = doFrameStart(start, ph)
	tok := strconv.FormatInt(token, 10)
	end := "E|" + strconv.Itoa(pid)
	begin := func(name string) string { return "B|" + strconv.Itoa(pid) + "|" + name }
	p = append(p, print{pid, start, begin("Choreographer#doFrame " + tok)}, print{pid, ph.PerformTraversalsStart, begin("traversal")})
	slow := ""
	if layout := ph.DrawStart - ph.PerformTraversalsStart; f.IntervalNs > 0 && 2*layout > f.IntervalNs && 9*layout/10 > ph.SyncQueued-ph.DrawStart {
		slow = SlowWorkName(token)
		p = append(p, print{pid, ph.PerformTraversalsStart + layout/20, begin(slow)}, print{pid, ph.DrawStart - layout/20, end})
	}
	if ph.SyncQueued > ph.DrawStart {
		p = append(p, print{pid, ph.DrawStart, begin("draw")}, print{pid, ph.SyncQueued, end})
	}
	p = append(p, print{pid, ph.SyncQueued, end}, print{pid, f.UIDoneNs, end})
	rtEnd := ph.SwapBuffers
	if rtEnd <= ph.SyncStart {
		rtEnd = f.DoneNs
	}
	return appendSection(p, pid, pid+16, "DrawFrames "+tok, ph.SyncStart, rtEnd), slow
}

// slowestOwn finds the longest section in p (B/E pairs per thread) other than the frame's
// wrappers.
func slowestOwn(p []print) (string, int64) {
	type open struct {
		name string
		at   int64
	}
	stacks := map[int][]open{}
	best, bestNs := "", int64(0)
	for _, e := range p {
		switch {
		case len(e.buf) > 2 && e.buf[0] == 'B':
			name := e.buf[2:]
			if i := strings.IndexByte(name, '|'); i >= 0 {
				name = name[i+1:]
			}
			stacks[e.tid] = append(stacks[e.tid], open{name, e.ts})
		case len(e.buf) > 0 && e.buf[0] == 'E':
			st := stacks[e.tid]
			if len(st) == 0 {
				continue
			}
			o := st[len(st)-1]
			stacks[e.tid] = st[:len(st)-1]
			if wrapper(o.name) {
				continue
			}
			if d := e.ts - o.at; d > bestNs {
				best, bestNs = o.name, d
			}
		}
	}
	return best, bestNs
}

func wrapper(name string) bool {
	return name == "traversal" || strings.HasPrefix(name, "Choreographer#doFrame ") || strings.HasPrefix(name, "DrawFrames ")
}

// doFrameStart is when Choreographer#doFrame began: when its vsync message ran, which is after
// the frame's vsync when the main thread was busy (the section must not overlap the message
// that held it up).
func doFrameStart(start int64, ph *source.Phases) int64 {
	if ph != nil && ph.FrameStartTime > start {
		return ph.FrameStartTime
	}
	return start
}
