package metrics

import (
	"strings"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// TestPerfettoLogcatMessagesOnTheirFrame: under perfetto+logcat the frames come from the trace
// (FrameTimeline on the monotonic clock, no HandleInputStart) and the Looper messages from
// logcat, stamped on logd's clock 37 ms off: the aligner matches the vsync messages to the
// frames' expected starts, so the slow message lands on the janky frame, beside its sections,
// and not on its neighbours.
func TestPerfettoLogcatMessagesOnTheirFrame(t *testing.T) {
	const T, off = int64(16_666_667), int64(37_250_000)
	p := NewPipeline(Config{SlowMs: 16})
	p.Add(&source.Session{Source: source.KindPerfettoLogcat, CostBasis: source.CostFrame, RefreshHz: 60})
	vsyncMsg := func(v int64) *source.Message {
		return &source.Message{Pid: 7, Tid: 7, Handler: "android.view.Choreographer$FrameHandler",
			Callback: "android.view.Choreographer$FrameDisplayEventReceiver@1", StartNs: v + 400_000 + off, EndNs: v + 4_000_000 + off}
	}
	k := int64(0)
	for i := 0; i < 400; i++ {
		k++
		if i%7 == 0 {
			k += int64(2 + i%5) // a few vsyncs idle: run starts tell the grid's offsets apart
		}
		v := 1_000_000_000 + k*T
		p.Add(vsyncMsg(v))
		f := &source.Frame{Window: "w", Process: "com.example", VsyncNs: v, DeadlineNs: v + T, DoneNs: v + 8_000_000,
			VsyncID: k, Timeline: &source.FrameTimeline{Token: k, PresentType: 1, JankType: 1},
			Phases: &source.Phases{GpuCompleted: v + 8_000_000}}
		if i == 300 {
			f.DoneNs, f.Phases.GpuCompleted = v+70_000_000, v+70_000_000
			f.Timeline.PresentType, f.Timeline.JankType = 2, 2 // app deadline missed
			f.Sections = &source.FrameSections{{Name: "inflate", Thread: "main", StartNs: v + 2_000_000, DurNs: 55_000_000}}
			p.Add(&source.Message{Pid: 7, Tid: 7, Handler: "android.os.Handler", Callback: "com.example.Feed$1@1a",
				StartNs: v + 5_000_000 + off, EndNs: v + 65_000_000 + off})
		}
		p.Add(f)
	}
	r := p.Report(ReportMeta{SourceArg: "perfetto"})
	if r.Source != "perfetto+logcat" {
		t.Errorf("source %q: --source perfetto that took on logcat is named perfetto+logcat", r.Source)
	}
	if len(r.WorstFrames) == 0 {
		t.Fatal("no worst frames")
	}
	w := r.WorstFrames[0]
	if w.Dropped == 0 {
		t.Errorf("worst frame %+v: want the janky one", w)
	}
	if len(w.Sections) != 1 || w.Sections[0].Name != "inflate" {
		t.Errorf("worst frame's sections %+v, want inflate", w.Sections)
	}
	var named bool
	for _, m := range w.Messages {
		if strings.HasPrefix(m.Callback, "com.example.Feed$1@") {
			named = true
		}
	}
	if !named {
		t.Errorf("worst frame's messages %+v: want com.example.Feed$1 (the clock offset not applied?)", w.Messages)
	}
	for _, o := range r.WorstFrames[1:] {
		for _, m := range o.Messages {
			if strings.HasPrefix(m.Callback, "com.example.Feed$1@") {
				t.Errorf("the slow message also on a frame at %v ms", o.StartMs)
			}
		}
	}

	if off, ok := p.aligner.Offset(); !ok || off < 36_000_000 || off > 38_500_000 {
		t.Errorf("logcat offset %d ns ok=%v, want about %d", off, ok, 37_250_000)
	}
}
