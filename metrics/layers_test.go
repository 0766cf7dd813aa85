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
	// per frame: every judged frame 16.67 ms (two periods, kept to 10 µs) → 59.99
	if l.SecondsMeasured != 8 || !nearR2(*l.FPSP90, 1000/16.67) || !nearR2(*l.FPSP99, 1000/16.67) || *l.FPSStabilityPct != 100 {
		t.Errorf("seconds %d p90 %v p99 %v stability %v", l.SecondsMeasured, *l.FPSP90, *l.FPSP99, *l.FPSStabilityPct)
	}
	if len(r.Windows) != 0 {
		t.Errorf("layer frames in windows[]: %+v", r.Windows)
	}
}

// Stutter, a loading freeze and a long pause of a continuous 60 fps layer on 120 Hz, hand-
// computed at cadence 2 (T_pace 16.67 ms; thresholds at the pace 60: 3/9/24/42):
//   - 120 frames at 2 (2 s: continuous)   → 0 dropped
//   - 3, 1                                → round(1.5) − 1 = 1, round(0.5)=1 → 0: 1 janky (BEST)
//   - 4                                   → round(2) − 1 = 1 (BEST)
//   - 300 (a 2.5 s freeze: a stall)       → round(150) − 1 = 149 ≥ 42 → FROZEN
//   - 120 frames at 2
//   - 720 (6 s > 5 s: idle or stuck)      → counted, not judged (one pace, on time)
//   - 120 frames at 2
//
// janky 3; frames 120+2+1+1+120+1+120 = 365; Σ display = (240+3+1+4+300+240+2+240) T = 1030 T
// → fps = 365 / (1030 × 8.333333 ms) = 42.52; pauses: the stall and the 6 s one.
func TestLayerStutterFreezeIdle(t *testing.T) {
	steps := append(repeat(2, 120), 3, 1, 4, 300)
	steps = append(steps, repeat(2, 120)...)
	steps = append(steps, 720)
	steps = append(steps, repeat(2, 120)...)
	r := layerRun(t, steps).Report(ReportMeta{})
	l := r.Layers[0]
	if l.Frames != 365 || l.JankyFrames != 3 || l.CadenceRefreshes != 2 {
		t.Fatalf("frames %d janky %d cadence %d, want 365, 3, 2", l.Frames, l.JankyFrames, l.CadenceRefreshes)
	}
	if l.DropLevels.Frozen != 1 || l.DropLevels.Best != 364 {
		t.Errorf("drop levels %+v", l.DropLevels)
	}
	want := 365 / (1030 * float64(t120) / 1e9)
	if math.Abs(float64(*l.FPS)-want) > 0.01 {
		t.Errorf("fps %v, want %.2f", *l.FPS, want)
	}
	// PerfDog: the 2.5 s frame is > 2× the mean of the previous three and > 125 ms
	if l.PerfDog.BigJank != 1 || l.PerfDog.Jank != 1 {
		t.Errorf("perfdog %+v", l.PerfDog)
	}
	if l.PausesTotal != 2 || len(l.Pauses) != 2 || l.Pauses[0].Class != PauseStall || l.Pauses[1].Class != PauseUnknown ||
		math.Abs(l.Pauses[0].LengthMs-2500) > 0.01 || math.Abs(l.Pauses[1].LengthMs-6000) > 0.01 {
		t.Errorf("pauses %d %+v", l.PausesTotal, l.Pauses)
	}
}

// A layer that draws on demand (bursts of 30 frames at 120 fps, 400 ms apart: presents on
// 30 of every 78 slots, 38 %) is not continuous: its 1 s pause is idle — the frame after it is
// counted, not judged, and nothing is frozen — while a 400 ms gap, under 700 ms, is judged
// (round(48) − 1 = 47 frames at the pace: MIDDLE, thresholds at 120: 6/18/48/84).
func TestLayerOnDemandIdle(t *testing.T) {
	var steps []int64
	for b := 0; b < 20; b++ {
		if b > 0 {
			steps = append(steps, 48)
		}
		steps = append(steps, repeat(1, 29)...)
	}
	steps = append(steps, 120) // 1 s
	steps = append(steps, repeat(1, 29)...)
	r := layerRun(t, steps).Report(ReportMeta{})
	l := r.Layers[0]
	if l.DropLevels.Frozen != 0 || l.DropLevels.Middle != 19 || l.JankyFrames != 19 {
		t.Errorf("drop levels %+v janky %d, want 19 MIDDLE, none frozen", l.DropLevels, l.JankyFrames)
	}
	if l.PausesTotal != 1 || l.Pauses[0].Class != PauseIdle {
		t.Errorf("pauses %+v", l.Pauses)
	}
}

// Frames lost between polls (a gap) are frames_lost, never dropped: the frame after the gap is
// counted and not judged, so a smooth layer stays smooth.
func TestLayerGapNotJudged(t *testing.T) {
	p := NewPipeline(Config{})
	name := "SurfaceView[g/g.A]@0(BLAST)#3"
	p.Add(&source.Session{Source: source.KindSurfaceFlinger, Layer: name, RefreshHz: 120})
	at := int64(1_000_000_000_000)
	for i := 0; i < 600; i++ {
		if i%200 == 100 { // 40 frames overwritten before this poll saw the ring
			p.Add(&source.Gap{FromNs: at, ToNs: at + 41*t120, Layer: name, Lost: 40, Reason: "ring overran"})
			p.Add(&source.LayerPoll{AtNs: at + 41*t120, Layer: name, Records: 127, NewRecords: 127, Lost: 40})
			at += 40 * t120
		}
		at += t120
		p.Add(&source.LayerFrame{Layer: name, PresentNs: at, PeriodNs: t120})
	}
	r := p.Report(ReportMeta{})
	l := r.Layers[0]
	if l.JankyFrames != 0 || l.DropLevels.Frozen != 0 || l.Frames != 600 || l.FramesLost != 120 ||
		r.FramesLost == nil || *r.FramesLost != 120 {
		t.Errorf("janky %d frozen %d frames %d lost %d (run %v)", l.JankyFrames, l.DropLevels.Frozen, l.Frames, l.FramesLost, r.FramesLost)
	}
	if math.Abs(float64(*l.FPS)-120) > 0.01 || l.PausesTotal != 0 {
		t.Errorf("fps %v pauses %d", *l.FPS, l.PausesTotal)
	}
}

// The game figures by hand (DESIGN §4a), nearest rank over per-frame times:
//   - 100 frames: 97 × 10 ms, 2 × 20 ms, 1 × 50 ms → p90 rank 90: 10 ms → 100 fps; p99 rank 99:
//     20 ms → 50 fps; the slowest 1 % is 1 frame, 50 ms → 20 fps.
//   - 300 frames: 290 × 10 ms, 9 × 20 ms, 1 × 50 ms → p99 rank 297: 20 ms → 50 fps; the slowest
//     1 % is 3 frames, 50 + 20 + 20 = 90 ms → 33.33 fps.
func TestGameFiguresByHand(t *testing.T) {
	for _, c := range []struct {
		n10, n20, n50        int
		p90, p99, low1pctAvg float64
	}{{97, 2, 1, 100, 50, 20}, {290, 9, 1, 100, 50, 3 / 0.09}} {
		var f frameTimes
		for i := 0; i < c.n10; i++ {
			f.add(10_000_000)
		}
		for i := 0; i < c.n20; i++ {
			f.add(20_000_000)
		}
		for i := 0; i < c.n50; i++ {
			f.add(50_000_000)
		}
		if p90, p99, low := f.fpsAt(0.9), f.fpsAt(0.99), f.low1pctAvg(); math.Abs(p90-c.p90) > 1e-9 ||
			math.Abs(p99-c.p99) > 1e-9 || math.Abs(low-c.low1pctAvg) > 1e-9 {
			t.Errorf("%d/%d/%d: p90 %v p99 %v low %v, want %v %v %v", c.n10, c.n20, c.n50, p90, p99, low, c.p90, c.p99, c.low1pctAvg)
		}
	}
	var empty frameTimes
	if !math.IsNaN(empty.fpsAt(0.9)) || !math.IsNaN(empty.low1pctAvg()) {
		t.Error("figures without frames are not NaN")
	}
}

// The simulator's game at 60 Hz, per frame (the case): 10 s steady at 60 then one
// late frame in ten (two refreshes: 33.33 ms) — p90 is still 60 (90 % of frames are 16.67 ms),
// p99 30; the per-second percentiles this replaced read 30 and 0 on such a run.
func TestGameFiguresPerFrame(t *testing.T) {
	p := NewPipeline(Config{})
	name := "SurfaceView[g/g.A]@0(BLAST)#3"
	const t60 = int64(16_670_000) // a multiple of 10 µs: the figures are exact
	p.Add(&source.Session{Source: source.KindSurfaceFlinger, Layer: name, RefreshHz: 60})
	at := int64(1_000_000_000_000)
	for i := 0; i <= 1000; i++ {
		k := int64(1)
		if i%10 == 0 && i > 0 {
			k = 2
		}
		at += k * t60
		p.Add(&source.LayerFrame{Layer: name, PresentNs: at, PeriodNs: t60})
	}
	l := p.Report(ReportMeta{}).Layers[0]
	// 1000 judged frames (the first has no interval): 900 × 16.67 ms, 100 × 33.34 ms; p90
	// rank 900 → 16.67 ms (59.99 fps); p99 rank 990 → 33.34 ms (29.99); slowest 1 %: 10
	// frames of 33.34 ms → 29.99 fps
	if !nearR2(*l.FPSP90, 1000/16.67) || !nearR2(*l.FPSP99, 1000/33.34) || !nearR2(*l.FPSLow1pctAvg, 1000/33.34) ||
		*l.P90FPS != *l.FPSP90 || *l.P99FPS != *l.FPSP99 {
		t.Errorf("fps_p90 %v fps_p99 %v low1pct_avg %v aliases %v %v", *l.FPSP90, *l.FPSP99, *l.FPSLow1pctAvg, *l.P90FPS, *l.P99FPS)
	}
}

// GameBench stability on slices of known counts: median 60; within ±20 % (48–72): the seven
// 60s and the 50 → 80 %.
func TestLayerStability(t *testing.T) {
	l := newLayerState("x", 10)
	for _, v := range []int64{60, 60, 60, 60, 60, 60, 60, 50, 40, 0} {
		l.perSec[v]++
		l.nSec++
	}
	if got := l.stabilityPct(); got != 80 {
		t.Errorf("stability %v, want 80", got)
	}
}

// A freeze's empty seconds count as 0 fps slices; an idle pause's do not.
func TestLayerSecondsFrozenVsIdle(t *testing.T) {
	steps := append(repeat(2, 240), 240) // 4 s at 60 fps, then a 2 s freeze (a stall)
	steps = append(steps, repeat(2, 240)...)
	l := layerRun(t, steps).Report(ReportMeta{}).Layers[0]
	steps = append(repeat(2, 240), 840) // a 7 s pause: idle or stuck, not judged
	steps = append(steps, repeat(2, 240)...)
	l2 := layerRun(t, steps).Report(ReportMeta{}).Layers[0]
	if l.SecondsMeasured <= l2.SecondsMeasured || *l.FPSStabilityPct >= *l2.FPSStabilityPct {
		t.Errorf("freeze seconds %d (stability %v) not counted beyond the pause's %d (%v)", l.SecondsMeasured,
			*l.FPSStabilityPct, l2.SecondsMeasured, *l2.FPSStabilityPct)
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

func nearR2(v R2, want float64) bool { return math.Abs(float64(v)-want) < 1e-9 }

// TestTargetAtThePace: a steady 60 fps game on a 120 Hz display is coloured against its own
// pace (target 55), not the display's (110), unless a target was asked for.
func TestTargetAtThePace(t *testing.T) {
	p := layerRun(t, repeat(2, 600))
	if s := p.Snapshot(); s.TargetFPS != 55 {
		t.Errorf("target %v, want 55 (0.92 × the 60 fps pace)", s.TargetFPS)
	}
}

// TestDropThresholdsAtThePace: the snapshot's drop thresholds, which the screen labels its
// levels with, are at the measured layer's pace (60: 3/9/24/42), as its frames were judged,
// and say so (DropPaceFPS); not the display's 120 Hz ones (6/18/48/84).
func TestDropThresholdsAtThePace(t *testing.T) {
	s := layerRun(t, repeat(2, 600)).Snapshot()
	if math.Abs(s.DropPaceFPS-60) > 0.01 || s.DropThresholds != Thresholds(DefaultDropLevels, 60) {
		t.Errorf("pace %v, thresholds %v; want 60 and %v", s.DropPaceFPS, s.DropThresholds, Thresholds(DefaultDropLevels, 60))
	}
}
