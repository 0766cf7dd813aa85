package html

import (
	"fmt"
	"html/template"
	"math"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
	"github.com/fpstop/fpstop/source"
)

// Drawing budgets of the frame-time timeline. Up to detailFrames frames every frame is a point;
// beyond, on-time frames are summarised per pixel column (one bar from the fastest to the
// slowest) and janky frames stay single points up to detailJanky of them, then the worst of
// each class per column stands for the rest (its tooltip says how many). Frozen frames are
// always drawn one by one, each with its own band: no downsampling may hide a freeze.
const (
	detailFrames = 6000
	detailJanky  = 4000
	timelineCols = 900
	timelineH    = 300.0
)

// timelineIn is what the timeline draws.
type timelineIn struct {
	fs       *frameSet
	originNs int64
	budgetMs float64 // the frame interval (0 unknown)
	gaps     []source.Gap
	worst    []metrics.WorstFrame
	span     [2]float64 // the page's shared time axis, seconds from the origin
}

// timelineOut is the chart and what it says about its own drawing (Note: how frames were
// summarised per column; empty when every frame is a point).
type timelineOut struct {
	SVG  template.HTML
	Note string
}

// timeline draws every frame's cost over time on a log scale, with the frame budget, janky
// frames by drop level, frozen frames as bands, gaps shaded and the worst frames numbered.
func timeline(in timelineIn) timelineOut {
	fs := in.fs
	toS := func(ns int64) float64 { return float64(ns-in.originNs) / 1e9 }
	xs := linScale{lo: in.span[0], hi: in.span[1], a: padLeft, b: chartW - padRight}
	yHi := math.Max(fs.maxCostMs*1.15, math.Max(in.budgetMs*4, 20))
	ys := logScale{lo: 1, hi: yHi, a: timelineH - padBottom, b: padTop}
	var s svg
	s.start(chartW, timelineH, "chart timeline", "frame time of every frame over the session, log scale")
	for _, g := range in.gaps {
		a, b := xs.at(toS(g.FromNs)), xs.at(toS(g.ToNs))
		s.rect(a, padTop, b-a, timelineH-padBottom-padTop, "gap",
			fmt.Sprintf("gap %s–%s: %s", secs(toS(g.FromNs)), secs(toS(g.ToNs)), g.Reason))
	}
	historyBand(&s, xs, timelineH)
	timeAxis(&s, xs, timelineH)
	s.group("grid")
	for _, v := range niceTicks(1, yHi) {
		y := ys.at(v)
		s.line(padLeft, y, chartW-padRight, y, "", "")
		s.text(padLeft-6, y+4, "end", "tick", msLabel(v))
	}
	s.endGroup()
	s.text(padLeft-6, padTop-2, "end", "unit", "ms")
	if in.budgetMs > 0 {
		y := ys.at(in.budgetMs)
		s.line(padLeft, y, chartW-padRight, y, "budget", fmt.Sprintf("frame budget: one refresh period, %s ms. Android 12+ pipelines frames, so a frame over it is janky only when it missed its deadline: janky frames are the coloured ones", ms2(in.budgetMs)))
		s.text(chartW-padRight-2, y-4, "end", "budget-label", "1 period "+ms2(in.budgetMs)+" ms")
	}
	out := timelineOut{}
	plotTop, plotBottom := padTop, timelineH-padBottom
	// Freeze bands first, so the points stay on top.
	s.group("freezes")
	fs.eachFrozen(func(f *frameRec) {
		a := xs.at(toS(f.vsync))
		b := xs.at(toS(f.vsync + int64(float64(f.costMs)*1e6)))
		s.rect(a, plotTop, math.Max(b-a, 2), plotBottom-plotTop, "freeze",
			fmt.Sprintf("frozen frame at %s: %s ms, %d vsyncs dropped", secs(toS(f.vsync)), ms2(float64(f.costMs)), f.dropped))
	})
	s.endGroup()
	switch {
	case fs.bins != nil:
		out.Note = drawBins(&s, fs, xs, ys, toS)
	case len(fs.frames) <= detailFrames:
		drawEveryFrame(&s, fs, xs, ys, toS)
	default:
		out.Note = drawColumns(&s, fs, xs, ys, toS)
	}
	labelWorst(&s, in.worst, xs, ys)
	out.SVG = s.end()
	return out
}

// drawEveryFrame draws one point per frame.
func drawEveryFrame(s *svg, fs *frameSet, xs linScale, ys logScale, toS func(int64) float64) {
	s.group("frames")
	for i := range fs.frames {
		f := &fs.frames[i]
		x, y := xs.at(toS(f.vsync)), ys.at(float64(f.costMs))
		if f.cls == clsOK {
			s.circle(x, y, 1.8, "pt "+clsNames[f.cls], frameTitle(f, toS))
		} else {
			framePoint(s, f, x, y, frameTitle(f, toS))
		}
	}
	s.endGroup()
}

// framePoint draws a janky frame as a dot and a frozen one as a triangle.
func framePoint(s *svg, f *frameRec, x, y float64, title string) {
	if f.cls == clsFrozen {
		s.triangle(x, y, 9, "pt fz", title)
	} else {
		s.circle(x, y, 2.6, "pt "+clsNames[f.cls], title)
	}
}

// columnOf is the timeline column (0 to timelineCols-1) that a vsync time falls in.
func columnOf(xs linScale, toS func(int64) float64, ns int64) int {
	c := int((xs.at(toS(ns)) - xs.a) / (xs.b - xs.a) * timelineCols)
	return max(0, min(timelineCols-1, c))
}

// drawBand draws column i's on-time frames, t0 to t1 s, as one bar from the fastest to the slowest.
func drawBand(s *svg, xs linScale, ys logScale, i int, c *onTime, t0, t1 float64) {
	colW := (xs.b - xs.a) / timelineCols
	y1, y2 := ys.at(float64(c.hi)), ys.at(float64(c.lo))
	s.rect(xs.a+float64(i)*colW, y1-1, colW, y2-y1+2, "band ok",
		fmt.Sprintf("%s–%s: %s on time, %s–%s ms", secs(t0), secs(t1), report.Plural(c.n, "frame"), ms2(float64(c.lo)), ms2(float64(c.hi))))
}

// jankyNote ends a summarised timeline's note with what it drew of the janky frames.
func jankyNote(note string, every bool, fs *frameSet, drawn int) string {
	if every {
		return note + ", and every janky frame."
	}
	return note + fmt.Sprintf("; of %d janky frames, the worst of each level per column (%d points; their tooltips count the rest).", fs.jankyCount(), drawn)
}

func frameTitle(f *frameRec, toS func(int64) float64) string {
	if f.dropped > 0 {
		return fmt.Sprintf("%s: %s ms, %d dropped (%s)", secs(toS(f.vsync)), ms2(float64(f.costMs)), f.dropped, clsLabels[f.cls])
	}
	return fmt.Sprintf("%s: %s ms", secs(toS(f.vsync)), ms2(float64(f.costMs)))
}

// column is one pixel column's summary.
type column struct {
	onTime
	worst      [numCls]int32 // index+1 of the costliest frame of each janky class
	jankyCount [numCls]int32
}

// drawColumns summarises on-time frames per column and draws janky frames one by one (or the
// worst per column and class past detailJanky); frozen frames are always single. It returns a
// sentence saying what was summarised.
func drawColumns(s *svg, fs *frameSet, xs linScale, ys logScale, toS func(int64) float64) string {
	cols := make([]column, timelineCols)
	colOf := func(ns int64) int { return columnOf(xs, toS, ns) }
	singleJanky := fs.jankyCount()-fs.count[clsFrozen] <= detailJanky
	for i := range fs.frames {
		f := &fs.frames[i]
		c := &cols[colOf(f.vsync)]
		if f.cls == clsOK {
			c.add(f.costMs)
			continue
		}
		c.jankyCount[f.cls]++
		if w := c.worst[f.cls]; w == 0 || fs.frames[w-1].costMs < f.costMs {
			c.worst[f.cls] = int32(i + 1)
		}
	}
	s.group("frames")
	for i := range cols {
		if cols[i].n > 0 {
			drawBand(s, xs, ys, i, &cols[i].onTime, xs.lo+(xs.hi-xs.lo)*float64(i)/timelineCols, xs.lo+(xs.hi-xs.lo)*float64(i+1)/timelineCols)
		}
	}
	drawn := 0
	for i := range fs.frames {
		f := &fs.frames[i]
		if f.cls == clsOK {
			continue
		}
		c := &cols[colOf(f.vsync)]
		title := frameTitle(f, toS)
		if f.cls != clsFrozen && !singleJanky {
			if c.worst[f.cls] != int32(i+1) {
				continue
			}
			if n := c.jankyCount[f.cls]; n > 1 {
				title = fmt.Sprintf("%s — the worst of %d %s frames in this column", title, n, clsLabels[f.cls])
			}
		}
		framePoint(s, f, xs.at(toS(f.vsync)), ys.at(float64(f.costMs)), title)
		drawn++
	}
	s.endGroup()
	return jankyNote(fmt.Sprintf("%d frames: on-time frames are drawn as one bar per column (fastest to slowest); every frozen frame is drawn", len(fs.frames)), singleJanky, fs, drawn)
}

// labelWorst numbers the five costliest frames of the report on the timeline.
func labelWorst(s *svg, worst []metrics.WorstFrame, xs linScale, ys logScale) {
	s.group("worst")
	for i, w := range worst[:min(5, len(worst))] {
		x, y := xs.at(float64(w.StartMs)/1e3), ys.at(float64(w.CostMs))
		s.text(x+6, math.Max(y-4, padTop+10), "start", "worst-label", fmt.Sprintf("#%d", i+1))
	}
	s.endGroup()
}

// timeAxis draws the x axis in seconds from the session start.
func timeAxis(s *svg, xs linScale, h float64) {
	s.group("axis")
	s.line(xs.a, h-padBottom, xs.b, h-padBottom, "", "")
	for _, t := range timeTicks(xs.lo, xs.hi, 10) {
		x := xs.at(t)
		s.line(x, h-padBottom, x, h-padBottom+4, "", "")
		s.text(x, h-padBottom+16, "middle", "tick", clock(t))
	}
	s.endGroup()
}
