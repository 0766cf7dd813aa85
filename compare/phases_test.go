package compare

import (
	"strings"
	"testing"

	"github.com/fpstop/fpstop/metrics"
)

// phaseRun is a run whose report has windows (name → frames), layers and an active share.
func phaseRun(active float64, windows map[string]int64, layers map[string]int64) *Run {
	r := &metrics.Report{ActivePct: metrics.P2(active)}
	for n, f := range windows {
		r.Windows = append(r.Windows, metrics.WindowReport{Name: n, Frames: f})
	}
	for n, f := range layers {
		r.Layers = append(r.Layers, metrics.LayerReport{Name: n, Frames: f})
	}
	return &Run{Report: r}
}

// The sides caught different phases when a quarter or more of their frames were drawn in
// different windows or layers (averaged per run), or the app drew for shares of the time 25
// points apart; runs of the same steps whose shares wobble are not warned about.
func TestPhaseWarnings(t *testing.T) {
	act := "com.example/.Main"
	same := []*Run{phaseRun(90, map[string]int64{act: 1000, "PopupWindow:1": 100}, nil),
		phaseRun(85, map[string]int64{act: 900, "PopupWindow:1": 200}, nil)}
	for _, c := range []struct {
		name string
		new  []*Run
		want string // "" none; else a part of the warning
	}{
		{"same steps", []*Run{phaseRun(80, map[string]int64{act: 1100, "PopupWindow:1": 150}, nil),
			phaseRun(88, map[string]int64{act: 950}, nil)}, ""},
		{"mostly in a popup", []*Run{phaseRun(88, map[string]int64{act: 300, "PopupWindow:1": 700}, nil),
			phaseRun(86, map[string]int64{act: 400, "PopupWindow:1": 600}, nil)}, "51 % of their frames were drawn in different windows or layers (window com.example/.Main: 86 % of BASE's frames, 35 % of NEW's)"},
		{"a game's layer", []*Run{phaseRun(90, map[string]int64{act: 200}, map[string]int64{"SurfaceView[com.example/.Game]#0": 1800}),
			phaseRun(90, map[string]int64{act: 1000}, nil)}, "45 % of their frames"},
		{"idle", []*Run{phaseRun(40, map[string]int64{act: 500, "PopupWindow:1": 50}, nil),
			phaseRun(50, map[string]int64{act: 500, "PopupWindow:1": 50}, nil)}, "88 % of BASE's time and 45 % of NEW's"},
	} {
		got := strings.Join(phaseWarnings(same, c.new), "\n")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) || (got != "" && !strings.HasPrefix(got, PhaseWarning)) {
			t.Errorf("%s: warnings %q, want one with %q", c.name, got, c.want)
		}
	}
	// in a comparison, beside the other warnings
	res, err := Compare(same, []*Run{phaseRun(40, map[string]int64{act: 500}, nil), phaseRun(50, map[string]int64{act: 500}, nil)}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), PhaseWarning) {
		t.Errorf("compare's warnings %q", res.Warnings)
	}
}
