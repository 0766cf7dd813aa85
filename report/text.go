package report

import (
	"bufio"
	"fmt"
	"io"

	"github.com/fpstop/fpstop/metrics"
)

// WriteText writes a short plain-text summary of a report, the human form of `fpstop
// --headless` and `fpstop report` without --json: source and refresh rate, duration, rates,
// drop levels, percentiles, frames lost, the top five slow messages and the warnings. One
// fact per line, so it greps well.
func WriteText(w io.Writer, r *metrics.Report) error {
	ew := bufio.NewWriter(w) // keeps the first write error, so the lines need no check each
	num := func(v *metrics.R2, unit string) string {
		if v == nil {
			return "–"
		}
		return fmt.Sprintf("%.2f%s", float64(*v), unit)
	}
	pkg := "–"
	if r.Package != nil {
		pkg = *r.Package
	}
	fmt.Fprintf(ew, "fpstop %s · source %s · package %s · refresh %s\n", r.FpstopVersion, r.Source, pkg, num(r.RefreshHz, " Hz"))
	fmt.Fprintf(ew, "duration %.1f s · frames %d · idle %.1f s\n", float64(r.DurationS), r.Frames, float64(r.IdleS))
	fmt.Fprintf(ew, "fps %s · fps_wall %s · 1%% low %s · janky %d (%s)\n", num(r.FPS, ""), num(r.FPSWall, ""), num(r.FPSLow1Pct, ""), r.JankyFrames, num(r.JankPct, " %"))
	d := r.DropLevels
	fmt.Fprintf(ew, "drop levels: best %d · normal %d · middle %d · high %d · frozen %d\n", d.Best, d.Normal, d.Middle, d.High, d.Frozen)
	if p := r.PercentilesMs; p != nil {
		fmt.Fprintf(ew, "frame time p50 %g ms · p90 %g · p95 %g · p99 %g\n", float64(p.P50), float64(p.P90), float64(p.P95), float64(p.P99))
	}
	if r.FramesLost != nil {
		fmt.Fprintf(ew, "frames lost between polls: %d\n", *r.FramesLost)
	}
	for _, l := range r.Layers {
		what := "layer"
		if l.Measured {
			what = "measured layer"
		}
		fmt.Fprintf(ew, "%s %s · frames %d · fps %s · pace %s · janky %d · fps_p90 %s · fps_p99 %s · low 1%% avg %s · stability %s · lost %d · pauses %d\n",
			what, l.Name, l.Frames, num(l.FPS, ""), num(l.PaceFPS, " fps"), l.JankyFrames, num(l.FPSP90, ""), num(l.FPSP99, ""),
			num(l.FPSLow1pctAvg, ""), num(l.FPSStabilityPct, " %"), l.FramesLost, l.PausesTotal)
	}
	for _, m := range r.SlowMessages[:min(5, len(r.SlowMessages))] {
		name := m.WhatName
		if name == "" {
			name = fmt.Sprint(m.What)
		}
		fmt.Fprintf(ew, "slow: %s %s #%s ×%d max %.1f ms\n", m.Handler, m.Callback, name, m.Count, float64(m.MaxMs))
	}
	for _, s := range r.Warnings {
		fmt.Fprintf(ew, "warning: %s\n", s)
	}
	return ew.Flush()
}
