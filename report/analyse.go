package report

import (
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// Analysis is what one pass over a recording gives every report: the report (the JSON and
// Markdown reports print it), the whole run's FPS series (Markdown's sparkline, the HTML
// charts), the recording's header and the pipeline's final view of the session (its origin,
// refresh rate and drop thresholds), and the gaps the source could not see. Fed the same events
// (the recording's session first), the pipeline gives the live run's report; meta.WallNs, when
// 0, is the live run's wall duration the recording's end line kept (0 in older recordings:
// duration_s is then the span of the events).
type Analysis struct {
	Report *metrics.Report
	// Series is the FPS per slice over the whole recording, oldest first.
	Series []metrics.SlicePoint
	Header record.Header
	// HasHeader is false for a recording without a header line.
	HasHeader bool
	// Snapshot is the pipeline's state after the last event (OriginNs, RefreshHz,
	// DropThresholds, TargetFPS, SliceNs); its Series is the ring's, use Series instead.
	Snapshot *metrics.Snapshot
	Gaps     []source.Gap
}

// Analyse reads a recording once through a metrics pipeline and returns its Analysis. onFrame,
// when set, is called for every frame the report counts, in order, classified exactly as the
// report counts it (Looper-derived frames included; see metrics.Pipeline.OnFrame), so a chart
// of the frames agrees with the report's numbers.
func Analyse(path string, cfg metrics.Config, meta metrics.ReportMeta, onFrame func(*metrics.ClassifiedFrame)) (*Analysis, error) {
	p := metrics.NewPipeline(Offline(cfg))
	if onFrame != nil {
		p.OnFrame(func(c metrics.ClassifiedFrame) { onFrame(&c) })
	}
	sc := NewSeriesCollector(p, cfg)
	a := &Analysis{}
	r, err := record.ReadBatches(path, func(evs []source.Event) {
		for _, ev := range evs {
			if g, ok := ev.(*source.Gap); ok {
				a.Gaps = append(a.Gaps, *g)
			}
		}
		sc.Feed(evs)
	})
	if err != nil {
		return nil, err
	}
	if e := r.End(); meta.WallNs == 0 && e != nil {
		meta.WallNs = e.WallNs // the live run's duration, when its recording kept it
	}
	a.Report = p.Report(meta) // also releases the frames held back at the end
	a.Series = sc.Finish()
	a.Snapshot = p.Snapshot()
	a.Header, a.HasHeader = r.Header, r.HasHeader
	return a, nil
}
