package html

import (
	"strings"
	"testing"

	"github.com/fpstop/fpstop/metrics"
)

// TestAndroidTables: Android's printed numbers stand beside fpstop's for each window Android
// summarised, and for the measured app's process; another process's table shows Android's
// numbers alone (fpstop's totals are not that process's).
func TestAndroidTables(t *testing.T) {
	i := func(v int64) *int64 { return &v }
	r := func(v float64) *metrics.R2 { x := metrics.R2(v); return &x }
	pkg := "com.example.app"
	printed := metrics.AndroidPrinted{TotalFrames: i(500), JankyFrames: i(25), JankyLegacy: i(40), P50Ms: r(7), P90Ms: r(12), P95Ms: r(16), P99Ms: r(48)}
	rep := &metrics.Report{Package: &pkg, Frames: 480, JankyFrames: 30, JankPct: r(6.25), JankyDeadline: i(22), JankyLegacy: i(37),
		PercentilesMs: &metrics.Percentiles{P50: 6, P90: 11, P95: 15, P99: 40},
		Windows: []metrics.WindowReport{{Name: "com.example.app/.Main", Frames: 480, JankPct: r(6.25), JankyLegacy: i(36),
			PercentilesMs: &metrics.Percentiles{P50: 6, P90: 11, P95: 15, P99: 40}, Android: &printed},
			{Name: "no summary", Frames: 3}},
		AndroidProcesses: []metrics.ProcessAndroid{{Process: pkg, Pid: 42, AndroidPrinted: printed},
			{Process: "com.android.systemui", Pid: 7, AndroidPrinted: printed}}}
	tabs := androidTables(rep)
	if len(tabs) != 3 {
		t.Fatalf("%d tables, want 3 (one window with a summary, two processes)", len(tabs))
	}
	row := func(tab sideTable, label string) [3]string {
		for _, r := range tab.Rows {
			if r[0] == label {
				return r
			}
		}
		t.Fatalf("%s: no row %q", tab.Title, label)
		return [3]string{}
	}
	if got := row(tabs[0], "frames"); got != [3]string{"frames", "480", "500"} {
		t.Errorf("window frames row %q", got)
	}
	if got := row(tabs[0], "99th percentile"); got[1] != "40 ms" || got[2] != "48 ms" {
		t.Errorf("window p99 row %q", got)
	}
	app, other := tabs[1], tabs[2]
	if got := row(app, "janky (Android's rule)"); got[1] != "22" || got[2] != "25 (5 %)" {
		t.Errorf("app janky row %q", got)
	}
	// fpstop's own legacy count stands beside Android's (it was "—")
	if got := row(tabs[0], "janky (legacy rule)"); got[1] != "36" || got[2] != "40" {
		t.Errorf("window legacy row %q", got)
	}
	if got := row(app, "janky (legacy rule)"); got[1] != "37" || got[2] != "40" {
		t.Errorf("app legacy row %q", got)
	}
	if got := row(other, "janky (legacy rule)"); got[1] != "—" || got[2] != "40" {
		t.Errorf("another process legacy row %q", got)
	}
	if got := row(other, "frames"); got[1] != "—" || got[2] != "500" {
		t.Errorf("another process shows fpstop's totals: %q", got)
	}
	if got := row(other, "50th percentile"); got[1] != "—" || got[2] != "7 ms" {
		t.Errorf("another process p50 row %q", got)
	}
}

// TestJankyNeverGreen: the stylesheet draws janky frame classes (j1–j3) in the theme's warning,
// later drop-level or bad colours, never in a colour the themes make green (good, best,
// normal).
func TestJankyNeverGreen(t *testing.T) {
	css, err := files.ReadFile("templates/report.css")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(css), "\n") {
		for _, cls := range []string{".pt.j1", ".pt.j2", ".pt.j3", ".lvdot.j1", ".lvdot.j2", ".lvdot.j3"} {
			if !strings.Contains(line, cls+" ") && !strings.Contains(line, cls+",") {
				continue
			}
			rule := line[strings.Index(line, cls):]
			rule = rule[:strings.Index(rule, "}")]
			for _, green := range []string{"--good", "--lv0", "--lv1"} {
				if strings.Contains(rule, green+")") {
					t.Errorf("%s is drawn with %s: %s", cls, green, rule)
				}
			}
		}
	}
}

// TestDropLevelsEachSidesThresholds: sides at different refresh rates are labelled with their own
// thresholds (120 Hz: NORMAL from 6 dropped; 60 Hz: from 3), not BASE's for both.
func TestDropLevelsEachSidesThresholds(t *testing.T) {
	rows := []levelRow{{name: "BASE", side: 0, thr: [4]int64{6, 18, 48, 84}, levels: metrics.DropLevels{Best: 10, Normal: 2}},
		{name: "NEW", side: 1, thr: [4]int64{3, 9, 24, 42}, levels: metrics.DropLevels{Best: 9, Normal: 3}}}
	page := string(dropLevelsChart(rows, rows[0].thr))
	for _, want := range []string{"BASE: normal, ≥ 6 dropped", "NEW: normal, ≥ 3 dropped"} {
		if !strings.Contains(page, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	same := string(dropLevelsChart(rows[:1], rows[0].thr))
	if !strings.Contains(same, "normal (≥ 6 dropped)") {
		t.Error("one side: the level's label lost its threshold")
	}
}
