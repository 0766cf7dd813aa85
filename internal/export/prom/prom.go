// Package prom exposes fpstop's metrics to Prometheus with the official client library: a
// Collector that reads Snapshots at scrape time, an HTTP server for /metrics (OpenMetrics
// negotiated), and a textfile writer for node_exporter's textfile collector.
package prom

import (
	"math"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fpstop/fpstop/internal/export"
	"github.com/fpstop/fpstop/metrics"
)

// DefaultTopSignatures is how many slow-message signatures per device get their own series.
const DefaultTopSignatures = 10

var (
	deviceLabels = []string{"serial", "model", "android", "package", "source"}
	windowLabels = append(append([]string(nil), deviceLabels...), "window")
	msgLabels    = append(append([]string(nil), deviceLabels...), "signature")
)

// Collector is a prometheus.Collector over a Feed. Every value is read from the devices'
// Snapshots when Prometheus scrapes (const metrics), so nothing is double-counted or stale.
type Collector struct {
	feed export.Feed
	sigs *export.Signatures

	frames, janky, dropped, lost    *prometheus.Desc
	fps, fps10, frameTime, slow, up *prometheus.Desc
}

// NewCollector returns a Collector over feed; topN caps the slow-message signatures per device
// (0: DefaultTopSignatures).
func NewCollector(feed export.Feed, topN int) *Collector {
	if topN <= 0 {
		topN = DefaultTopSignatures
	}
	d := func(name, help string, labels []string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, labels, nil)
	}
	return &Collector{
		feed: feed,
		sigs: &export.Signatures{N: topN},
		frames: d("fpstop_frames_total",
			"Frames the window rendered, as fpstop counted them.", windowLabels),
		janky: d("fpstop_janky_frames_total",
			"Frames that missed at least one refresh (dropped ≥ 1).", windowLabels),
		dropped: d("fpstop_dropped_refreshes_total",
			"Refreshes (vsyncs) the window's frames missed: the sum of dropped over its frames.", windowLabels),
		lost: d("fpstop_frames_lost_total",
			"Frames the app rendered between two gfxinfo polls that fpstop could not see.", deviceLabels),
		fps: d("fpstop_fps",
			"FPS over the newest complete second (absent while the window is idle).", windowLabels),
		fps10: d("fpstop_fps_10s",
			"FPS over the newest ten complete seconds (absent when all were idle).", windowLabels),
		frameTime: d("fpstop_frame_time_seconds",
			"Frame time in Android's gfxinfo histogram buckets (le: a bucket's exclusive upper bound).", windowLabels),
		slow: d("fpstop_slow_messages_total",
			"Slow main-thread messages by signature (the first N per device; the rest as signature=\"other\").", msgLabels),
		up: d("fpstop_device_connected",
			"1 while the device is connected, 0 once it was unplugged.", deviceLabels),
	}
}

// Describe implements prometheus.Collector.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.frames, c.janky, c.dropped, c.lost, c.fps, c.fps10, c.frameTime, c.slow, c.up} {
		ch <- d
	}
}

// Collect implements prometheus.Collector.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	seen := map[string]bool{}
	for _, d := range c.feed() {
		if d.Snap == nil {
			continue
		}
		l := export.LabelsOf(d)
		if seen[l.Serial] {
			continue // one set of series per device: a duplicate would fail the whole scrape
		}
		seen[l.Serial] = true
		c.collectDevice(ch, d, l)
	}
}

func (c *Collector) collectDevice(ch chan<- prometheus.Metric, d export.Device, l export.Labels) {
	dev := []string{l.Serial, l.Model, l.Android, l.Package, l.Source}
	s := d.Snap
	connected := 0.0
	if d.Connected {
		connected = 1
	}
	ch <- prometheus.MustNewConstMetric(c.up, prometheus.GaugeValue, connected, dev...)
	if s.LostKnown {
		ch <- prometheus.MustNewConstMetric(c.lost, prometheus.CounterValue, float64(s.FramesLost), dev...)
	}
	tenS := export.SlicesIn(10, s.SliceNs)
	for _, w := range s.Windows {
		lv := append(append([]string(nil), dev...), w.Name)
		t := w.Totals
		ch <- prometheus.MustNewConstMetric(c.frames, prometheus.CounterValue, float64(t.Frames), lv...)
		ch <- prometheus.MustNewConstMetric(c.janky, prometheus.CounterValue, float64(t.Janky), lv...)
		ch <- prometheus.MustNewConstMetric(c.dropped, prometheus.CounterValue, float64(t.Dropped), lv...)
		if d.Connected {
			if v, ok := export.LastFPS(w.Series); ok {
				ch <- prometheus.MustNewConstMetric(c.fps, prometheus.GaugeValue, v, lv...)
			}
			if v, ok := export.FPSOver(w.Series, tenS); ok {
				ch <- prometheus.MustNewConstMetric(c.fps10, prometheus.GaugeValue, v, lv...)
			}
		}
		ch <- c.histogram(w.Histogram, float64(t.HistSumNs)/1e9, lv)
	}
	for _, sc := range c.sigs.Counts(l.Serial, s.Messages) {
		lv := append(append([]string(nil), dev...), sc.Signature)
		ch <- prometheus.MustNewConstMetric(c.slow, prometheus.CounterValue, float64(sc.Count), lv...)
	}
}

// histogram builds the cumulative classic histogram of one window over Android's bounds.
func (c *Collector) histogram(h []metrics.HistogramBucket, sumS float64, lv []string) prometheus.Metric {
	bounds := export.BucketBoundsSeconds()
	counts := export.BucketCounts(h)
	cum := make(map[float64]uint64, len(bounds))
	var n uint64
	for i, b := range bounds {
		n += counts[i]
		cum[b] = n
	}
	n += counts[len(counts)-1]
	if math.IsNaN(sumS) {
		sumS = 0
	}
	return prometheus.MustNewConstHistogram(c.frameTime, n, sumS, cum, lv...)
}
