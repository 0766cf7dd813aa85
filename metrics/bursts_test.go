package metrics_test

import (
	"math"
	"testing"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// TestDialogFPSWallOverItsBursts: a 60 Hz dialog draws 240 frames, one a vsync, from 1.5 s into
// the run (3.98 s from its first vsync to its last), while the activity behind it draws one
// frame a second for 7 s; the 1 s slices the dialog touches are five (1–6 s). Its fps_wall is
// frames over its own burst, 240 / (239 × 16.667 + 9 + 16.667 ms) = 59.87, not 240 / 5 = 48.
// A second burst 2 s later (60 frames) adds its own length, not the idle 2 s between.
func TestDialogFPSWallOverItsBursts(t *testing.T) {
	const T = 16_666_667
	p := metrics.NewPipeline(metrics.Config{})
	p.Add(&source.Session{Source: source.KindGfxinfo, RefreshHz: 60})
	base := int64(100e9)
	var evs []source.Event
	for s := int64(0); s < 12; s++ {
		v := base + s*1e9
		evs = append(evs, &source.Frame{Window: "activity", Process: "app", VsyncNs: v, DoneNs: v + 9e6, IntervalNs: T})
	}
	add := func(from int64, n int) {
		for i := 0; i < n; i++ {
			v := from + int64(i)*T
			evs = append(evs, &source.Frame{Window: "dialog", Process: "app", VsyncNs: v, DoneNs: v + 9e6, IntervalNs: T})
		}
	}
	add(base+1_500_000_000, 240)
	p.AddBatch(sortFrames(evs))
	want := 240 / (float64(239*T+9e6+T) / 1e9)
	if got := dialogWall(t, p.Report(metrics.ReportMeta{})); math.Abs(got-60) > 0.5 || math.Abs(got-want) > 0.01 {
		t.Errorf("dialog fps_wall %.2f, want %.2f (60 ± 0.5)", got, want)
	}
	// a second burst, 2 s after the first ended: 60 frames
	p2 := metrics.NewPipeline(metrics.Config{})
	p2.Add(&source.Session{Source: source.KindGfxinfo, RefreshHz: 60})
	add(base+1_500_000_000+240*T+2e9, 60)
	p2.AddBatch(sortFrames(evs))
	want = 300 / (float64(239*T+9e6+T+59*T+9e6+T) / 1e9)
	if got := dialogWall(t, p2.Report(metrics.ReportMeta{})); math.Abs(got-want) > 0.01 {
		t.Errorf("dialog fps_wall over two bursts %.2f, want %.2f", got, want)
	}
}

func dialogWall(t *testing.T, r *metrics.Report) float64 {
	t.Helper()
	for _, w := range r.Windows {
		if w.Name == "dialog" {
			if w.FPSWall == nil {
				t.Fatal("dialog fps_wall null")
			}
			return float64(*w.FPSWall)
		}
	}
	t.Fatal("no dialog window")
	return 0
}

// sortFrames orders frames by intended vsync, as a source delivers them.
func sortFrames(evs []source.Event) []source.Event {
	out := append([]source.Event(nil), evs...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].(*source.Frame).VsyncNs < out[j-1].(*source.Frame).VsyncNs; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
