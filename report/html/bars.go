package html

import (
	"fmt"
	"html/template"
	"math"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
)

// Horizontal bar charts: drop levels, phases and slow messages. Each row is a label on the
// left and one bar (or one stacked bar) per row.
const (
	rowH      = 24.0
	barLabelW = 230.0
)

// levelRow is one side's drop-level counts.
type levelRow struct {
	name   string
	levels metrics.DropLevels
	side   int
	thr    [4]int64 // this side's thresholds in dropped vsyncs (its own refresh rate); zero: the chart's
}

// dropLevelsChart draws the frames per drop level on a log scale (the levels differ by orders
// of magnitude), with the level's threshold in dropped vsyncs in its label.
func dropLevelsChart(rows []levelRow, thr [4]int64) template.HTML {
	maxC := int64(1)
	for _, r := range rows {
		for _, l := range metrics.Levels {
			maxC = max(maxC, r.levels.Get(l))
		}
	}
	per := float64(len(rows))
	h := padTop + padBottom + 5*rowH*per + 4*6
	xs := func(c int64) float64 {
		return (chartW - barLabelW - 150) * math.Log10(1+float64(c)) / math.Log10(1+float64(maxC))
	}
	var s svg
	s.start(chartW, h, "chart levels", "frames per drop level, log scale")
	for li, l := range metrics.Levels {
		y0 := padTop + float64(li)*(rowH*per+6)
		bound := func(thr [4]int64) string {
			if li == 0 {
				return fmt.Sprintf("< %d dropped", thr[0])
			}
			return fmt.Sprintf("≥ %d dropped", thr[li-1])
		}
		label := l.String()
		if sameThresholds(rows, thr) {
			label += " (" + bound(thr) + ")"
		}
		s.text(barLabelW-8, y0+rowH*per/2+4, "end", "label", label)
		for ri, r := range rows {
			var total int64
			for _, l2 := range metrics.Levels {
				total += r.levels.Get(l2)
			}
			c := r.levels.Get(l)
			y := y0 + float64(ri)*rowH
			name := ""
			if r.name != "" {
				name = r.name + ": "
			}
			w := xs(c)
			own := ""
			if !sameThresholds(rows, thr) {
				own = ", " + bound(r.thr) // each side's own refresh rate sets its levels
			}
			s.rect(barLabelW, y+3, w, rowH-6, fmt.Sprintf("lbar lv%d side%d", li, r.side),
				fmt.Sprintf("%s%s%s: %s (%s)", name, l.String(), own, report.Plural(c, "frame"), pct(c, total)))
			s.text(barLabelW+w+6, y+rowH/2+4, "start", "value", fmt.Sprintf("%s%d (%s)%s", name, c, pct(c, total), own))
		}
	}
	return s.end()
}

// sameThresholds: every row's levels have the chart's thresholds (rows without their own count
// as the chart's), so the level's label can give them once.
func sameThresholds(rows []levelRow, thr [4]int64) bool {
	for _, r := range rows {
		if r.thr != [4]int64{} && r.thr != thr {
			return false
		}
	}
	return true
}

// phaseRow is one stacked bar of the phase chart.
type phaseRow struct {
	label string
	title string // what the row is, for the tooltips
	ph    metrics.PhaseMs
}

// phaseParts lists the stages in drawing order with their class and name.
var phaseParts = []struct {
	cls, name string
	get       func(*metrics.PhaseMs) float64
}{
	{"phd", "delay (vsync to input)", func(p *metrics.PhaseMs) float64 { return p.Delay }},
	{"ph0", "input", func(p *metrics.PhaseMs) float64 { return p.Input }},
	{"ph1", "animation", func(p *metrics.PhaseMs) float64 { return p.Animation }},
	{"ph2", "measure/layout", func(p *metrics.PhaseMs) float64 { return p.Layout }},
	{"ph3", "draw", func(p *metrics.PhaseMs) float64 { return p.Draw }},
	{"ph4", "sync", func(p *metrics.PhaseMs) float64 { return p.Sync }},
	{"ph5", "GPU/swap", func(p *metrics.PhaseMs) float64 { return p.GPU }},
}

func phaseTotal(p *metrics.PhaseMs) float64 {
	t := 0.0
	for _, pp := range phaseParts {
		t += pp.get(p)
	}
	return t
}

// phaseChart draws Profile-HWUI-style stacked bars (one segment per stage) on a linear ms
// scale with the frame budget.
func phaseChart(rows []phaseRow, budgetMs float64, label string) template.HTML {
	top := budgetMs
	for i := range rows {
		top = math.Max(top, phaseTotal(&rows[i].ph))
	}
	if top <= 0 {
		top = 1
	}
	top *= 1.05
	h := padTop + padBottom + rowH*float64(len(rows))
	xs := linScale{lo: 0, hi: top, a: barLabelW, b: chartW - padRight}
	var s svg
	s.start(chartW, h, "chart phases", label)
	msGrid(&s, linTicks(top, 8), xs.at, h)
	for i := range rows {
		r := &rows[i]
		y := padTop + float64(i)*rowH
		s.text(barLabelW-8, y+rowH/2+4, "end", "label", r.label)
		total := phaseTotal(&r.ph)
		x := 0.0
		s.group("stack")
		for _, pp := range phaseParts {
			v := pp.get(&r.ph)
			if v <= 0 {
				continue
			}
			a := xs.at(x)
			s.rect(a, y+3, xs.at(x+v)-a, rowH-6, "pbar "+pp.cls,
				fmt.Sprintf("%s — %s: %s ms of %s ms", r.title, pp.name, ms2(v), ms2(total)))
			x += v
		}
		s.endGroup()
	}
	if budgetMs > 0 {
		x := xs.at(budgetMs)
		s.line(x, padTop-4, x, h-padBottom, "budget", fmt.Sprintf("one refresh period, %s ms", ms2(budgetMs)))
	}
	return s.end()
}

// msgRow is one slow message bar.
type msgRow struct {
	label, title string
	maxMs, p95Ms float64
	side         int
}

// messagesChart draws the slowest main-thread messages' worst run (bar) and 95th percentile
// (tick) on a log scale: one 800 ms handler and a dozen 20 ms ones all stay readable.
func messagesChart(rows []msgRow, budgetMs float64) template.HTML {
	top := math.Max(budgetMs*2, 10)
	for _, r := range rows {
		top = math.Max(top, r.maxMs*1.1)
	}
	h := padTop + padBottom + rowH*float64(len(rows))
	xs := logScale{lo: 0.5, hi: top, a: barLabelW, b: chartW - padRight - 60}
	var s svg
	s.start(chartW, h, "chart messages", "slowest main-thread messages: worst run, log scale")
	msGrid(&s, niceTicks(1, top), xs.at, h)
	for i, r := range rows {
		y := padTop + float64(i)*rowH
		s.text(barLabelW-8, y+rowH/2+4, "end", "label", clip(r.label, 34))
		if r.maxMs <= 0 {
			s.text(xs.a+6, y+rowH/2+4, "start", "value", "none")
			continue
		}
		w := xs.at(r.maxMs) - xs.a
		s.rect(xs.a, y+3, w, rowH-6, fmt.Sprintf("mbar side%d", r.side), r.title)
		if r.p95Ms > 0 {
			x := xs.at(r.p95Ms)
			s.line(x, y+2, x, y+rowH-2, "p95", "")
		}
		s.text(xs.a+w+6, y+rowH/2+4, "start", "value", ms2(r.maxMs)+" ms")
	}
	if budgetMs > 0 {
		x := xs.at(budgetMs)
		s.line(x, padTop-4, x, h-padBottom, "budget", fmt.Sprintf("one refresh period, %s ms", ms2(budgetMs)))
	}
	return s.end()
}

// clip shortens s to n runes with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// msGrid draws a bar chart's vertical grid: a line and a millisecond label at each tick, the
// unit at the bottom right.
func msGrid(s *svg, ticks []float64, x func(float64) float64, h float64) {
	s.group("grid")
	for _, v := range ticks {
		s.line(x(v), padTop, x(v), h-padBottom, "", "")
		s.text(x(v), h-padBottom+16, "middle", "tick", msLabel(v))
	}
	s.endGroup()
	s.text(chartW-padRight, h-2, "end", "unit", "ms")
}
