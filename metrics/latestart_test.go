package metrics_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// lateRow is an Android 12+ 60 Hz row of window w (process app): intended vsync iv, started on
// vsync start, printed deadline dl, GPU done at gc, all in ms from 10 s.
func lateRow(w string, iv, start, dl, gc float64) *source.Frame {
	ns := func(ms float64) int64 { return 10e9 + int64(math.Round(ms*1e6)) }
	return &source.Frame{Window: w, Process: "app", VsyncNs: ns(iv), DeadlineNs: ns(dl), DoneNs: ns(gc),
		IntervalNs: 16_666_667,
		Phases:     &source.Phases{Vsync: ns(start), GpuCompleted: ns(gc), FrameCompleted: ns(gc)}}
}

// TestLateFirstFramesTakeTheWindowsBudget: a window whose first four frames all start late
// (the main thread busy 100 ms, each printing a deadline before its own start), then draws 60
// frames on time with a printed budget of 20 ms (Android's base at 60 Hz).
//
// Live, before any on-time frame and with no other window of the app, each late frame is
// charged one period: done 150 ms after its intended vsync → ⌈(150 − 16.667)/16.667⌉ = 8
// dropped. The report charges them the window's budget, 20 ms: ⌈(150 − 20)/16.667⌉ = 8 too for
// 150 ms, but the frames done 120 ms after: live ⌈103.3/16.667⌉ = 7, reported ⌈100/16.667⌉ = 6.
// So the report's Σ dropped = 2×8 + 2×6 = 28 and fps = 64 / ((64 + 28) × 16.667 ms) = 41.74.
func TestLateFirstFramesTakeTheWindowsBudget(t *testing.T) {
	p := metrics.NewPipeline(metrics.Config{})
	p.Add(&source.Session{Source: source.KindGfxinfo, RefreshHz: 60})
	for i, done := range []float64{150, 150, 120, 120} {
		iv := float64(i) * 200
		// started 100 ms late; its printed deadline (iv + 20) lies before its start
		p.Add(lateRow("w", iv, iv+100, iv+20, iv+done))
	}
	snap := p.Snapshot()
	if got := snap.Windows[0].Totals.Dropped; got != 8+8+7+7 {
		t.Errorf("live, before any on-time frame: %d dropped, want 30 (one period's budget)", got)
	}
	for i := 0; i < 60; i++ {
		iv := 1000 + float64(i)*16.667
		p.Add(lateRow("w", iv, iv, iv+20, iv+12))
	}
	r := p.Report(metrics.ReportMeta{})
	w := r.Windows[0]
	if w.Frames != 64 || w.JankyFrames != 4 {
		t.Fatalf("frames %d janky %d, want 64, 4", w.Frames, w.JankyFrames)
	}
	want := 64 / (92 * 16.666667e-3)
	if w.FPS == nil || math.Abs(float64(*w.FPS)-want) > 0.01 {
		t.Errorf("fps %v, want %.2f (the window's 20 ms budget for its late first frames)", w.FPS, want)
	}
	// A second report settles nothing more.
	if r2 := p.Report(metrics.ReportMeta{}); *r2.Windows[0].FPS != *w.FPS || r2.Windows[0].DropLevels != w.DropLevels {
		t.Errorf("a second report differs: %v %+v", r2.Windows[0].FPS, r2.Windows[0].DropLevels)
	}
}

// TestLateFrameLiveUsesTheAppsOtherWindows: live, a window's first frame that started late,
// before the window has an on-time frame, takes the budget of the app's other windows (36.7
// ms here), not one period: done 120 ms after its vsync → ⌈(120 − 36.7)/16.667⌉ = 5 dropped,
// where one period would give 7.
func TestLateFrameLiveUsesTheAppsOtherWindows(t *testing.T) {
	p := metrics.NewPipeline(metrics.Config{})
	p.Add(&source.Session{Source: source.KindGfxinfo, RefreshHz: 60})
	for i := 0; i < 10; i++ {
		iv := float64(i) * 16.667
		p.Add(lateRow("a", iv, iv, iv+36.7, iv+10))
	}
	p.Add(lateRow("b", 400, 450, 420, 520))
	for _, w := range p.Snapshot().Windows {
		if w.Name == "b" && w.Totals.Dropped != 5 {
			t.Errorf("window b: %d dropped, want 5 (the app's other window's 36.7 ms budget)", w.Totals.Dropped)
		}
	}
}

// TestLiveReportEqualsCapture: the report of a run fed as a live session is (batches, screen
// snapshots and an early report between them) equals the report of the same rows read in one
// go, on the real captures with late-started frames.
func TestLiveReportEqualsCapture(t *testing.T) {
	for _, name := range []string{
		"anavmode-topicon-t865-android13plus-framestats-allprocs.txt",
		"choi890-soundviz-android13plus-120hz-framestats-scroll.txt",
	} {
		evs := captureEvents(t, name)
		whole := reportOf(t, evs)
		p := metrics.NewPipeline(metrics.Config{})
		for i := 0; i < len(evs); i += 7 {
			p.AddBatch(evs[i:min(i+7, len(evs))])
			p.Snapshot()
			if i == len(evs)/2/7*7 {
				p.Report(metrics.ReportMeta{Version: "test"})
			}
		}
		live := p.Report(metrics.ReportMeta{Version: "test"})
		a, _ := json.Marshal(whole)
		b, _ := json.Marshal(live)
		if string(a) != string(b) {
			t.Errorf("%s: the live run's report differs from the capture's:\n%s\n%s", name, a, b)
		}
	}
}

// TestDocsWindowWholeBudget pins the numbers on anavmode's Docs window: its 683 ms frame
// started 517 ms late and printed a deadline before its own start; against the window's
// on-time budget (36.7 ms, the mode of all its on-time rows) it dropped 39 refreshes, and the
// window reads 21.03 fps (the rule, worked out from its rows in TestRealCapturesFollowTheRule).
func TestDocsWindowWholeBudget(t *testing.T) {
	r := reportOf(t, captureEvents(t, "anavmode-topicon-t865-android13plus-framestats-allprocs.txt"))
	found := false
	for _, w := range r.Windows {
		if strings.HasPrefix(w.Name, "com.google.android.apps.docs/") {
			found = true
			if w.FPS == nil || math.Abs(float64(*w.FPS)-21.03) > 0.005 {
				t.Errorf("Docs: fps %v, want 21.03", w.FPS)
			}
		}
	}
	if !found {
		t.Fatal("no Docs window")
	}
	for _, wf := range r.WorstFrames {
		if strings.HasPrefix(wf.Window, "com.google.android.apps.docs/") && math.Abs(float64(wf.CostMs)-683.04) < 0.01 && wf.Dropped != 39 {
			t.Errorf("Docs' 683 ms frame: %d dropped, want 39", wf.Dropped)
		}
	}
}

// TestLateFramesPastTheCap: a window keeps 4,096 late-started frames to settle; the ones past
// it keep the budget they were charged. One warning per window says how many of those were
// charged against a budget that is not the window's final one — none when the budget never
// changed (a long trace of a steady app: the old warning counted every such frame, ×45,952 on
// a 205 MB trace, though none of them would have settled differently).
func TestLateFramesPastTheCap(t *testing.T) {
	run := func(before, after float64) []string {
		p := metrics.NewPipeline(metrics.Config{HistoryLen: -1})
		p.Add(&source.Session{Source: source.KindGfxinfo, RefreshHz: 60})
		at := 0.0
		onTime := func(n int, budget float64) {
			for i := 0; i < n; i++ {
				p.Add(lateRow("w", at, at, at+budget, at+12))
				at += 16.667
			}
		}
		onTime(200, before)
		for i := 0; i < 5000; i++ {
			// started 100 ms late, done 120 ms after its intended vsync
			p.Add(lateRow("w", at, at+100, at+before, at+120))
			at += 200
		}
		onTime(400, after)
		var out []string
		for _, w := range p.Report(metrics.ReportMeta{}).Warnings {
			if strings.Contains(w, "late-started") {
				out = append(out, w)
			}
		}
		return out
	}
	if w := run(20, 20); len(w) != 0 {
		t.Errorf("a steady budget: %q, want no warning", w)
	}
	w := run(20, 33.3)
	if len(w) != 1 || !strings.HasPrefix(w[0], "w: 904 late-started frames past the 4096") {
		t.Errorf("a budget that changed after the cap: %q, want one warning for the 904 frames past it", w)
	}
}
