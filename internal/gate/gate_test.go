package gate

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/report"
)

func sample() *metrics.Report {
	fps, jank := metrics.R2(50), metrics.R2(12.5)
	pkg := "com.example.app"
	return &metrics.Report{Source: "gfxinfo", Package: &pkg, Frames: 400, JankyFrames: 50, FPS: &fps, JankPct: &jank,
		Device: &metrics.DeviceReport{Serial: "emulator-5554"}}
}

// Each gate that is on is one testcase, failed when the report fails it; gates that are off
// have none.
func TestCases(t *testing.T) {
	rep := sample()
	if got := (Gates{FPS: report.GateOff, Jank: report.GateOff}).Cases(rep, "fpstop.headless"); len(got) != 0 {
		t.Errorf("gates off: %d cases", len(got))
	}
	cases := Gates{FPS: 55, Jank: 20}.Cases(rep, "fpstop.headless")
	if len(cases) != 2 {
		t.Fatalf("%d cases, want 2", len(cases))
	}
	fps, jank := cases[0], cases[1]
	if fps.Name != "fail-under-fps 55" || fps.Class != "fpstop.headless.emulator-5554.com.example.app" || fps.Failure == "" ||
		!strings.Contains(fps.Output, "fps 50 against --fail-under-fps 55 over 400 frames") {
		t.Errorf("fps case %+v", fps)
	}
	if jank.Name != "max-jank-pct 20" || jank.Failure != "" || !strings.Contains(jank.Output, "(50 of 400 frames)") {
		t.Errorf("jank case %+v", jank)
	}
	noFrames := &metrics.Report{Source: "sim"}
	if c := (Gates{FPS: 30, Jank: report.GateOff}).Cases(noFrames, "p"); len(c) != 1 || c[0].Failure == "" ||
		!strings.Contains(c[0].Output, "unknown (no frames)") || c[0].Class != "p.sim" {
		t.Errorf("a run without frames: %+v", c)
	}
}

// Finish writes the JUnit file when asked and fails with the gates' sentences.
func TestFinish(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gates.xml")
	err := Gates{FPS: 55, Jank: report.GateOff, JUnit: path}.Finish(sample(), "headless", time.Now())
	var ge *exit.GateError
	if !errors.As(err, &ge) || len(ge.Failures) != 1 || exit.Code(err) != exit.Gate {
		t.Fatalf("err %v, want one gate failure", err)
	}
	b, rerr := os.ReadFile(path)
	if rerr != nil || !strings.Contains(string(b), `name="fpstop headless"`) || !strings.Contains(string(b), "fail-under-fps 55") {
		t.Errorf("junit %s (%v)", b, rerr)
	}
	if err := (Gates{FPS: 40, Jank: 15}).Finish(sample(), "report", time.Now()); err != nil {
		t.Errorf("passing gates: %v", err)
	}
}
