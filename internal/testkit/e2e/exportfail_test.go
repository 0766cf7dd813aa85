package e2e

import (
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/otlptest"
)

// TestExportFailureOnScreen (issue 31): the dashboard's status line says the OTLP pushes are
// failing while the collector answers 500, and stops saying so once it answers again.
func TestExportFailureOnScreen(t *testing.T) {
	t.Parallel()
	screenTest(t)
	var broken atomic.Bool
	broken.Store(true)
	endpoint, _ := otlptest.HTTPWith(t, func(w http.ResponseWriter) bool {
		if broken.Load() {
			http.Error(w, "collector broken", http.StatusInternalServerError)
			return true
		}
		return false
	})
	p := startPane(t, "--source", "sim", "--no-mouse", "--otlp-endpoint", endpoint, "--metrics-interval", "2s")
	p.waitFor(15*time.Second, "OTLP pushes to", "failing")
	broken.Store(false)
	deadline := time.Now().Add(15 * time.Second)
	for strings.Contains(p.screen(), "OTLP pushes to") {
		if time.Now().After(deadline) {
			t.Fatalf("the failure is still shown after the collector recovered:\n%s", p.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	p.key("q")
	if !p.exited(10 * time.Second) {
		t.Fatalf("q did not quit:\n%s", p.screen())
	}
}

// TestExportFailureHeadless (issue 31): a headless run pushing to a collector that is down,
// hangs, or answers 500 or 429 exits 3 with the failed pushes counted in the report, and its
// memory stays flat while the pushes keep failing (FPSTOP_EXPORT_FAIL_SECONDS lengthens the
// run, e.g. to 180 for the three minutes; CI runs 12 s per collector).
func TestExportFailureHeadless(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts the binary")
	}
	t.Parallel()
	secs := 12
	if s, err := strconv.Atoi(os.Getenv("FPSTOP_EXPORT_FAIL_SECONDS")); err == nil && s > 0 {
		secs = s
	}
	for _, f := range []otlptest.Fault{otlptest.Down, otlptest.Hang, otlptest.Status500, otlptest.Status429} {
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel()
			endpoint := otlptest.Failing(t, f)
			cmd := exec.Command(binary(t), "--source", "sim", "--headless", "--json", "--speed", "1",
				"--duration", strconv.Itoa(secs)+"s", "--otlp-endpoint", endpoint, "--metrics-interval", "1s")
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			time.Sleep(3 * time.Second) // past start-up: the sampling starts from a warm process
			early := procRSSMB(cmd.Process.Pid)
			peak := early
			for i := 0; i < secs-5; i++ {
				time.Sleep(time.Second)
				peak = max(peak, procRSSMB(cmd.Process.Pid))
			}
			err := cmd.Wait()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			t.Logf("%s: RSS %.1f MB at 3 s, peak %.1f MB after; exit %d", f, early, peak, code)
			if code != 3 || !strings.Contains(errb.String(), "every export failed") {
				t.Errorf("exit %d, stderr %q; want 3 and why", code, errb.String())
			}
			if !strings.Contains(out.String(), "OTLP pushes to "+endpoint+": ") || !strings.Contains(out.String(), " failed (last: ") {
				t.Errorf("the report does not list the failed pushes:\n%s", out.String())
			}
			if peak > early+16 {
				t.Errorf("RSS grew from %.1f to %.1f MB while the pushes failed", early, peak)
			}
		})
	}
}
