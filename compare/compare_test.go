package compare

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
)

// simPair records two simulator runs (60 s of virtual time each) once per test binary.
func simPair(t *testing.T, a, b string, hz float64, seedA, seedB int64) (*Run, *Run) {
	t.Helper()
	dir := t.TempDir()
	runs := load(t, simRecording(t, dir, a, hz, seedA, 60*time.Second), simRecording(t, dir, b, hz, seedB, 60*time.Second))
	return runs[0], runs[1]
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

// The first "done when": janky against smooth at 120 Hz is worse, significantly, and the
// fps gate fails.
func TestJankyAgainstSmoothIsWorse(t *testing.T) {
	if testing.Short() {
		t.Skip("records two 60 s simulator runs")
	}
	base, new := simPair(t, "smooth", "janky", 120, 1, 1)
	res, err := Compare([]*Run{base}, []*Run{new}, gated())
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Worse || !res.GatesFailed {
		t.Fatalf("verdict %s, gates failed %v", res.Verdict, res.GatesFailed)
	}
	fps := metric(t, res.Metrics, "fps")
	// expectations from the reports themselves, not hard-coded numbers
	wantDiff := float64(*new.Report.FPS) - float64(*base.Report.FPS)
	if !fps.Significant || fps.Verdict != Worse || math.Abs(*fps.Diff-wantDiff) > 0.01 || fps.Method != MethodBlockBootstrap {
		t.Errorf("fps: %+v (reports differ by %.2f)", fps, wantDiff)
	}
	if *fps.CILow > *fps.Diff || *fps.CIHigh < *fps.Diff || *fps.CIHigh >= 0 || *fps.P >= 0.05 {
		t.Errorf("fps interval %v..%v p %v around %v", *fps.CILow, *fps.CIHigh, *fps.P, *fps.Diff)
	}
	jank := metric(t, res.Metrics, "jank_pct")
	if jank.Verdict != Worse || *jank.Diff <= 0 {
		t.Errorf("jank: %+v", jank)
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
		t.Errorf("no slow message got slower in the janky run: %+v", res.Messages)
	}
}

// The second: two seeds of the same scenario are unchanged, and no gate fails.
func TestSeedsOfOneScenarioAreUnchanged(t *testing.T) {
	if testing.Short() {
		t.Skip("records two 60 s simulator runs")
	}
	base, new := simPair(t, "smooth", "smooth", 120, 1, 2)
	res, err := Compare([]*Run{base}, []*Run{new}, gated())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"fps", "jank_pct"} {
		if m := metric(t, res.Metrics, name); m.Verdict != Unchanged || m.Significant || m.Method != MethodBlockBootstrap {
			t.Errorf("%s: %+v", name, m)
		}
	}
	if res.GatesFailed || len(res.Gates) < 2 {
		t.Errorf("gates: %+v", res.Gates)
	}
}

// Point values are the reports' values: a comparison never disagrees with fpstop report.
func TestValuesAreTheReports(t *testing.T) {
	dir := t.TempDir()
	path := simRecording(t, dir, "demo", 60, 3, 20*time.Second)
	run := load(t, path)[0]
	rep, err := record.Report(path, metrics.Config{}, metrics.ReportMeta{})
	if err != nil {
		t.Fatal(err)
	}
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
	var frames float64
	for _, s := range run.Total {
		frames += s.f[fFrames]
	}
	if int64(frames) != rep.Frames {
		t.Errorf("slices hold %v frames, the report %d", frames, rep.Frames)
	}
	for _, w := range rep.Windows {
		var n float64
		for _, s := range run.Windows[w.Name] {
			n += s.f[fFrames]
		}
		if int64(n) != w.Frames {
			t.Errorf("window %s: slices %v frames, report %d", w.Name, n, w.Frames)
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
	if fps.Method != MethodIterationBootstrap || fps.NBase != 3 || fps.NNew != 3 {
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
	noise := worse
	noise.Significant, noise.Verdict = false, Unchanged
	if g := gate(GateMaxFPSDrop, "window", "w", 2, noise, -1, 0.95); g.Failed {
		t.Errorf("not significant: %+v", g)
	}
	if g := gate(GateMaxJankIncrease, "run", "", 1, Metric{Name: "jank_pct", Unit: UnitPct}, 1, 0.95); !g.Failed {
		t.Errorf("unknown value passed: %+v", g)
	}
}
