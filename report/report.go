// Package report turns a recording into what a person or a CI job reads after the run: the
// report (metrics.Report, printed as JSON, text or Markdown), one CSV row per frame, and the CI
// gates. The HTML page is report/html and the Perfetto trace report/trace; both build on this
// package, and all of them read recordings through package record.
package report

import (
	"fmt"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// Offline is cfg for a pipeline that reads a recording for a report, an export or a comparison:
// it keeps no frame history (only the screen's timeline reads it, and at 120 Hz it holds up to
// 2^19 frames), so the memory of a report does not follow the recording's length.
func Offline(cfg metrics.Config) metrics.Config {
	cfg.HistoryLen = -1
	return cfg
}

// SeriesCollector feeds a pipeline and gathers its FPS series over a run longer than the
// series ring: it takes a Snapshot whenever the device time has advanced by half the ring.
type SeriesCollector struct {
	p       *metrics.Pipeline
	everyNs int64
	nextNs  int64
	out     []metrics.SlicePoint
}

func NewSeriesCollector(p *metrics.Pipeline, cfg metrics.Config) *SeriesCollector {
	slice, n := cfg.SliceNs, cfg.SeriesLen
	if slice <= 0 {
		slice = 1e9
	}
	if n <= 0 {
		n = 600
	}
	return &SeriesCollector{p: p, everyNs: max(slice*int64(n/2), slice)}
}

// Feed applies evs to the pipeline, taking a Snapshot just before the first event whose time
// is half a ring past the previous Snapshot, so no slice leaves the ring unseen.
func (c *SeriesCollector) Feed(evs []source.Event) {
	start := 0
	for i, ev := range evs {
		at := ev.At()
		if at <= 0 {
			continue
		}
		if c.nextNs == 0 {
			c.nextNs = at + c.everyNs
			continue
		}
		if at >= c.nextNs {
			c.p.AddBatch(evs[start:i])
			start = i
			c.merge(c.p.Snapshot().Series)
			c.nextNs = at + c.everyNs
		}
	}
	c.p.AddBatch(evs[start:])
}

// merge appends the points newer than those already kept; a kept partial slice is replaced by
// its newer state.
func (c *SeriesCollector) merge(pts []metrics.SlicePoint) {
	for _, pt := range pts {
		n := len(c.out)
		switch {
		case n == 0 || pt.StartNs > c.out[n-1].StartNs:
			c.out = append(c.out, pt)
		case pt.StartNs == c.out[n-1].StartNs && c.out[n-1].Partial:
			c.out[n-1] = pt
		}
	}
}

// Finish returns the series of the whole run, oldest first.
func (c *SeriesCollector) Finish() []metrics.SlicePoint {
	c.merge(c.p.Snapshot().Series)
	return c.out
}

// Plural counts a noun, singular for one: "1 frame", "2 frames".
func Plural[T ~int | ~int32 | ~int64](n T, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// num prints a float with at most two decimals and no trailing zeros.
func num(f float64) string {
	s := fmt.Sprintf("%.2f", f)
	for len(s) > 0 && s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	return trimDot(s)
}

func trimDot(s string) string {
	if len(s) > 0 && s[len(s)-1] == '.' {
		return s[:len(s)-1]
	}
	return s
}
