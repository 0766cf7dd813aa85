package gate

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/metrics"
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
	if got := (Gates{FPS: Off, Jank: Off}).Cases(rep, "fpstop.headless"); len(got) != 0 {
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
	if c := (Gates{FPS: 30, Jank: Off}).Cases(noFrames, "p"); len(c) != 1 || c[0].Failure == "" ||
		!strings.Contains(c[0].Output, "unknown (no frames)") || c[0].Class != "p.sim" {
		t.Errorf("a run without frames: %+v", c)
	}
}

// Finish writes the JUnit file when asked and fails with the gates' sentences.
func TestFinish(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gates.xml")
	err := Gates{FPS: 55, Jank: Off, JUnit: path}.Finish(sample(), "headless", time.Now())
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

// Each gate's rule: on or off (FPS 0 is off, Jank 0 a real gate, NaN off), passed, or the
// sentence that says why not; a run without frames fails every gate that is on.
func TestFailures(t *testing.T) {
	rep := &metrics.Report{Frames: 100, JankyFrames: 7, FPS: metrics.P2(54.5), JankPct: metrics.P2(7)}
	cases := []struct {
		fps, jank float64
		want      int
	}{
		{Off, Off, 0},
		{55, Off, 1},
		{54, Off, 0},
		{Off, 5, 1},
		{Off, 7, 0},
		{55, 5, 2},
		{0, math.NaN(), 0},
		{math.NaN(), -3, 0},
	}
	for _, c := range cases {
		g := Gates{FPS: c.fps, Jank: c.jank}
		got := g.Failures(rep)
		if len(got) != c.want {
			t.Errorf("Failures(fps %v, jank %v) = %q, want %d failures", c.fps, c.jank, got, c.want)
		}
		// JUnit says the same: one failed testcase per failure, each with the same sentence.
		var failed []string
		for _, tc := range g.Cases(rep, "p") {
			if tc.Failure != "" {
				failed = append(failed, tc.Failure)
			}
		}
		if strings.Join(failed, "|") != strings.Join(got, "|") {
			t.Errorf("fps %v, jank %v: JUnit failures %q, exit failures %q", c.fps, c.jank, failed, got)
		}
	}
	f := Gates{FPS: 55, Jank: 5}.Failures(rep)
	if f[0] != "fps 54.5 is under --fail-under-fps 55" || f[1] != "jank_pct 7% (7 of 100 frames) is over --max-jank-pct 5%" {
		t.Errorf("messages: %q", f)
	}
	empty := &metrics.Report{}
	if got := (Gates{FPS: 55, Jank: 0}).Failures(empty); len(got) != 2 || !strings.Contains(got[0], "no frames") || !strings.Contains(got[1], "no frames") {
		t.Errorf("empty run: %q", got)
	}
	if got := (Gates{FPS: Off, Jank: Off}).Failures(empty); len(got) != 0 {
		t.Errorf("empty run without gates: %q", got)
	}
	if got := (Gates{FPS: 30, Jank: Off}).Failures(nil); len(got) != 1 {
		t.Errorf("nil report: %q", got)
	}
	if got := (Gates{FPS: Off, Jank: 0}).Failures(&metrics.Report{Frames: 3, JankPct: metrics.P2(0)}); len(got) != 0 {
		t.Errorf("zero jank under a zero gate: %q", got)
	}
	unknown := &metrics.Report{Frames: 3}
	if got := (Gates{FPS: 30, Jank: 5}).Failures(unknown); len(got) != 2 || !strings.Contains(got[0], "fps is unknown") || !strings.Contains(got[1], "jank_pct is unknown") {
		t.Errorf("unknown values: %q", got)
	}
}
