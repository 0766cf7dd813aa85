package simtext

import (
	"bufio"
	"io"
	"sort"
	"strconv"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// TraceOptions says how RenderTrace writes a run as a Perfetto trace.
type TraceOptions struct {
	// Pid is the app's pid (0 = sim.DefaultPid); its RenderThread is Pid+16.
	Pid int
	// Package names the app's process ("" = the frames' process).
	Package string
	// SFJankEvery makes every n-th frame one SurfaceFlinger missed (SF_CPU_DEADLINE_MISSED,
	// presented a refresh late): blame the app is not to take. 0 = none.
	SFJankEvery int
	// BootOffsetNs is BOOTTIME − MONOTONIC on the fake phone (the trace's clock is BOOTTIME;
	// a clock snapshot maps it back).
	BootOffsetNs int64
	// Stuffing marks BUFFER_STUFFING, as SurfaceFlinger does, on a frame that finished after
	// its own vsync's deadline but within the deadline hwui extended because the queue was
	// stuffed (the gfxinfo row's FrameDeadline): late only because earlier frames filled it.
	Stuffing bool
	// SlowWork names the slow part of a long traversal as the app's own trace would (see
	// SlowWorkName), nested in traversal, so a janky frame's slowest section is that work.
	SlowWork bool
}

// TraceFacts is what RenderTrace injected: the frames it wrote and whom each jank blames.
type TraceFacts struct {
	Frames int
	// AppJank counts frames written with APP_DEADLINE_MISSED (their work ended after the
	// deadline), SFJank frames written with SF_CPU_DEADLINE_MISSED, Stuffed frames written with
	// BUFFER_STUFFING (TraceOptions.Stuffing).
	AppJank, SFJank, Stuffed int
}

// Trace field numbers (see source/perfetto for the reader's side).
const (
	tpFtrace, tpProcessTree, tpClock, tpTimestamp, tpFrameTimeline = 1, 2, 6, 8, 76
	ftExpDisplay, ftActDisplay, ftExpSurface, ftActSurface, ftEnd  = 1, 2, 3, 4, 5
	sfPid                                                          = 600
	displayTokenBase                                               = 1 << 40
)

// traceWriter appends a Trace: one length-delimited packet (field 1) at a time.
type traceWriter struct {
	bw  *bufio.Writer
	buf []byte
	err error
}

func (t *traceWriter) packet(p []byte) {
	if t.err != nil {
		return
	}
	t.buf = protowire.AppendTag(t.buf[:0], 1, protowire.BytesType)
	t.buf = protowire.AppendBytes(t.buf, p)
	_, t.err = t.bw.Write(t.buf)
}

func msg(b []byte, num protowire.Number, m []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, m)
}

func vint(b []byte, num protowire.Number, v int64) []byte {
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

func str(b []byte, num protowire.Number, s string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

// RenderTrace writes the simulator's run (its frames and main-thread messages) as the Perfetto
// trace a phone would record of it (Android 12+, FrameTimeline and atrace on): per frame the
// expected and actual surface frame (intended vsync → deadline; the vsync it started on → GPU
// done), a display frame per present, Choreographer#doFrame with traversal/draw inside it on the
// main thread, DrawFrames on the RenderThread, and every other main-thread message as a section
// named as Looper tracing names it. Packets are written frame by frame, not in time order, as
// a phone's buffers are.
func RenderTrace(w io.Writer, evs []source.Event, o TraceOptions) (TraceFacts, error) {
	frames, _ := splitEvents(evs)
	if o.Package == "" && len(frames) > 0 {
		o.Package = frames[0].Process
	}
	ts := NewTraceStream(w, o)
	if err := ts.Write(evs); err != nil {
		return ts.facts, err
	}
	return ts.facts, nil
}

// TraceStream writes a run as a Perfetto trace batch by batch, as a phone's tracing service
// appends to a trace file while the app runs: the clock snapshot and process names first, then
// each batch's packets. Cookies, the frames whose doFrame was written and the last present
// carry from batch to batch, so the batches read as one trace.
type TraceStream struct {
	o           TraceOptions
	tw          *traceWriter
	boot        func(int64) int64
	cookie      int64
	doneDoFrame map[int64]bool
	lastPresent int64
	facts       TraceFacts
	header      bool
	// NoFrameTimeline leaves out the FrameTimeline packets (a tracing service before Android
	// 12 has no such data source); NoSections leaves out the app's atrace sections (the app
	// was not in atrace_apps).
	NoFrameTimeline, NoSections bool
}

// NewTraceStream starts a trace on w; nothing is written until the first Write.
func NewTraceStream(w io.Writer, o TraceOptions) *TraceStream {
	if o.Pid == 0 {
		o.Pid = sim.DefaultPid
	}
	return &TraceStream{o: o, tw: &traceWriter{bw: bufio.NewWriterSize(w, 64<<10)},
		boot: func(mono int64) int64 { return mono + o.BootOffsetNs }, doneDoFrame: map[int64]bool{}}
}

// Write appends the packets of a batch of events (frames in vsync order, messages before the
// frame they preceded) and flushes them to the writer.
func (s *TraceStream) Write(evs []source.Event) error {
	tw, o := s.tw, s.o
	if !s.header {
		s.header = true
		tw.packet(clockPacket(o.BootOffsetNs))
		tw.packet(processTree(o.Pid, o.Package))
	}
	frames, msgs := splitEvents(evs)
	mi := 0
	for _, f := range frames {
		// messages that ran before this frame's doFrame, as main-thread sections
		var prints []print
		for ; mi < len(msgs) && msgs[mi].StartNs < f.VsyncNs; mi++ {
			prints = s.message(prints, msgs[mi])
		}
		tf := FrameFacts(f, o)
		if !s.NoFrameTimeline {
			s.frameTimeline(f, tf)
		}
		if tf.Jank&source.JankAppDeadline != 0 {
			s.facts.AppJank++
		}
		if tf.Jank&source.JankSFCPU != 0 {
			s.facts.SFJank++
		}
		if tf.Jank&source.JankBufferStuffing != 0 {
			s.facts.Stuffed++
		}
		s.facts.Frames++
		if !s.doneDoFrame[tf.Token] && !s.NoSections {
			s.doneDoFrame[tf.Token] = true
			prints = append(prints, tf.prints...)
		}
		if len(prints) > 0 {
			tw.packet(ftraceBundle(prints, s.boot))
		}
	}
	for ; mi < len(msgs); mi++ {
		if p := s.message(nil, msgs[mi]); len(p) > 0 {
			tw.packet(ftraceBundle(p, s.boot))
		}
	}
	if tw.err == nil {
		tw.err = tw.bw.Flush()
	}
	return tw.err
}

func (s *TraceStream) message(p []print, m *source.Message) []print {
	if s.NoSections {
		return p
	}
	return appendSection(p, s.o.Pid, s.o.Pid, m.Handler+": "+msgTraceName(m), m.StartNs, m.EndNs)
}

// frameTimeline writes a frame's expected and actual surface frame and, once per present, the
// display frame it was shown in.
func (s *TraceStream) frameTimeline(f *source.Frame, tf TraceFrame) {
	tw, o, boot := s.tw, s.o, s.boot
	token, dtok := tf.Token, displayTokenBase+tf.Token
	layer := f.Window + "#0"
	s.cookie++
	cookie := s.cookie
	tw.ft(boot(f.VsyncNs), ftExpSurface, func(b []byte) []byte {
		b = vint(b, 1, cookie)
		b = vint(b, 2, token)
		b = vint(b, 3, dtok)
		b = vint(b, 4, int64(o.Pid))
		return str(b, 5, layer)
	})
	tw.ft(boot(f.DeadlineNs), ftEnd, func(b []byte) []byte { return vint(b, 1, cookie) })
	s.cookie++
	cookie = s.cookie
	tw.ft(boot(tf.StartNs), ftActSurface, func(b []byte) []byte {
		b = vint(b, 1, cookie)
		b = vint(b, 2, token)
		b = vint(b, 3, dtok)
		b = vint(b, 4, int64(o.Pid))
		b = str(b, 5, layer)
		b = vint(b, 6, int64(tf.PresentType))
		b = vint(b, 7, b2i(tf.EndNs <= f.DeadlineNs))
		b = vint(b, 9, tf.Jank)
		return vint(b, 10, 1)
	})
	tw.ft(boot(tf.EndNs), ftEnd, func(b []byte) []byte { return vint(b, 1, cookie) })
	if t := f.IntervalNs; f.PresentNs > 0 && t > 0 {
		// SurfaceFlinger's display frame ends on the vsync the frame was shown on (its
		// prediction is on the vsync grid; the present fence a little before it)
		tick := f.VsyncNs + (f.PresentNs-f.VsyncNs+t/2)/t*t
		if tick > s.lastPresent {
			s.lastPresent = tick
			s.cookie += 2
			tw.displayFrame(boot, s.cookie, dtok, tick-t, tick, tf.Jank&^(source.JankAppDeadline|source.JankBufferStuffing))
		}
	}
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// msgTraceName is what Looper tracing calls a message: its callback's class, else #what.
func msgTraceName(m *source.Message) string {
	if m.Callback != "" && m.Callback != "null" {
		return m.Callback
	}
	return "#" + strconv.Itoa(m.What)
}

func splitEvents(evs []source.Event) ([]*source.Frame, []*source.Message) {
	var frames []*source.Frame
	var msgs []*source.Message
	for _, e := range evs {
		switch v := e.(type) {
		case *source.Frame:
			c := *v
			frames = append(frames, &c)
		case *source.Message:
			if !v.IsVsync() && v.EndNs > v.StartNs {
				c := *v
				msgs = append(msgs, &c)
			}
		}
	}
	sort.SliceStable(frames, func(i, j int) bool { return frames[i].VsyncNs < frames[j].VsyncNs })
	sort.SliceStable(msgs, func(i, j int) bool { return msgs[i].StartNs < msgs[j].StartNs })
	return frames, msgs
}

func (t *traceWriter) ft(ts int64, kind protowire.Number, body func([]byte) []byte) {
	ev := msg(nil, kind, body(nil))
	p := vint(nil, tpTimestamp, ts)
	t.packet(msg(p, tpFrameTimeline, ev))
}

// displayFrame writes SurfaceFlinger's expected and actual display frame for one present.
func (t *traceWriter) displayFrame(boot func(int64) int64, cookie, token, from, to, jank int64) {
	if jank == 0 {
		jank = source.JankNone
	}
	t.ft(boot(from), ftExpDisplay, func(b []byte) []byte {
		return vint(vint(vint(b, 1, cookie-1), 2, token), 3, sfPid)
	})
	t.ft(boot(to), ftEnd, func(b []byte) []byte { return vint(b, 1, cookie-1) })
	t.ft(boot(from), ftActDisplay, func(b []byte) []byte {
		b = vint(vint(vint(b, 1, cookie), 2, token), 3, sfPid)
		b = vint(b, 4, 1)
		return vint(b, 7, jank)
	})
	t.ft(boot(to), ftEnd, func(b []byte) []byte { return vint(b, 1, cookie) })
}

func clockPacket(bootOffset int64) []byte {
	const mono = 1_000_000_000
	var snap []byte
	snap = msg(snap, 1, vint(vint(nil, 1, 3), 2, mono))            // MONOTONIC
	snap = msg(snap, 1, vint(vint(nil, 1, 6), 2, mono+bootOffset)) // BOOTTIME
	return msg(nil, tpClock, snap)
}

func processTree(pid int, pkg string) []byte {
	proc := func(pid int, name string) []byte {
		return str(vint(vint(nil, 1, int64(pid)), 2, 1), 3, name)
	}
	thread := func(tid, tgid int, name string) []byte {
		return vint(str(vint(nil, 1, int64(tid)), 2, name), 3, int64(tgid))
	}
	var pt []byte
	pt = msg(pt, 1, proc(pid, pkg))
	pt = msg(pt, 1, proc(sfPid, "/system/bin/surfaceflinger"))
	pt = msg(pt, 2, thread(pid, pid, pkg))
	pt = msg(pt, 2, thread(pid+16, pid, "RenderThread"))
	return msg(nil, tpProcessTree, pt)
}

// print is one atrace line to write: who printed it, when, and the text.
type print struct {
	tid int
	ts  int64
	buf string
}

func appendSection(p []print, pid, tid int, name string, from, to int64) []print {
	if to <= from {
		return p
	}
	return append(p, print{tid, from, "B|" + strconv.Itoa(pid) + "|" + name}, print{tid, to, "E|" + strconv.Itoa(pid)})
}

// frameSections are a frame's main-thread and RenderThread sections: doFrame from the vsync
// it started on to the end of its main-thread part, with traversal and draw inside it, and
// DrawFrames from the sync to the swap.
func frameSections(p []print, pid int, token, start int64, f *source.Frame) []print {
	ph := f.Phases
	start = doFrameStart(start, ph)
	tok := strconv.FormatInt(token, 10)
	uiEnd := f.UIDoneNs
	if ph == nil || uiEnd <= start {
		return appendSection(p, pid, pid, "Choreographer#doFrame "+tok, start, max(uiEnd, start+1))
	}
	p = append(p, print{pid, start, "B|" + strconv.Itoa(pid) + "|Choreographer#doFrame " + tok})
	if ph.PerformTraversalsStart > start && ph.SyncQueued > ph.PerformTraversalsStart && ph.SyncQueued <= uiEnd {
		p = appendSection(p, pid, pid, "traversal", ph.PerformTraversalsStart, ph.SyncQueued)
		if ph.DrawStart > ph.PerformTraversalsStart {
			p = appendSection(p, pid, pid, "draw", ph.DrawStart, ph.SyncQueued)
		}
	}
	p = append(p, print{pid, uiEnd, "E|" + strconv.Itoa(pid)})
	rtEnd := ph.SwapBuffers
	if rtEnd <= ph.SyncStart {
		rtEnd = f.DoneNs
	}
	return appendSection(p, pid, pid+16, "DrawFrames "+tok, ph.SyncStart, rtEnd)
}

// ftraceBundle writes atrace lines as one ftrace bundle (print events).
func ftraceBundle(p []print, boot func(int64) int64) []byte {
	var b []byte
	b = vint(b, 1, 0)
	for _, e := range p {
		pr := str(nil, 2, e.buf+"\n")
		ev := vint(nil, 1, boot(e.ts))
		ev = vint(ev, 2, int64(e.tid))
		ev = msg(ev, 3, pr)
		b = msg(b, 2, ev)
	}
	return msg(nil, tpFtrace, b)
}
