package report

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"github.com/fpstop/fpstop/internal/testkit/recordtest"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/eventgen"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
)

// TestReportEqualsLive: a headless run (a Runner whose tap is the recorder) and `fpstop report`
// on the recording it made give the same JSON report, byte for byte (the wall-clock duration is
// passed identically: a live run would pass its wall time, a report of a file 0).
func TestReportEqualsLive(t *testing.T) {
	batches := eventgen.Batches(21, 120, 30*time.Second)
	cfg := metrics.Config{}
	meta := metrics.ReportMeta{Version: "test"}
	for _, name := range []string{"live.jsonl", "live.jsonl.gz"} {
		path := filepath.Join(t.TempDir(), name)
		w, err := record.Create(path, recordtest.Header(), record.Options{})
		if err != nil {
			t.Fatal(err)
		}
		p := metrics.NewPipeline(cfg)
		r := metrics.NewRunner(p, time.Hour)
		r.SetTap(func(b []source.Event) {
			if err := w.Write(b); err != nil {
				t.Error(err)
			}
		})
		in := make(chan []source.Event)
		done := make(chan error)
		go func() { done <- r.Run(context.Background(), in) }()
		for _, b := range batches {
			in <- b
		}
		close(in)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		live, _ := json.Marshal(p.Report(meta))

		rep, err := readReport(path, cfg, meta)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := json.Marshal(rep)
		if !bytes.Equal(live, got) {
			t.Fatalf("%s: report of the recording differs from the live report:\nlive %s\nfile %s", name, live, got)
		}
		if rep.Frames == 0 {
			t.Fatalf("%s: the report counts no frames (is the metrics pipeline implemented?)", name)
		}
	}
}

// TestReportUsesHeaderSession: a recording that does not start with a session line (e.g. the
// recorder started late) is reported with the header's session.
func TestReportUsesHeaderSession(t *testing.T) {
	evs := eventgen.Flatten(eventgen.Batches(22, 60, 3*time.Second))[1:] // without the session
	path := filepath.Join(t.TempDir(), "h.jsonl")
	recordtest.Write(t, path, [][]source.Event{evs})
	rep, err := readReport(path, metrics.Config{}, metrics.ReportMeta{})
	if err != nil {
		t.Fatal(err)
	}
	p := metrics.NewPipeline(metrics.Config{})
	p.Add(recordtest.Header().Session())
	p.AddBatch(evs)
	want, _ := json.Marshal(p.Report(metrics.ReportMeta{}))
	got, _ := json.Marshal(rep)
	if !bytes.Equal(want, got) {
		t.Fatalf("report:\n%s\nwant\n%s", got, want)
	}
	if rep.Package == nil || *rep.Package != "com.example.app" {
		t.Errorf("package from the header missing: %v", rep.Package)
	}
}

func r2p(f float64) *metrics.R2 { return metrics.P2(f) }

func sampleReport() *metrics.Report {
	pkg := "com.example.app"
	lost := int64(3)
	dl := int64(4)
	return &metrics.Report{
		FpstopVersion: "1.2.3", Source: "gfxinfo", CostBasis: "frame",
		Device:  &metrics.DeviceReport{Serial: "emulator-5554", Model: "Pixel 7", Android: "14"},
		Package: &pkg, RefreshHz: r2p(120), DurationS: 61.5, Frames: 6000, JankyFrames: 42, JankyDeadline: &dl,
		JankPct: r2p(0.7), FPS: r2p(117.25), FPSWall: r2p(110), FPSLow1Pct: r2p(40.1), IdleS: 3, ActivePct: r2p(91),
		DropLevels:    metrics.DropLevels{Best: 5958, Normal: 30, Middle: 10, High: 1, Frozen: 1},
		PercentilesMs: &metrics.Percentiles{P50: 6, P90: 8, P95: 9, P99: 21},
		FramesLost:    &lost,
		Windows: []metrics.WindowReport{{Name: "com.example.app/.Main|odd", Visible: true, Frames: 5900, FPS: r2p(117.3),
			FPSWall: r2p(110), JankPct: r2p(0.7), PercentilesMs: &metrics.Percentiles{P50: 6, P99: 21}, DropLevels: metrics.DropLevels{Frozen: 1}}},
		SlowMessages: []metrics.SlowMessageReport{{Handler: "android.app.ActivityThread$H", Callback: "null", What: 159,
			WhatName: "EXECUTE_TRANSACTION", Count: 3, MaxMs: 250.5, TotalMs: 400, P95Ms: 250}},
		WorstFrames: []metrics.WorstFrame{{Window: "com.example.app/.Main", StartMs: 12345, CostMs: 760.25, Dropped: 91,
			Messages: []metrics.FrameMessage{{Handler: "android.app.ActivityThread$H", Callback: "null", What: 159, Ms: 700}}}},
		Warnings: []string{"recording x: skipped its torn last line"},
	}
}

func TestWriteMarkdown(t *testing.T) {
	series := []metrics.SlicePoint{{FPS: 120}, {FPS: 60}, {Idle: true, FPS: math.NaN()}, {FPS: 0.5}, {FPS: 119}}
	var b bytes.Buffer
	if err := WriteMarkdownSeries(&b, sampleReport(), series); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"## fpstop: com.example.app\n",
		"source **gfxinfo** · device Pixel 7 (Android 14) `emulator-5554` · 120 Hz · 61.5 s · cost basis frame · fpstop 1.2.3",
		"| FPS (rendering time, Matrix) | 117.25 |",
		"| janky frames | 42 (0.7 %) |",
		"| frames lost (not seen) | 3 |",
		"```text\n█▅·▁█\n```",
		"min 0.5, avg 74.88, max 120",
		"| 5958 | 30 | 10 | 1 | 1 |",
		"| 6 | 8 | 9 | 21 |",
		"| com.example.app/.Main\\|odd | 5900 | 117.3 | 110 | 0.7 | 6 | 21 | 1 |",
		"| 12.35 | com.example.app/.Main | 760.25 | 91 | ActivityThread$H #159 700 ms |",
		"| ActivityThread$H #159 (EXECUTE\\_TRANSACTION) | 3 | 250.5 | 250 | 400 |",
		"- recording x: skipped its torn last line",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	// Without a series: no chart; an empty report still renders.
	b.Reset()
	if err := WriteMarkdown(&b, &metrics.Report{Source: "sim"}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "```") || !strings.Contains(b.String(), "| frames | 0 |") || !strings.Contains(b.String(), "| FPS (rendering time, Matrix) | — |") {
		t.Errorf("empty report:\n%s", b.String())
	}
}

func TestSparklineBuckets(t *testing.T) {
	var series []metrics.SlicePoint
	for i := 0; i < 120; i++ {
		series = append(series, metrics.SlicePoint{FPS: 60})
	}
	hz := metrics.R2(60)
	chart, caption := sparkline(series, &hz, 60)
	if chart != strings.Repeat("█", 60) || !strings.Contains(caption, "one character per 2 slices") {
		t.Errorf("chart %q caption %q", chart, caption)
	}
}

// readReport is the report of a recording, as `fpstop report --format json` prints it.
func readReport(path string, cfg metrics.Config, meta metrics.ReportMeta) (*metrics.Report, error) {
	an, err := Analyse(path, cfg, meta, nil)
	if err != nil {
		return nil, err
	}
	return an.Report, nil
}

func TestReportSeriesAndMarkdownOfRecording(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl.gz")
	recordtest.Write(t, path, eventgen.Batches(23, 60, 50*time.Second))
	cfg := metrics.Config{SeriesLen: 20} // shorter than the run: the collector must stitch
	an, err := Analyse(path, cfg, metrics.ReportMeta{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, series := an.Report, an.Series
	full := metrics.NewPipeline(metrics.Config{SeriesLen: 1000})
	_, err = record.ReadBatches(path, full.AddBatch)
	if err != nil {
		t.Fatal(err)
	}
	want := full.Snapshot().Series
	if len(want) < 45 {
		t.Fatalf("pipeline series has %d slices for 50 s (is the metrics pipeline implemented?)", len(want))
	}
	if len(series) != len(want) {
		t.Fatalf("stitched series has %d slices, want %d", len(series), len(want))
	}
	for i := range want {
		a, b := series[i], want[i]
		if a.StartNs != b.StartNs || a.Frames != b.Frames || a.Idle != b.Idle || (a.FPS != b.FPS && !(math.IsNaN(a.FPS) && math.IsNaN(b.FPS))) {
			t.Fatalf("slice %d = %+v, want %+v", i, a, b)
		}
	}
	var b bytes.Buffer
	if err := WriteMarkdownSeries(&b, rep, series); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "·") { // the generator idles 2 s in every 20
		t.Errorf("no idle marks in the sparkline:\n%s", b.String())
	}
}

func TestWriteCSV(t *testing.T) {
	T := int64(8_333_333) // 120 Hz
	evs := []source.Event{
		&source.Session{Source: source.KindGfxinfo, RefreshHz: 120, CostBasis: source.CostFrame},
		// 8.1 ms: on time.
		&source.Frame{Window: "w", VsyncNs: 1e9, DoneNs: 1e9 + 8_100_000, IntervalNs: T, Phases: &source.Phases{SyncStart: 1e9 + 5e6}},
		// 58.2 ms at 120 Hz: ceil(58.2 / 8.333) − 1 = 6 dropped, NORMAL (threshold 6 at 120 Hz).
		&source.Frame{Window: "w", VsyncNs: 2e9, DoneNs: 2e9 + 58_200_000, IntervalNs: T, Flags: 1},
		// No interval of its own: the refresh event's 60 Hz applies; 20 ms → 1 dropped, BEST.
		&source.Refresh{AtNs: 3e9, Hz: 60},
		&source.Frame{Window: "p,q", VsyncNs: 3e9, DoneNs: 3e9 + 20e6},
		// Main-thread end only: cost from ui_done.
		&source.Frame{Window: "w", VsyncNs: 4e9, UIDoneNs: 4e9 + 1e6},
		&source.Message{Handler: "h", StartNs: 1, EndNs: 2},
	}
	path := filepath.Join(t.TempDir(), "c.jsonl")
	recordtest.Write(t, path, [][]source.Event{evs})
	var b bytes.Buffer
	if err := WriteCSV(&b, path, metrics.Config{}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 5 || strings.Join(rows[0][:11], ",") != "window,process,vsync_ns,done_ns,ui_done_ns,interval_ns,t_ns,rate_hz,cost_ms,dropped,level" {
		t.Fatalf("rows: %q", rows)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	check := func(r int, key, want string) {
		t.Helper()
		if got := rows[r][col[key]]; got != want {
			t.Errorf("row %d %s = %q, want %q", r, key, got, want)
		}
	}
	check(1, "cost_ms", "8.100")
	check(1, "dropped", "0")
	check(1, "level", "best")
	check(1, "rate_hz", "120")
	check(1, "sync_start_ns", "1005000000")
	check(2, "dropped", "6")
	check(2, "level", "normal")
	check(2, "flags", "1")
	check(2, "sync_start_ns", "")
	check(3, "window", "p,q")
	check(3, "interval_ns", "0")
	check(3, "t_ns", "16666667")
	check(3, "rate_hz", "60")
	check(3, "dropped", "1")
	check(4, "cost_ms", "1.000")
	// time from the start (the first frame here: the session has no start time) and verdicts
	check(1, "time_ms", "0.000")
	check(2, "time_ms", "1000.000")
	check(1, "verdict", "ok")
	check(2, "verdict", "janky")
	check(3, "verdict", "janky")
	check(4, "verdict", "ok")
}

// TestReportOfCutRecording: a .gz cut mid-stream reports what it holds, with the reader's
// warning among the report's warnings.
func TestReportOfCutRecording(t *testing.T) {
	dir := t.TempDir()
	full := filepath.Join(dir, "full.jsonl.gz")
	w, err := record.Create(full, recordtest.Header(), record.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range eventgen.Batches(24, 60, 20*time.Second) {
		w.Write(b)
		w.Flush()
	}
	w.Close()
	data, _ := os.ReadFile(full)
	cut := filepath.Join(dir, "cut.jsonl.gz")
	os.WriteFile(cut, data[:len(data)*2/3], 0o644)
	rep, err := readReport(cut, metrics.Config{}, metrics.ReportMeta{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Frames == 0 {
		t.Fatal("no frames from a cut recording")
	}
	found := false
	for _, s := range rep.Warnings {
		if strings.Contains(s, "cut off") {
			found = true
		}
	}
	if !found {
		t.Errorf("warnings %q lack the cut-off warning", rep.Warnings)
	}
	if _, err := readReport(filepath.Join(dir, "missing.jsonl"), metrics.Config{}, metrics.ReportMeta{}); err == nil {
		t.Error("report of a missing file succeeded")
	}
}

// WriteMarkdown writes a Markdown summary of a report for a PR comment: totals, drop levels,
// percentiles, per-window table, worst frames, top slow messages and warnings.
func WriteMarkdown(w io.Writer, rep *metrics.Report) error {
	return WriteMarkdownSeries(w, rep, nil)
}

// TestReportWallFromEnd: a live run's recording keeps its wall-clock duration on the end line
// (record.Writer.SetWall), and its report states it as duration_s, as the live report did;
// a recording without it reports the events' span.
func TestReportWallFromEnd(t *testing.T) {
	batches := eventgen.Batches(21, 60, 10*time.Second)
	for _, wall := range []int64{0, 12_345_000_000} {
		path := filepath.Join(t.TempDir(), "live.jsonl")
		w, err := record.Create(path, recordtest.Header(), record.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range batches {
			if err := w.Write(b); err != nil {
				t.Fatal(err)
			}
		}
		w.SetWall(wall)
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rep, err := readReport(path, metrics.Config{}, metrics.ReportMeta{})
		if err != nil {
			t.Fatal(err)
		}
		if wall > 0 && rep.DurationS != 12.345 || wall == 0 && (rep.DurationS <= 9 || rep.DurationS > 10.5) {
			t.Errorf("wall %d ns: duration_s %v", wall, rep.DurationS)
		}
	}
}
