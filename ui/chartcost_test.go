package ui

import (
	"testing"
	"time"

	"github.com/NimbleMarkets/ntcharts/barchart"
	"github.com/NimbleMarkets/ntcharts/linechart/timeserieslinechart"
	"github.com/NimbleMarkets/ntcharts/sparkline"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/fpstop/fpstop/internal/testkit/fixture"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
)

// What a chart costs to draw, hand-drawn (the dashboard's panels) against ntcharts drawing the
// same data at the same size, in process (no terminal: the cost of building the string a View
// returns). docs/architecture.md quotes these. The small panels redraw on every new snapshot
// (4 times a second), so their cost is paid all the time; the timeline only while it is open.
//
//	go test -run '^$' -bench 'ChartCost' -benchmem ./ui/

// chartW, chartH are the frame-time panel's size in the 120×40 full layout.
const chartW, chartH = 72, 12

// benchStyles are the default theme's styles in TrueColor (the test binary draws in ASCII:
// colour is part of what a chart costs), restored when the benchmark ends.
func benchStyles(b *testing.B) *themes.Styles {
	prev := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	b.Cleanup(func() { lipgloss.SetColorProfile(prev) })
	th, _ := themes.Get(themes.Default)
	st := themes.NewStyles(th, true)
	return &st
}

// BenchmarkChartCostFrameTimeHandDrawn: the frame-time panel (one column per recent frame,
// coloured by drop level, the budget line) redrawn from a snapshot.
func BenchmarkChartCostFrameTimeHandDrawn(b *testing.B) {
	m := newFrameTime(benchStyles(b))
	m, _ = m.Update(dataMsg{snap: fixture.Live(1)})
	m = m.SetSize(chartW, chartH)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		m = m.render()
	}
}

// BenchmarkChartCostFrameTimeNtchartsBars: the same frames as an ntcharts bar chart with a
// style per bar (the nearest ntcharts has to the panel's per-frame colours).
func BenchmarkChartCostFrameTimeNtchartsBars(b *testing.B) {
	st := benchStyles(b)
	fs := fixture.Live(1).Recent
	cols := chartW - 4 - 5
	fs = fs[len(fs)-cols:]
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c := barchart.New(chartW-4, chartH-2, barchart.WithBarGap(0), barchart.WithBarWidth(1), barchart.WithNoAutoBarWidth())
		for _, f := range fs {
			c.Push(barchart.BarData{Values: []barchart.BarValue{{Value: f.CostMs, Style: st.DropLevel[f.Level]}}})
		}
		c.Draw()
		_ = c.View()
	}
}

// BenchmarkChartCostFrameTimeNtchartsBraille: the same frames as an ntcharts braille
// time-series line (what the timeline uses).
func BenchmarkChartCostFrameTimeNtchartsBraille(b *testing.B) {
	st := benchStyles(b)
	fs := fixture.Live(1).Recent
	lo, hi := fs[0].VsyncNs, fs[len(fs)-1].VsyncNs
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c := timeserieslinechart.New(chartW-4, chartH-2,
			timeserieslinechart.WithTimeRange(chartTime(lo, lo), chartTime(hi, lo)),
			timeserieslinechart.WithYRange(0, 100), timeserieslinechart.WithStyle(st.GraphLine))
		for _, f := range fs {
			c.Push(timeserieslinechart.TimePoint{Time: chartTime(f.VsyncNs, lo), Value: min(f.CostMs, 100)})
		}
		c.DrawBraille()
		_ = c.View()
	}
}

// BenchmarkChartCostFPSHandDrawn: the FPS panel (one bar per slice, coloured against the
// target, idle slices marked) redrawn from a snapshot.
func BenchmarkChartCostFPSHandDrawn(b *testing.B) {
	m := newFPS(benchStyles(b), 55)
	m, _ = m.Update(dataMsg{snap: fixture.Live(1)})
	m = m.SetSize(chartW, 9)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		m = m.render()
	}
}

// BenchmarkChartCostFPSNtchartsSparkline: the same series on an ntcharts sparkline (one style
// for every bar, no idle marker: less than the panel shows).
func BenchmarkChartCostFPSNtchartsSparkline(b *testing.B) {
	st := benchStyles(b)
	series := fixture.Live(1).Series
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		c := sparkline.New(chartW-8, 5, sparkline.WithStyle(st.Good), sparkline.WithMaxValue(60))
		for _, p := range series {
			v := p.FPS
			if p.Idle || v != v {
				v = 0
			}
			c.Push(v)
		}
		c.Draw()
		_ = c.View()
	}
}

// hourOfFrames is an hour at 120 Hz (432 000 frames) for the timeline's worst case.
func hourOfFrames() *metrics.Snapshot {
	s := fixture.Timeline()
	const t = int64(8_333_333)
	s.History = make([]metrics.FrameMark, 0, 432_000)
	for i := range int64(432_000) {
		cost := int64(4e6 + (i*7919)%5e6)
		if i%997 == 0 {
			cost = 40e6
		}
		s.History = append(s.History, metrics.FrameMark{Window: fixture.Main, VsyncNs: fixture.Origin + i*t, CostNs: cost,
			Dropped: metrics.Dropped(cost, t)})
	}
	s.NowNs = fixture.Origin + 432_000*t
	s.RefreshHz = 120
	return s
}

// BenchmarkChartCostTimeline90s: the timeline (ntcharts) at 120×40 redrawn for a new snapshot
// of Timeline's 90 s run (4 777 frames).
func BenchmarkChartCostTimeline90s(b *testing.B) {
	benchTimeline(b, fixture.Timeline())
}

// BenchmarkChartCostTimelineHour: the same for an hour at 120 Hz (432 000 frames): the points
// handed to ntcharts are at most two per braille column, so it costs little more.
func BenchmarkChartCostTimelineHour(b *testing.B) {
	benchTimeline(b, hourOfFrames())
}

func benchTimeline(b *testing.B, s *metrics.Snapshot) {
	m := newTimeline(benchStyles(b)).SetSize(120, 40).Open()
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := range b.N {
		c := *s
		c.Seq = uint64(i + 1)
		m, _ = m.Update(dataMsg{snap: &c})
	}
	if el := time.Since(start); b.N > 0 && el > 0 {
		b.ReportMetric(float64(b.N)/el.Seconds(), "redraws/s")
	}
}
