package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/NimbleMarkets/ntcharts/canvas"
	"github.com/NimbleMarkets/ntcharts/canvas/graph"
	"github.com/NimbleMarkets/ntcharts/linechart/timeserieslinechart"
	"github.com/charmbracelet/lipgloss"

	"github.com/fpstop/fpstop/metrics"
)

// Drawing the timeline. ntcharts' time axis counts whole Unix seconds, too coarse for frames
// 8–16 ms apart, so the chart's "seconds" are milliseconds since the session origin
// (chartTime), and the axis labels turn them back into m:ss.s. The braille data set gets at
// most two points per braille column (the column's slowest and fastest frame), so a spike
// stays a spike at any zoom and an hour of frames costs what a minute does.

// chartTime is device time t on the chart's axis: ms since origin, as Unix seconds.
func chartTime(t, origin int64) time.Time { return time.Unix((t-origin)/1e6, 0) }

// timelineLabel formats an axis value (ms since origin) as m:ss, or m:ss.s when the view is
// shorter than a minute.
func timelineLabel(fine bool) func(int, float64) string {
	return func(_ int, v float64) string {
		ms := int64(v)
		if !fine {
			return clock(ms / 1000)
		}
		return fmt.Sprintf("%s.%d", clock(ms/1000), ms%1000/100)
	}
}

// timelineRows are the lines around the chart: title, marks, cursor caret, cursor frame,
// messages, footer.
const timelineRows = 6

func (m timelineModel) render() timelineModel {
	if !m.open || m.w <= 0 || m.h <= 0 {
		m.lines = nil
		return m
	}
	st := m.st
	lo, hi := m.viewRange()
	ch := m.h - timelineRows
	lines := []string{fit(m.title(lo, hi), m.w)}
	if m.snap == nil || len(m.frames) == 0 || ch < 4 {
		lines = append(lines, st.Muted.Render(fit("  no frames yet", m.w)))
		for len(lines) < m.h-1 {
			lines = append(lines, fit("", m.w))
		}
		m.lines = append(lines, m.footer.View())
		return m
	}
	chart, gx, gw := m.chart(lo, hi, ch)
	lines = append(lines, chart...)
	lines = append(lines, fit(strings.Repeat(" ", gx)+m.marks(lo, hi, gw), m.w))
	lines = append(lines, fit(m.caretAndLegend(lo, hi, gx, gw), m.w))
	lines = append(lines, fit(m.cursorLine(), m.w), fit(m.messagesLine(), m.w))
	m.lines = append(lines, m.footer.View())
	return m
}

// title names what is shown: the windows, how much of the run, the zoom, following or not.
func (m timelineModel) title(lo, hi int64) string {
	st := m.st
	what := "all windows"
	if m.window != "" {
		what = shortClass(m.window)
	}
	rlo, rhi := m.runRange()
	s := fmt.Sprintf(" · %s · run %s", what, clock((rhi-rlo)/1e9))
	// "narrowest": so that a + that does nothing is not a mystery.
	narrowest := m.zoom >= maxTimelineZoom || (hi-lo)/2 < minTimelineSpanNs
	switch {
	case m.zoom > 0 && narrowest:
		s += fmt.Sprintf(" · zoom %d× (%s–%s shown, narrowest)", 1<<m.zoom, clock((lo-rlo)/1e9), clock((hi-rlo)/1e9))
	case m.zoom > 0:
		s += fmt.Sprintf(" · zoom %d× (%s–%s shown)", 1<<m.zoom, clock((lo-rlo)/1e9), clock((hi-rlo)/1e9))
	case narrowest:
		s += " · too short to zoom"
	}
	if m.snap != nil && m.snap.State.Outage() {
		// The dashboard's header says so; the timeline covers it.
		s += " · DISCONNECTED: the newest frame is not current"
	} else if m.follow {
		s += " · following the newest frame"
	}
	if m.snap != nil && m.snap.HistoryDropped > 0 {
		s += fmt.Sprintf(" · oldest %d frames let go", m.snap.HistoryDropped)
	}
	return st.Title.Render(" Frame timeline (ms)") + st.Muted.Render(s)
}

// intervalMs is the frame interval the budget line shows.
func (m timelineModel) intervalMs() float64 {
	if m.snap != nil && m.snap.RefreshHz > 0 {
		return 1000 / m.snap.RefreshHz
	}
	return 1000.0 / 60
}

// yMax is the chart's top: the slowest frame in view, at least two intervals and at most six
// (slower frames are clipped to the top; the strip below still marks them, freezes as █).
func (m timelineModel) yMax(fs []metrics.FrameMark) float64 {
	t := m.intervalMs()
	top := 0.0
	for _, f := range fs {
		top = max(top, float64(f.CostNs)/1e6)
	}
	top = min(max(top, 2*t), 6*t)
	return math.Ceil(top/5) * 5
}

// chart draws the frames in [lo, hi) with ntcharts and returns its lines, the column where the
// graph area starts and its width.
func (m timelineModel) chart(lo, hi int64, ch int) (lines []string, gx, gw int) {
	st := m.st
	origin := m.snap.OriginNs
	fs := m.frames[searchFrames(m.frames, lo):searchFrames(m.frames, hi)]
	top := m.yMax(fs)
	c := timeserieslinechart.New(m.w, ch,
		timeserieslinechart.WithTimeRange(chartTime(lo, origin), chartTime(hi, origin)),
		timeserieslinechart.WithYRange(0, top),
		timeserieslinechart.WithXYSteps(14, 2),
		timeserieslinechart.WithXLabelFormatter(timelineLabel(hi-lo < 60e9)),
		timeserieslinechart.WithAxesStyles(st.Muted, st.Muted),
		timeserieslinechart.WithDataSetStyle("budget", st.Budget),
	)
	c.AutoMinX, c.AutoMaxX, c.AutoMinY, c.AutoMaxY = false, false, false, false
	gw = c.GraphWidth()
	budget := min(m.intervalMs(), top)
	c.PushDataSet("budget", timeserieslinechart.TimePoint{Time: chartTime(lo, origin), Value: budget})
	c.PushDataSet("budget", timeserieslinechart.TimePoint{Time: chartTime(hi, origin), Value: budget})
	c.DrawBrailleDataSets([]string{"budget"}) // the axes, their labels and the budget line
	segs := splitAtGaps(columnPoints(fs, lo, hi, gw*2, top), max(250e6, 3*(hi-lo)/int64(gw)), 1<<10)
	m.drawLines(&c, append(segs, m.freezePlateaus(lo, hi, top, 1<<10)...), lo, hi, top)
	if !st.Mono {
		frozen := lipgloss.NewStyle().Background(st.DropLevel[metrics.LevelFrozen].GetForeground())
		for col, on := range m.freezeColumns(lo, hi, gw) {
			if on {
				c.SetColumnBackgroundStyle(chartTime(lo+int64(2*col+1)*(hi-lo)/int64(2*gw), origin), frozen) // the column's middle
			}
		}
	}
	gx = c.Origin().X + 1
	for _, l := range strings.Split(c.View(), "\n") {
		lines = append(lines, fit(l, m.w))
	}
	return lines, gx, gw
}

// drawLines draws segs as braille lines on one ntcharts braille grid over the chart's graph
// area. (A data set of the chart per segment would cost a grid of its own each: 6 MB a redraw
// for the 90 s fixture.)
func (m timelineModel) drawLines(c *timeserieslinechart.Model, segs [][]chartPoint, lo, hi int64, top float64) {
	origin := m.snap.OriginNs
	x := func(t int64) float64 { return float64((t - origin) / 1e6) }
	g := graph.NewBrailleGrid(c.GraphWidth(), c.GraphHeight(), x(lo), x(hi), 0, top)
	for _, seg := range segs {
		for i := range seg {
			j := min(i+1, len(seg)-1)
			a := g.GridPoint(canvas.Float64Point{X: x(seg[i].t), Y: seg[i].ms})
			b := g.GridPoint(canvas.Float64Point{X: x(seg[j].t), Y: seg[j].ms})
			for _, p := range graph.GetLinePoints(a, b) {
				g.Set(p)
			}
		}
	}
	graph.DrawBraillePatterns(&c.Canvas, canvas.Point{X: c.Origin().X + 1}, g.BraillePatterns(), m.st.GraphLine)
}

// chartPoint is one point handed to the chart.
type chartPoint struct {
	t  int64
	ms float64
}

// splitAtGaps cuts points where no frame came for longer than gap (the app was idle or
// frozen), so the line does not bridge the stretch; past max segments the rest stay in the
// last one.
func splitAtGaps(ps []chartPoint, gap int64, max int) [][]chartPoint {
	var out [][]chartPoint
	start := 0
	for i := 1; i <= len(ps); i++ {
		if i == len(ps) || (ps[i].t-ps[i-1].t > gap && len(out) < max-1) {
			out = append(out, ps[start:i])
			start = i
		}
	}
	return out
}

// columnPoints reduces the frames in [lo, hi) to at most two points per one of n columns: the
// slowest then the fastest frame, at their own times (all frames when there are few). Costs
// above top are clipped to it.
func columnPoints(fs []metrics.FrameMark, lo, hi int64, n int, top float64) []chartPoint {
	ms := func(f metrics.FrameMark) float64 { return min(float64(f.CostNs)/1e6, top) }
	if len(fs) <= 2*n || n <= 0 {
		out := make([]chartPoint, len(fs))
		for i, f := range fs {
			out[i] = chartPoint{t: f.VsyncNs, ms: ms(f)}
		}
		return out
	}
	out := make([]chartPoint, 0, 2*n)
	for i := 0; i < len(fs); {
		col := (fs[i].VsyncNs - lo) * int64(n) / (hi - lo)
		slow, fast := fs[i], fs[i]
		j := i + 1
		for ; j < len(fs) && (fs[j].VsyncNs-lo)*int64(n)/(hi-lo) == col; j++ {
			if fs[j].CostNs > slow.CostNs {
				slow = fs[j]
			}
			if fs[j].CostNs < fast.CostNs {
				fast = fs[j]
			}
		}
		a, b := slow, fast
		if b.VsyncNs < a.VsyncNs {
			a, b = b, a
		}
		out = append(out, chartPoint{t: a.VsyncNs, ms: ms(a)}, chartPoint{t: b.VsyncNs, ms: ms(b)})
		i = j
	}
	return out
}

// caretAndLegend is the caret line with the marker strip's legend at its right, where the
// caret leaves room for it (the strip's marks would otherwise be unexplained).
func (m timelineModel) caretAndLegend(lo, hi int64, gx, gw int) string {
	st := m.st
	c := m.caret(lo, hi, gx, gw)
	for _, legend := range []string{
		st.DropLevel[metrics.LevelNormal].Render("·") + st.Muted.Render(" janky  ") +
			st.DropLevel[metrics.LevelMiddle].Render("▴") + st.Muted.Render(" normal/middle  ") +
			st.DropLevel[metrics.LevelHigh].Render("▲") + st.Muted.Render(" high  ") +
			st.DropLevel[metrics.LevelFrozen].Render("█") + st.Muted.Render(" frozen "),
		st.DropLevel[metrics.LevelNormal].Render("·") + st.Muted.Render("jank ") +
			st.DropLevel[metrics.LevelMiddle].Render("▴") + st.Muted.Render("mid ") +
			st.DropLevel[metrics.LevelHigh].Render("▲") + st.Muted.Render("high ") +
			st.DropLevel[metrics.LevelFrozen].Render("█") + st.Muted.Render("frozen "),
	} {
		if width(c)+2+width(legend) <= m.w {
			return spread(c, legend, m.w)
		}
		// the caret near the right edge (following the newest frame): the legend on the left
		if lead := gx + 1 + width(legend) + 2; c != "" && lead <= width(c)-1 {
			return strings.Repeat(" ", gx+1) + legend + c[gx+1+width(legend):]
		}
	}
	return c
}

// column is the graph column of device time t in a view [lo, hi) of gw columns.
func column(t, lo, hi int64, gw int) int {
	return int((t - lo) * int64(gw) / (hi - lo))
}

// marks is the strip under the chart: per column its worst frame — · janky (a vsync missed),
// ▴ normal or middle drop level, ▲ high — and █ where a freeze lasts.
func (m timelineModel) marks(lo, hi int64, gw int) string {
	st := m.st
	worst := make([]int, gw) // 0 none, 1 janky, 2 normal/middle, 3 high
	for _, f := range m.frames[searchFrames(m.frames, lo):searchFrames(m.frames, hi)] {
		c := column(f.VsyncNs, lo, hi, gw)
		k := 0
		switch {
		case f.Level >= metrics.LevelHigh:
			k = 3
		case f.Level >= metrics.LevelNormal:
			k = 2
		case f.Dropped > 0:
			k = 1
		}
		worst[c] = max(worst[c], k)
	}
	var b strings.Builder
	for c, frozen := range m.freezeColumns(lo, hi, gw) {
		switch {
		case frozen:
			b.WriteString(st.DropLevel[metrics.LevelFrozen].Render("█"))
		case worst[c] == 3:
			b.WriteString(st.DropLevel[metrics.LevelHigh].Render("▲"))
		case worst[c] == 2:
			b.WriteString(st.DropLevel[metrics.LevelMiddle].Render("▴"))
		case worst[c] == 1:
			b.WriteString(st.DropLevel[metrics.LevelNormal].Render("·"))
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}
