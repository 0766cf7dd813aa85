package metrics

import (
	"math"
	"math/rand"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// frame12 is an Android 12+ row: intended vsync iv, started on vsync start, printed deadline
// dl and GPU completion gc, all in ms from 1 s, period t ms.
func frame12(iv, start, dl, gc, t float64) *source.Frame {
	ns := func(ms float64) int64 { return 1e9 + int64(math.Round(ms*1e6)) }
	return &source.Frame{Window: "w", VsyncNs: ns(iv), DeadlineNs: ns(dl), DoneNs: ns(gc),
		IntervalNs: int64(math.Round(t * 1e6)),
		Phases:     &source.Phases{Vsync: ns(start), GpuCompleted: ns(gc), FrameCompleted: ns(gc)}}
}

// TestDeadlineDroppedByHand works DESIGN §4's rule through a 120 Hz window (T = 8.333 ms) by
// hand, in order (the tally carries from frame to frame):
//
//  1. on time, base budget 8.333 (one period), GPU at 11.0 → ⌈(11.0 − 8.333)/8.333⌉ = 1 dropped
//  2. on time, stuffed: printed budget 16.667, GPU at 12.0 → 12.0 < 16.667: 0
//  3. on time, stuffed, GPU at 16.0 → 0
//  4. on time, stuffed, GPU at 26.0 → ⌈(26.0 − 16.667)/8.333⌉ = ⌈1.12⌉ = 2
//  5. started 5 periods late (41.667), printed deadline not moved; the usual on-time budget is
//     16.667 (three of four): GPU at 55.0 → ⌈(55.0 − 16.667)/8.333⌉ = ⌈4.6⌉ = 5
//  6. a garbage deadline (before its vsync): the usual budget too: GPU at 10 → 0
func TestDeadlineDroppedByHand(t *testing.T) {
	const T = 8.333333
	var tally budgetTally
	cases := []struct {
		f    *source.Frame
		want int64
	}{
		{frame12(0, 0, 8.333, 11.0, T), 1},
		{frame12(8.333, 8.333, 8.333+16.667, 8.333+12.0, T), 0},
		{frame12(16.667, 16.667, 16.667+16.667, 16.667+16.0, T), 0},
		{frame12(25.0, 25.0, 25.0+16.667, 25.0+26.0, T), 2},
		{frame12(100, 141.667, 116.667, 155.0, T), 5},
		{frame12(200, 200, 190, 210, T), 0},
	}
	for i, c := range cases {
		got, ok := DeadlineDropped(c.f, c.f.IntervalNs, &tally)
		if !ok || got != c.want {
			t.Errorf("frame %d: dropped %d (ok %v), want %d", i+1, got, ok, c.want)
		}
	}
	// A window's first frame with a garbage deadline has no budget to go by: not ok (the
	// pipeline then applies the pre-12 rule).
	var empty budgetTally
	if _, ok := DeadlineDropped(frame12(0, 0, -5, 20, T), 8_333_333, &empty); ok {
		t.Error("a garbage deadline with no tally must not give a budget")
	}
	// A late frame in a window with no on-time frame: one period, whatever it printed (its
	// printed deadline, 36.667, or one before its start, 10).
	for _, dl := range []float64{36.667, 10} {
		var fresh budgetTally
		if got, _ := DeadlineDropped(frame12(0, 16.667, dl, 36.0, 16.667), 16_666_667, &fresh); got != 2 {
			t.Errorf("late first frame, deadline %.3f: dropped %d, want 2 (36.0 − 16.667 = 19.3 ms over: two refreshes)", dl, got)
		}
	}
}

// TestHistoryFramesNotInRates: frames drawn before a live session started count in frames,
// janky and levels, never in fps.
func TestHistoryFramesNotInRates(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindGfxinfo, RefreshHz: 60})
	const T = 16_666_667
	for i := int64(0); i < 10; i++ {
		// history: each 3 periods long (2 dropped)
		p.Add(&source.Frame{Window: "w", VsyncNs: 1e9 + i*3*T, DoneNs: 1e9 + i*3*T + 3*T - 1e6, IntervalNs: T, History: true})
	}
	for i := int64(0); i < 60; i++ {
		v := int64(2e9) + i*T
		p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 10e6, IntervalNs: T})
	}
	r := p.Report(ReportMeta{})
	if r.Frames != 70 || r.JankyFrames != 10 || r.FPS == nil || math.Abs(float64(*r.FPS)-60) > 0.01 {
		t.Fatalf("frames %d janky %d fps %v; want 70, 10, 60", r.Frames, r.JankyFrames, r.FPS)
	}
	if r.FPSWall == nil || float64(*r.FPSWall) > 60.01 {
		t.Errorf("fps_wall %v: history frames must not enter it", float64(*r.FPSWall))
	}
}

// TestRunFPSWallCountsRefreshes: two windows drawing on every vsync of a 60 Hz display for 3 s:
// the run's fps_wall counts each refresh once — 60, not 120 — and each window's is its 180
// frames over its burst, first vsync to last completion (8 ms after its vsync) + one period:
// 180 / (180 × 16.667 + 8 ms) = 59.84.
func TestRunFPSWallCountsRefreshes(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindGfxinfo, RefreshHz: 60})
	const T = 16_666_667
	for i := int64(0); i < 180; i++ {
		v := int64(1e9) + i*T
		for _, w := range []string{"a", "b"} {
			p.Add(&source.Frame{Window: w, VsyncNs: v, DoneNs: v + 8e6, IntervalNs: T})
		}
	}
	r := p.Report(ReportMeta{})
	if r.FPSWall == nil || math.Abs(float64(*r.FPSWall)-60) > 0.01 {
		t.Errorf("run fps_wall %v, want 60", r.FPSWall)
	}
	for _, w := range r.Windows {
		if want := 180 / (180*T + 8e6) * 1e9; w.FPSWall == nil || math.Abs(float64(*w.FPSWall)-want) > 0.01 {
			t.Errorf("window %s fps_wall %v, want %.2f", w.Name, w.FPSWall, want)
		}
	}
}

// TestHistoryFramesAreNotWorstFrames: the first poll's backlog cannot be attributed to messages
// (logcat starts with the session): it never fills the worst-frames list.
func TestHistoryFramesAreNotWorstFrames(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindGfxinfo, RefreshHz: 60})
	const T = 16_666_667
	for i := int64(0); i < 30; i++ {
		p.Add(&source.Frame{Window: "w", VsyncNs: 1e9 + i*10*T, DoneNs: 1e9 + i*10*T + 9*T, IntervalNs: T, History: true})
	}
	for i := int64(0); i < 30; i++ {
		v := int64(10e9) + i*T
		p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 20e6, IntervalNs: T})
	}
	r := p.Report(ReportMeta{})
	if len(r.WorstFrames) != 20 {
		t.Fatalf("%d worst frames", len(r.WorstFrames))
	}
	for _, w := range r.WorstFrames {
		if w.CostMs > 21 {
			t.Errorf("a history frame (%.1f ms) among the worst frames", float64(w.CostMs))
		}
	}
}

// TestBudgetTallyMode: the tally's mode is the most frequent budget step (the smaller of
// equals) over the first maxBudgetKeys steps seen, as counting every budget in a map says,
// for runs of one budget, a few alternating ones and a spread wider than the tally keeps, and
// for budgets on both sides of the steps' edges.
func TestBudgetTallyMode(t *testing.T) {
	rng := rand.New(rand.NewSource(11))
	for trial := 0; trial < 60; trial++ {
		var b budgetTally
		counts := map[int64]int64{}
		spread := 1 + rng.Intn(3)
		if trial%3 == 0 {
			spread = 2 * maxBudgetKeys
		}
		var budget int64
		for i := 0; i < 5000; i++ {
			if i == 0 || rng.Intn(3) == 0 {
				budget = int64(8+rng.Intn(spread))*budgetQuantumNs + rng.Int63n(budgetQuantumNs/2)
				if trial%4 == 1 {
					// either side of a step's edges, steps near 0 and
					// below included
					edges := []int64{-budgetQuantumNs / 2, -budgetQuantumNs/2 + 1, budgetQuantumNs/2 - 1, budgetQuantumNs / 2, rng.Int63n(budgetQuantumNs+1) - budgetQuantumNs/2}
					budget = max(0, int64(rng.Intn(spread+4)-3)*budgetQuantumNs+edges[rng.Intn(len(edges))])
				}
			}
			b.add(budget)
			if q := (budget + budgetQuantumNs/2) / budgetQuantumNs; counts[q] > 0 || len(counts) < maxBudgetKeys {
				counts[q]++
			}
			var wantQ, wantN int64
			for q, n := range counts {
				if n > wantN || n == wantN && q < wantQ {
					wantQ, wantN = q, n
				}
			}
			if got, ok := b.mode(); !ok || got != wantQ*budgetQuantumNs {
				t.Fatalf("trial %d, budget #%d: mode %d (ok %v), want %d", trial, i, got, ok, wantQ*budgetQuantumNs)
			}
		}
	}
}

// DeadlineDropped is DESIGN §4's `dropped` for a frame with a printed FrameDeadline, as a
// capture counts it once its window's tally holds all its on-time rows: the display refreshes
// (of period t) by which the frame's completion (GpuCompleted, else FrameCompleted) overran its
// budget. The budget is the printed FrameDeadline − IntendedVsync when the frame started on its
// intended vsync (less than t/2 late), which is also counted in the tally; a frame the main
// thread started late — or whose printed deadline is garbage (not after its vsync, or absurdly
// far) — gets the budget the window's on-time frames most often had, else one period when it
// started late: a printed deadline that lies before the frame's own start is never its budget.
// ok=false when no budget can be had (a garbage deadline and no tally).
func DeadlineDropped(f *source.Frame, t int64, tally *budgetTally) (dropped int64, ok bool) {
	if b, onTime := onTimeBudget(f, t); onTime {
		tally.add(b)
		return overDropped(f, t, b), true
	}
	if m, have := tally.mode(); have {
		return overDropped(f, t, m), true
	}
	if saneDeadline(f) {
		return overDropped(f, t, t), true
	}
	return 0, false
}
