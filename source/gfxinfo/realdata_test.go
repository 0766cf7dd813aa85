package gfxinfo_test

// Real captures (../shared/realdata/gfxinfo, see PROVENANCE.md there) against what Android
// printed. This is an external test package so that it may use metrics.AndroidJank (package
// gfxinfo itself never imports metrics).

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/fpstop/fpstop/internal/hwui"
	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/gfxinfo"
)

// sum is one row of PROVENANCE.md's oracle: what Android printed. -1 = not printed.
type sum struct {
	total, janky, legacy           int64
	p50, p90, p95, p99             float64
	missed, highIn, slowUI, slowBm int64
	slowDraw, deadline, histSum    int64
}

// win is one window expectation. rows/incomplete/cols are counted from the capture.
type win struct {
	pid        int
	title      string
	vis        int
	rows       int
	incomplete int
	cols       int
	profRows   int
	s          *sum
}

// computed is a window whose "Total frames rendered" does not exceed its PROFILEDATA rows:
// every frame Android counted is in the rows, so fpstop's JankTracker + hwui histogram must
// reproduce Android's printed numbers exactly.
type computed struct {
	pid                  int
	title                string
	total, legacy, janky int64
	p50, p90, p95, p99   int
}

type fileCase struct {
	name       string
	procs      int
	notRunning bool
	failure    bool
	uptimeMs   int64
	procSums   map[int]sum // by pid
	windows    []win
	// extraWindows are windows present but not listed in windows (their view-root lines carry
	// no summary and no rows).
	extraWindows int
	computed     []computed
}

var h1 = 23

var cases = []fileCase{
	{
		name: "anavmode-topicon-t865-android13plus-framestats-allprocs.txt", procs: 47, uptimeMs: 26045845,
		procSums: map[int]sum{
			17477: {3370, 363, 1614, 18, 32, 46, 150, 63, 5160, 312, 2, 121, 363, 3370},
			1955:  {3463, 173, 389, 12, 20, 31, 150, 86, 3039, 132, 2, 49, 173, 3463},
			2018:  {3968, 270, 496, 8, 20, 27, 53, 43, 2103, 93, 1, 195, 270, 3968},
			2345:  {86, 9, 14, 10, 21, 36, 800, 5, 12, 5, 0, 4, 9, 86},
			26131: {557, 82, 125, 10, 77, 150, 650, 63, 490, 72, 0, 40, 82, 557},
			26843: {459, 11, 18, 9, 12, 15, 40, 1, 282, 7, 0, 5, 11, 459},
			2780:  {17143, 1389, 3616, 14, 38, 53, 85, 61, 12188, 133, 2, 1374, 1389, 17143},
			7208:  {470, 106, 141, 12, 121, 150, 400, 33, 466, 98, 2, 19, 106, 470},
			1652:  {7309, 3344, 4094, 21, 53, 57, 113, 162, 4783, 2049, 10, 2931, 3344, 7309},
			1415:  {0, 0, 0, 4950, 4950, 4950, 4950, 0, 0, 0, 0, 0, 0, 0},
		},
		windows: []win{
			{28907, "de.codevoid.aNavMode/de.codevoid.aNavMode.MainActivity", 0, 0, 0, 0, 0, nil},
			{17477, "de.codevoid.andronavibar/de.codevoid.andronavibar.MainActivity", 8, 120, 0, h1, 0,
				&sum{3370, 363, 1614, 18, 32, 46, 150, 63, 5160, 312, 2, 121, 363, 3370}},
			{1955, "com.android.settings/com.android.settings.homepage.SettingsHomepageActivity", 8, 67, 2, h1, 0,
				&sum{65, 8, 14, 13, 73, 150, 550, 6, 39, 7, 0, 2, 8, 65}},
			{1955, "com.android.settings/com.android.settings.SubSettings", 8, 80, 1, h1, 0,
				&sum{79, 10, 10, 11, 26, 65, 400, 6, 5, 7, 1, 1, 10, 79}},
			{1955, "com.android.settings/com.android.settings.spa.SpaActivity", 8, 120, 3, h1, 0,
				&sum{160, 34, 64, 14, 57, 150, 500, 22, 196, 32, 0, 2, 34, 160}},
			{2018, "Taskbar", 0, 120, 0, h1, 0, &sum{3177, 205, 411, 9, 19, 24, 42, 21, 1834, 64, 1, 153, 205, 3177}},
			{2018, "com.android.launcher3/com.android.quickstep.RecentsActivity", 8, 120, 4, h1, 0,
				&sum{782, 65, 85, 6, 23, 40, 61, 22, 269, 29, 0, 42, 65, 782}},
			{2345, "InputMethod", 8, 86, 0, h1, 0, &sum{86, 9, 14, 10, 21, 36, 800, 5, 12, 5, 0, 4, 9, 86}},
			{26131, "com.google.android.apps.docs/com.google.android.apps.docs.drive.app.navigation.NavigationActivity", 8, 117, 1, h1, 0,
				&sum{116, 20, 30, 17, 101, 250, 650, 10, 137, 18, 0, 13, 20, 116}},
			{1652, "ShellDropTarget", 4, 0, 0, h1, 0, &sum{0, 0, 0, 4950, 4950, 4950, 4950, 0, 0, 0, 0, 0, 0, 0}},
			{1652, "ScreenDecorOverlay", 4, 21, 2, h1, 0, &sum{19, 2, 4, 7, 29, 29, 29, 0, 27, 2, 0, 0, 2, 19}},
			{1652, "ScreenDecorOverlayBottom", 4, 0, 0, h1, 0, &sum{0, 0, 0, 4950, 4950, 4950, 4950, 0, 0, 0, 0, 0, 0, 0}},
			{1652, "NotificationShade", 4, 120, 3, h1, 0, &sum{808, 114, 309, 18, 48, 73, 150, 38, 1232, 73, 3, 87, 114, 808}},
			{1652, "StatusBar", 0, 120, 0, h1, 3, &sum{4696, 3066, 3441, 25, 53, 57, 97, 75, 1327, 1892, 4, 2750, 3066, 4696}},
		},
		// Windows whose Total frames rendered ≤ rows. Legacy interval: the rows' own period
		// (16666667 ns, 60 Hz; the panel is 60 Hz).
		computed: []computed{
			{1955, "com.android.settings/com.android.settings.homepage.SettingsHomepageActivity", 65, 14, 8, 13, 73, 150, 550},
			{1955, "com.android.settings/com.android.settings.SubSettings", 79, 10, 10, 11, 26, 65, 400},
			{2345, "InputMethod", 86, 14, 9, 10, 21, 36, 800},
			{26131, "com.google.android.apps.docs/com.google.android.apps.docs.drive.app.navigation.NavigationActivity", 116, 30, 20, 17, 101, 250, 650},
			{1652, "ShellDropTarget", 0, 0, 0, 4950, 4950, 4950, 4950},
			{1652, "ScreenDecorOverlay", 19, 4, 2, 7, 29, 29, 29},
			{1652, "ScreenDecorOverlayBottom", 0, 0, 0, 4950, 4950, 4950, 4950},
		},
	},
	{
		name: "aosp-docs-performance-jd-android6-mpreview-aggregate-stats.txt", procs: 1,
		procSums: map[int]sum{0: {82189, 35335, -1, -1, 34, 42, 69, 4706, 142, 17270, 1542, 23342, -1, -1}},
	},
	{
		name: "aosp-docs-performance-jd-android6-mpreview-framestats-rows-noheader.txt", procs: 1,
		windows: []win{{0, "", -1, 4, 0, 14, 0, nil}},
	},
	{
		name: "aosp-loganalysis-android5-leanbacklauncher-atv-gfxinfo-nojankstats.txt", procs: 1,
		windows: []win{{1924, "com.google.android.leanbacklauncher/com.google.android.leanbacklauncher.MainActivity", 0, 0, 0, 0, 0, nil}},
	},
	{
		name: "aosp-loganalysis-android6-atv-3procs-gfxinfo.txt", procs: 3, extraWindows: 2, uptimeMs: 6127679,
		procSums: map[int]sum{
			844:  {1690, 125, -1, -1, 13, 19, 48, 17, 0, 32, 20, 67, -1, -1},
			1881: {693, 62, -1, -1, 16, 26, 81, 17, 0, 30, 4, 13, -1, -1},
			2931: {107, 42, -1, -1, 48, 65, 113, 9, 0, 28, 8, 20, -1, -1},
		},
		windows: []win{
			{844, "com.google.android.leanbacklauncher/com.google.android.leanbacklauncher.MainActivity", 0, 0, 0, 0, 0,
				&sum{1690, 125, -1, -1, 13, 19, 48, 17, 0, 32, 20, 67, -1, -1}},
		},
	},
	{
		name: "aosp-loganalysis-android6-leanbacklauncher-atv-gfxinfo.txt", procs: 1,
		procSums: map[int]sum{853: {20391, 785, -1, -1, 9, 14, 32, 155, 0, 469, 65, 153, -1, -1}},
		windows: []win{{853, "com.google.android.leanbacklauncher/com.google.android.leanbacklauncher.MainActivity", 8, 0, 0, 0, 0,
			&sum{20391, 785, -1, -1, 9, 14, 32, 155, 0, 469, 65, 153, -1, -1}}},
	},
	{
		name: "choi890-soundviz-android13plus-120hz-framestats-scroll.txt", procs: 1, uptimeMs: 314859701,
		procSums: map[int]sum{31667: {516, 113, 356, 11, 31, 65, 101, 42, 876, 110, 0, 30, 113, 516}},
		windows: []win{{31667, "com.soundvisualization.accessibility/com.soundvisualization.accessibility.MainActivity", 0, 120, 0, h1, 0,
			&sum{516, 113, 356, 11, 31, 65, 101, 42, 876, 110, 0, 30, 113, 516}}},
	},
	{
		name: "choi890-soundviz-android13plus-120hz-framestats-stay.txt", procs: 1, uptimeMs: 306931017,
		procSums: map[int]sum{16473: {134, 20, 40, 9, 38, 109, 129, 8, 237, 20, 0, 13, 20, 134}},
		windows: []win{{16473, "com.soundvisualization.accessibility/com.soundvisualization.accessibility.MainActivity", 0, 120, 0, h1, 0,
			&sum{134, 20, 40, 9, 38, 109, 129, 8, 237, 20, 0, 13, 20, 134}}},
	},
	{name: "droidmonitor-android4x-chrome-gfxinfo.txt", procs: 1, extraWindows: 1, uptimeMs: 14972669},
	{name: "droidmonitor-android5-api21-chrome-gfxinfo.txt", procs: 1, extraWindows: 1, uptimeMs: 6019250},
	{
		name: "droidmonitor-android6-api23-chrome-gfxinfo.txt", procs: 1, extraWindows: 1, uptimeMs: 9658130,
		procSums: map[int]sum{9702: {3, 2, -1, -1, 101, 101, 101, 2, 0, 2, 0, 1, -1, -1}},
	},
	{
		name: "droidmonitor-android7-api24-settings-gfxinfo.txt", procs: 1, uptimeMs: 6897124,
		procSums: map[int]sum{3015: {24, 14, -1, 19, 65, 150, 300, 3, 0, 5, 1, 12, -1, 24}},
		windows:  []win{{3015, "com.android.settings/com.android.settings.Settings", 0, 0, 0, 0, 0, nil}},
	},
	{
		name: "droidmonitor-android9-api28-chrome-gfxinfo.txt", procs: 1, extraWindows: 1, uptimeMs: 101387804,
		procSums: map[int]sum{2720: {43, 7, -1, 5, 69, 150, 200, 5, 14, 5, 0, 1, 5, 43}},
	},
	{
		name: "flashlight-android12plus-gfxinfo-summary-legacy-jank.txt", procs: 1, extraWindows: 1, uptimeMs: 558810966,
		procSums: map[int]sum{2599: {21, 4, 16, 19, 57, 57, 200, 1, 35, 4, 1, 1, 4, 21}},
	},
	{
		name: "flashlight-reactnativefeed-android9-gfxinfo-profiledata.txt", procs: 1, uptimeMs: 28040456,
		procSums: map[int]sum{14824: {35360, 23595, -1, 28, 48, 53, 57, 4838, 12547, 5842, 3, 11523, 12149, 35360}},
		windows:  []win{{14824, "com.reactnativefeed/com.reactnativefeed.MainActivity", 0, 0, 0, 0, 120, nil}},
	},
	{
		name: "jsonchao-wanandroid-android8-framebuilder-gfxinfo-from-markdown.txt", procs: 1, extraWindows: 2, uptimeMs: 549887348,
		procSums: map[int]sum{1722: {5210, 193, -1, 5, 9, 13, 34, 31, 0, 153, 6, 51, -1, 5210}},
	},
	{
		// The author elided lines with "..."; the cut HISTOGRAM is dropped (histSum -1) and the
		// "...," row is a counted torn row.
		name: "jsonchao-wanandroid-android8-framestats-partial-from-markdown.txt", procs: 1, uptimeMs: 603118462,
		windows: []win{{0, "json.chao.com.wanandroid/json.chao.com.wanandroid.ui.main.activity.MainActivity", -1, 2, 0, 16, 0,
			&sum{3295, 117, -1, 5, 9, 14, 32, 17, 3, 97, 13, 20, -1, -1}}},
	},
	{
		name: "nuviotv-androidtv-android10or11-gfxinfo-profiledata-draw-prepare-process-execute.txt", procs: 1, uptimeMs: 89896149,
		procSums: map[int]sum{2062: {2903, 772, -1, 9, 73, 109, 150, 279, 1857, 414, 0, 32, 422, 2903}},
		windows:  []win{{2062, "com.nuvio.tv/com.nuvio.tv.MainActivity", 0, 0, 0, 0, 120, nil}},
	},
	{
		name: "toster-instagram-android12plus-gfxinfo-summary.txt", procs: 1, uptimeMs: 314436624,
		procSums: map[int]sum{31185: {51, 9, 13, 7, 48, 109, 300, 7, 83, 9, 0, 2, 9, 51}},
		windows: []win{
			{31185, "com.instagram.android/com.instagram.mainactivity.MainActivity", 0, 0, 0, 0, 0, nil},
			{31185, "KHCD.1Pc.feed_timeline", 0, 0, 0, 0, 0, nil},
		},
	},
	yuva("yuvaupdate-android14plus-framestats-utf16le-raw.txt"),
	yuva("yuvaupdate-android14plus-framestats-utf8.txt"),
	{name: "yuvaupdate-gfxinfo-failure-while-dumping-utf16le-raw.txt", procs: 1, failure: true, uptimeMs: 116130041},
}

func yuva(name string) fileCase {
	const title = "com.nareshkumarbalamurugan.YuvaUpdate/com.nareshkumarbalamurugan.YuvaUpdate.MainActivity"
	s := sum{3, 2, 2, 125, 550, 550, 550, 1, 0, 2, 0, 2, 2, 3}
	return fileCase{
		name: name, procs: 1, uptimeMs: 116544855,
		procSums: map[int]sum{6972: s},
		windows:  []win{{6972, title, 0, 3, 0, h1, 0, &s}},
		// One frame has Flags=1 (first draw): counted, as Android counts it.
		computed: []computed{{6972, title, 3, 2, 2, 125, 550, 550, 550}},
	}
}

func TestRealdataEveryFileHasACase(t *testing.T) {
	files := realdata.Files(t, "gfxinfo")
	known := map[string]bool{}
	for _, c := range cases {
		known[c.name] = true
	}
	for _, f := range files {
		if !known[filepath.Base(f)] {
			t.Errorf("%s: no test case (add one with the numbers from PROVENANCE.md)", filepath.Base(f))
		}
	}
	if len(files) != len(cases) {
		t.Errorf("%d files, %d cases", len(files), len(cases))
	}
}

func findWindow(d *gfxinfo.Dump, pid int, title string) (*gfxinfo.Process, *gfxinfo.Window) {
	for pi := range d.Processes {
		p := &d.Processes[pi]
		if p.Pid != pid {
			continue
		}
		for wi := range p.Windows {
			if p.Windows[wi].Title == title {
				return p, &p.Windows[wi]
			}
		}
	}
	return nil, nil
}

func checkSum(t *testing.T, where string, got *source.AndroidSummary, want sum) {
	t.Helper()
	if got == nil {
		t.Errorf("%s: no summary parsed", where)
		return
	}
	i64 := func(name string, p *int64, w int64) {
		t.Helper()
		switch {
		case w < 0 && p != nil:
			t.Errorf("%s: %s = %d, Android printed none", where, name, *p)
		case w >= 0 && p == nil:
			t.Errorf("%s: %s missing, want %d", where, name, w)
		case w >= 0 && *p != w:
			t.Errorf("%s: %s = %d, want %d", where, name, *p, w)
		}
	}
	f64 := func(name string, p *float64, w float64) {
		t.Helper()
		switch {
		case w < 0 && p != nil:
			t.Errorf("%s: %s = %v, Android printed none", where, name, *p)
		case w >= 0 && p == nil:
			t.Errorf("%s: %s missing, want %v", where, name, w)
		case w >= 0 && *p != w:
			t.Errorf("%s: %s = %v, want %v", where, name, *p, w)
		}
	}
	i64("total", got.TotalFrames, want.total)
	i64("janky", got.JankyFrames, want.janky)
	i64("janky legacy", got.JankyLegacy, want.legacy)
	f64("p50", got.P50Ms, want.p50)
	f64("p90", got.P90Ms, want.p90)
	f64("p95", got.P95Ms, want.p95)
	f64("p99", got.P99Ms, want.p99)
	i64("missed vsync", got.MissedVsync, want.missed)
	i64("high input", got.HighInput, want.highIn)
	i64("slow UI", got.SlowUIThread, want.slowUI)
	i64("slow bitmap", got.SlowBitmap, want.slowBm)
	i64("slow draw", got.SlowIssue, want.slowDraw)
	i64("deadline missed", got.DeadlineMiss, want.deadline)
	if want.histSum < 0 {
		if got.Histogram != nil {
			t.Errorf("%s: histogram parsed, want none", where)
		}
	} else {
		var s int64
		for _, b := range got.Histogram {
			s += b.Count
		}
		if s != want.histSum || len(got.Histogram) != hwui.NumBuckets {
			t.Errorf("%s: histogram sum %d over %d buckets, want %d over %d", where, s, len(got.Histogram), want.histSum, hwui.NumBuckets)
		}
	}
}

func TestRealdata(t *testing.T) {
	dir := realdata.Dir(t, "gfxinfo")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, c.name))
			if err != nil {
				t.Fatal(err)
			}
			d, err := gfxinfo.Parse(data)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if d.NotRunning != c.notRunning || (d.Failure != "") != c.failure {
				t.Errorf("NotRunning=%v Failure=%q, want %v/%v", d.NotRunning, d.Failure, c.notRunning, c.failure)
			}
			if d.UptimeNs != c.uptimeMs*1_000_000 {
				t.Errorf("uptime %d ns, want %d ms", d.UptimeNs, c.uptimeMs)
			}
			if len(d.Processes) != c.procs {
				t.Errorf("%d processes, want %d", len(d.Processes), c.procs)
			}
			for pid, want := range c.procSums {
				found := false
				for i := range d.Processes {
					if d.Processes[i].Pid == pid {
						found = true
						checkSum(t, "process summary", d.Processes[i].Summary, want)
					}
				}
				if !found {
					t.Errorf("pid %d not found", pid)
				}
			}
			nWin := 0
			for _, p := range d.Processes {
				nWin += len(p.Windows)
			}
			if nWin != len(c.windows)+c.extraWindows {
				t.Errorf("%d windows, want %d", nWin, len(c.windows)+c.extraWindows)
			}
			for _, w := range c.windows {
				_, got := findWindow(d, w.pid, w.title)
				if got == nil {
					t.Errorf("window %d %q not found", w.pid, w.title)
					continue
				}
				if got.Visibility != w.vis || got.Rows != w.rows || got.Incomplete != w.incomplete ||
					got.Columns != w.cols || got.ProfileRows != w.profRows || len(got.Frames) != w.rows-w.incomplete {
					t.Errorf("window %q: vis %d rows %d incomplete %d frames %d cols %d profile rows %d; want %d %d %d %d %d %d",
						w.title, got.Visibility, got.Rows, got.Incomplete, len(got.Frames), got.Columns, got.ProfileRows,
						w.vis, w.rows, w.incomplete, w.rows-w.incomplete, w.cols, w.profRows)
				}
				if w.s != nil {
					checkSum(t, "window "+w.title, got.Summary, *w.s)
					if got.TotalFrames != w.s.total {
						t.Errorf("window %q: TotalFrames %d, want %d", w.title, got.TotalFrames, w.s.total)
					}
				} else if got.Summary != nil || got.TotalFrames != -1 {
					t.Errorf("window %q: summary parsed, Android printed none", w.title)
				}
				for i := range got.Frames {
					checkFrame(t, &got.Frames[i])
				}
			}
			for _, cw := range c.computed {
				_, w := findWindow(d, cw.pid, cw.title)
				if w == nil {
					t.Errorf("computed window %q not found", cw.title)
					continue
				}
				if w.TotalFrames > int64(w.Rows) {
					t.Errorf("window %q: total %d > rows %d: not comparable", cw.title, w.TotalFrames, w.Rows)
				}
				var tally struct {
					Total, JankyLegacy, JankyDeadline int64
					Hist                              hwui.Histogram
				}
				for i := range w.Frames { // counted as Android's summary counts them
					a := metrics.AndroidJank(&w.Frames[i], 0)
					if a.LegacyJanky {
						tally.JankyLegacy++
					}
					if a.Counted {
						tally.Total++
						tally.Hist.Add(a.DurationNs)
						if a.DeadlineJanky {
							tally.JankyDeadline++
						}
					}
				}
				got := computed{cw.pid, cw.title, tally.Total, tally.JankyLegacy, tally.JankyDeadline,
					tally.Hist.Percentile(50), tally.Hist.Percentile(90), tally.Hist.Percentile(95), tally.Hist.Percentile(99)}
				if got != cw {
					t.Errorf("window %q from rows: %+v\nAndroid printed:      %+v", cw.title, got, cw)
				}
				// The whole histogram, bucket by bucket, against the printed HISTOGRAM line.
				if w.Summary == nil || len(w.Summary.Histogram) != hwui.NumBuckets {
					t.Errorf("window %q: no printed histogram", cw.title)
					continue
				}
				for i, b := range w.Summary.Histogram {
					if b.Ms != hwui.BucketMs(i) || b.Count != tally.Hist.Counts[i] {
						t.Errorf("window %q: bucket %dms: rows give %d, Android printed %d (label %d)",
							cw.title, hwui.BucketMs(i), tally.Hist.Counts[i], b.Count, b.Ms)
					}
				}
			}
		})
	}
}

// checkFrame asserts the invariants every parsed frame obeys.
func checkFrame(t *testing.T, f *source.Frame) {
	t.Helper()
	if f.VsyncNs <= 0 || f.DoneNs <= f.VsyncNs || f.DoneNs-f.VsyncNs >= 3600e9 || f.Phases == nil ||
		(f.IntervalNs != 0 && (f.IntervalNs < 1e6 || f.IntervalNs > 1e8)) || f.DeadlineNs < 0 ||
		f.Phases.FrameCompleted != f.DoneNs || f.UIDoneNs != f.Phases.SyncStart {
		t.Errorf("frame breaks invariants: %+v %+v", *f, f.Phases)
	}
}

// TestRealdataFromFile runs every capture through the file source: a Session first, every
// complete row once as a frame, a Poll per window with rows or a summary, and a clean end.
func TestRealdataFromFile(t *testing.T) {
	for _, f := range realdata.Files(t, "gfxinfo") {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			d, err := gfxinfo.Parse(data)
			if err != nil {
				t.Fatal(err)
			}
			wantFrames, wantPolls := 0, 0
			for _, p := range d.Processes {
				for _, w := range p.Windows {
					wantFrames += len(w.Frames)
					if w.Rows > 0 || w.Summary != nil {
						wantPolls++
					}
				}
			}
			out := make(chan []source.Event, 1000)
			if err := gfxinfo.FromFile(f).Run(context.Background(), out); err != nil {
				t.Fatalf("FromFile: %v", err)
			}
			close(out)
			var evs []source.Event
			for b := range out {
				evs = append(evs, b...)
			}
			s, ok := evs[0].(*source.Session)
			if !ok || s.Input != f || s.Source != source.KindGfxinfo || s.CostBasis != source.CostFrame {
				t.Fatalf("first event %#v", evs[0])
			}
			nf, np, failures := 0, 0, 0
			for _, e := range evs {
				switch e := e.(type) {
				case *source.Frame:
					nf++
					checkFrame(t, e)
				case *source.Poll:
					if !e.Process {
						np++
					}
				case *source.Notice:
					if e.Level == source.LevelErr {
						failures++
					}
				}
			}
			if nf != wantFrames || np != wantPolls || (failures > 0) != (d.Failure != "") {
				t.Errorf("frames %d polls %d error notices %d; want %d %d (failure %q)", nf, np, failures, wantFrames, wantPolls, d.Failure)
			}
			if n, ok := evs[len(evs)-1].(*source.Notice); !ok || n.State != source.StateEnded {
				t.Errorf("last event %#v", evs[len(evs)-1])
			}
		})
	}
}

// TestRealdataHiddenWindows: a full dump's windows keep their frames and are marked hidden
// when their view root is not visible.
func TestRealdataHiddenWindows(t *testing.T) {
	f := filepath.Join(realdata.Dir(t, "gfxinfo"), "anavmode-topicon-t865-android13plus-framestats-allprocs.txt")
	out := make(chan []source.Event, 1000)
	if err := gfxinfo.FromFile(f).Run(context.Background(), out); err != nil {
		t.Fatal(err)
	}
	close(out)
	hidden := map[string]bool{}
	for evs := range out {
		for _, e := range evs {
			if p, ok := e.(*source.Poll); ok && !p.Process {
				hidden[p.Window] = p.Hidden
			}
		}
	}
	if !hidden["InputMethod"] || hidden["Taskbar"] || hidden["StatusBar"] || !hidden["ShellDropTarget"] || len(hidden) != 13 {
		t.Errorf("hidden %v", hidden)
	}
}
