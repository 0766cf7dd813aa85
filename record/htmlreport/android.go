package htmlreport

import (
	"fmt"

	"github.com/fpstop/fpstop/metrics"
)

// androidTables puts what dumpsys gfxinfo printed beside fpstop's numbers: one table per window
// Android summarised, and one per process (Android's process-wide summary against fpstop's
// totals). Empty when the source printed no summary.
func androidTables(rep *metrics.Report) []sideTable {
	var out []sideTable
	for _, w := range rep.Windows {
		if w.Android == nil {
			continue
		}
		a := w.Android
		t := sideTable{Title: "window " + w.Name}
		t.Rows = append(t.Rows, [3]string{"frames", fmt.Sprint(w.Frames), i64p(a.TotalFrames)})
		t.Rows = append(t.Rows, [3]string{"janky", jankOf(w.JankPct), jankPrinted(a)})
		if a.JankyLegacy != nil {
			t.Rows = append(t.Rows, [3]string{"janky (legacy rule)", "—", i64p(a.JankyLegacy)})
		}
		t.Rows = append(t.Rows, percentileRows(w.PercentilesMs, a)...)
		out = append(out, t)
	}
	for _, p := range rep.AndroidProcesses {
		a := &p.AndroidPrinted
		t := sideTable{Title: fmt.Sprintf("process %s (pid %d)", p.Process, p.Pid)}
		t.Rows = append(t.Rows, [3]string{"frames", fmt.Sprint(rep.Frames), i64p(a.TotalFrames)})
		fj := fmt.Sprintf("%d (%s %%)", rep.JankyFrames, r2(rep.JankPct))
		if rep.JankyDeadline != nil {
			fj += fmt.Sprintf("; %d by Android's deadline rule", *rep.JankyDeadline)
		}
		t.Rows = append(t.Rows, [3]string{"janky", fj, jankPrinted(a)})
		if a.JankyLegacy != nil {
			t.Rows = append(t.Rows, [3]string{"janky (legacy rule)", "—", i64p(a.JankyLegacy)})
		}
		t.Rows = append(t.Rows, percentileRows(rep.PercentilesMs, a)...)
		out = append(out, t)
	}
	return out
}

func percentileRows(p *metrics.Percentiles, a *metrics.AndroidPrinted) [][3]string {
	mine := func(f func(*metrics.Percentiles) metrics.R2) string {
		if p == nil {
			return "—"
		}
		return ms2(float64(f(p))) + " ms"
	}
	theirs := func(v *metrics.R2) string {
		if v == nil {
			return "—"
		}
		return r2(v) + " ms"
	}
	return [][3]string{
		{"50th percentile", mine(func(p *metrics.Percentiles) metrics.R2 { return p.P50 }), theirs(a.P50Ms)},
		{"90th percentile", mine(func(p *metrics.Percentiles) metrics.R2 { return p.P90 }), theirs(a.P90Ms)},
		{"95th percentile", mine(func(p *metrics.Percentiles) metrics.R2 { return p.P95 }), theirs(a.P95Ms)},
		{"99th percentile", mine(func(p *metrics.Percentiles) metrics.R2 { return p.P99 }), theirs(a.P99Ms)},
	}
}

func jankOf(pctV *metrics.R2) string {
	if pctV == nil {
		return "—"
	}
	return r2(pctV) + " %"
}

func jankPrinted(a *metrics.AndroidPrinted) string {
	if a.JankyFrames == nil {
		return "—"
	}
	if a.TotalFrames != nil && *a.TotalFrames > 0 {
		return fmt.Sprintf("%d (%s)", *a.JankyFrames, pct(*a.JankyFrames, *a.TotalFrames))
	}
	return fmt.Sprint(*a.JankyFrames)
}

func i64p(v *int64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprint(*v)
}
