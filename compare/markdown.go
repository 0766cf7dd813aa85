package compare

import (
	"fmt"
	"io"
	"strings"
)

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;", "*", `\*`, "_", `\_`).Replace(s)
}

func verdictIcon(v Verdict) string {
	switch v {
	case Better:
		return "🟢 better"
	case Worse:
		return "🔴 worse"
	case Inconclusive:
		return "❔ inconclusive"
	}
	return "⚪ unchanged"
}

// WriteMarkdown prints the comparison for a pull request.
func WriteMarkdown(w io.Writer, r *Result) error {
	ew := &errWriter{w: w}
	ew.printf("## fpstop compare: %s\n\n", verdictIcon(r.Verdict))
	for _, s := range r.Warnings {
		ew.printf("> ⚠️ %s\n\n", mdCell(s))
	}
	ew.printf("| | recordings | source | frames | duration |\n|---|---|---|---|---|\n")
	for _, s := range []struct {
		n string
		s Side
	}{{"BASE", r.Base}, {"NEW", r.New}} {
		ew.printf("| **%s** %s | %d | %s | %d | %s s |\n", s.n, mdCell(s.s.Label), len(s.s.Recordings), mdCell(s.s.Source), s.s.Frames, num(s.s.DurationS))
	}
	ew.printf("\n| metric | base | new | diff | %s%% CI | p | Holm p | verdict |\n|---|---:|---:|---:|---|---:|---:|---|\n", num(r.Confidence*100))
	for _, m := range r.Metrics {
		mdMetric(ew, m.Name, m)
	}
	if len(r.Windows) > 0 {
		ew.printf("\n### Windows\n\n| window | present | fps | jank %% | verdict |\n|---|---|---|---|---|\n")
	}
	for _, win := range r.Windows {
		if win.Present != PresentBoth {
			continue
		}
		f, j := find(win.Metrics, "fps"), find(win.Metrics, "jank_pct")
		ew.printf("| %s | %s | %s → %s (%s) | %s → %s (%s) | %s |\n", mdCell(win.Name), win.Present, fv(f.Base), fv(f.New), signedv(f.Diff),
			fv(j.Base), fv(j.New), signedv(j.Diff), verdictIcon(win.Verdict))
	}
	for _, p := range []struct{ present, side string }{{PresentGone, "BASE"}, {PresentNew, "NEW"}} {
		if names := onlyIn(r.Windows, p.present); names != "" {
			ew.printf("\nOnly in %s: %s\n", p.side, mdCell(names))
		}
	}
	if len(r.Messages) > 0 {
		ew.printf("\n### Slow main-thread messages (p95 ms)\n\n| message | status | count | base | new | diff | p |\n|---|---|---|---:|---:|---:|---:|\n")
	}
	for _, m := range r.Messages {
		ew.printf("| %s | %s | %d → %d | %s | %s | %s | %s |\n", mdCell(msgLabel(m)), m.Status, m.CountBase, m.CountNew,
			fv(m.P95.Base), fv(m.P95.New), signedv(m.P95.Diff), pv(m.P95))
	}
	if len(r.Sections) > 0 {
		ew.printf("\n### Slow sections (p95 ms)\n\n| section | status | count | base | new | diff | p |\n|---|---|---|---:|---:|---:|---:|\n")
	}
	for _, s := range r.Sections {
		ew.printf("| %s | %s | %d → %d | %s | %s | %s | %s |\n", mdCell(sectionLabel(s)), s.Status, s.CountBase, s.CountNew,
			fv(s.P95.Base), fv(s.P95.New), signedv(s.P95.Diff), pv(s.P95))
	}
	if len(r.Gates) > 0 {
		ew.printf("\n### Gates\n\n")
	}
	for _, g := range r.Gates {
		st := "✅"
		if g.Failed {
			st = "❌"
		}
		ew.printf("- %s %s\n", st, mdCell(g.Message))
	}
	ew.printf("\n%s", mdCell(significanceNote(r)))
	for _, m := range methods(r) {
		ew.printf(" Method %s.", mdCell(m))
	}
	ew.printf("\n")
	return ew.err
}

func mdMetric(ew *errWriter, name string, m Metric) {
	v := verdictIcon(m.Verdict)
	if m.Significant {
		v = "**" + v + "**"
	}
	if !m.Gated {
		v += " (info)"
	}
	ew.printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", mdCell(name), fv(m.Base), fv(m.New), signedv(m.Diff), ci(m), mdCell(pv(m)), holmv(m), v)
}

// WriteSummaryText prints a `fpstop test` summary for a terminal.
func WriteSummaryText(w io.Writer, s *Summary) error {
	ew := &errWriter{w: w}
	ok := len(s.Iterations) - s.Failed
	ew.printf("fpstop test: %d iteration(s), %d ok, %d failed (source %s)\n", len(s.Iterations), ok, s.Failed, s.Source)
	for _, it := range s.Iterations {
		line := fmt.Sprintf("  #%d %-6s %s", it.Index, it.Status, it.Recording)
		if v := it.Values["fps"]; v != nil {
			line += fmt.Sprintf("  fps %s", num(*v))
		}
		if v := it.Values["jank_pct"]; v != nil {
			line += fmt.Sprintf("  jank %s %%", num(*v))
		}
		if it.Error != "" {
			line += "  — " + it.Error
		}
		ew.printf("%s\n", line)
	}
	ew.printf("%-16s %4s %9s %20s %9s %9s %9s\n", "metric", "n", "mean", fmt.Sprintf("%s%% CI", num(s.Confidence*100)), "stddev", "min", "max")
	for _, st := range s.Stats {
		c := "–"
		if st.CILow != nil {
			c = fmt.Sprintf("[%s, %s]", num(*st.CILow), num(*st.CIHigh))
		}
		ew.printf("%-16s %4d %9s %20s %9s %9s %9s\n", st.Name, st.N, fv(st.Mean), c, fv(st.StdDev), fv(st.Min), fv(st.Max))
	}
	ew.printf("interval: %s\n", s.Method)
	return ew.err
}
