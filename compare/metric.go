package compare

import (
	"math"

	"github.com/fpstop/fpstop/metrics"
)

type metricKind int

const (
	kindFPS metricKind = iota
	kindJank
	kindLevel
	kindPercentile
	kindBlame
)

// Units of a metric's value and difference.
const (
	UnitFPS = "fps"
	UnitPct = "pct" // percent of frames; differences are percentage points
	UnitMs  = "ms"
)

// metricDef is one compared metric.
type metricDef struct {
	name   string
	unit   string
	kind   metricKind
	level  int // kindLevel: 0 best … 4 frozen
	pct    int // kindPercentile: 50, 90, 95, 99
	blame  int // kindBlame: app, SurfaceFlinger, display, prediction, buffer stuffing, dropped
	higher bool
}

// metricDefs are the metrics compared, for the run and for each window, in output order.
var metricDefs = []metricDef{
	{name: "fps", unit: UnitFPS, kind: kindFPS, higher: true},
	{name: "jank_pct", unit: UnitPct, kind: kindJank},
	{name: "drop_best_pct", unit: UnitPct, kind: kindLevel, level: 0, higher: true},
	{name: "drop_normal_pct", unit: UnitPct, kind: kindLevel, level: 1},
	{name: "drop_middle_pct", unit: UnitPct, kind: kindLevel, level: 2},
	{name: "drop_high_pct", unit: UnitPct, kind: kindLevel, level: 3},
	{name: "drop_frozen_pct", unit: UnitPct, kind: kindLevel, level: 4},
	{name: "p50_ms", unit: UnitMs, kind: kindPercentile, pct: 50},
	{name: "p90_ms", unit: UnitMs, kind: kindPercentile, pct: 90},
	{name: "p95_ms", unit: UnitMs, kind: kindPercentile, pct: 95},
	{name: "p99_ms", unit: UnitMs, kind: kindPercentile, pct: 99},
}

// blameDefs are compared too when a side's recordings carry FrameTimeline's blame (Perfetto):
// the share of frames each party missed the deadline of, in the order of metrics.Blame.
var blameDefs = []metricDef{
	{name: "blame_app_pct", unit: UnitPct, kind: kindBlame, blame: 0},
	{name: "blame_surfaceflinger_pct", unit: UnitPct, kind: kindBlame, blame: 1},
	{name: "blame_display_pct", unit: UnitPct, kind: kindBlame, blame: 2},
	{name: "blame_prediction_pct", unit: UnitPct, kind: kindBlame, blame: 3},
	{name: "blame_buffer_stuffing_pct", unit: UnitPct, kind: kindBlame, blame: 4},
	{name: "blame_dropped_pct", unit: UnitPct, kind: kindBlame, blame: 5},
}

// defsFor is what a comparison of these runs compares: metricDefs, and blameDefs when any run
// has blame (a comparison without Perfetto recordings stays as it was).
func defsFor(runs ...[]*Run) []metricDef {
	for _, rs := range runs {
		for _, r := range rs {
			if r.Report.Blame != nil {
				return append(append([]metricDef(nil), metricDefs...), blameDefs...)
			}
		}
	}
	return metricDefs
}

// scopeValues are the numbers a report gives for the run or for one window.
type scopeValues struct {
	frames int64
	fps    *metrics.R2
	jank   *metrics.R2
	levels metrics.DropLevels
	pcts   *metrics.Percentiles
	blame  *metrics.Blame
}

func runValues(r *metrics.Report) scopeValues {
	return scopeValues{frames: r.Frames, fps: r.FPS, jank: r.JankPct, levels: r.DropLevels, pcts: r.PercentilesMs, blame: r.Blame}
}

func windowValues(w *metrics.WindowReport) scopeValues {
	return scopeValues{frames: w.Frames, fps: w.FPS, jank: w.JankPct, levels: w.DropLevels, pcts: w.PercentilesMs, blame: w.Blame}
}

// reported is metric m as the report gives it; NaN when the report has none.
func (v scopeValues) reported(m metricDef) float64 {
	r2 := func(p *metrics.R2) float64 {
		if p == nil {
			return math.NaN()
		}
		return float64(*p)
	}
	if v.frames == 0 {
		return math.NaN()
	}
	switch m.kind {
	case kindFPS:
		return r2(v.fps)
	case kindJank:
		return r2(v.jank)
	case kindLevel:
		l := [5]int64{v.levels.Best, v.levels.Normal, v.levels.Middle, v.levels.High, v.levels.Frozen}
		return float64(l[m.level]) / float64(v.frames) * 100
	case kindBlame:
		if v.blame == nil {
			return math.NaN()
		}
		b := v.blame
		n := [6]int64{b.App, b.SurfaceFlinger, b.Display, b.Prediction, b.BufferStuffing, b.Dropped}
		return float64(n[m.blame]) / float64(v.frames) * 100
	case kindPercentile:
		if v.pcts == nil {
			return math.NaN()
		}
		switch m.pct {
		case 50:
			return float64(v.pcts.P50)
		case 90:
			return float64(v.pcts.P90)
		case 95:
			return float64(v.pcts.P95)
		default:
			return float64(v.pcts.P99)
		}
	}
	return math.NaN()
}

// minEffect is the smallest difference of metric m that counts.
func (e MinEffect) of(m metricDef) float64 {
	switch m.unit {
	case UnitFPS:
		return e.FPS
	case UnitPct:
		return e.Pct
	}
	return e.Ms
}
