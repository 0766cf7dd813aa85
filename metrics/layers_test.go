package metrics

import (
	"math"
	"testing"

	"github.com/fpstop/fpstop/source"
)

const t120 = int64(8_333_333) // a 120 Hz display's period as --latency prints it

// layerRun feeds present times (in refreshes after a start) of one layer, the measured one.
func layerRun(t *testing.T, steps []int64) *Pipeline {
	t.Helper()
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindSurfaceFlinger, Layer: "SurfaceView[g/g.A]@0(BLAST)#3", RefreshHz: 120})
	at := int64(1_000_000_000_000)
	for _, k := range steps {
		at += k * t120
		p.Add(&source.LayerFrame{Layer: "SurfaceView[g/g.A]@0(BLAST)#3", PresentNs: at, PeriodNs: t120})
	}
	return p
}

func repeat(k int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = k
	}
	return out
}

// A steady 60 fps game on a 120 Hz display: cadence 2 refreshes, nothing dropped, 60 fps —
// not "50 % janky" as a one-refresh budget would say.
func TestLayerSteady60On120(t *testing.T) {
	p := layerRun(t, repeat(2, 600))
	r := p.Report(ReportMeta{})
	if len(r.Layers) != 1 {
		t.Fatalf("layers %+v", r.Layers)
	}
	l := r.Layers[0]
	if l.CadenceRefreshes != 2 || l.JankyFrames != 0 || l.Frames != 600 || !l.Measured {
		t.Errorf("layer %+v", l)
	}
	// 600 frames / (600 × 2 × 8.333333 ms) = 60.000002 fps
	if math.Abs(float64(*l.FPS)-60) > 0.01 || math.Abs(float64(*r.FPS)-60) > 0.01 {
		t.Errorf("fps layer %v run %v", *l.FPS, *r.FPS)
	}
	if r.Frames != 600 || r.JankyFrames != 0 {
		t.Errorf("run frames %d janky %d: the measured layer's", r.Frames, r.JankyFrames)
	}
	// 10 s of frames: the first slice is partial and the last one still filling, so the
	// whole slices in between are 8, each with 60 frames
	if l.SecondsMeasured != 8 || *l.P90FPS != 60 || *l.P99FPS != 60 || *l.FPSStabilityPct != 100 {
		t.Errorf("seconds %d p90 %v p99 %v stability %v", l.SecondsMeasured, *l.P90FPS, *l.P99FPS, *l.FPSStabilityPct)
	}
	if len(r.Windows) != 0 {
		t.Errorf("layer frames in windows[]: %+v", r.Windows)
	}
}

// Stutter and a loading freeze, hand-computed at cadence 2 (120 Hz; thresholds 6/18/48/84):
//   - 60 frames at 2                         → 0 dropped
//   - 3, 1 (one frame late, the next on its slot) → dropped 1, 0 → 1 janky, NORMAL? no: 1 < 6 → BEST
//   - 4                                      → dropped 2 (BEST)
//   - 300 (a 2.5 s loading freeze, ≤ 5 s)    → dropped 298 ≥ 84 → FROZEN
//   - 60 frames at 2
//   - 720 (a 6 s pause > 5 s: idle)          → the frame after it is a first frame: 0 dropped
//   - 60 frames at 2
//
// janky = 3; frames = 60+2+1+1+60+1+60 = 185; Σ display = (60·2+3+1+4+300+60·2+2+60·2) T
// = 670 T (the frame after idle counts one cadence, 2 T) → fps = 185 / (670 × 8.333333 ms) = 33.13.
func TestLayerStutterFreezeIdle(t *testing.T) {
	steps := append(repeat(2, 60), 3, 1, 4, 300)
	steps = append(steps, repeat(2, 60)...)
	steps = append(steps, 720)
	steps = append(steps, repeat(2, 60)...)
	r := layerRun(t, steps).Report(ReportMeta{})
	l := r.Layers[0]
	if l.Frames != 185 || l.JankyFrames != 3 || l.CadenceRefreshes != 2 {
		t.Fatalf("frames %d janky %d cadence %d, want 185, 3, 2", l.Frames, l.JankyFrames, l.CadenceRefreshes)
	}
	if l.DropLevels.Frozen != 1 || l.DropLevels.Best != 184 {
		t.Errorf("drop levels %+v", l.DropLevels)
	}
	want := 185 / (670 * float64(t120) / 1e9)
	if math.Abs(float64(*l.FPS)-want) > 0.01 {
		t.Errorf("fps %v, want %.2f", *l.FPS, want)
	}
	// PerfDog: the 2.5 s frame is > 2× the mean of the previous three and > 125 ms
	if l.PerfDog.BigJank != 1 || l.PerfDog.Jank != 1 {
		t.Errorf("perfdog %+v", l.PerfDog)
	}
}

// The per-second FPS percentiles and GameBench stability on slices of known counts.
func TestLayerSecondsP90Stability(t *testing.T) {
	l := newLayerState("x", 10)
	// ten whole slices: 60 ×7, 50, 40, 0
	for _, v := range []int64{60, 60, 60, 60, 60, 60, 60, 50, 40, 0} {
		l.perSec[v]++
		l.nSec++
	}
	// 90 % of 10 slices = 9 reach ≥ 40; 99 % → 10 slices reach ≥ 0
	if got := l.pFPS(0.9); got != 40 {
		t.Errorf("p90 %v, want 40", got)
	}
	if got := l.pFPS(0.99); got != 0 {
		t.Errorf("p99 %v, want 0", got)
	}
	// median 60; within ±20 % (48–72): the seven 60s and the 50 → 80 %
	if got := l.stabilityPct(); got != 80 {
		t.Errorf("stability %v, want 80", got)
	}
}

// A freeze's empty seconds count as 0 fps slices; an idle pause's do not.
func TestLayerSecondsFrozenVsIdle(t *testing.T) {
	steps := append(repeat(2, 240), 360) // 4 s at 60 fps, then a 3 s freeze
	steps = append(steps, repeat(2, 240)...)
	l := layerRun(t, steps).Report(ReportMeta{}).Layers[0]
	frozenZero := l.SecondsMeasured
	steps = append(repeat(2, 240), 840) // a 7 s pause: idle
	steps = append(steps, repeat(2, 240)...)
	l2 := layerRun(t, steps).Report(ReportMeta{}).Layers[0]
	if *l.P99FPS != 0 || *l2.P99FPS == 0 {
		t.Errorf("p99 frozen %v (want 0), idle %v (want > 0)", *l.P99FPS, *l2.P99FPS)
	}
	if frozenZero <= l2.SecondsMeasured {
		t.Errorf("freeze seconds %d not counted beyond idle's %d", frozenZero, l2.SecondsMeasured)
	}
}

// Timestats samples: the histogram's frames spread over the interval give its fps.
func TestLayerSampleFPS(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindSurfaceFlinger, Layer: "L", RefreshHz: 120})
	from := int64(5e12)
	for i := 0; i < 10; i++ {
		p.Add(&source.LayerSample{Layer: "L", FromNs: from, ToNs: from + 1e9, Frames: 60, PeriodNs: t120,
			Present2Present: []source.Bucket{{Ms: 16, Count: 60}}})
		from += 1e9
	}
	r := p.Report(ReportMeta{})
	l := r.Layers[0]
	if !l.PerInterval || l.Frames != 600 || l.JankyFrames != 0 || math.Abs(float64(*l.FPS)-60) > 0.5 {
		t.Errorf("layer %+v fps %v", l, *l.FPS)
	}
}
