package e2e

import (
	"bytes"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/cli"
	"github.com/fpstop/fpstop/internal/testkit/reference"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// TestPipelined120Hz: the fake phone serves an Android 13 app at 120 Hz whose frames overlap
// (RenderThread and GPU still busy when the next vsync starts the next frame), with hwui's
// buffer-stuffing extension printed in FrameDeadline, frames the busy main thread started late
// (Vsync later than IntendedVsync by whole periods) and the real devices' FrameInterval /
// FrameStartTime label swap. fpstop over the real adb server loses no row, and its fps is within
// 0.5 of DESIGN §4's rule applied to the rows it was served (internal/testkit/reference, which shares no
// code with metrics). The janky scenario with seed 26 shows no popup in its first 40 s, so no
// window closes between two polls and frames_lost must be 0.
func TestPipelined120Hz(t *testing.T) {
	t.Parallel()
	const hz = 120
	ph := startPhone(t, hz, "janky", 26, 0)
	env := startEnv(t, ph)
	rec := filepath.Join(t.TempDir(), "run.jsonl")
	r, errs, code := fpstop(t, env, "--headless", "--json", "--duration", "20s", "--record", rec)
	served := servedText(t, ph)
	ph.stop()
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	checkLabelSwap(t, served)
	if r.FramesLost == nil || *r.FramesLost != 0 {
		t.Errorf("frames_lost %v, want 0", r.FramesLost)
	}
	_, _, _, frames := seen(t, rec)
	T := int64(math.Round(1e9 / hz))
	base := sim.BaseDeadlineNs(T)
	calc := reference.NewCalc()
	var stuffed, late, overlapping int
	for _, f := range frames {
		calc.Add(servedLine(f, T))
		if f.DeadlineNs-f.VsyncNs >= base+T && f.Phases.Vsync == f.VsyncNs {
			stuffed++
		}
		if d := f.Phases.Vsync - f.VsyncNs; d >= T && d%T == 0 {
			late++
		}
		if f.Phases.GpuCompleted-f.VsyncNs > T && f.Phases.SyncStart-f.VsyncNs < T {
			overlapping++
		}
		if f.IntervalNs != T {
			t.Fatalf("frame interval %d, want %d (read from the column labelled FrameStartTime)", f.IntervalNs, T)
		}
	}
	n := len(frames)
	t.Logf("%d rows: %d stuffed, %d started late, %d overlapping the next vsync; fpstop %d frames, %d janky",
		n, stuffed, late, overlapping, r.Frames, r.JankyFrames)
	if n < 800 || stuffed < n/4 || late < 10 || overlapping < n/4 {
		t.Errorf("the served rows are not pipelined enough: %d rows, %d stuffed, %d late starts, %d overlapping", n, stuffed, late, overlapping)
	}
	ref := calc.Numbers()
	if r.FPS != nil {
		t.Logf("fps %.2f; the rule on the served rows: %.2f", float64(*r.FPS), ref.FPS)
	}
	if r.Frames != ref.Frames || r.JankyFrames != ref.Janky {
		t.Errorf("frames %d janky %d; the rule on the served rows says %d and %d", r.Frames, r.JankyFrames, ref.Frames, ref.Janky)
	}
	if r.FPS == nil || math.Abs(float64(*r.FPS)-ref.FPS) > 0.5 {
		t.Errorf("fps %v; the rule on the served rows says %.2f", r.FPS, ref.FPS)
	}
}

// servedText is what the phone answers to `dumpsys gfxinfo <pkg> framestats` now.
func servedText(t *testing.T, ph *phone) string {
	t.Helper()
	var b bytes.Buffer
	if err := ph.handler(t.Context(), "dumpsys gfxinfo "+pkg+" framestats", &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// checkLabelSwap: as real Android 13 devices print it, the header says FrameInterval before
// FrameStartTime while the rows hold the start time (a timestamp) under FrameInterval and the
// period under FrameStartTime.
func checkLabelSwap(t *testing.T, text string) {
	t.Helper()
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "Flags,FrameTimelineVsyncId,") || i+1 >= len(lines) {
			continue
		}
		cols := strings.Split(l, ",")
		row := strings.Split(lines[i+1], ",")
		at := map[string]int64{}
		for k, c := range cols {
			if k < len(row) {
				at[c], _ = strconv.ParseInt(row[k], 10, 64)
			}
		}
		if len(cols) != 24 || at["FrameInterval"] < at["IntendedVsync"] || at["FrameStartTime"] != int64(math.Round(1e9/120)) {
			t.Errorf("no label swap in %d columns: FrameInterval %d, FrameStartTime %d", len(cols)-1, at["FrameInterval"], at["FrameStartTime"])
		}
		return
	}
	t.Errorf("no Android 13 PROFILEDATA header in the served text:\n%s", text)
}

// servedLine is the reference's view of a row fpstop was served (and recorded).
func servedLine(f *source.Frame, T int64) reference.Line {
	l := reference.Line{Type: "frame", Window: f.Window, VsyncNs: f.VsyncNs, DeadlineNs: f.DeadlineNs,
		DoneNs: f.DoneNs, IntervalNs: f.IntervalNs, Flags: f.Flags, History: f.History}
	if l.IntervalNs == 0 {
		l.IntervalNs = T
	}
	if ph := f.Phases; ph != nil {
		if ph.Vsync != f.VsyncNs {
			l.StartVsyncNs = ph.Vsync
		}
		l.Phases = &reference.Phases{SyncQueued: ph.SyncQueued, SyncStart: ph.SyncStart, GpuCompleted: ph.GpuCompleted}
	}
	return l
}
