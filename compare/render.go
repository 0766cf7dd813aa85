package compare

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// methodNote explains a method in a sentence for the text and Markdown outputs.
var methodNote = map[string]string{
	MethodBlockBootstrap:      "one-second slices of each side resampled with replacement (a block bootstrap: frames within a second are not independent)",
	MethodIterationBootstrap:  "per-recording values of each side resampled with replacement (difference of the means)",
	MethodOccurrenceBootstrap: "message occurrences resampled with replacement (difference of the p95)",
}

func fv(p *float64) string {
	if p == nil {
		return "–"
	}
	return num(*p)
}

func signedv(p *float64) string {
	if p == nil {
		return "–"
	}
	return signed(*p)
}

func ci(m Metric) string {
	if m.CILow == nil {
		return "–"
	}
	return fmt.Sprintf("[%s, %s]", num(*m.CILow), num(*m.CIHigh))
}

func pv(m Metric) string {
	if m.P == nil {
		return "–"
	}
	return strconv.FormatFloat(*m.P, 'f', -1, 64)
}

func mark(m Metric) string {
	if m.Significant {
		return string(m.Verdict) + " *"
	}
	return string(m.Verdict)
}

func sideLine(s Side) string {
	parts := []string{s.Source}
	if s.Package != nil {
		parts = append(parts, *s.Package)
	}
	if s.RefreshHz != nil {
		parts = append(parts, num(*s.RefreshHz)+" Hz")
	}
	if s.Scenario != "" {
		parts = append(parts, "scenario "+s.Scenario)
	}
	parts = append(parts, fmt.Sprintf("%d recording(s)", len(s.Recordings)), fmt.Sprintf("%d frames", s.Frames), num(s.DurationS)+" s")
	return fmt.Sprintf("%s (%s)", s.Label, strings.Join(parts, ", "))
}

func methods(r *Result) []string {
	seen := map[string]bool{}
	var out []string
	add := func(m string) {
		if n, ok := methodNote[m]; ok && !seen[m] {
			seen[m] = true
			out = append(out, fmt.Sprintf("%s: %s", m, n))
		}
	}
	for _, m := range r.Metrics {
		add(m.Method)
	}
	for _, w := range r.Windows {
		for _, m := range w.Metrics {
			add(m.Method)
		}
	}
	for _, m := range r.Messages {
		add(m.P95.Method)
	}
	return out
}

// WriteText prints the comparison for a terminal.
func WriteText(w io.Writer, r *Result) error {
	ew := &errWriter{w: w}
	ew.printf("fpstop compare: NEW is %s (%s%% confidence; minimum effect %s fps, %s pp, %s ms)\n",
		strings.ToUpper(string(r.Verdict)), num(r.Confidence*100), num(r.MinEffect.FPS), num(r.MinEffect.Pct), num(r.MinEffect.Ms))
	ew.printf("BASE %s\nNEW  %s\n\n", sideLine(r.Base), sideLine(r.New))
	ew.printf("%-16s %9s %9s %9s %20s %8s  %s\n", "metric", "base", "new", "diff", fmt.Sprintf("%s%% CI", num(r.Confidence*100)), "p", "verdict")
	for _, m := range r.Metrics {
		ew.printf("%-16s %9s %9s %9s %20s %8s  %s\n", m.Name, fv(m.Base), fv(m.New), signedv(m.Diff), ci(m), pv(m), mark(m))
	}
	if len(r.Windows) > 0 {
		ew.printf("\nwindows:\n")
	}
	for _, win := range r.Windows {
		if win.Present != PresentBoth {
			continue
		}
		f, j := find(win.Metrics, "fps"), find(win.Metrics, "jank_pct")
		ew.printf("  %-9s %s: fps %s → %s (%s, p %s), jank %s → %s %% (%s pp, p %s)\n", win.Verdict, win.Name,
			fv(f.Base), fv(f.New), signedv(f.Diff), pv(f), fv(j.Base), fv(j.New), signedv(j.Diff), pv(j))
	}
	for _, p := range []struct{ present, side string }{{PresentGone, "BASE"}, {PresentNew, "NEW"}} {
		if names := onlyIn(r.Windows, p.present); len(names) > 0 {
			ew.printf("  only in %s: %s\n", p.side, names)
		}
	}
	if len(r.Messages) > 0 {
		ew.printf("\nslow messages (p95 ms):\n")
	}
	for _, m := range r.Messages {
		ew.printf("  %-9s %s: %s → %s ms (%s, p %s), ×%d → ×%d\n", m.Status, msgLabel(m), fv(m.P95.Base), fv(m.P95.New),
			signedv(m.P95.Diff), pv(m.P95), m.CountBase, m.CountNew)
	}
	if len(r.Gates) > 0 {
		ew.printf("\ngates:\n")
	}
	for _, g := range r.Gates {
		st := "pass"
		if g.Failed {
			st = "FAIL"
		}
		ew.printf("  %s %s\n", st, g.Message)
	}
	ew.printf("\n* significant: p < %s and |diff| above the minimum effect.\n", num(1-r.Confidence))
	for _, m := range methods(r) {
		ew.printf("method %s (%d resamples, seed %d)\n", m, r.Bootstrap.Resamples, r.Bootstrap.Seed)
	}
	for _, s := range r.Warnings {
		ew.printf("warning: %s\n", s)
	}
	return ew.err
}

// onlyIn lists the windows present on one side only (popups carry an identity hash in their
// name, so each run's popups are new names), at most five by name.
func onlyIn(ws []Window, present string) string {
	var names []string
	for _, w := range ws {
		if w.Present == present {
			names = append(names, w.Name)
		}
	}
	if len(names) > 5 {
		return fmt.Sprintf("%s and %d more", strings.Join(names[:5], ", "), len(names)-5)
	}
	return strings.Join(names, ", ")
}

func msgLabel(m Message) string {
	name := m.WhatName
	if name == "" {
		name = fmt.Sprint(m.What)
	}
	return fmt.Sprintf("%s %s #%s", m.Handler, m.Callback, name)
}

type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) printf(format string, args ...any) {
	if e.err == nil {
		_, e.err = fmt.Fprintf(e.w, format, args...)
	}
}
