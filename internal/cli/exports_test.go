package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/fpstop/fpstop/internal/testkit/otlptest"
)

// TestMetricsFileMatchesReport: a headless run with --metrics-file leaves the text-format file
// node_exporter reads, and its frame counters add up to the report's frames.
func TestMetricsFileMatchesReport(t *testing.T) {
	path := filepath.Join(t.TempDir(), "fpstop.prom")
	out, errs, code := run(t, "", "--source", "sim", "--scenario", "janky", "--headless", "--duration", "20s",
		"--speed", "0", "--json", "--metrics-file", path)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := decode(t, out)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(f)
	if err != nil {
		t.Fatal(err)
	}
	// only fpstop's own families: node_exporter exports go_* and process_* itself and logs an
	// error on every scrape for a textfile that repeats them
	for name := range fams {
		if !strings.HasPrefix(name, "fpstop_") {
			t.Errorf("the textfile holds %s", name)
		}
	}
	var frames, janky float64
	for _, m := range fams["fpstop_frames_total"].GetMetric() {
		frames += m.GetCounter().GetValue()
	}
	for _, m := range fams["fpstop_janky_frames_total"].GetMetric() {
		janky += m.GetCounter().GetValue()
	}
	if r.Frames == 0 || frames != float64(r.Frames) || janky != float64(r.JankyFrames) {
		t.Errorf("file: frames %v janky %v; report %d and %d", frames, janky, r.Frames, r.JankyFrames)
	}
}

func TestExportFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--metrics-listen", ":9464"},
		{"--metrics-listen", "nonsense"},
		{"--metrics-file", filepath.Join(t.TempDir(), "no", "such", "dir", "x.prom")},
		{"--metrics-interval", "10ms", "--metrics-file", filepath.Join(t.TempDir(), "x.prom")},
	} {
		args = append([]string{"--source", "sim", "--headless", "--duration", "1s", "--speed", "0"}, args...)
		_, errs, code := run(t, "", args...)
		if code != ExitUsage || !strings.Contains(errs, "--metrics-") {
			t.Errorf("%v: exit %d, %q; want a usage error naming the flag", args, code, errs)
		}
	}
}

// TestOTLPPushMatchesReport: a headless run with --otlp-endpoint pushes its final numbers to an
// OTLP/HTTP receiver before it exits, with fpstop's resource.
func TestOTLPPushMatchesReport(t *testing.T) {
	endpoint, rec := otlptest.HTTP(t)
	out, errs, code := run(t, "", "--source", "sim", "--scenario", "demo", "--headless", "--duration", "15s",
		"--speed", "0", "--json", "--otlp-endpoint", endpoint)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	r := decode(t, out)
	rm := rec.Latest()[""] // the simulator has no serial
	if rm == nil {
		t.Fatalf("nothing pushed (%d requests)", rec.Count())
	}
	if otlptest.ResAttr(rm, "service.name") != "fpstop" || otlptest.ResAttr(rm, "device.model.name") != r.Device.Model {
		t.Errorf("resource service.name %q device.model.name %q", otlptest.ResAttr(rm, "service.name"), otlptest.ResAttr(rm, "device.model.name"))
	}
	if n, _ := otlptest.MetricSum(rm, "fpstop.frames"); r.Frames == 0 || n != r.Frames {
		t.Errorf("pushed %d frames, report says %d", n, r.Frames)
	}
}

func TestMultiDeviceFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"-s", "A", "-s", "B"},                     // the dashboard reads one device
		{"--all-devices", "-s", "A", "--headless"}, // both ways at once
		{"-s", "A", "-s", "A", "--headless"},       // twice
		{"-s", "A", "-s", "B", "--headless", "--record", "x.jsonl"},
		{"--all-devices", "--headless", "--source", "sim"},
		{"--all-devices", "--headless", "-p", "com.a", "-p", "com.b"},
		{"--all-devices", "--headless", "-p", "=com.a"},
		{"--all-devices", "--headless", "-p", "A=not a package"},
	} {
		_, errs, code := run(t, "", args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d (%q), want a usage error", args, code, errs)
		}
	}
}

// TestNamedMissingDeviceIsExit3: a device named with -s that is not there is a runtime error
// (exit 3) with several devices as with one.
func TestNamedMissingDeviceIsExit3(t *testing.T) {
	// An adb server port nothing listens on: the device list cannot even be read. adb is kept
	// off PATH, so no real adb server is started (as root it could bind port 1).
	t.Setenv("PATH", t.TempDir())
	t.Setenv("ADB_SERVER_SOCKET", "")
	_, errs, code := run(t, "", "-s", "A", "-s", "B", "--headless", "--adb-port", "1")
	if code != ExitRuntime {
		t.Errorf("exit %d (%q), want 3", code, errs)
	}
}
