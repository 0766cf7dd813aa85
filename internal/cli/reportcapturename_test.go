package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportCaptureWarningsNameIt: a warning about a logcat capture's report names the capture
// the user gave, never the temporary recording made of it (a path they never typed, new each
// run), in every format that shows warnings.
func TestReportCaptureWarningsNameIt(t *testing.T) {
	const (
		d = "D Looper  : >>>>> Dispatching to Handler (android.view.Choreographer$FrameHandler) {3bdcbab2} android.view.Choreographer$FrameDisplayEventReceiver@1589ea03: 0\n"
		f = "D Looper  : <<<<< Finished to Handler (android.view.Choreographer$FrameHandler) {3bdcbab2} android.view.Choreographer$FrameDisplayEventReceiver@1589ea03\n"
	)
	// one message written twice (a repeated line, warned about), then another
	text := "08-28 10:00:00.000 22001 22001 " + d + "08-28 10:00:00.030 22001 22001 " + f +
		"08-28 10:00:00.000 22001 22001 " + d + "08-28 10:00:00.030 22001 22001 " + f +
		"08-28 10:00:00.040 22001 22001 " + d + "08-28 10:00:00.050 22001 22001 " + f
	capt := filepath.Join(t.TempDir(), "looper.txt")
	if err := os.WriteFile(capt, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, format := range []string{"json", "md", "html"} {
		out, errs, code := run(t, "", "report", capt, "--format", format)
		if code != ExitOK {
			t.Fatalf("--format %s: exit %d %s", format, code, errs)
		}
		if !strings.Contains(out, capt+": 1 repeated event line ") {
			t.Errorf("--format %s: no warning naming %s of its repeated line:\n%s", format, capt, out)
		}
		if strings.Contains(out, "fpstop-report-") || strings.Contains(out, "capture.jsonl") {
			t.Errorf("--format %s names the temporary recording:\n%s", format, out)
		}
	}
}
