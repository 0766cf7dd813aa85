package compare

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
)

// simRuns records n simulator runs (20 s of virtual time each) from seed on.
func simRuns(t *testing.T, dir, scenario string, hz float64, seed int64, n int) []*Run {
	t.Helper()
	var paths []string
	for i := range n {
		paths = append(paths, simRecording(t, dir, scenario, hz, seed+int64(i), 20*time.Second))
	}
	return load(t, paths...)
}

func gated() Options {
	o := DefaultOptions()
	o.MaxFPSDrop = 2
	o.MaxJankIncrease = 5
	return o
}

func metric(t *testing.T, ms []Metric, name string) Metric {
	t.Helper()
	for _, m := range ms {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no metric %s", name)
	return Metric{}
}

// Janky against smooth at 120 Hz, 5 iterations a side, is worse, significantly after Holm's
// correction, by an exact permutation test at its smallest p, and the fps gate fails.
func TestJankyAgainstSmoothIsWorse(t *testing.T) {
	if testing.Short() {
		t.Skip("records ten 20 s simulator runs")
	}
	dir := t.TempDir()
	base, new := simRuns(t, dir, "smooth", 120, 1, 5), simRuns(t, dir, "janky", 120, 1, 5)
	res, err := Compare(base, new, gated())
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Worse || !res.GatesFailed {
		t.Fatalf("verdict %s, gates failed %v", res.Verdict, res.GatesFailed)
	}
	fps := metric(t, res.Metrics, "fps")
	// expectations from the reports themselves, not hard-coded numbers
	var wantDiff float64
	for i := range base {
		wantDiff += (float64(*new[i].Report.FPS) - float64(*base[i].Report.FPS)) / float64(len(base))
	}
	if !fps.Significant || fps.Verdict != Worse || math.Abs(*fps.Diff-wantDiff) > 0.01 || fps.Method != MethodPermutation || !fps.Gated {
		t.Errorf("fps: %+v (reports differ by %.2f)", fps, wantDiff)
	}
	// every janky run is slower than every smooth one: the smallest p 5 + 5 can give, 2/252
	if *fps.CILow > *fps.Diff || *fps.CIHigh < *fps.Diff || *fps.CIHigh >= 0 || fps.PMin == nil || *fps.P != *fps.PMin || math.Abs(*fps.P-2.0/252) > 1e-4 {
		t.Errorf("fps interval %v..%v p %v (min %v) around %v", *fps.CILow, *fps.CIHigh, *fps.P, fps.PMin, *fps.Diff)
	}
	if fps.PHolm == nil || *fps.PHolm < *fps.P {
		t.Errorf("fps Holm p %v below its p %v", fps.PHolm, *fps.P)
	}
	jank := metric(t, res.Metrics, "jank_pct")
	if jank.Verdict != Worse || *jank.Diff <= 0 {
		t.Errorf("jank: %+v", jank)
	}
	if p90 := metric(t, res.Metrics, "p90_ms"); p90.Gated || p90.PHolm != nil {
		t.Errorf("p90 is informational: %+v", p90)
	}
	var failed bool
	for _, g := range res.Gates {
		if g.Name == GateMaxFPSDrop && g.Scope == "run" {
			failed = g.Failed
			if g.Measured == nil || math.Abs(*g.Measured+wantDiff) > 0.01 {
				t.Errorf("gate measured %v, want %.2f", g.Measured, -wantDiff)
			}
		}
	}
	if !failed {
		t.Errorf("the run's fps gate did not fail: %+v", res.Gates)
	}
	var slower bool
	for _, m := range res.Messages {
		slower = slower || m.Status == MsgSlower
	}
	if !slower {
		t.Errorf("no slow message got slower in the janky runs: %+v", res.Messages)
	}
}

// One run a side is inconclusive: no test, no gate failed, and a warning says why.
func TestSingleRunsAreInconclusive(t *testing.T) {
	if testing.Short() {
		t.Skip("records two 20 s simulator runs")
	}
	dir := t.TempDir()
	base, new := simRuns(t, dir, "smooth", 120, 1, 1), simRuns(t, dir, "janky", 120, 1, 1)
	res, err := Compare(base, new, gated())
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Inconclusive || res.GatesFailed || len(res.Gates) < 2 {
		t.Fatalf("verdict %s, gates %+v", res.Verdict, res.Gates)
	}
	for _, name := range []string{"fps", "jank_pct", "p99_ms"} {
		if m := metric(t, res.Metrics, name); m.Verdict != Inconclusive || m.P != nil || m.Diff == nil || m.Method != MethodNone {
			t.Errorf("%s: %+v", name, m)
		}
	}
	if len(res.Warnings) == 0 || !strings.Contains(strings.Join(res.Warnings, " "), "inconclusive") {
		t.Errorf("warnings %q", res.Warnings)
	}
}

// Point values are the reports' values: a comparison never disagrees with fpstop report.
func TestValuesAreTheReports(t *testing.T) {
	dir := t.TempDir()
	path := simRecording(t, dir, "demo", 60, 3, 20*time.Second)
	run := load(t, path)[0]
	an, err := report.Analyse(path, metrics.Config{}, metrics.ReportMeta{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := an.Report
	res, err := Compare([]*Run{run}, []*Run{run}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Metrics {
		want := runValues(rep).reported(metricDefs[indexOf(m.Name)])
		if m.Base == nil || math.Abs(*m.Base-want) > 0.005 || *m.New != *m.Base || *m.Diff != 0 || m.Significant {
			t.Errorf("%s: %+v, report %v", m.Name, m, want)
		}
	}
}

func indexOf(name string) int {
	for i, d := range metricDefs {
		if d.name == name {
			return i
		}
	}
	return -1
}

// Several recordings on both sides are tested across runs, and the result is reproducible.
func TestIterationsAndDeterminism(t *testing.T) {
	dir := t.TempDir()
	var bp, np []string
	for s := int64(1); s <= 3; s++ {
		bp = append(bp, simRecording(t, dir, "smooth", 60, s, 10*time.Second))
		np = append(np, simRecording(t, dir, "janky", 60, s, 10*time.Second))
	}
	base, new := load(t, bp...), load(t, np...)
	a, err := Compare(base, new, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	fps := metric(t, a.Metrics, "fps")
	// 3 + 3: an exact test cannot reach p < 0.025 (its smallest is 0.1), so Welch's t
	if fps.Method != MethodWelch || fps.NBase != 3 || fps.NNew != 3 || fps.PMin != nil {
		t.Errorf("fps method %s n %d/%d", fps.Method, fps.NBase, fps.NNew)
	}
	var sum float64
	for _, r := range base {
		sum += float64(*r.Report.FPS)
	}
	if math.Abs(*fps.Base-sum/3) > 0.01 {
		t.Errorf("base fps %v, mean of the reports %v", *fps.Base, sum/3)
	}
	b, _ := Compare(base, new, DefaultOptions())
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if string(ja) != string(jb) {
		t.Error("the same inputs and seed gave different results")
	}
}

func TestInterval(t *testing.T) {
	reps := make([]float64, 999)
	for i := range reps {
		reps[i] = float64(i + 1) // all above zero
	}
	lo, hi, p, ok := interval(reps, 0.95)
	if !ok || lo < 20 || lo > 30 || hi < 970 || hi > 980 || math.Abs(p-2.0/1000) > 1e-12 {
		t.Errorf("lo %v hi %v p %v", lo, hi, p)
	}
	for i := range reps {
		reps[i] = float64(i - 499) // centred on zero
	}
	if _, _, p, _ := interval(reps, 0.95); p < 0.9 {
		t.Errorf("centred: p %v", p)
	}
	if _, _, _, ok := interval([]float64{math.NaN(), math.NaN(), 1}, 0.95); ok {
		t.Error("mostly NaN replicates gave an interval")
	}
}

func TestGateMessages(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	worse := Metric{Name: "fps", Unit: UnitFPS, Base: f(60), New: f(50), Diff: f(-10), CILow: f(-12), CIHigh: f(-8), P: f(0.001), Significant: true, Verdict: Worse}
	if g := gate(GateMaxFPSDrop, "run", "", 2, worse, -1, 0.95); !g.Failed || *g.Measured != 10 {
		t.Errorf("%+v", g)
	}
	if g := gate(GateMaxFPSDrop, "run", "", 12, worse, -1, 0.95); g.Failed {
		t.Errorf("within the threshold: %+v", g)
	}
	if g := gate(GateMaxFPSDrop, "run", "", 2, Metric{Name: "fps", Unit: UnitFPS, Diff: f(-10), Verdict: Inconclusive}, -1, 0.95); g.Failed || !strings.Contains(g.Message, "not checked") {
		t.Errorf("one run a side: %+v", g)
	}
	noise := worse
	noise.Significant, noise.Verdict = false, Unchanged
	if g := gate(GateMaxFPSDrop, "window", "w", 2, noise, -1, 0.95); g.Failed {
		t.Errorf("not significant: %+v", g)
	}
	if g := gate(GateMaxJankIncrease, "run", "", 1, Metric{Name: "jank_pct", Unit: UnitPct}, 1, 0.95); !g.Failed {
		t.Errorf("unknown value passed: %+v", g)
	}
}

// The 3 + 3 example: an exact test's p cannot go below 0.1, Welch's t gives about 0.05
// (not the 0.001 a bootstrap of three values gave).
func TestFewIterations(t *testing.T) {
	base, new := []float64{62.67, 61.53, 65.97}, []float64{57.58, 58.17, 59.19}
	r, ok := testIterations(base, new, 0.95, 0.025)
	if !ok || r.method != MethodWelch || r.p < 0.03 || r.p > 0.1 {
		t.Errorf("%+v", r)
	}
	if p := permutationP(base, new); math.Abs(p-0.1) > 1e-12 {
		t.Errorf("exact p %v, want 0.1 (2 of 20 splits)", p)
	}
	if r, _ := testIterations(base, new, 0.95, 0.2); r.method != MethodPermutation || r.p != 0.1 || r.pMin != 0.1 {
		t.Errorf("at alpha 0.2 the exact test can reach: %+v", r)
	}
	// identical values on both sides: nothing to test
	if _, ok := testIterations([]float64{1, 1}, []float64{1, 1}, 0.95, 0.05); ok {
		t.Error("no spread and no difference tested")
	}
}

// test's summary: the t interval of the example (mean 40.64, sd 0.94, n 3 → 38.3 to
// 43.0), not the min..max.
func TestTInterval(t *testing.T) {
	x := []float64{40.64 - 0.94, 40.64, 40.64 + 0.94}
	lo, hi := tInterval(x, 0.95)
	if math.Abs(lo-38.3) > 0.05 || math.Abs(hi-43.0) > 0.05 {
		t.Errorf("t interval [%v, %v]", lo, hi)
	}
}

// Holm: sorted p-values times m, m − 1, …, never decreasing, at most 1; NaN left out.
func TestHolm(t *testing.T) {
	got := holm([]float64{0.04, 0.01, math.NaN(), 0.03, 0.5})
	want := []float64{0.09, 0.04, math.NaN(), 0.09, 0.5} // 0.01·4, 0.03·3, max(0.04·2, 0.09), 0.5
	for i := range want {
		if math.IsNaN(want[i]) != math.IsNaN(got[i]) || !math.IsNaN(want[i]) && math.Abs(got[i]-want[i]) > 1e-12 {
			t.Errorf("holm %v, want %v", got, want)
			break
		}
	}
}

// TestWarningsBesideTheVerdict: the text and Markdown outputs say what limits a comparison right
// under the verdict, and print p as the test gives it (never "0"; "≤" at the test's floor).
func TestWarningsBesideTheVerdict(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	r := &Result{Confidence: 0.95, Verdict: Inconclusive, Warnings: []string{"1 and 1 recording(s): inconclusive"},
		Metrics: []Metric{{Name: "fps", Gated: true, Base: f(60), New: f(50), Diff: f(-10), P: f(0.00794), PMin: f(0.00794), PHolm: f(0.0159), CILow: f(-12), CIHigh: f(-8), Verdict: Worse, Significant: true},
			{Name: "p99_ms", Base: f(30), New: f(31), Diff: f(1), P: f(0.00001), Verdict: Unchanged}}}
	var text, md strings.Builder
	if err := WriteText(&text, r); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(text.String(), "\n")
	if !strings.Contains(lines[0], "INCONCLUSIVE") || !strings.Contains(lines[1], "warning: 1 and 1 recording(s)") {
		t.Errorf("text: the warning is not under the verdict:\n%s", text.String())
	}
	if !strings.Contains(text.String(), "≤0.00794") || !strings.Contains(text.String(), "<0.0001") || !strings.Contains(text.String(), "(info)") {
		t.Errorf("text: p-values or the informational mark:\n%s", text.String())
	}
	mdLines := strings.Split(md.String(), "\n")
	if !strings.Contains(mdLines[0], "inconclusive") || !strings.Contains(mdLines[2], "⚠️ 1 and 1") {
		t.Errorf("markdown: the warning is not under the verdict:\n%s", md.String())
	}
}

// Perfetto recordings carry FrameTimeline's blame, and a comparison of them compares each
// party's share of frames (informational: never the verdict); one without leaves them out.
func TestBlameCompared(t *testing.T) {
	r2 := func(v float64) *metrics.R2 { x := metrics.R2(v); return &x }
	run := func(frames int64, blame *metrics.Blame) *Run {
		return &Run{Report: &metrics.Report{Frames: frames, FPS: r2(55), JankPct: r2(10), Blame: blame,
			Windows: []metrics.WindowReport{{Name: "com.example/.Main", Frames: frames, FPS: r2(55), JankPct: r2(10), Blame: blame}}}}
	}
	base := run(400, &metrics.Blame{App: 40, SurfaceFlinger: 8, BufferStuffing: 20})
	newer := run(500, &metrics.Blame{App: 10, SurfaceFlinger: 10, BufferStuffing: 25, Dropped: 5})
	res, err := Compare([]*Run{base}, []*Run{newer}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2]float64{"blame_app_pct": {10, 2}, "blame_surfaceflinger_pct": {2, 2}, "blame_display_pct": {0, 0},
		"blame_prediction_pct": {0, 0}, "blame_buffer_stuffing_pct": {5, 5}, "blame_dropped_pct": {0, 1}}
	for _, ms := range [][]Metric{res.Metrics, res.Windows[0].Metrics} {
		got := 0
		for _, m := range ms {
			w, ok := want[m.Name]
			if !ok {
				continue
			}
			got++
			if m.Base == nil || m.New == nil || *m.Base != w[0] || *m.New != w[1] || m.Gated || m.Better != "lower" {
				t.Errorf("%s: %+v, want base %v new %v, informational, lower is better", m.Name, m, w[0], w[1])
			}
		}
		if got != len(want) {
			t.Errorf("%d blame metrics compared, want %d", got, len(want))
		}
	}
	res, err = Compare([]*Run{run(400, nil)}, []*Run{run(400, nil)}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Metrics {
		if strings.HasPrefix(m.Name, "blame_") {
			t.Errorf("a comparison without blame compares %s", m.Name)
		}
	}
}
