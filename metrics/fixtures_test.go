package metrics

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/source"
)

// The fixtures below pin the definitions of DESIGN §4. Every expected number is worked out by
// hand in the comments; none is produced by the code under test.

const origin = int64(1_000_000_000)

// feed builds frames of one window whose vsyncs follow each other as the display would show
// them: frame i+1's vsync is frame i's vsync + (dropped_i + 1)·T, given the dropped counts the
// comments derive by hand.
func feed(p *Pipeline, t int64, costsMs []float64, dropped []int64) {
	v := origin
	for i, c := range costsMs {
		cost := int64(math.Round(c * 1e6))
		p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + cost, IntervalNs: t})
		v += (dropped[i] + 1) * t
	}
}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want) > tol {
		t.Errorf("%s = %v, want %v (±%v)", what, got, want, tol)
	}
}

func TestFixture60Hz(t *testing.T) {
	// T = 16 666 667 ns (60 Hz). Thresholds at 60 Hz: 3/9/24/42 (Matrix's own).
	//  frame  cost      cost/T     ceil  dropped  level
	//  f1     10 ms     0.60       1     0        best
	//  f2     T         1.00       1     0        best   (exactly one interval is on time)
	//  f3     17 ms     1.02       2     1        best   (janky)
	//  f4     51 ms     3.06       4     3        normal
	//  f5     160 ms    9.60       10    9        middle
	//  f6     710 ms    42.60      43    42       frozen
	//  f7     420 ms    25.20      26    25       high
	//  f8-12  8 ms      0.48       1     0        best
	// frames 12, janky 5; best 8, normal 1, middle 1, high 1, frozen 1.
	// Σ(dropped+1) = 1+1+2+4+10+43+26+5 = 92 → fps = 12 / (92 · 16.666667 ms) = 7.826 → 7.83
	// vsync offsets (in T): 0,1,2,4,8,18,61,87,88,89,90,91 → slice 0 (< 1 s = 60 T) holds f1–f6,
	// slice 1 holds f7–f12. End = 91 T + 8 ms = 1.524667 s after the origin: both slices have
	// frames, so idle_s = 0. For fps_wall a frame occupies its refresh: the last slice lasts at
	// least to f12's vsync + T = 92 T = 1.533333 s, so fps_wall = 12 / 1.533333 s = 7.826 → 7.83
	// (never above R, even in the slice the session is still in).
	// 1 % low: nearest rank ceil(0.99·12) = 12 → the largest (dropped+1)·T = 43 T = 716.67 ms →
	// 1000 / 716.67 = 1.395 → 1.40.
	// Android buckets of the costs: 10, 16, 17, 48 (51 ms is in the 48–51 bucket), 150, 700, 400,
	// 8 ×5. p50: pos 6, remaining 6 counted from the top 700,400,150,48,17,16 → 16.
	// p90: pos 10, remaining 2 → 700, 400 → 400. p95 and p99: pos 11, remaining 1 → 700.
	// PerfDog (frame time = (dropped+1)·T): 16.67, 16.67, 33.33, 66.67, 166.67, 716.67, 433.33,
	// 16.67… f4: 66.67 > 2·mean(16.67,16.67,33.33)=44.4 but not > 83.33 → no. f5: 166.67 >
	// 2·38.9=77.8 and > 125 → jank and big jank. f6: 716.67 > 2·88.9 → jank, big. f7: 433.33 <
	// 2·316.7 → no. jank 2, big_jank 2; stutter = (166.67+716.67) / 1524.67 ms = 57.94 %.
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindSim, CostBasis: source.CostFrame, RefreshHz: 60})
	const T = 16_666_667
	feed(p, T,
		[]float64{10, 16.666667, 17, 51, 160, 710, 420, 8, 8, 8, 8, 8},
		[]int64{0, 0, 1, 3, 9, 42, 25, 0, 0, 0, 0, 0})
	r := p.Report(ReportMeta{Version: "test"})

	if r.Frames != 12 || r.JankyFrames != 5 {
		t.Fatalf("frames %d janky %d, want 12 and 5", r.Frames, r.JankyFrames)
	}
	want := DropLevels{Best: 8, Normal: 1, Middle: 1, High: 1, Frozen: 1}
	if r.DropLevels != want {
		t.Errorf("drop levels %+v, want %+v", r.DropLevels, want)
	}
	near(t, "fps", float64(*r.FPS), 7.83, 0.005)
	near(t, "fps_wall", float64(*r.FPSWall), 7.83, 0.005)
	near(t, "fps_low_1pct", float64(*r.FPSLow1Pct), 1.40, 0.005)
	near(t, "jank_pct", float64(*r.JankPct), 41.67, 0.005)
	near(t, "idle_s", float64(r.IdleS), 0, 0)
	if pc := r.PercentilesMs; pc == nil || *pc != (Percentiles{P50: 16, P90: 400, P95: 700, P99: 700}) {
		t.Errorf("percentiles %+v, want 16/400/700/700", pc)
	}
	if r.PerfDog.Jank != 2 || r.PerfDog.BigJank != 2 {
		t.Errorf("perfdog %+v, want jank 2 big 2", r.PerfDog)
	}
	near(t, "stutter_pct", float64(*r.PerfDog.StutterPct), 57.94, 0.01)

	// The per-slice series: slice 0 = 6 frames / 61 T = 5.90 fps; slice 1 = 6 / 31 T = 11.61.
	s := p.Snapshot()
	if len(s.Series) != 2 {
		t.Fatalf("series has %d slices, want 2", len(s.Series))
	}
	near(t, "slice 0 fps", s.Series[0].FPS, 5.90, 0.005)
	near(t, "slice 1 fps", s.Series[1].FPS, 11.61, 0.005)
	if s.Series[0].Frames != 6 || s.Series[1].Frames != 6 || !s.Series[1].Partial {
		t.Errorf("series %+v", s.Series)
	}
	// The report is valid JSON with every key of DESIGN §7 present.
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"fpstop_version", "source", "cost_basis", "device", "package", "refresh_hz",
		"duration_s", "frames", "janky_frames", "janky_deadline", "jank_pct", "fps", "fps_wall",
		"fps_low_1pct", "idle_s", "active_pct", "drop_levels", "percentiles_ms", "histogram_ms",
		"perfdog", "flagged_frames", "frames_lost", "windows", "android_processes", "slow_messages", "messages",
		"skipped_frames", "slow_looper", "slow_looper_total", "worst_frames", "warnings"} {
		if _, ok := m[k]; !ok {
			t.Errorf("report lacks key %q", k)
		}
	}
	if m["frames_lost"] != nil || m["janky_deadline"] != nil {
		t.Errorf("frames_lost/janky_deadline must be null for a source that cannot know them")
	}
}

func TestFixture90Hz(t *testing.T) {
	// T = 11 111 111 ns. Thresholds: ceil(3·90/60)=5, ceil(9·1.5)=14, ceil(24·1.5)=36, ceil(42·1.5)=63.
	//  cost    cost/T    ceil  dropped  level
	//  11 ms   0.99      1     0        best
	//  12 ms   1.08      2     1        best (janky)
	//  55 ms   4.95      5     4        best (janky)
	//  56 ms   5.04      6     5        normal
	//  160 ms  14.40     15    14       middle
	//  410 ms  36.90     37    36       high
	//  700 ms  63.00000  64    63       frozen (700 / 11.111111 = 63.0000006)
	//  5 ms ×5 0.45      1     0        best
	// frames 12, janky 6, Σ(dropped+1) = 1+2+5+6+15+37+64+5 = 135 → fps = 12/(135·11.111111 ms) = 8.00
	p := NewPipeline(Config{})
	p.Add(&source.Refresh{AtNs: origin, Hz: 90})
	feed(p, 11_111_111,
		[]float64{11, 12, 55, 56, 160, 410, 700, 5, 5, 5, 5, 5},
		[]int64{0, 1, 4, 5, 14, 36, 63, 0, 0, 0, 0, 0})
	r := p.Report(ReportMeta{})
	if want := (DropLevels{Best: 8, Normal: 1, Middle: 1, High: 1, Frozen: 1}); r.DropLevels != want {
		t.Errorf("drop levels %+v, want %+v", r.DropLevels, want)
	}
	if r.JankyFrames != 6 {
		t.Errorf("janky %d, want 6", r.JankyFrames)
	}
	near(t, "fps", float64(*r.FPS), 8.00, 0.005)
	if th := Thresholds(DefaultDropLevels, 90); th != [4]int64{5, 14, 36, 63} {
		t.Errorf("90 Hz thresholds %v", th)
	}
}

func TestFixture120Hz(t *testing.T) {
	// T = 8 333 333 ns. Thresholds 6/18/48/84.
	//  cost    cost/T       ceil  dropped  level
	//  8 ms    0.96         1     0        best
	//  9 ms    1.08         2     1        best (janky)
	//  49 ms   5.88         6     5        best (janky)
	//  50 ms   6.0000002    7     6        normal
	//  150 ms  18.0000007   19    18       middle
	//  400 ms  48.0000019   49    48       high
	//  699 ms  83.88        84    83       high
	//  700 ms  84.0000034   85    84       frozen (= Android vitals' 700 ms frozen frame)
	//  4 ms ×4 0.48         1     0        best
	// frames 12, janky 7, best 7, normal 1, middle 1, high 2, frozen 1.
	// Σ(dropped+1) = 1+2+6+7+19+49+84+85+4 = 257 → fps = 12 / (257 · 8.333333 ms) = 5.60
	// Durations (p50): costs sorted 4,4,4,4,8,9,49,50,150,400,699,700; buckets from the top
	// 700,650(699 → (699-150)/50 = 10 → 650),400,150,48(49,50 → 48 bucket),9,8 … pos 6,
	// remaining 6: 700(1)→5, 650(1)→4, 400(1)→3, 150(1)→2, 48(2)→0 → p50 = 48.
	p := NewPipeline(Config{})
	p.Add(&source.Session{Source: source.KindGfxinfo, RefreshHz: 120})
	feed(p, 8_333_333,
		[]float64{8, 9, 49, 50, 150, 400, 699, 700, 4, 4, 4, 4},
		[]int64{0, 1, 5, 6, 18, 48, 83, 84, 0, 0, 0, 0})
	r := p.Report(ReportMeta{})
	if want := (DropLevels{Best: 7, Normal: 1, Middle: 1, High: 2, Frozen: 1}); r.DropLevels != want {
		t.Errorf("drop levels %+v, want %+v", r.DropLevels, want)
	}
	if r.JankyFrames != 7 {
		t.Errorf("janky %d, want 7", r.JankyFrames)
	}
	near(t, "fps", float64(*r.FPS), 5.60, 0.005)
	if r.PercentilesMs == nil || r.PercentilesMs.P50 != 48 {
		t.Errorf("p50 = %+v, want 48", r.PercentilesMs)
	}
}

func TestIdleIsIdle(t *testing.T) {
	// 60 frames of 8 ms at 60 Hz in slice 0, nothing for three seconds (only ticks), 60 frames
	// in slice 4. Idle slices are idle: fps stays 60 (never 0, never above R), fps_wall =
	// 120 frames / 2 non-idle seconds = 60, idle_s = 3, the series shows slices 1–3 as idle.
	p := NewPipeline(Config{})
	p.Add(&source.Refresh{AtNs: origin, Hz: 60})
	const T = 16_666_667
	for i := int64(0); i < 60; i++ {
		v := origin + i*T
		p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 8_000_000})
	}
	for s := int64(1); s <= 4; s++ {
		p.Add(&source.Tick{NowNs: origin + s*1e9})
	}
	for i := int64(0); i < 60; i++ {
		v := origin + 4e9 + i*T
		p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 8_000_000})
	}
	p.Add(&source.Tick{NowNs: origin + 5e9})
	r := p.Report(ReportMeta{})
	near(t, "fps", float64(*r.FPS), 60, 0.005)
	near(t, "fps_wall", float64(*r.FPSWall), 60, 0.01)
	near(t, "idle_s", float64(r.IdleS), 3, 0.001)
	near(t, "active_pct", float64(*r.ActivePct), 40, 0.01) // 120·T / 5 s
	s := p.Snapshot()
	if len(s.Series) != 5 {
		t.Fatalf("series %d slices, want 5", len(s.Series))
	}
	for i, sp := range s.Series {
		idle := i >= 1 && i <= 3
		if sp.Idle != idle || (!idle && math.Abs(sp.FPS-60) > 0.01) || (idle && !math.IsNaN(sp.FPS)) {
			t.Errorf("slice %d: %+v", i, sp)
		}
	}
	// A run without frames: fps null, not 0.
	empty := NewPipeline(Config{})
	empty.Add(&source.Tick{NowNs: origin})
	empty.Add(&source.Tick{NowNs: origin + 2e9})
	er := empty.Report(ReportMeta{})
	if er.FPS != nil || er.FPSWall != nil || er.JankPct != nil || er.PercentilesMs != nil {
		t.Errorf("empty run must have null fps/jank/percentiles: %+v", er)
	}
	near(t, "empty idle_s", float64(er.IdleS), 2, 0)
}

func TestIntervalFallbacks(t *testing.T) {
	// No row period and no refresh rate: the modal spacing of vsyncs (8.33 ms) is learned after
	// a few frames; before that 60 Hz is assumed with a warning.
	p := NewPipeline(Config{})
	for i := int64(0); i < 40; i++ {
		v := origin + i*8_333_333
		p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 5_000_000})
	}
	s := p.Snapshot()
	if s.RefreshHz != 120 {
		t.Errorf("learned refresh %v, want 120", s.RefreshHz)
	}
	if len(s.Warnings) == 0 {
		t.Errorf("assuming 60 Hz must warn")
	}
	// Flags: a skipped frame (8) is not a frame; a first-draw frame (1) is a frame and flagged.
	q := NewPipeline(Config{})
	q.Add(&source.Frame{Window: "w", VsyncNs: origin, DoneNs: origin + 1, IntervalNs: 16_666_667, Flags: source.FlagSkippedFrame})
	q.Add(&source.Frame{Window: "w", VsyncNs: origin, DoneNs: origin + 9e6, IntervalNs: 16_666_667, Flags: source.FlagWindowLayoutChanged})
	if r := q.Report(ReportMeta{}); r.Frames != 1 || r.FlaggedFrames != 1 {
		t.Errorf("frames %d flagged %d, want 1 and 1", r.Frames, r.FlaggedFrames)
	}
}

func TestFramesLostFromCounters(t *testing.T) {
	// Poll 1: counter 100 (baseline). Poll 2: counter 250, 120 new rows → 30 lost.
	// Poll 3: counter 240 (app restarted: counter went down) → re-baseline, nothing lost.
	// Poll 4: counter 300, 80 new rows (rows outnumber the counter delta) → never negative.
	p := NewPipeline(Config{})
	p.Add(&source.Poll{AtNs: origin, Window: "w", TotalFrames: 100, NewRows: 100})
	p.Add(&source.Poll{AtNs: origin + 1e9, Window: "w", TotalFrames: 250, NewRows: 120})
	p.Add(&source.Poll{AtNs: origin + 2e9, Window: "w", TotalFrames: 240, NewRows: 120})
	p.Add(&source.Poll{AtNs: origin + 3e9, Window: "w", TotalFrames: 300, NewRows: 80})
	r := p.Report(ReportMeta{})
	if r.FramesLost == nil || *r.FramesLost != 30 {
		t.Errorf("frames_lost = %v, want 30", r.FramesLost)
	}
}

func TestSlowMessagesAndAttribution(t *testing.T) {
	p := NewPipeline(Config{SlowMs: 16})
	p.Add(&source.Refresh{AtNs: origin, Hz: 60})
	// Two instances of the same lambda (different hashes and indices normalise together), one
	// fast message that never reaches 16 ms (not listed), one lifecycle message.
	p.Add(&source.Message{Handler: "android.os.Handler", Callback: "com.x.Feed$$ExternalSyntheticLambda3@1a2b", StartNs: origin, EndNs: origin + 180e6})
	p.Add(&source.Message{Handler: "android.os.Handler", Callback: "com.x.Feed$$ExternalSyntheticLambda7@ffee", StartNs: origin + 500e6, EndNs: origin + 520e6})
	p.Add(&source.Message{Handler: "android.os.Handler", Callback: "com.x.Fast@1", StartNs: origin + 600e6, EndNs: origin + 601e6})
	p.Add(&source.Message{Handler: "android.app.ActivityThread$H", Callback: "null", What: 159, StartNs: origin + 700e6, EndNs: origin + 730e6})
	// A frame whose main-thread part [vsync, SyncStart] overlaps the 180 ms message by 150 ms.
	p.Add(&source.Frame{Window: "w", VsyncNs: origin + 30e6, DoneNs: origin + 200e6,
		Phases: &source.Phases{SyncStart: origin + 190e6}})
	r := p.Report(ReportMeta{})
	if len(r.SlowMessages) != 2 {
		t.Fatalf("slow messages %+v, want 2 signatures", r.SlowMessages)
	}
	top := r.SlowMessages[0]
	if top.Callback != "com.x.Feed$$ExternalSyntheticLambda" || top.Count != 2 || top.MaxMs != 180 || top.TotalMs != 200 {
		t.Errorf("top signature %+v", top)
	}
	if r.SlowMessages[1].WhatName != "EXECUTE_TRANSACTION" {
		t.Errorf("what 159 of ActivityThread$H named %q", r.SlowMessages[1].WhatName)
	}
	if len(r.WorstFrames) != 1 || len(r.WorstFrames[0].Messages) != 1 || r.WorstFrames[0].Messages[0].Ms != 150 {
		t.Errorf("worst frames %+v, want the 180 ms message overlapping 150 ms", r.WorstFrames)
	}
	if r.Messages.Paired != 4 || !r.Messages.DurationsKnown {
		t.Errorf("messages %+v", r.Messages)
	}
}

func TestNormalizeCallback(t *testing.T) {
	for in, want := range map[string]string{
		"com.x.A$1@5f3a2b":                          "com.x.A$1",
		"com.x.B$$ExternalSyntheticLambda0@abc":     "com.x.B$$ExternalSyntheticLambda",
		"com.x.C$$Lambda$12/0x0000000801234567@9f1": "com.x.C$$Lambda$",
		"null": "null",
		"android.view.Choreographer$FrameDisplayEventReceiver@c0ffee": "android.view.Choreographer$FrameDisplayEventReceiver",
		"weird@notahash": "weird@notahash",
	} {
		if got := NormalizeCallback(in); got != want {
			t.Errorf("NormalizeCallback(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFramesLostWindowClosedBetweenPolls(t *testing.T) {
	// poll 1 (baseline): main 100, popup 50, process 150.
	// poll 2: main +60 all seen; the popup closed after 20 more frames nobody saw; the process
	//   counter grew by 80 with 60 new rows → 20 lost that no window counter shows.
	// poll 3: main +240 with 120 new rows (its ring overflowed: 120 lost); process +240, 120 new
	//   rows → 120, already counted by the window → nothing more. Total 140.
	p := NewPipeline(Config{})
	p.Add(&source.Poll{AtNs: origin, Window: "main", Pid: 7, TotalFrames: 100, NewRows: 100})
	p.Add(&source.Poll{AtNs: origin, Window: "popup", Pid: 7, TotalFrames: 50, NewRows: 50})
	p.Add(&source.Poll{AtNs: origin, Pid: 7, Process: true, TotalFrames: 150, NewRows: 150})
	p.Add(&source.Poll{AtNs: origin + 1e9, Window: "main", Pid: 7, TotalFrames: 160, NewRows: 60})
	p.Add(&source.Poll{AtNs: origin + 1e9, Pid: 7, Process: true, TotalFrames: 230, NewRows: 60})
	p.Add(&source.Poll{AtNs: origin + 2e9, Window: "main", Pid: 7, TotalFrames: 400, NewRows: 120})
	p.Add(&source.Poll{AtNs: origin + 2e9, Pid: 7, Process: true, TotalFrames: 470, NewRows: 120})
	if r := p.Report(ReportMeta{}); r.FramesLost == nil || *r.FramesLost != 140 {
		t.Errorf("frames_lost = %v, want 140", r.FramesLost)
	}
}

func TestDisconnectionAndResumptionWarned(t *testing.T) {
	p := NewPipeline(Config{})
	p.Add(&source.Notice{AtNs: origin, Level: source.LevelInfo, State: source.StateLive, Text: "live"})
	p.Add(&source.Notice{AtNs: origin + 1e9, Level: source.LevelWarn, State: source.StateDisconnected, Text: "device offline"})
	p.Add(&source.Notice{AtNs: origin + 5e9, Level: source.LevelInfo, State: source.StateLive, Text: "live"})
	w := p.Report(ReportMeta{}).Warnings
	if len(w) != 2 || w[0] != "device offline" || !strings.Contains(w[1], "resumed") {
		t.Errorf("warnings %q", w)
	}
}

func TestAndroidSummariesAsPrinted(t *testing.T) {
	n := func(v int64) *int64 { return &v }
	f := func(v float64) *float64 { return &v }
	p := NewPipeline(Config{})
	p.Add(&source.AndroidSummary{Process: "com.x", Pid: 4, TotalFrames: n(43), JankyFrames: n(7), P50Ms: f(5), P99Ms: f(200)})
	p.Add(&source.AndroidSummary{Window: "com.x/.Main", Process: "com.x", Pid: 4, TotalFrames: n(40), JankyLegacy: n(6)})
	r := p.Report(ReportMeta{})
	if len(r.AndroidProcesses) != 1 || *r.AndroidProcesses[0].TotalFrames != 43 || *r.AndroidProcesses[0].P99Ms != 200 ||
		r.AndroidProcesses[0].JankyLegacy != nil {
		t.Errorf("processes %+v", r.AndroidProcesses)
	}
	if len(r.Windows) != 1 || r.Windows[0].Android == nil || *r.Windows[0].Android.JankyLegacy != 6 || r.Windows[0].Frames != 0 {
		t.Errorf("windows %+v", r.Windows)
	}
}

// TestWorstFrameAttributedAsItsMessagesArrive: a worst frame chosen before its messages arrived
// (gfxinfo and logcat are two streams) is attributed once they do — also when one of its
// messages came before it and the other after — and a snapshot taken in between does not keep
// it from the later ones.
func TestWorstFrameAttributedAsItsMessagesArrive(t *testing.T) {
	p := NewPipeline(Config{SlowMs: 16})
	p.Add(&source.Refresh{AtNs: origin, Hz: 60})
	p.Add(&source.Message{Handler: "android.os.Handler", Callback: "com.x.Early@1", StartNs: origin, EndNs: origin + 60e6})
	p.Add(&source.Frame{Window: "w", VsyncNs: origin + 30e6, DoneNs: origin + 250e6,
		Phases: &source.Phases{SyncStart: origin + 240e6}})
	if w := p.Snapshot().Worst; len(w) != 1 || len(w[0].Messages) != 1 {
		t.Fatalf("before the second message: %+v, want the early one", w)
	}
	p.Add(&source.Message{Handler: "android.os.Handler", Callback: "com.x.Late@2", StartNs: origin + 60e6, EndNs: origin + 235e6})
	w := p.Snapshot().Worst
	if len(w) != 1 || len(w[0].Messages) != 2 || w[0].Messages[1].Callback != "com.x.Late@2" || w[0].Messages[1].Ms != 175 {
		t.Errorf("after the second message: %+v, want both, the late one overlapping 175 ms", w)
	}
}
