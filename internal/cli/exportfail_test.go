package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/buildinfo"
	"github.com/fpstop/fpstop/internal/testkit/otlptest"
	"github.com/fpstop/fpstop/metrics"
)

// TestExportFailuresReported (issue 31): a headless run whose OTLP collector is down, hangs, or
// answers 500 or 429 lists the failed pushes with their counts in the report's warnings and,
// as no export delivered anything, exits 3; with a metrics file that works beside it, the
// failures are still listed but the run is not a failure.
func TestExportFailuresReported(t *testing.T) {
	sim := []string{"--source", "sim", "--scenario", "demo", "--headless", "--duration", "5s", "--speed", "0", "--json",
		"--metrics-interval", "1s"}
	for _, f := range []otlptest.Fault{otlptest.Down, otlptest.Hang, otlptest.Status500, otlptest.Status429} {
		t.Run(f.String(), func(t *testing.T) {
			endpoint := otlptest.Failing(t, f)
			out, errs, code := run(t, "", append(sim, "--otlp-endpoint", endpoint)...)
			r := decode(t, out)
			w := strings.Join(r.Warnings, "\n")
			if code != ExitRuntime || !strings.Contains(errs, "every export failed") ||
				!strings.Contains(w, "OTLP pushes to "+endpoint+": 1 of 1 failed") {
				t.Errorf("exit %d, stderr %q, warnings %q; want 3, the failure said, the push counted", code, errs, w)
			}
			if r.Frames == 0 {
				t.Error("no frames: the report must still be whole")
			}
		})
	}
	t.Run("one export delivers", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "fpstop.prom")
		out, errs, code := run(t, "", append(sim, "--otlp-endpoint", otlptest.Failing(t, otlptest.Down), "--metrics-file", file)...)
		r := decode(t, out)
		if code != ExitOK || !strings.Contains(strings.Join(r.Warnings, "\n"), "OTLP pushes to") {
			t.Errorf("exit %d, stderr %q, warnings %q; want 0 with the OTLP failure listed", code, errs, r.Warnings)
		}
		if _, err := os.Stat(file); err != nil {
			t.Error(err)
		}
	})
}

// TestMetricsFileFailuresReported (issue 31): a --metrics-file whose every write fails (its
// directory is removed once the run has started) is listed with its count and exits 3.
func TestMetricsFileFailuresReported(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "textfile")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	env := Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return "" },
		Build:  buildinfo.Info{Version: "test"},
		Live:   func(func() *metrics.Report) { os.RemoveAll(dir) }}
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code := Main(context.Background(), []string{"--source", "sim", "--headless", "--duration", "5s", "--speed", "0",
		"--json", "--metrics-file", filepath.Join(dir, "fpstop.prom")}, env)
	r := decode(t, out.String())
	w := strings.Join(r.Warnings, "\n")
	if code != ExitRuntime || !strings.Contains(w, "metrics file "+filepath.Join(dir, "fpstop.prom")+" writes: 1 of 1 failed") {
		t.Errorf("exit %d, stderr %q, warnings %q", code, errb.String(), w)
	}
}
