package html

import (
	"fmt"
	"html/template"
	"math"
	"sort"

	"github.com/fpstop/fpstop/compare"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
)

var sideNames = [2]string{"BASE", "NEW"}

// compareCharts are the comparison's figures: FPS over time and the histograms of both sides
// overlaid, drop levels side by side and the slow messages' p95 before and after.
func compareCharts(c *Comparison) []chart {
	sides := [2][]*Session{c.Base, c.New}
	budget := 0.0
	for _, ss := range sides {
		if len(ss) > 0 && budget == 0 {
			budget = ss[0].budgetMs()
		}
	}
	sideLegend := []legendItem{{"fpspt side0", "BASE"}, {"fpspt side1", "NEW"}}
	out := []chart{{ID: "cmp-fps", Title: "FPS over time", SVG: fpsLines(sides),
		Caption: "FPS of each 1 s slice of every recording, from its own start; BASE and NEW overlaid. Breaks in a line are idle slices.",
		Legend:  sideLegend}}
	var hist []histIn
	var levels []levelRow
	var thr [4]int64
	for i, ss := range sides {
		hist = append(hist, histIn{buckets: sumHistograms(ss), side: i, name: sideNames[i]})
		row := levelRow{name: sideNames[i], levels: sumLevels(ss), side: i}
		if len(ss) > 0 {
			row.thr = ss[0].Analysis.Snapshot.DropThresholds // this side's own refresh rate
			if thr == [4]int64{} {
				thr = row.thr
			}
		}
		levels = append(levels, row)
	}
	out = append(out,
		chart{ID: "cmp-histogram", Title: "Frame-time histograms", SVG: histogram(hist, budget),
			Caption: "Frames per bucket of Android's gfxinfo histogram, BASE on the left and NEW on the right of each bucket, over all recordings of each side; counts on a log scale, shares in the tooltips.",
			Legend:  []legendItem{{"hbar side0", "BASE"}, {"hbar side1", "NEW"}}},
		chart{ID: "cmp-levels", Title: "Drop levels", SVG: dropLevelsChart(levels, thr),
			Caption: "Frames per drop level on each side (BASE first, NEW outlined), log scale."})
	if svg, ok := messageChanges(c.Result.Messages, budget); ok {
		out = append(out, chart{ID: "cmp-messages", Title: "Slow messages: p95 before and after", SVG: svg,
			Caption: "The 95th percentile run of each slow main-thread message on each side (log scale); a missing bar is a message the side did not have.",
			Legend:  []legendItem{{"mbar side0", "BASE"}, {"mbar side1", "NEW"}}})
	}
	return out
}

func sumHistograms(ss []*Session) []metrics.HistogramBucket {
	m := map[int]int64{}
	for _, s := range ss {
		for _, b := range s.Analysis.Report.HistogramMs {
			m[b.Ms] += b.Count
		}
	}
	out := make([]metrics.HistogramBucket, 0, len(m))
	for ms, n := range m {
		out = append(out, metrics.HistogramBucket{Ms: ms, Count: n})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Ms < out[j].Ms })
	return out
}

func sumLevels(ss []*Session) metrics.DropLevels {
	var d metrics.DropLevels
	for _, s := range ss {
		l := s.Analysis.Report.DropLevels
		d.Best += l.Best
		d.Normal += l.Normal
		d.Middle += l.Middle
		d.High += l.High
		d.Frozen += l.Frozen
	}
	return d
}

// fpsLines draws every recording's FPS series as a line with one point per slice (or group of
// slices), coloured by side.
func fpsLines(sides [2][]*Session) template.HTML {
	type run struct {
		name   string
		side   int
		groups []fpsGroup
	}
	var runs []run
	hi, top := 1.0, 0.0
	for si, ss := range sides {
		for ri, s := range ss {
			snap := s.Analysis.Snapshot
			g := groupSeries(fpsIn{series: s.Analysis.Series, originNs: snap.OriginNs, sliceNs: snap.SliceNs})
			runs = append(runs, run{name: fmt.Sprintf("%s %d (%s)", sideNames[si], ri+1, s.Name), side: si, groups: g})
			top = math.Max(top, snap.RefreshHz)
			for _, x := range g {
				hi = math.Max(hi, x.t1)
				if !math.IsNaN(x.mean) {
					top = math.Max(top, x.mean)
				}
			}
		}
	}
	var s svg
	xs, ys := startFPSChart(&s, 0, hi, top, "chart fps cmp", "frames per second over time, BASE and NEW overlaid")
	for _, r := range runs {
		s.group(fmt.Sprintf("run side%d", r.side))
		var path []float64
		flush := func() {
			if len(path) >= 4 {
				s.polyline(path, "fpsline")
			}
			path = path[:0]
		}
		for _, g := range r.groups {
			if math.IsNaN(g.mean) {
				flush()
				continue
			}
			x, y := xs.at((g.t0+g.t1)/2), ys.at(g.mean)
			path = append(path, x, y)
		}
		flush()
		for _, g := range r.groups {
			x := xs.at((g.t0 + g.t1) / 2)
			span := fmt.Sprintf("%s %s–%s", r.name, secs(g.t0), secs(g.t1))
			if math.IsNaN(g.mean) {
				s.rect(x-1.5, ys.a-3, 3, 3, "idle", span+": idle")
				continue
			}
			s.circle(x, ys.at(g.mean), 2.2, "fpspt", fmt.Sprintf("%s: %s fps, %s", span, ms2(g.mean), report.Plural(g.frames, "frame")))
		}
		s.endGroup()
	}
	return s.end()
}

// messageChanges draws the p95 of each compared message on both sides (at most 12 messages).
func messageChanges(msgs []compare.Message, budget float64) (template.HTML, bool) {
	var rows []msgRow
	for _, m := range msgs[:min(12, len(msgs))] {
		name := report.MessageName(m.Handler, m.Callback, m.What, m.WhatName)
		for si, v := range []*float64{m.P95.Base, m.P95.New} {
			label := name
			if si == 1 {
				label = "  " + m.Status
			}
			r := msgRow{label: label, side: si, title: fmt.Sprintf("%s — %s: no occurrence", name, sideNames[si])}
			if v != nil {
				r.maxMs = *v
				r.title = fmt.Sprintf("%s — %s: p95 %s ms over %d runs (%s)", name, sideNames[si], ms2(*v), []int64{m.CountBase, m.CountNew}[si], m.Status)
			}
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return "", false
	}
	return messagesChart(rows, budget), true
}
