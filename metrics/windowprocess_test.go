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
