package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// Markdown limits: rows per table and the sparkline's width in characters.
const (
	mdRows       = 10
	sparkWidth   = 60
	sparkLevels  = "▁▂▃▄▅▆▇█"
	sparkIdle    = '·'
	sparkUnknown = ' '
)

// WriteMarkdownSeries writes the Markdown report with an FPS sparkline drawn from the per-slice
// series (Analysis.Series); a nil series leaves the chart out.
func WriteMarkdownSeries(w io.Writer, rep *metrics.Report, series []metrics.SlicePoint) error {
	b := bufio.NewWriter(w)
	mdHeading(b, rep)
	mdSummary(b, rep)

	if series != nil {
		if chart, caption := sparkline(series, rep.RefreshHz, sparkWidth); chart != "" {
			fmt.Fprintf(b, "FPS over time (%s):\n\n```text\n%s\n```\n\n", caption, chart)
		}
	}

	b.WriteString("### Drop levels\n\n| best | normal | middle | high | frozen |\n|---:|---:|---:|---:|---:|\n")
	d := rep.DropLevels
	fmt.Fprintf(b, "| %d | %d | %d | %d | %d |\n\n", d.Best, d.Normal, d.Middle, d.High, d.Frozen)

	if p := rep.PercentilesMs; p != nil {
		b.WriteString("### Frame time percentiles (ms)\n\n| p50 | p90 | p95 | p99 |\n|---:|---:|---:|---:|\n")
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n\n", num(float64(p.P50)), num(float64(p.P90)), num(float64(p.P95)), num(float64(p.P99)))
	}

	mdLayers(b, rep)
	mdWindows(b, rep)
	mdWorstFrames(b, rep)
	mdSlowMessages(b, rep)
	mdTimeline(b, rep)
	mdRowsOf(b, "### Warnings\n\n", len(rep.Warnings), "- … %d more\n", func(i int) { fmt.Fprintf(b, "- %s\n", mdText(rep.Warnings[i])) })
	return b.Flush()
}

// mdRowsOf writes a section's heading and its first mdRows of n rows (row(i) writes one);
// more, when set, is the row that says how many were left out. No rows, no section.
func mdRowsOf(b *bufio.Writer, head string, n int, more string, row func(i int)) {
	if n == 0 {
		return
	}
	b.WriteString(head)
	for i := range min(n, mdRows) {
		row(i)
	}
	if n > mdRows && more != "" {
		fmt.Fprintf(b, more, n-mdRows)
	}
	b.WriteString("\n")
}

// mdHeading writes the title and the line of facts about the run.
func mdHeading(b *bufio.Writer, rep *metrics.Report) {
	fmt.Fprintf(b, "## fpstop: %s\n\n", mdText(AppName(rep)))
	var facts []string
	facts = append(facts, "source **"+mdText(rep.Source)+"**")
	if d := rep.Device; d != nil && (d.Model != "" || d.Serial != "") {
		s := mdText(d.Model)
		if d.Android != "" {
			s += " (Android " + mdText(d.Android) + ")"
		}
		if d.Serial != "" {
			s += " `" + strings.ReplaceAll(d.Serial, "`", "'") + "`"
		}
		facts = append(facts, "device "+strings.TrimSpace(s))
	}
	if rep.RefreshHz != nil {
		facts = append(facts, r2(rep.RefreshHz)+" Hz")
	}
	facts = append(facts, num(float64(rep.DurationS))+" s")
	if rep.CostBasis != "" {
		facts = append(facts, "cost basis "+mdText(rep.CostBasis))
	}
	if rep.FpstopVersion != "" {
		facts = append(facts, "fpstop "+mdText(rep.FpstopVersion))
	}
	fmt.Fprintf(b, "%s\n\n", strings.Join(facts, " · "))
}

// mdSummary writes the table of the run's numbers.
func mdSummary(b *bufio.Writer, rep *metrics.Report) {
	b.WriteString("| metric | value |\n|---|---:|\n")
	row := func(k, v string) { fmt.Fprintf(b, "| %s | %s |\n", k, v) }
	row("frames", fmt.Sprint(rep.Frames))
	row("FPS (rendering time, Matrix)", r2(rep.FPS))
	row("FPS (wall, non-idle seconds)", r2(rep.FPSWall))
	row("1% low FPS", r2(rep.FPSLow1Pct))
	row("janky frames", fmt.Sprintf("%d (%s %%)", rep.JankyFrames, r2(rep.JankPct)))
	if rep.JankyDeadline != nil {
		row("janky by Android's deadline rule", fmt.Sprint(*rep.JankyDeadline))
	}
	row("idle", num(float64(rep.IdleS))+" s")
	row("active", r2(rep.ActivePct)+" %")
	if rep.FramesLost != nil {
		row("frames lost (not seen)", fmt.Sprint(*rep.FramesLost))
	}
	row("PerfDog jank / big jank", fmt.Sprintf("%d / %d (stutter %s %%)", rep.PerfDog.Jank, rep.PerfDog.BigJank, r2(rep.PerfDog.StutterPct)))
	if rep.SkippedFrames.Events > 0 {
		row("Choreographer \"Skipped N frames\"", Plural(rep.SkippedFrames.Events, "line")+", "+Plural(rep.SkippedFrames.Frames, "frame"))
	}
	b.WriteString("\n")
}

// mdWindows writes the per-window table (at most mdRows rows).
func mdWindows(b *bufio.Writer, rep *metrics.Report) {
	mdRowsOf(b, "### Windows\n\n| window | frames | FPS | FPS wall | jank % | p50 ms | p99 ms | frozen |\n|---|---:|---:|---:|---:|---:|---:|---:|\n",
		len(rep.Windows), "| … %d more | | | | | | | |\n", func(i int) {
			win := rep.Windows[i]
			p50, p99 := "—", "—"
			if win.PercentilesMs != nil {
				p50, p99 = num(float64(win.PercentilesMs.P50)), num(float64(win.PercentilesMs.P99))
			}
			name := mdText(win.Name)
			if !win.Visible {
				name += " (hidden)"
			}
			fmt.Fprintf(b, "| %s | %d | %s | %s | %s | %s | %s | %d |\n", name, win.Frames, r2(win.FPS), r2(win.FPSWall),
				r2(win.JankPct), p50, p99, win.DropLevels.Frozen)
		})
}

// mdWorstFrames writes the worst frames with their messages (at most mdRows).
func mdWorstFrames(b *bufio.Writer, rep *metrics.Report) {
	what := "main-thread messages"
	switch source.Kind(rep.Source) {
	case source.KindPerfetto:
		what = "sections (blame)"
	case source.KindPerfettoLogcat:
		what = "sections (blame) · main-thread messages"
	}
	mdRowsOf(b, "### Worst frames\n\n| at (s) | window | cost ms | dropped | "+what+" |\n|---:|---|---:|---:|---|\n", len(rep.WorstFrames), "", func(i int) {
		f := rep.WorstFrames[i]
		var sections, msgs []string
		for _, sec := range f.Sections {
			sections = append(sections, fmt.Sprintf("%s %s ms", mdText(sec.Name), num(float64(sec.Ms))))
		}
		cell := firstThree(sections)
		if len(f.Blame) > 0 {
			cell = append(cell, "("+strings.Join(f.Blame, ", ")+")")
		}
		for _, m := range f.Messages {
			msgs = append(msgs, fmt.Sprintf("%s %s ms", mdText(MessageName(m.Handler, m.Callback, m.What, "")), num(float64(m.Ms))))
		}
		cell = append(cell, firstThree(msgs)...)
		fmt.Fprintf(b, "| %s | %s | %s | %d | %s |\n", num(float64(f.StartMs)/1000), mdText(f.Window), num(float64(f.CostMs)),
			f.Dropped, strings.Join(cell, "; "))
	})
}

// firstThree keeps a frame's first three sections or messages and counts the rest ("+2 more").
func firstThree(items []string) []string {
	if len(items) <= 3 {
		return items
	}
	return append(items[:3:3], fmt.Sprintf("+%d more", len(items)-3))
}

// mdTimeline writes FrameTimeline's verdict (Perfetto traces): who missed, how frames were
// presented, and the slowest sections by name.
func mdTimeline(b *bufio.Writer, rep *metrics.Report) {
	if bl := rep.Blame; bl != nil {
		b.WriteString("### Blame (FrameTimeline)\n\n| app | surfaceflinger | display | prediction | buffer stuffing | dropped |\n|---:|---:|---:|---:|---:|---:|\n")
		fmt.Fprintf(b, "| %d | %d | %d | %d | %d | %d |\n\n", bl.App, bl.SurfaceFlinger, bl.Display, bl.Prediction, bl.BufferStuffing, bl.Dropped)
	}
	if pt := rep.PresentTypes; pt != nil {
		b.WriteString("| on time | late | early | dropped | unknown |\n|---:|---:|---:|---:|---:|\n")
		fmt.Fprintf(b, "| %d | %d | %d | %d | %d |\n\n", pt.OnTime, pt.Late, pt.Early, pt.Dropped, pt.Unknown)
	}
	mdRowsOf(b, "### Slowest sections (atrace)\n\n| section | thread | count | max ms | total ms |\n|---|---|---:|---:|---:|\n", len(rep.SlowSections), "", func(i int) {
		s := rep.SlowSections[i]
		fmt.Fprintf(b, "| %s | %s | %d | %s | %s |\n", mdText(s.Name), mdText(s.Thread), s.Count, num(float64(s.MaxMs)), num(float64(s.TotalMs)))
	})
}

// mdSlowMessages writes the slowest message signatures (at most mdRows).
func mdSlowMessages(b *bufio.Writer, rep *metrics.Report) {
	mdRowsOf(b, "### Slowest main-thread messages\n\n| handler: callback #what | count | max ms | p95 ms | total ms |\n|---|---:|---:|---:|---:|\n", len(rep.SlowMessages), "", func(i int) {
		m := rep.SlowMessages[i]
		name := MessageName(m.Handler, m.Callback, m.What, "")
		if m.WhatName != "" {
			name += " (" + m.WhatName + ")"
		}
		fmt.Fprintf(b, "| %s | %d | %s | %s | %s |\n", mdText(name), m.Count, num(float64(m.MaxMs)), num(float64(m.P95Ms)), num(float64(m.TotalMs)))
	})
}

// AppName is the measured app as the Markdown and HTML reports title it.
func AppName(rep *metrics.Report) string {
	if rep.Package != nil && *rep.Package != "" {
		return *rep.Package
	}
	return "(unknown app)"
}

// MessageName names a Looper message as Perfetto does: "Handler: Callback #what" with class
// names shortened to their simple name, and the what's name when known ("" prints none). The
// Markdown and HTML reports both name messages with it, so that they name them alike.
func MessageName(handler, callback string, what int, whatName string) string {
	s := SimpleName(handler)
	if callback != "" && callback != "null" {
		s += ": " + SimpleName(callback)
	}
	if whatName != "" {
		return fmt.Sprintf("%s #%d %s", s, what, whatName)
	}
	return fmt.Sprintf("%s #%d", s, what)
}

// SimpleName drops the package of a class name ("android.app.ActivityThread$H" → "ActivityThread$H").
func SimpleName(class string) string {
	if i := strings.IndexAny(class, " {@"); i > 0 {
		class = class[:i]
	}
	if i := strings.LastIndexByte(class, '.'); i >= 0 && i < len(class)-1 {
		return class[i+1:]
	}
	return class
}

// r2 prints an optional report number; "—" for null.
func r2(v *metrics.R2) string {
	if v == nil {
		return "—"
	}
	return num(float64(*v))
}

// mdText makes text safe inside a Markdown table cell.
func mdText(s string) string {
	r := strings.NewReplacer("|", "\\|", "\n", " ", "\r", " ", "<", "&lt;", ">", "&gt;", "`", "'", "*", "\\*", "_", "\\_")
	return r.Replace(s)
}

// sparkline draws the series in at most width characters: ▁…█ from 0 to the scale (the
// refresh rate, or the highest FPS when higher), · for idle. Wider series are averaged into
// buckets. It returns the chart and a caption.
func sparkline(series []metrics.SlicePoint, hz *metrics.R2, width int) (string, string) {
	if len(series) == 0 || width <= 0 {
		return "", ""
	}
	per := (len(series) + width - 1) / width
	var vals []float64 // NaN idle
	for i := 0; i < len(series); i += per {
		sum, n := 0.0, 0
		for _, p := range series[i:min(i+per, len(series))] {
			if !p.Idle && !math.IsNaN(p.FPS) && !math.IsInf(p.FPS, 0) {
				sum += p.FPS
				n++
			}
		}
		if n == 0 {
			vals = append(vals, math.NaN())
		} else {
			vals = append(vals, sum/float64(n))
		}
	}
	scale := 0.0
	if hz != nil {
		scale = float64(*hz)
	}
	for _, v := range vals {
		if v > scale {
			scale = v
		}
	}
	levels := []rune(sparkLevels)
	var sb strings.Builder
	lo, hi, sum, n := math.Inf(1), math.Inf(-1), 0.0, 0
	for _, v := range vals {
		if math.IsNaN(v) {
			sb.WriteRune(sparkIdle)
			continue
		}
		lo, hi, sum, n = math.Min(lo, v), math.Max(hi, v), sum+v, n+1
		if scale <= 0 {
			sb.WriteRune(sparkUnknown)
			continue
		}
		i := int(math.Round(v / scale * float64(len(levels)-1)))
		sb.WriteRune(levels[max(0, min(i, len(levels)-1))])
	}
	step := "1 slice"
	if per > 1 {
		step = fmt.Sprintf("%d slices", per)
	}
	caption := fmt.Sprintf("%s, one character per %s, ▁ 0 … █ %s fps, %c idle", Plural(len(series), "slice"), step, num(scale), sparkIdle)
	if n > 0 {
		caption += fmt.Sprintf("; min %s, avg %s, max %s", num(lo), num(sum/float64(n)), num(hi))
	}
	return sb.String(), caption
}

// mdLayers lists the SurfaceFlinger layers (the measured one first) with the game metrics.
func mdLayers(b *bufio.Writer, rep *metrics.Report) {
	if len(rep.Layers) == 0 {
		return
	}
	b.WriteString("### SurfaceFlinger layers\n\n| layer | frames | FPS | pace | janky | FPS p90 | FPS p99 | low 1 % avg | stability % | lost | pauses |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, l := range rep.Layers {
		name := mdText(l.Name)
		if l.Measured {
			name = "**" + name + "**"
		}
		fmt.Fprintf(b, "| %s | %d | %s | %s | %d | %s | %s | %s | %s | %d | %d |\n", name, l.Frames, r2(l.FPS), r2(l.PaceFPS),
			l.JankyFrames, r2(l.FPSP90), r2(l.FPSP99), r2(l.FPSLow1pctAvg), r2(l.FPSStabilityPct), l.FramesLost, l.PausesTotal)
	}
	b.WriteString("\n")
}
