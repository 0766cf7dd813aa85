package html

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
)

// Figures of the single-session page: each chart with its caption and legend.

// timeSpan is the time axis the FPS and frame-time charts share, in seconds from the session's
// origin: from the earliest frame (before 0 for a first dump's history) or 0, to the end of the
// last FPS slice, frame or event.
func timeSpan(s *Session) [2]float64 {
	a := s.Analysis
	origin := a.Snapshot.OriginNs
	toS := func(ns int64) float64 { return float64(ns-origin) / 1e9 }
	lo, hi := 0.0, toS(max(a.Snapshot.NowNs, origin))
	if s.frames.n > 0 {
		lo, hi = math.Min(lo, toS(s.frames.minNs)), math.Max(hi, toS(s.frames.maxNs))
	}
	if n := len(a.Series); n > 0 {
		hi = math.Max(hi, toS(a.Series[n-1].StartNs+a.Snapshot.SliceNs))
	}
	if hi <= lo {
		hi = lo + 1
	}
	return [2]float64{lo, hi}
}

func fpsFigure(s *Session) chart {
	a := s.Analysis
	snap := a.Snapshot
	svg := fpsChart(fpsIn{series: a.Series, originNs: snap.OriginNs, sliceNs: snap.SliceNs}, snap.RefreshHz, snap.TargetFPS, timeSpan(s))
	cap := fmt.Sprintf("FPS of each %s s slice (Matrix's rendering-time FPS). Bars under the %s fps target are drawn in the warning colour; grey marks are idle slices (nothing drawn: idle, not 0 fps).",
		ms2(float64(snap.SliceNs)/1e9), ms2(snap.TargetFPS))
	if len(a.Series) > maxFPSBars {
		cap += fmt.Sprintf(" %d slices are grouped into at most %d bars: each bar is the mean of its slices with a tick at the lowest.", len(a.Series), maxFPSBars)
	}
	return chart{ID: "fps", Title: "FPS over time", SVG: svg, Caption: cap,
		Legend: []legendItem{{"fpsbar", "at or above target"}, {"fpsbar low", "under target"}, {"idle", "idle"}, {"refresh", "refresh rate"}}}
}

func timelineFigure(s *Session) chart {
	a := s.Analysis
	out := timeline(timelineIn{fs: &s.frames, originNs: a.Snapshot.OriginNs, budgetMs: s.budgetMs(),
		gaps: a.Gaps, worst: a.Report.WorstFrames, span: timeSpan(s)})
	legend := []legendItem{{"pt ok", clsLabels[clsOK]}}
	for c := clsJ1; c < numCls; c++ {
		legend = append(legend, legendItem{"pt " + clsNames[c], fmt.Sprintf("%s (%d)", clsLabels[c], s.frames.count[c])})
	}
	legend = append(legend, legendItem{"budget", "frame budget (one refresh period)"}, legendItem{"gap", "gap (source could not see)"})
	cap := "Every frame's cost (completion − intended vsync) against the time it was meant for, on a log scale, coloured by the refreshes it dropped (against the budget Android gave it: a pipelined frame can take more than one period and still be on time). Frozen frames are marked with a band as long as the freeze; #1–#5 are the worst frames listed below."
	return chart{ID: "timeline", Title: "Frame time", SVG: out.SVG, Caption: cap, Legend: legend, Note: out.Note}
}

func histFigure(s *Session) chart {
	rep := s.Analysis.Report
	svg := histogram([]histIn{{buckets: rep.HistogramMs}}, s.budgetMs())
	cap := "Frames per bucket of Android's gfxinfo histogram (the same buckets and labels dumpsys gfxinfo prints), counts on a log scale; the line is one refresh period. Under Android 12+'s pipelining a frame longer than a period can still be on time: which frames were janky is on the timeline."
	if p := rep.PercentilesMs; p != nil {
		cap += fmt.Sprintf(" Percentiles: p50 %s ms, p90 %s ms, p95 %s ms, p99 %s ms.", ms2(float64(p.P50)), ms2(float64(p.P90)), ms2(float64(p.P95)), ms2(float64(p.P99)))
	}
	return chart{ID: "histogram", Title: "Frame-time histogram", SVG: svg, Caption: cap, Legend: []legendItem{{"hbar ok", "frames"}, {"budget", "one refresh period"}}}
}

func levelsFigure(s *Session) chart {
	rep := s.Analysis.Report
	thr := s.Analysis.Snapshot.DropThresholds
	svg := dropLevelsChart([]levelRow{{levels: rep.DropLevels}}, thr)
	cap := fmt.Sprintf("Frames per drop level: Tencent Matrix's levels scaled to the refresh rate (NORMAL ≥ %d, MIDDLE ≥ %d, HIGH ≥ %d, FROZEN ≥ %d dropped vsyncs). Bar length on a log scale.",
		thr[0], thr[1], thr[2], thr[3])
	return chart{ID: "levels", Title: "Drop levels", SVG: svg, Caption: cap}
}

// phaseFigures are the average frame's phases and the costliest frames' phases (none when the
// source gave no phase timestamps).
func phaseFigures(s *Session) []chart {
	fs := &s.frames
	if fs.all.n == 0 {
		return nil
	}
	rows := []phaseRow{{label: fmt.Sprintf("all frames (%d)", fs.all.n), title: "mean of all frames", ph: fs.all.mean()}}
	if fs.jankyPh.n > 0 {
		rows = append(rows, phaseRow{label: fmt.Sprintf("janky frames (%d)", fs.jankyPh.n), title: "mean of janky frames", ph: fs.jankyPh.mean()})
	}
	legend := make([]legendItem, len(phaseParts))
	for i, p := range phaseParts {
		legend[i] = legendItem{"pbar " + p.cls, p.name}
	}
	out := []chart{{ID: "phases", Title: "Where the time goes: phases", SVG: phaseChart(rows, s.budgetMs(), "mean frame phases"),
		Caption: "Mean time per stage (Profile HWUI's stages, from gfxinfo framestats) of all frames and of the janky ones; the line is one refresh period. Delay is the time from the intended vsync to the frame's start: a main thread busy with something else.",
		Legend:  legend}}
	var worst []phaseRow
	origin := s.Analysis.Snapshot.OriginNs
	for i, w := range fs.worst {
		at := secs(float64(w.vsync-origin) / 1e9)
		worst = append(worst, phaseRow{label: fmt.Sprintf("%s ms at %s", ms2(w.costMs), at),
			title: fmt.Sprintf("frame %d (%s, %s ms, %s)", i+1, at, ms2(w.costMs), w.window), ph: w.ph})
	}
	if len(worst) > 0 {
		out = append(out, chart{ID: "phases-worst", Title: "Phases of the slowest frames", SVG: phaseChart(worst, s.budgetMs(), "phases of the slowest frames"),
			Caption: "The costliest frames whose stages are known, one stacked bar each.", Legend: legend})
	}
	return out
}

// messagesFigure charts the slowest main-thread message signatures (false when none).
func messagesFigure(rep *metrics.Report, budgetMs float64) (chart, bool) {
	var rows []msgRow
	for _, m := range rep.SlowMessages[:min(15, len(rep.SlowMessages))] {
		name := report.MessageName(m.Handler, m.Callback, m.What, m.WhatName)
		rows = append(rows, msgRow{label: name, maxMs: float64(m.MaxMs), p95Ms: float64(m.P95Ms),
			title: fmt.Sprintf("%s — %s %s #%d: worst %s ms, p95 %s ms, %s, %s ms in all", name, m.Handler, m.Callback, m.What,
				ms2(float64(m.MaxMs)), ms2(float64(m.P95Ms)), report.Plural(m.Count, "run"), ms2(float64(m.TotalMs)))})
	}
	if len(rows) == 0 {
		return chart{}, false
	}
	return chart{ID: "messages", Title: "Slow main-thread messages", SVG: messagesChart(rows, budgetMs),
		Caption: "The main-thread messages (Looper dispatches) with the longest single run: bar = worst run, tick = 95th percentile, log scale. A message longer than a refresh period holds up the frames behind it.",
		Legend:  []legendItem{{"mbar side0", "worst run"}, {"p95", "95th percentile"}, {"budget", "one refresh period"}}}, true
}

// messageRows is the slow-message table (the first n, and how many more the report has).
func messageRows(rep *metrics.Report, n int) ([]msgRowView, int) {
	var out []msgRowView
	shown := rep.SlowMessages[:min(n, len(rep.SlowMessages))]
	for _, m := range shown {
		out = append(out, msgRowView{Name: report.MessageName(m.Handler, m.Callback, m.What, m.WhatName),
			Full: fmt.Sprintf("%s %s #%d", m.Handler, m.Callback, m.What), Count: fmt.Sprint(m.Count),
			Max: ms2(float64(m.MaxMs)), P95: ms2(float64(m.P95Ms)), Total: ms2(float64(m.TotalMs)), Worst: worstRuns(m.Worst)})
	}
	return out, len(rep.SlowMessages) - len(shown)
}

// frameSectionLines names a trace frame's slowest atrace sections and FrameTimeline's blame.
func frameSectionLines(w metrics.WorstFrame) []string {
	var out []string
	for j, sec := range w.Sections {
		if j == maxFrameMsgs {
			out = append(out, report.Plural(len(w.Sections)-j, "more section"))
			break
		}
		out = append(out, fmt.Sprintf("%s (%s, depth %d) — %s ms", sec.Name, sec.Thread, sec.Depth, ms2(float64(sec.Ms))))
	}
	if len(w.Blame) > 0 {
		out = append(out, "FrameTimeline blames: "+strings.Join(w.Blame, ", "))
	}
	return out
}

// sectionRows is the slow-sections table of a trace (the first n), in the slow-message table's
// shape: a section has no 95th percentile.
func sectionRows(rep *metrics.Report, n int) []msgRowView {
	var out []msgRowView
	for _, sec := range rep.SlowSections[:min(n, len(rep.SlowSections))] {
		out = append(out, msgRowView{Name: sec.Name + " [" + sec.Thread + "]", Full: "atrace section " + sec.Name + " on " + sec.Thread,
			Count: fmt.Sprint(sec.Count), Max: ms2(float64(sec.MaxMs)), P95: "—", Total: ms2(float64(sec.TotalMs)), Worst: worstRuns(sec.Worst)})
	}
	return out
}

// maxFrameMsgs is how many of a worst frame's messages the table names (the longest overlaps).
const maxFrameMsgs = 3

// worstRows is the worst-frames table with the messages attributed to each frame.
func worstRows(rep *metrics.Report, thr [4]int64) []worstRow {
	var out []worstRow
	for i, w := range rep.WorstFrames {
		lv := metrics.Classify(w.Dropped, thr)
		r := worstRow{N: i + 1, At: secs(float64(w.StartMs) / 1e3), Window: w.Window, Cost: ms2(float64(w.CostMs)),
			Dropped: fmt.Sprint(w.Dropped), Lv: lv.String(), LvCls: clsNames[classOf(w.Dropped, lv)]}
		msgs := append([]metrics.FrameMessage(nil), w.Messages...)
		sort.SliceStable(msgs, func(a, b int) bool { return msgs[a].Ms > msgs[b].Ms })
		for j, m := range msgs {
			if j == maxFrameMsgs && len(msgs) > maxFrameMsgs+1 {
				rest := 0.0
				for _, m := range msgs[j:] {
					rest += float64(m.Ms)
				}
				r.Msgs = append(r.Msgs, fmt.Sprintf("%d more — %s ms together", len(msgs)-j, ms2(rest)))
				break
			}
			r.Msgs = append(r.Msgs, fmt.Sprintf("%s — %s ms", report.MessageName(m.Handler, m.Callback, m.What, m.WhatName), ms2(float64(m.Ms))))
		}
		r.Msgs = append(r.Msgs, frameSectionLines(w)...)
		out = append(out, r)
	}
	return out
}

// worstRuns lists a message's or a section's worst runs: "12.5 ms at 3.2 s, …".
func worstRuns(runs []metrics.Occurrence) string {
	worst := ""
	for j, o := range runs {
		if j > 0 {
			worst += ", "
		}
		worst += fmt.Sprintf("%s ms at %s", ms2(float64(o.Ms)), secs(float64(o.StartMs)/1e3))
	}
	return worst
}
