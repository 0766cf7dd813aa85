package html

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/compare"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
)

// comparePage compares the simulator's smooth (BASE) and janky (NEW) 120 Hz runs, two of
// each (one a side is inconclusive), and renders the comparison page.
func comparePage(t *testing.T, dir string) (*Comparison, string) {
	t.Helper()
	var runs [2][]*compare.Run
	for i, sc := range []string{"smooth", "janky"} {
		for seed := int64(1); seed <= 2; seed++ {
			sub := filepath.Join(dir, fmt.Sprint(seed))
			if err := os.MkdirAll(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			r, err := compare.Load(simRecording(t, sub, sc, 120, seed, 10*time.Second), metrics.Config{})
			if err != nil {
				t.Fatal(err)
			}
			runs[i] = append(runs[i], r)
		}
	}
	o := compare.DefaultOptions()
	o.Version, o.BaseLabel, o.NewLabel, o.Resamples = "test", "smooth", "janky", 300
	res, err := compare.Compare(runs[0], runs[1], o)
	if err != nil {
		t.Fatal(err)
	}
	c, err := LoadComparison(res, metrics.Config{}, metrics.ReportMeta{Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteCompare(&b, c, Options{Now: testNow}); err != nil {
		t.Fatal(err)
	}
	return c, b.String()
}

// chartOf returns the page's chart whose class list contains name.
func chartOf(page, name string) string {
	for _, c := range svgCharts(page) {
		if strings.Contains(c[:min(len(c), 120)], `class="chart `+name+`"`) {
			return c
		}
	}
	return ""
}

// TestCompareSmoothJanky: the comparison page of smooth vs janky shows both sides in every
// overlaid chart, one verdict row per compared metric with its interval, and every message
// change; it loads nothing.
func TestCompareSmoothJanky(t *testing.T) {
	c, page := comparePage(t, t.TempDir())
	res := c.Result
	if res.Verdict != compare.Worse {
		t.Errorf("janky against smooth: verdict %q, want worse", res.Verdict)
	}
	if refs := externalRefs(page); len(refs) > 0 {
		t.Errorf("external references: %q", refs)
	}
	fps := chartOf(page, "fps cmp")
	for i, ss := range [][]*Session{c.Base, c.New} {
		want := 0
		for _, s := range ss {
			for _, g := range groupSeries(fpsIn{series: s.Analysis.Series, originNs: s.Analysis.Snapshot.OriginNs, sliceNs: s.Analysis.Snapshot.SliceNs}) {
				if g.mean == g.mean { // not NaN: a drawn point
					want++
				}
			}
		}
		// one group per run of the side
		got := 0
		for _, part := range strings.Split(fps, `<g class="run side`+string(rune('0'+i))+`">`)[1:] {
			got += strings.Count(part[:strings.Index(part, `</g>`)], `class="fpspt"`)
		}
		if got != want || want == 0 {
			t.Errorf("FPS chart, %s: %d points, want %d", sideNames[i], got, want)
		}
		hist := chartOf(page, "hist")
		hg := hist[strings.Index(hist, `<g class="bars side`+string(rune('0'+i))+`">`):]
		hg = hg[:strings.Index(hg, `</g>`)]
		if got, want := strings.Count(hg, `<rect class="hbar`), len(sumHistograms(ss)); got != want {
			t.Errorf("histogram, %s: %d bars, want %d", sideNames[i], got, want)
		}
	}
	table := page[strings.Index(page, `<table class="verdicts">`):]
	table = table[:strings.Index(table, `</table>`)]
	if got := strings.Count(table, "<tr>") - 1; got != len(res.Metrics) {
		t.Errorf("%d verdict rows, want %d", got, len(res.Metrics))
	}
	withCI := 0
	for _, m := range res.Metrics {
		if m.CILow != nil {
			withCI++
			if !strings.Contains(table, "["+signedp(m.CILow)+", "+signedp(m.CIHigh)+"]") {
				t.Errorf("%s: interval not shown", m.Name)
			}
		}
	}
	if got := strings.Count(table, `class="ci"`); got != withCI || withCI == 0 {
		t.Errorf("%d interval strips, want %d", got, withCI)
	}
	for _, m := range res.Messages {
		if !strings.Contains(page, html.EscapeString(report.MessageName(m.Handler, m.Callback, m.What, m.WhatName))) {
			t.Errorf("message %s %s not shown", m.Handler, m.Callback)
		}
	}
	for _, s := range []string{"BASE · smooth", "NEW · janky", "scenario smooth", "scenario janky"} {
		if !strings.Contains(page, s) {
			t.Errorf("page lacks %q", s)
		}
	}
}

// TestChromiumRendersComparison: the comparison page in a real browser: no request but its
// own file, no console error, every chart drawn, a non-blank screenshot.
func TestChromiumRendersComparison(t *testing.T) {
	exe := chromiumPath(t)
	dir := t.TempDir()
	_, page := comparePage(t, dir)
	file := filepath.Join(dir, "compare.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	res := loadInChromium(t, exe, file)
	if len(res.requests) == 0 || len(res.blocked) > 0 || len(res.errors) > 0 {
		t.Errorf("requests %q, blocked %q, errors %q", res.requests, res.blocked, res.errors)
	}
	if n, _ := res.eval["charts"].(float64); n < 4 || res.eval["drawn"] != res.eval["charts"] {
		t.Errorf("%v charts, %v drawn", res.eval["charts"], res.eval["drawn"])
	}
	ink, colours := inkFraction(t, res.light)
	if ink < 0.03 || colours < 8 {
		t.Errorf("screenshot looks blank: %.2f %% ink, %d colours", ink*100, colours)
	}
	if out := os.Getenv("FPSTOP_SCREENSHOT_DIR"); out != "" {
		os.WriteFile(filepath.Join(out, "compare-light.png"), res.light, 0o644)
		os.WriteFile(filepath.Join(out, "compare-dark.png"), res.dark, 0o644)
	}
}

// TestCompareSectionsShown: a comparison with slow sections (Perfetto recordings) lists each
// with its status and p95s; one without has no such part.
func TestCompareSectionsShown(t *testing.T) {
	c, page := comparePage(t, t.TempDir())
	if strings.Contains(page, "section-changes") {
		t.Error("a comparison without sections shows a sections part")
	}
	base, new, diff := 20.5, 44.25, 23.75
	c.Result.Sections = []compare.Section{{Name: "inflate N", Thread: "main", CountBase: 40, CountNew: 38, Status: compare.MsgSlower,
		P95: compare.Metric{Name: "p95_ms", Base: &base, New: &new, Diff: &diff}}}
	var b bytes.Buffer
	if err := WriteCompare(&b, c, Options{Now: testNow}); err != nil {
		t.Fatal(err)
	}
	got := b.String()
	for _, want := range []string{`<h2>What changed in slow sections</h2>`, `title="inflate N on main">inflate N</td>`, `<span class="badge bad">slower</span>`,
		`<td class="num">40</td><td class="num">38</td>`, `<td class="num">&#43;23.75 ms</td>`} { // html/template writes + as &#43;
		if !strings.Contains(got, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
