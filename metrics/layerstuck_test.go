package metrics

import (
	"testing"

	"github.com/fpstop/fpstop/source"
)

// A layer's pause is classed by what logcat says of the main thread (DESIGN §4a): a layer
// that draws on demand pausing is idle — unless a main-thread message ran through most of the
// pause, or a dispatch opened before its middle was still open, which makes it a stall (the app
// was stuck); a continuous layer silent over 5 s is "idle or stuck" unless logcat says stuck.
// A short message during the pause, or one on another thread, changes nothing.
func TestLayerPauseStuckFromLogcat(t *testing.T) {
	const name = "SurfaceView[g/g.A]@0(BLAST)#3"
	onDemand := func() []int64 { // bursts of 30 frames at 120 fps, 400 ms apart: not continuous
		var steps []int64
		for b := 0; b < 20; b++ {
			if b > 0 {
				steps = append(steps, 48)
			}
			steps = append(steps, repeat(1, 29)...)
		}
		return steps
	}
	for _, c := range []struct {
		name   string
		steps  []int64
		pause  int64                                  // refreshes
		during func(p *Pipeline, from, to int64) bool // feeds logcat's view of the pause; false: nothing
		want   string
	}{
		{"on demand, nothing said", onDemand(), 120, nil, PauseIdle},
		{"on demand, a 900 ms message", onDemand(), 120, func(p *Pipeline, from, to int64) bool {
			p.Add(&source.Message{Pid: 7, Tid: 7, Thread: "main", Handler: "android.os.Handler", Callback: "g.Load", StartNs: from + 50_000_000, EndNs: from + 950_000_000})
			return true
		}, PauseStall},
		{"on demand, a dispatch still open", onDemand(), 120, func(p *Pipeline, from, to int64) bool {
			p.Add(&source.Dispatch{Pid: 7, Tid: 7, Thread: "main", Handler: "android.os.Handler", Callback: "g.Load", StartNs: from + 100_000_000})
			return true
		}, PauseStall},
		{"on demand, a 100 ms message", onDemand(), 120, func(p *Pipeline, from, to int64) bool {
			p.Add(&source.Message{Pid: 7, Tid: 7, Thread: "main", Handler: "android.os.Handler", Callback: "g.Tap", StartNs: from + 50_000_000, EndNs: from + 150_000_000})
			return true
		}, PauseIdle},
		{"on demand, a long message on another thread", onDemand(), 120, func(p *Pipeline, from, to int64) bool {
			p.Add(&source.Message{Pid: 7, Tid: 9, Thread: "bg", Handler: "android.os.Handler", Callback: "g.Load", StartNs: from + 50_000_000, EndNs: from + 950_000_000})
			return true
		}, PauseIdle},
		{"continuous, 6 s, nothing said", repeat(2, 600), 720, nil, PauseUnknown},
		{"continuous, 6 s, a 5.5 s message", repeat(2, 600), 720, func(p *Pipeline, from, to int64) bool {
			p.Add(&source.Message{Pid: 7, Tid: 7, Thread: "main", Handler: "android.os.Handler", Callback: "g.Load", StartNs: from + 100_000_000, EndNs: from + 5_600_000_000})
			return true
		}, PauseStall},
	} {
		p := NewPipeline(Config{})
		p.Add(&source.Session{Source: source.KindSurfaceFlinger, Layer: name, RefreshHz: 120, Pid: 7})
		at := int64(1_000_000_000_000)
		for _, k := range c.steps {
			at += k * t120
			p.Add(&source.LayerFrame{Layer: name, PresentNs: at, PeriodNs: t120})
		}
		from, to := at, at+c.pause*t120
		if c.during != nil {
			c.during(p, from, to)
		}
		for _, k := range append([]int64{c.pause}, c.steps[:29]...) {
			at += k * t120
			p.Add(&source.LayerFrame{Layer: name, PresentNs: at, PeriodNs: t120})
		}
		l := p.Report(ReportMeta{}).Layers[0]
		if l.PausesTotal != 1 || l.Pauses[0].Class != c.want {
			t.Errorf("%s: pauses %+v, want one %s", c.name, l.Pauses, c.want)
		}
	}
}
