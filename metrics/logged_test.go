package metrics_test

import (
	"testing"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// TestLoggedFramesCountButNotInRates: frames known only from Davey lines (logcat) count in
// frames, jank, drop levels and the worst frames, never in fps (the frames around them were
// not logged); where gfxinfo's rows carry them (gfxinfo+logcat) they are not counted again.
func TestLoggedFramesCountButNotInRates(t *testing.T) {
	davey := func() *source.Frame {
		return &source.Frame{Window: "com.example.app", VsyncNs: 10e9, DoneNs: 10e9 + 800e6, IntervalNs: 16_666_667,
			DeadlineNs: 10e9 + 20e6, Logged: true, Phases: &source.Phases{GpuCompleted: 10e9 + 801e6}}
	}
	p := metrics.NewPipeline(metrics.Config{})
	p.Add(&source.Session{Source: source.KindLogcat, CostBasis: source.CostMainThread})
	p.Add(davey())
	r := p.Report(metrics.ReportMeta{})
	// ⌈(801 − 20) / 16.667⌉ = 47 dropped: FROZEN at 60 Hz (42)
	if r.Frames != 1 || r.JankyFrames != 1 || r.DropLevels.Frozen != 1 || r.FPS != nil || r.FPSWall != nil ||
		len(r.WorstFrames) != 1 || r.WorstFrames[0].Dropped != 47 {
		t.Errorf("logcat: frames %d janky %d levels %+v fps %v fps_wall %v worst %+v", r.Frames, r.JankyFrames,
			r.DropLevels, r.FPS, r.FPSWall, r.WorstFrames)
	}
	p = metrics.NewPipeline(metrics.Config{})
	p.Add(&source.Session{Source: source.KindGfxinfoLogcat})
	p.Add(davey())
	if r := p.Report(metrics.ReportMeta{}); r.Frames != 0 {
		t.Errorf("gfxinfo+logcat: a logged frame counted (%d frames): gfxinfo's rows carry it", r.Frames)
	}
}
