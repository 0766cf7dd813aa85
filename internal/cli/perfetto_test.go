package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/fpstop/fpstop/internal/capture"
	"github.com/fpstop/fpstop/internal/testkit"
	"github.com/fpstop/fpstop/internal/testkit/realdata"
	"github.com/fpstop/fpstop/internal/testkit/simtext"
	"github.com/fpstop/fpstop/source/sim"
)

// writeSimTrace writes the simulator's run as a Perfetto trace file.
func writeSimTrace(t *testing.T, path string, seed int64) {
	t.Helper()
	evs := testkit.SimEvents(t, sim.Config{Scenario: "janky", Hz: 60, Seed: seed, Speed: 0, Duration: 8 * time.Second})
	var buf bytes.Buffer
	if _, err := simtext.RenderTrace(&buf, evs, simtext.TraceOptions{SFJankEvery: 10}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTraceDownstream (issue 32): a Perfetto trace reads everywhere a recording does — the
// headless report, `report` in every format, gates, `compare` of two traces, `export` back to
// a trace.
func TestTraceDownstream(t *testing.T) {
	if testing.Short() {
		t.Skip("runs fpstop commands on generated traces")
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.perfetto-trace"), filepath.Join(dir, "b.pftrace")
	writeSimTrace(t, a, 1)
	writeSimTrace(t, b, 2)
	out, errs, code := run(t, "", "--input", a, "--headless", "--json")
	var rep struct {
		Source string          `json:"source"`
		Frames int             `json:"frames"`
		Blame  *map[string]int `json:"blame"`
		Pkg    *string         `json:"package"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Source != "perfetto" || rep.Frames == 0 ||
		rep.Blame == nil || (*rep.Blame)["surfaceflinger"] == 0 || rep.Pkg == nil {
		t.Fatalf("--input trace: exit %d, %s, report %+v", code, errs, rep)
	}
	for _, f := range []string{"json", "md", "csv", "html"} {
		if out, errs, code := run(t, "", "report", a, "--format", f); code != 0 || len(out) == 0 {
			t.Errorf("report --format %s: exit %d, %s", f, code, errs)
		}
	}
	if _, _, code := run(t, "", "report", a, "--fail-under-fps", "200"); code != ExitGate {
		t.Errorf("report with a failing gate: exit %d, want %d", code, ExitGate)
	}
	if _, errs, code := run(t, "", "compare", a, b); code != 0 && code != ExitGate {
		t.Errorf("compare of two traces: exit %d, %s", code, errs)
	}
	exp := filepath.Join(dir, "out.pftrace")
	if _, errs, code := run(t, "", "export", a, "--trace", exp); code != 0 || !capture.IsTrace(exp) {
		t.Errorf("export back to a trace: exit %d, %s", code, errs)
	}
}

// TestSystraceInput: systrace text (Perfetto's own .systrace test cases, and an HTML page as
// systrace.py writes it) is detected by content and read by `report` and --input; a gzip'd
// one too.
func TestSystraceInput(t *testing.T) {
	dir := realdata.Dir(t, filepath.Join("perfetto", "atrace"))
	for _, name := range []string{"bad_print.systrace", "test_regex_pattern_no_gap_after_irq_flags.systrace"} {
		_, c, got, err := capture.Detect(filepath.Join(dir, name), nil)
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
		if got != capture.Perfetto {
			t.Errorf("%s: %s, want perfetto", name, got)
		}
	}
	page := "<!DOCTYPE html>\n<html>\n<head>\n<title>Android System Trace</title>\n</head>\n" +
		`<script class="trace-data" type="application/text">` + "\n# tracer: nop\n#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION\n" +
		"   app-10  ( 10) [000] ...1   100.000000: tracing_mark_write: B|10|Choreographer#doFrame 1\n" +
		"   app-10  ( 10) [000] ...1   100.012000: tracing_mark_write: E|10\n" +
		"   app-10  ( 10) [000] ...1   100.016667: tracing_mark_write: B|10|Choreographer#doFrame 2\n" +
		"   app-10  ( 10) [000] ...1   100.020000: tracing_mark_write: E|10\n</script>\n</html>\n"
	tmp := t.TempDir()
	html := filepath.Join(tmp, "x.html")
	if err := os.WriteFile(html, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(page))
	zw.Close()
	gzPath := filepath.Join(tmp, "x.systrace.gz")
	if err := os.WriteFile(gzPath, gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{html, gzPath} {
		out, errs, code := run(t, "", "report", in)
		var rep struct {
			Source string `json:"source"`
			Frames int    `json:"frames"`
		}
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Source != "perfetto" || rep.Frames != 2 {
			t.Errorf("report %s: exit %d, %s, %+v", filepath.Base(in), code, errs, rep)
		}
		if _, errs, code := run(t, "", "--input", in, "--headless", "--json"); code != 0 {
			t.Errorf("--input %s: exit %d, %s", filepath.Base(in), code, errs)
		}
	}
}
