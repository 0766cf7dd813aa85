package metrics_test

import (
	"testing"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// TestWindowWithoutRowsKeepsProcess: a window with no framestats rows is known from its poll
// (which names no process) and its summary (which does): it keeps the process it was printed
// under.
func TestWindowWithoutRowsKeepsProcess(t *testing.T) {
	zero := int64(0)
	p := metrics.NewPipeline(metrics.Config{})
	p.AddBatch([]source.Event{
		&source.Session{Source: source.KindGfxinfo, CostBasis: source.CostFrame},
		&source.Poll{AtNs: 1e9, Window: "ShellDropTarget", Pid: 1652, TotalFrames: 0, Hidden: true},
		&source.AndroidSummary{AtNs: 1e9, Window: "ShellDropTarget", Process: "com.android.systemui", Pid: 1652, TotalFrames: &zero},
	})
	r := p.Report(metrics.ReportMeta{})
	if len(r.Windows) != 1 || r.Windows[0].Process != "com.android.systemui" {
		t.Fatalf("windows %+v, want ShellDropTarget of com.android.systemui", r.Windows)
	}
}

// TestRealWindowsKeepTheirProcess: every window of the all-processes capture is reported under
// the process whose "** Graphics info for pid N [name] **" section printed it — including
// systemui's ShellDropTarget and ScreenDecorOverlayBottom, which have no rows.
func TestRealWindowsKeepTheirProcess(t *testing.T) {
	r := reportOf(t, captureEvents(t, "anavmode-topicon-t865-android13plus-framestats-allprocs.txt"))
	want := map[string]string{ // read from the capture's section headers
		"ShellDropTarget":          "com.android.systemui",
		"ScreenDecorOverlayBottom": "com.android.systemui",
		"ScreenDecorOverlay":       "com.android.systemui",
		"StatusBar":                "com.android.systemui",
		"NotificationShade":        "com.android.systemui",
		"Taskbar":                  "com.android.launcher3",
		"InputMethod":              "com.google.android.inputmethod.latin",
	}
	seen := 0
	for _, w := range r.Windows {
		if w.Process == "" {
			t.Errorf("window %q has no process", w.Name)
		}
		if p, ok := want[w.Name]; ok {
			seen++
			if w.Process != p {
				t.Errorf("window %q: process %q, want %q", w.Name, w.Process, p)
			}
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d windows checked were reported", seen, len(want))
	}
}

// TestRestartedAppFramesBeforeFirstPoll (issue 13 item 5): an app restarted during the session
// whose new process's first dump says "Total frames rendered: 339" with 120 rows: the 219 it
// drew before fpstop's first poll of it are frames_lost. The source marks such a process with a
// Poll at counter 0 before its first (gfxinfo's TestProcessRestartChargesFramesBeforeFirstPoll);
// an app already running at the start has no such Poll, and no lost history.
func TestRestartedAppFramesBeforeFirstPoll(t *testing.T) {
	for _, restarted := range []bool{true, false} {
		p := metrics.NewPipeline(metrics.Config{})
		p.Add(&source.Session{Source: source.KindGfxinfo, CostBasis: source.CostFrame, RefreshHz: 60, Pid: 200})
		const T = 16_666_667
		at := int64(20e9)
		if restarted {
			p.Add(&source.Poll{AtNs: at, Window: "w", Pid: 200})
			p.Add(&source.Poll{AtNs: at, Pid: 200, Process: true})
		}
		for i := int64(0); i < 120; i++ {
			v := at - (120-i)*T
			p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 8e6, IntervalNs: T, VsyncID: 500 + i})
		}
		p.Add(&source.Poll{AtNs: at, Window: "w", Pid: 200, TotalFrames: 339, Rows: 120, NewRows: 120})
		p.Add(&source.Poll{AtNs: at, Pid: 200, Process: true, TotalFrames: 339, Rows: 120, NewRows: 120})
		r := p.Report(metrics.ReportMeta{Version: "test"})
		want := int64(0)
		if restarted {
			want = 219
		}
		if r.FramesLost == nil || *r.FramesLost != want {
			t.Errorf("restarted %v: frames_lost %v, want %d", restarted, r.FramesLost, want)
		}
	}
}
