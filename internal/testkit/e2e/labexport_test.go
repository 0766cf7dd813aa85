package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/cli"
	"github.com/fpstop/fpstop/internal/testkit/otlptest"
)

// TestLabExportFailure (issue 31): a multi-device run whose OTLP pushes all fail exits 3, as a
// single-device run does, with the failed pushes counted in the summary's warnings.
func TestLabExportFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts an adb server and two phones")
	}
	env, _ := twoPhones(t, "smooth", "smooth", 60)
	endpoint := otlptest.Failing(t, otlptest.Status500)
	out, errs, code := runCLI(env.Port, "--all-devices", "--headless", "--json", "--duration", "5s",
		"--otlp-endpoint", endpoint, "--metrics-interval", "1s")
	if code != cli.ExitRuntime || !strings.Contains(errs, "every export failed") {
		t.Errorf("exit %d, stderr %q; want %d and why", code, errs, cli.ExitRuntime)
	}
	var o struct {
		Devices []json.RawMessage `json:"devices"`
		Summary struct {
			Warnings []string `json:"warnings"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatalf("not the multi-device JSON (%v): %s", err, out)
	}
	if len(o.Devices) != 2 {
		t.Errorf("%d device reports, want 2", len(o.Devices))
	}
	w := strings.Join(o.Summary.Warnings, "\n")
	if !strings.Contains(w, "OTLP pushes to "+endpoint+": ") || !strings.Contains(w, " failed (last: ") {
		t.Errorf("the summary's warnings do not list the failed pushes: %q", o.Summary.Warnings)
	}
}
