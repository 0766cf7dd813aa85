package html

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
		if a.JankyLegacy != nil || w.JankyLegacy != nil {
			t.Rows = append(t.Rows, [3]string{"janky (legacy rule)", i64p(w.JankyLegacy), i64p(a.JankyLegacy)})
		}
		t.Rows = append(t.Rows, percentileRows(w.PercentilesMs, a)...)
		out = append(out, t)
	}
	for _, p := range rep.AndroidProcesses {
		out = append(out, processTable(rep, p))
	}
	return out
}

// processTable puts Android's summary of a process beside fpstop's totals when the process is
// the app fpstop measured (or the only one printed); other processes show Android's numbers
// alone, since fpstop's totals are not theirs.
func processTable(rep *metrics.Report, p metrics.ProcessAndroid) sideTable {
	a := &p.AndroidPrinted
	t := sideTable{Title: fmt.Sprintf("process %s (pid %d)", p.Process, p.Pid)}
	mine := len(rep.AndroidProcesses) == 1 && (rep.Package == nil || *rep.Package == "") ||
		rep.Package != nil && *rep.Package == p.Process
	dash := func(v string) string {
		if !mine {
			return "—"
		}
		return v
	}
	deadline := "—"
	if rep.JankyDeadline != nil {
		deadline = fmt.Sprint(*rep.JankyDeadline)
	}
	t.Rows = append(t.Rows,
		[3]string{"frames", dash(fmt.Sprint(rep.Frames)), i64p(a.TotalFrames)},
		[3]string{"janky (Android's rule)", dash(deadline), jankPrinted(a)},
		[3]string{"janky (≥ 1 vsync dropped)", dash(fmt.Sprintf("%d (%s %%)", rep.JankyFrames, r2(rep.JankPct))), "—"})
	if a.JankyLegacy != nil || rep.JankyLegacy != nil {
		t.Rows = append(t.Rows, [3]string{"janky (legacy rule)", dash(i64p(rep.JankyLegacy)), i64p(a.JankyLegacy)})
	}
	pcts := rep.PercentilesMs
	if !mine {
		pcts = nil
	}
	t.Rows = append(t.Rows, percentileRows(pcts, a)...)
	if !mine && rep.Package != nil && *rep.Package != "" {
		t.Title += " · not the measured app"
	}
	return t
}

func percentileRows(p *metrics.Percentiles, a *metrics.AndroidPrinted) [][3]string {
	names := []string{"50th percentile", "90th percentile", "95th percentile", "99th percentile"}
	theirs := []*metrics.R2{a.P50Ms, a.P90Ms, a.P95Ms, a.P99Ms}
	var mine []metrics.R2
	if p != nil {
		mine = []metrics.R2{p.P50, p.P90, p.P95, p.P99}
	}
	rows := make([][3]string, len(names))
	for i := range rows {
		rows[i] = [3]string{names[i], "—", "—"}
		if mine != nil {
			rows[i][1] = ms2(float64(mine[i])) + " ms"
		}
		if theirs[i] != nil {
			rows[i][2] = r2(theirs[i]) + " ms"
		}
	}
	return rows
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
