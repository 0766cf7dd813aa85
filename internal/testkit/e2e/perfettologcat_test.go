package e2e

import (
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/cli"
)

// TestPerfettoLogcat (issue 33): an app that prints its Looper lines, read with --source
// perfetto over a real adb server: logcat runs beside the trace (perfetto+logcat), so the
// report has Perfetto's frames with blame, the Looper messages paired, and janky worst frames
// that name both their slowest sections and the messages that ran in them; at exit no perfetto
// of fpstop's runs.
func TestPerfettoLogcat(t *testing.T) {
	if testing.Short() {
		t.Skip("runs adb and the fake phone")
	}
	ph := startPhone(t, 60, "janky", 41, 0)
	ph.printer.Store(true) // a debug build printing Looper lines
	env, tr := tracingEnv(t, ph, 34, "14")
	r, errs, code := fpstop(t, env, "-p", pkg, "--source", "perfetto", "--headless", "--json", "--duration", "10s")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if r.Source != "perfetto+logcat" || r.Blame == nil || r.Frames < 100 {
		t.Fatalf("source %q blame %v frames %d: want perfetto+logcat with blame", r.Source, r.Blame, r.Frames)
	}
	if r.Messages.Paired == 0 || !r.Messages.DurationsKnown {
		t.Errorf("messages %+v: want the app's Looper messages paired", r.Messages)
	}
	both := 0
	for i, w := range r.WorstFrames {
		own := 0 // messages of the app's own, not Choreographer's vsync message
		for _, m := range w.Messages {
			if !strings.HasPrefix(m.Handler, "android.view.Choreographer") {
				own++
			}
		}
		if w.Dropped > 0 && len(w.Sections) > 0 && own > 0 {
			both++
		}
		if i < 3 {
			t.Logf("worst frame at %v ms: dropped %d, blame %v, %d sections, messages %+v", w.StartMs, w.Dropped, w.Blame, len(w.Sections), w.Messages)
		}
	}
	if both == 0 {
		t.Errorf("no janky worst frame names both its sections and its messages")
	}
	if run := tr.Running(); len(run) != 0 {
		t.Errorf("perfetto still running after exit: %v", run)
	}
}
