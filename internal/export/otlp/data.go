package otlp

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/fpstop/fpstop/internal/export"
)

// scope names fpstop as the instrumentation that produced the metrics.
var scope = instrumentation.Scope{Name: "github.com/fpstop/fpstop"}

// scopeMetrics turns one device into OTLP metric data, cumulative since start. Names follow
// OpenTelemetry's conventions (dots, units as UCUM, no _total): a Collector's Prometheus
// exporter turns them into the same names as fpstop's own /metrics (fpstop.frames →
// fpstop_frames_total, fpstop.frame_time in s → fpstop_frame_time_seconds).
func scopeMetrics(d export.Device, sigs *export.Signatures, start, now time.Time) metricdata.ScopeMetrics {
	l := export.LabelsOf(d)
	s := d.Snap
	dev := []attribute.KeyValue{
		attribute.String("serial", l.Serial), attribute.String("package", l.Package), attribute.String("source", l.Source),
	}
	var frames, janky, dropped, lost, slow []metricdata.DataPoint[int64]
	var fps, fps10 []metricdata.DataPoint[float64]
	var hist []metricdata.HistogramDataPoint[float64]
	ip := func(v int64, kv ...attribute.KeyValue) metricdata.DataPoint[int64] {
		return metricdata.DataPoint[int64]{Attributes: attribute.NewSet(kv...), StartTime: start, Time: now, Value: v}
	}
	fp := func(v float64, kv ...attribute.KeyValue) metricdata.DataPoint[float64] {
		return metricdata.DataPoint[float64]{Attributes: attribute.NewSet(kv...), StartTime: start, Time: now, Value: v}
	}
	with := func(kv attribute.KeyValue) []attribute.KeyValue {
		return append(append([]attribute.KeyValue(nil), dev...), kv)
	}
	if s.LostKnown {
		lost = append(lost, ip(s.FramesLost, dev...))
	}
	tenS := export.SlicesIn(10, s.SliceNs)
	bounds := export.BucketBoundsSeconds()
	for _, w := range s.Windows {
		kv := with(attribute.String("window", w.Name))
		frames = append(frames, ip(w.Totals.Frames, kv...))
		janky = append(janky, ip(w.Totals.Janky, kv...))
		dropped = append(dropped, ip(w.Totals.Dropped, kv...))
		if d.Connected {
			if v, ok := export.LastFPS(w.Series); ok {
				fps = append(fps, fp(v, kv...))
			}
			if v, ok := export.FPSOver(w.Series, tenS); ok {
				fps10 = append(fps10, fp(v, kv...))
			}
		}
		counts := export.BucketCounts(w.Histogram)
		var n uint64
		for _, c := range counts {
			n += c
		}
		hist = append(hist, metricdata.HistogramDataPoint[float64]{
			Attributes: attribute.NewSet(kv...), StartTime: start, Time: now,
			Count: n, Sum: float64(w.Totals.HistSumNs) / 1e9, Bounds: bounds, BucketCounts: counts,
		})
	}
	for _, sc := range sigs.Counts(l.Serial, s.Messages) {
		slow = append(slow, ip(sc.Count, with(attribute.String("signature", sc.Signature))...))
	}
	counter := func(name, unit, desc string, pts []metricdata.DataPoint[int64]) metricdata.Metrics {
		return metricdata.Metrics{Name: name, Unit: unit, Description: desc,
			Data: metricdata.Sum[int64]{DataPoints: pts, Temporality: metricdata.CumulativeTemporality, IsMonotonic: true}}
	}
	gauge := func(name, desc string, pts []metricdata.DataPoint[float64]) metricdata.Metrics {
		return metricdata.Metrics{Name: name, Unit: "{frame}/s", Description: desc, Data: metricdata.Gauge[float64]{DataPoints: pts}}
	}
	ms := []metricdata.Metrics{
		counter("fpstop.frames", "{frame}", "Frames the window rendered, as fpstop counted them.", frames),
		counter("fpstop.janky_frames", "{frame}", "Frames that missed at least one refresh.", janky),
		counter("fpstop.dropped_refreshes", "{refresh}", "Refreshes the window's frames missed.", dropped),
		counter("fpstop.slow_messages", "{message}", "Slow main-thread messages by signature (capped; the rest as \"other\").", slow),
		gauge("fpstop.fps", "FPS over the newest complete second.", fps),
		gauge("fpstop.fps_10s", "FPS over the newest ten complete seconds.", fps10),
		{Name: "fpstop.frame_time", Unit: "s", Description: "Frame time in Android's gfxinfo histogram buckets.",
			Data: metricdata.Histogram[float64]{DataPoints: hist, Temporality: metricdata.CumulativeTemporality}},
	}
	if len(lost) > 0 {
		ms = append(ms, counter("fpstop.frames_lost", "{frame}", "Frames rendered between two gfxinfo polls that fpstop could not see.", lost))
	}
	out := ms[:0]
	for _, m := range ms {
		if !empty(m) {
			out = append(out, m)
		}
	}
	return metricdata.ScopeMetrics{Scope: scope, Metrics: out}
}

// empty says whether a metric has no data points (not sent: an empty metric is noise).
func empty(m metricdata.Metrics) bool {
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		return len(d.DataPoints) == 0
	case metricdata.Gauge[float64]:
		return len(d.DataPoints) == 0
	case metricdata.Histogram[float64]:
		return len(d.DataPoints) == 0
	}
	return false
}
