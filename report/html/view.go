package html

import (
	"fmt"
	"html/template"
	"sort"
	"strings"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
)

// fact is one session fact or key number.
type fact struct {
	K, V string
	// Note explains the number (its rule) in a tooltip and in print.
	Note string
	// Class colours a key number (good, warn, bad) or is empty.
	Class string
}

// chart is one figure: its SVG, a caption and a legend.
type chart struct {
	ID, Title, Caption string
	SVG                template.HTML
	Legend             []legendItem
	Note               string
}

type legendItem struct{ Cls, Label string }

// worstRow is one worst frame with the messages attributed to it.
type worstRow struct {
	N                             int
	At, Window, Cost, Dropped, Lv string
	LvCls                         string
	Msgs                          []string
}

// msgRowView is one slow message signature.
type msgRowView struct {
	Name, Full                    string
	Count, Max, P95, Total, Worst string
}

// sideTable is Android's printed summary beside fpstop's numbers for one window or process.
type sideTable struct {
	Title string
	Rows  [][3]string
}

// sessionView is everything the page shows for one session.
type sessionView struct {
	Title      string
	Facts      []fact
	Stats      []fact
	Charts     []chart
	MsgRows    []msgRowView
	MoreMsgs   int
	Worst      []worstRow
	Android    []sideTable
	Looper     []fact
	SlowLooper [][4]string
	Warnings   []string
	NoFrames   bool
}

// oneMoment reports a capture of one dump: frames, but no time span (duration 0).
func oneMoment(rep *metrics.Report) bool { return rep.Frames > 0 && float64(rep.DurationS) == 0 }

// buildSession turns a loaded session into the page's view.
func buildSession(s *Session) *sessionView {
	rep := s.Analysis.Report
	v := &sessionView{Title: report.AppName(rep), NoFrames: rep.Frames == 0}
	v.Facts = sessionFacts(s)
	v.Stats = keyNumbers(rep)
	if rep.Frames > 0 { // without frames the frame charts would be empty axes
		if !oneMoment(rep) { // one dump: a per-second chart would be one made-up bar
			v.Charts = append(v.Charts, fpsFigure(s))
		}
		v.Charts = append(v.Charts, timelineFigure(s), histFigure(s), levelsFigure(s))
		v.Charts = append(v.Charts, phaseFigures(s)...)
	}
	if c, ok := messagesFigure(rep, s.budgetMs()); ok {
		v.Charts = append(v.Charts, c)
	}
	v.MsgRows, v.MoreMsgs = messageRows(rep, 20)
	v.MsgRows = append(v.MsgRows, sectionRows(rep, 20)...)
	v.Worst = worstRows(rep, s.Analysis.Snapshot.DropThresholds)
	v.Android = androidTables(rep)
	v.Looper = looperFacts(rep)
	v.SlowLooper = slowLooperRows(rep, 20)
	v.Warnings = rep.Warnings
	return v
}

// sessionFacts are the facts of the session: what was measured, where and how.
func sessionFacts(s *Session) []fact {
	rep, h := s.Analysis.Report, s.Analysis.Header
	out := []fact{{K: "app", V: report.AppName(rep)}}
	if d := rep.Device; d != nil && (d.Model != "" || d.Serial != "") {
		dev := d.Model
		if d.Android != "" {
			dev += " · Android " + d.Android
		}
		if d.Serial != "" {
			dev += " · " + d.Serial
		}
		out = append(out, fact{K: "device", V: strings.TrimPrefix(dev, " · ")})
	}
	src := rep.Source
	if h.Scenario != "" {
		src += fmt.Sprintf(" (scenario %s, seed %d)", h.Scenario, h.Seed)
	}
	out = append(out, fact{K: "source", V: src}, fact{K: "cost basis", V: rep.CostBasis,
		Note: "frame: completion − intended vsync; main_thread: the frame's main-thread part (Looper-derived frames)"})
	if rep.RefreshHz != nil {
		out = append(out, fact{K: "refresh rate", V: r2(rep.RefreshHz) + " Hz", Note: "frame budget " + ms2(s.budgetMs()) + " ms"})
	}
	if oneMoment(rep) {
		out = append(out, fact{K: "duration", V: "one dump", Note: "a capture of one moment: the frames Android still held, no time span to give per-second numbers over"})
	} else {
		out = append(out, fact{K: "duration", V: duration(float64(rep.DurationS))})
	}
	if s.Analysis.HasHeader && !h.StartUTC.IsZero() {
		out = append(out, fact{K: "recorded", V: h.StartUTC.UTC().Format("2006-01-02 15:04:05 UTC")})
	}
	out = append(out, fact{K: "recording", V: s.Name})
	ver := rep.FpstopVersion
	if h.FpstopVersion != "" && h.FpstopVersion != ver {
		ver = fmt.Sprintf("%s (recorded with %s)", ver, h.FpstopVersion)
	}
	out = append(out, fact{K: "fpstop", V: ver})
	return out
}

// keyNumbers are the report's headline numbers with the rule behind each.
func keyNumbers(rep *metrics.Report) []fact {
	out := []fact{
		{K: "FPS", V: r2(rep.FPS), Note: "frames / Σ(dropped+1)·T — rendering-time FPS (Matrix), idle excluded"},
		{K: "FPS (wall)", V: r2(rep.FPSWall), Note: "frames / length of the non-idle 1 s slices (PerfDog)"},
		{K: "1% low FPS", V: r2(rep.FPSLow1Pct), Note: "1000 / 99th percentile of (dropped+1)·T"},
		{K: "frames", V: fmt.Sprint(rep.Frames)},
		{K: "janky", V: fmt.Sprintf("%d (%s %%)", rep.JankyFrames, r2(rep.JankPct)), Note: "frames that dropped at least one vsync"},
	}
	if rep.JankyDeadline != nil {
		out = append(out, fact{K: "janky (Android's rule)", V: fmt.Sprint(*rep.JankyDeadline), Note: "GpuCompleted ≥ FrameDeadline, as dumpsys gfxinfo counts Janky frames"})
	}
	frozen := fact{K: "frozen", V: fmt.Sprint(rep.DropLevels.Frozen), Note: "frames at Matrix's FROZEN level"}
	if rep.DropLevels.Frozen > 0 {
		frozen.Class = "bad"
	}
	out = append(out, frozen)
	if p := rep.PercentilesMs; p != nil {
		out = append(out, fact{K: "p50 / p90 / p99", V: fmt.Sprintf("%s / %s / %s ms", ms2(float64(p.P50)), ms2(float64(p.P90)), ms2(float64(p.P99))),
			Note: "frame time percentiles with Android's gfxinfo buckets"})
	}
	out = append(out,
		fact{K: "idle", V: ms2(float64(rep.IdleS)) + " s", Note: "1 s slices without frames"},
		fact{K: "active", V: r2(rep.ActivePct) + " %", Note: "Σ(dropped+1)·T / elapsed"},
		fact{K: "PerfDog jank / big jank", V: fmt.Sprintf("%d / %d", rep.PerfDog.Jank, rep.PerfDog.BigJank),
			Note: "stutter " + r2(rep.PerfDog.StutterPct) + " %"})
	if rep.FramesLost != nil {
		out = append(out, fact{K: "frames lost", V: fmt.Sprint(*rep.FramesLost), Note: "rendered by the app but not seen by fpstop (counter deltas between polls)"})
	}
	return out
}

// looperFacts are the Choreographer and Looper counts.
func looperFacts(rep *metrics.Report) []fact {
	var out []fact
	if rep.SkippedFrames.Events > 0 {
		out = append(out, fact{K: "Choreographer \"Skipped N frames!\"", V: report.Plural(rep.SkippedFrames.Events, "line") + ", " + report.Plural(rep.SkippedFrames.Frames, "frame")})
	}
	if rep.SlowLooperTotal > 0 {
		out = append(out, fact{K: "Looper \"Slow dispatch/delivery\"", V: fmt.Sprint(rep.SlowLooperTotal)})
	}
	if m := rep.Messages; m.Paired+m.Unpaired > 0 {
		out = append(out, fact{K: "Looper messages", V: fmt.Sprintf("%d paired, %d unpaired", m.Paired, m.Unpaired)})
	}
	return out
}

// slowLooperRows are the longest of the report's Looper "Slow dispatch/delivery" lines (the
// report keeps the most recent ones): kind, ms, thread and the message.
func slowLooperRows(rep *metrics.Report, n int) [][4]string {
	ls := append([]metrics.SlowLooperReport(nil), rep.SlowLooper...)
	sort.SliceStable(ls, func(i, j int) bool { return ls[i].Ms > ls[j].Ms })
	var out [][4]string
	for _, l := range ls[:min(n, len(ls))] {
		name := "—"
		switch {
		case l.Handler != "" && l.What != nil:
			name = report.MessageName(l.Handler, l.Callback, *l.What, "")
		case l.Handler != "":
			name = report.SimpleName(l.Handler)
		}
		out = append(out, [4]string{l.Kind, fmt.Sprint(l.Ms), l.Thread, name})
	}
	return out
}
