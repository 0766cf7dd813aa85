package html

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
)

// TestJankySimulatorReport: the simulator's janky 120 Hz session gives a page whose charts carry
// the data (one element with a tooltip per FPS slice, per frame and per histogram bucket),
// that marks every frozen frame, shows the report's own numbers and loads nothing.
func TestJankySimulatorReport(t *testing.T) {
	path := simRecording(t, t.TempDir(), "janky", 120, 1, 30*time.Second)
	s, page := renderFile(t, path)
	rep := s.Analysis.Report
	if rep.Frames == 0 || rep.JankyFrames == 0 || rep.DropLevels.Frozen == 0 {
		t.Fatalf("the janky scenario should have janky and frozen frames: %d frames, %d janky, %d frozen", rep.Frames, rep.JankyFrames, rep.DropLevels.Frozen)
	}
	if refs := externalRefs(page); len(refs) > 0 {
		t.Errorf("the page references external resources: %q", refs)
	}
	charts := map[string]string{}
	for _, c := range svgCharts(page) {
		m := regexp.MustCompile(`class="chart (\w+)"`).FindStringSubmatch(c)
		charts[m[1]] = c
	}
	if len(charts) < 3 {
		t.Fatalf("%d SVG charts, want at least 3", len(charts))
	}
	nonIdle := 0
	for _, p := range s.Analysis.Series {
		if !p.Idle {
			nonIdle++
		}
	}
	want := map[string]struct {
		elem string
		n    int
	}{
		"fps":      {`<rect class="fpsbar`, nonIdle},
		"timeline": {`class="pt `, int(rep.Frames)},
		"hist":     {`<rect class="hbar `, len(rep.HistogramMs)},
		"levels":   {`<rect class="lbar `, 5},
	}
	for name, w := range want {
		c, ok := charts[name]
		if !ok {
			t.Errorf("no %s chart", name)
			continue
		}
		if got := strings.Count(c, w.elem); got != w.n {
			t.Errorf("%s chart: %d %q elements, want %d", name, got, w.elem, w.n)
		}
		if strings.Count(c, "<title>") < w.n {
			t.Errorf("%s chart: fewer tooltips than data elements", name)
		}
	}
	if got := strings.Count(charts["timeline"], `class="freeze"`); got != int(rep.DropLevels.Frozen) {
		t.Errorf("timeline marks %d freezes, the report counts %d frozen frames", got, rep.DropLevels.Frozen)
	}
	if !strings.Contains(charts["timeline"], `class="budget"`) {
		t.Error("no frame-budget line on the timeline")
	}
	for _, needle := range []string{
		"FPS</div><div class=\"v\">" + r2(rep.FPS),
		html.EscapeString(fmt.Sprintf("%d (%s %%)", rep.JankyFrames, r2(rep.JankPct))),
		"prefers-color-scheme: dark",
		`id="worst-frames"`, `id="slow-messages"`, `id="phases"`,
	} {
		if !strings.Contains(page, needle) {
			t.Errorf("page lacks %q", needle)
		}
	}
	// Every worst frame has its row, naming the message that overlapped it most.
	table := page[strings.Index(page, `<table class="worst">`):]
	table = table[:strings.Index(table, `</table>`)]
	rows := strings.Split(table, "<tr>")[2:] // [0] before the header, [1] the header
	if len(rows) != len(rep.WorstFrames) {
		t.Fatalf("%d worst-frame rows, the report has %d", len(rows), len(rep.WorstFrames))
	}
	for i, w := range rep.WorstFrames {
		if !strings.Contains(rows[i], ">"+ms2(float64(w.CostMs))+" ms<") {
			t.Errorf("row %d does not show the frame's cost %v ms", i+1, w.CostMs)
		}
		var top *metrics.FrameMessage
		for j := range w.Messages {
			if top == nil || w.Messages[j].Ms > top.Ms {
				top = &w.Messages[j]
			}
		}
		if top == nil {
			continue
		}
		if name := html.EscapeString(report.MessageName(top.Handler, top.Callback, top.What, top.WhatName)); !strings.Contains(rows[i], name) {
			t.Errorf("worst frame %d at %v ms: its main message %q is not in its row", i+1, w.StartMs, name)
		}
	}
}

// TestExternalRefsFindsEveryKind proves the offline check can fail: each planted reference is
// found, and the allowed plain link is not.
func TestExternalRefsFindsEveryKind(t *testing.T) {
	for _, bad := range []string{
		`<img src="https://example.com/a.png">`, `<x src='//cdn.example/a.js'>`, `<style>@import "x.css";</style>`,
		`<div style="background:url(x.png)">`, `<link rel="stylesheet" href="s.css">`, `<script src="a.js"></script>`,
		`<svg><image href="http://x/y.png"/></svg>`, `<meta http-equiv="refresh" content="0">`, `<iframe srcdoc="">`,
	} {
		if len(externalRefs("<p>ok</p>"+bad)) == 0 {
			t.Errorf("%s: not found", bad)
		}
	}
	if r := externalRefs(`<p>see <a href="https://example.com/docs">the docs</a></p>`); len(r) != 0 {
		t.Errorf("a plain link was flagged: %q", r)
	}
}

// TestHourLongSession: a 1 h 120 Hz recording's page stays under 5 MB and still draws every
// frozen frame, each with its own band and marker.
func TestHourLongSession(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and reads a 1 h 120 Hz recording (432 000 frames); skipped under -short")
	}
	path, frozen := genLong(t, t.TempDir(), 120, time.Hour, 4000)
	s, page := renderFile(t, path)
	rep := s.Analysis.Report
	if rep.Frames < 400_000 {
		t.Fatalf("%d frames, want a full hour at 120 Hz", rep.Frames)
	}
	if int(rep.DropLevels.Frozen) != frozen {
		t.Fatalf("the report counts %d frozen frames, the generator made %d", rep.DropLevels.Frozen, frozen)
	}
	t.Logf("1 h 120 Hz: %d frames, %d janky, %d frozen → %d bytes of HTML", rep.Frames, rep.JankyFrames, frozen, len(page))
	if len(page) >= 5<<20 {
		t.Errorf("the page is %d bytes, want under 5 MB", len(page))
	}
	var tl string
	for _, c := range svgCharts(page) {
		if strings.Contains(c, `class="chart timeline"`) {
			tl = c
		}
	}
	if got := strings.Count(tl, `class="freeze"`); got != frozen {
		t.Errorf("%d freeze bands, want %d", got, frozen)
	}
	if got := strings.Count(tl, `class="pt fz"`); got != frozen {
		t.Errorf("%d frozen markers, want %d", got, frozen)
	}
	if !strings.Contains(page, "every frozen frame is drawn") {
		t.Error("the page does not say how the frames were summarised")
	}
	if refs := externalRefs(page); len(refs) > 0 {
		t.Errorf("external references: %q", refs[:min(len(refs), 5)])
	}
}

// TestEmptyRecording: a recording without frames still gives a page that says so.
func TestEmptyRecording(t *testing.T) {
	path, _ := genLong(t, t.TempDir(), 60, 0, 1)
	s, page := renderFile(t, path)
	if s.Analysis.Report.Frames != 0 {
		t.Fatalf("%d frames", s.Analysis.Report.Frames)
	}
	if !strings.Contains(page, "has no frames") {
		t.Error("the page of an empty recording does not say it has no frames")
	}
	if n := len(svgCharts(page)); n != 0 {
		t.Errorf("%d empty frame charts drawn for a recording without frames", n)
	}
}

// TestColumnsKeepJankyFrames: past the detail budget every janky frame is still a point (up to
// detailJanky of them), and on-time frames become column bars.
func TestColumnsKeepJankyFrames(t *testing.T) {
	path, frozen := genLong(t, t.TempDir(), 120, 2*time.Minute, 3000)
	s, page := renderFile(t, path)
	rep := s.Analysis.Report
	if rep.Frames <= detailFrames {
		t.Fatalf("%d frames: the test needs more than %d", rep.Frames, detailFrames)
	}
	janky := int(rep.JankyFrames)
	if janky == 0 || janky > detailJanky {
		t.Fatalf("%d janky frames: the test needs 1..%d", janky, detailJanky)
	}
	tl := ""
	for _, c := range svgCharts(page) {
		if strings.Contains(c, `class="chart timeline"`) {
			tl = c
		}
	}
	if got := strings.Count(tl, `class="pt `); got != janky {
		t.Errorf("%d points, want one per janky frame (%d, %d of them frozen)", got, janky, frozen)
	}
	if strings.Count(tl, `class="band ok"`) == 0 {
		t.Error("no column bars for the on-time frames")
	}
}
