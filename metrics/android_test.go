package metrics

import (
	"testing"

	"github.com/fpstop/fpstop/source"
)

const t60 = 16_666_667 // 60 Hz frame interval, ns

// modern builds an Android 12+ style frame: intended vsync v, the UI→RT stall given, frame
// completed at v+doneMs, GPU done at v+gpuMs, SwapBuffersCompleted at v+swapMs, deadline
// v+deadlineNs.
func modern(v int64, stallNs, doneNs, gpuNs, swapNs, deadlineNs int64) *source.Frame {
	return &source.Frame{
		VsyncNs: v, DoneNs: v + doneNs, UIDoneNs: v + 2_000_000 + stallNs, IntervalNs: t60,
		DeadlineNs: v + deadlineNs, VsyncID: 1,
		Phases: &source.Phases{
			Vsync: v, SyncQueued: v + 2_000_000, SyncStart: v + 2_000_000 + stallNs,
			IssueDrawCommandsStart: v + 2_500_000 + stallNs, FrameCompleted: v + doneNs,
			GpuCompleted: v + gpuNs, SwapBuffersCompleted: v + swapNs,
		},
	}
}

func TestJankTrackerDurationAndCounting(t *testing.T) {
	// 20 ms to FrameCompleted with a 3 ms stall: Android's histogram gets 17 ms.
	a := AndroidJank(modern(1e9, 3_000_000, 20_000_000, 10_000_000, 19_000_000, 2*t60), t60)
	if !a.Counted || a.DurationNs != 17_000_000 {
		t.Errorf("stall: %+v", a)
	}
	// Legacy uses SwapBuffersCompleted on 12+: 19 − 3 = 16 ms ≤ 16.67 ms: not legacy-janky,
	// though the frame took 17 ms to FrameCompleted.
	if a.LegacyJanky {
		t.Errorf("legacy janky on SwapBuffersCompleted 16 ms: %+v", a)
	}
	// 1 ns over the interval to SwapBuffersCompleted is legacy-janky (strictly greater).
	b := AndroidJank(modern(2e9, 0, 18_000_000, 5_000_000, t60+1, 2*t60), t60)
	c := AndroidJank(modern(3e9, 0, 18_000_000, 5_000_000, t60, 2*t60), t60)
	if !b.LegacyJanky || c.LegacyJanky {
		t.Errorf("legacy boundary: %+v %+v", b, c)
	}
	// Skipped frames never reach JankTracker.
	sk := modern(4e9, 0, 50_000_000, 50_000_000, 50_000_000, t60)
	sk.Flags = source.FlagSkippedFrame
	if r := AndroidJank(sk, t60); r != (AndroidFrame{}) {
		t.Errorf("skipped frame: %+v", r)
	}
	// SurfaceCanvas frames are counted but never janky.
	sc := modern(5e9, 0, 50_000_000, 50_000_000, 50_000_000, t60)
	sc.Flags = source.FlagSurfaceCanvas
	if r := AndroidJank(sc, t60); !r.Counted || r.LegacyJanky || r.DeadlineJanky || r.HasDeadline {
		t.Errorf("surface canvas: %+v", r)
	}
	// Other flags (first draw, RT animation) are ordinary frames.
	fd := modern(6e9, 0, 50_000_000, 50_000_000, 50_000_000, t60)
	fd.Flags = source.FlagWindowLayoutChanged | source.FlagRTAnimation
	if r := AndroidJank(fd, t60); !r.Counted || !r.LegacyJanky || !r.DeadlineJanky {
		t.Errorf("flagged frame: %+v", r)
	}
	// A stall longer than the frame, or FrameCompleted unset: duration 0, not counted.
	if r := AndroidJank(modern(7e9, 30_000_000, 20_000_000, 10_000_000, 19_000_000, t60), t60); r.Counted {
		t.Errorf("zero duration counted: %+v", r)
	}
}

func TestJankTrackerPreAndroid12(t *testing.T) {
	// Android 8–11 rows: no deadline, no vsync id, no SwapBuffersCompleted. Legacy jank from
	// FrameCompleted minus the stall; interval from the caller (the display).
	f := &source.Frame{VsyncNs: 1e9, DoneNs: 1e9 + 18_000_000, UIDoneNs: 1e9 + 3_000_000,
		Phases: &source.Phases{SyncQueued: 1e9 + 2_000_000, SyncStart: 1e9 + 3_000_000, FrameCompleted: 1e9 + 18_000_000}}
	r := AndroidJank(f, t60)
	if !r.Counted || r.DurationNs != 17_000_000 || !r.LegacyJanky || r.HasDeadline {
		t.Errorf("%+v", r)
	}
	// The same frame at 50 Hz (20 ms) is not janky.
	if r := AndroidJank(f, 20_000_000); r.LegacyJanky {
		t.Errorf("50 Hz: %+v", r)
	}
	// A frame without phases (Looper-derived or hand-made): duration = done − vsync.
	g := &source.Frame{VsyncNs: 1e9, DoneNs: 1e9 + 10_000_000, UIDoneNs: 1e9 + 8_000_000}
	if r := AndroidJank(g, t60); !r.Counted || r.DurationNs != 10_000_000 || r.LegacyJanky {
		t.Errorf("no phases: %+v", r)
	}
	if r := AndroidJank(nil, t60); r.Counted {
		t.Error("nil frame counted")
	}
}

// TestJankTrackerBufferStuffing works through Android 12+'s deadline rule on two frames at
// 60 Hz (T = 16.666667 ms):
//
//	A: vsync 1000 ms, deadline 1016.67, GPU done 1020 → janky. Next unstuffed start =
//	   GPU − ((GPU − Vsync) mod T) + T = 1020 − 3.333333 + 16.666667 = 1033.333334 ms.
//	B: vsync 1016.666667 starts 16.67 ms (> 0.1 T) before 1033.33: buffer-stuffed, so its
//	   deadline 1033.333334 gets one more T = 1050.000001; GPU done 1040 < that: not janky.
//
// gfxinfo rows print B's deadline already extended (hwui writes it back), so AndroidJank must
// not extend it again: with the printed 1050.000001 it reaches Android's answer.
func TestJankTrackerBufferStuffing(t *testing.T) {
	a := modern(1_000_000_000, 0, 20_000_000, 20_000_000, 19_000_000, t60)
	b := modern(1_000_000_000+t60, 0, 23_333_333, 23_333_333, 20_000_000, t60) // GPU at 1040 ms

	bp := *b
	bp.DeadlineNs = b.DeadlineNs + t60 // as hwui prints it
	pa, pb := AndroidJank(a, t60), AndroidJank(&bp, t60)
	if !pa.DeadlineJanky || !pa.HasDeadline || pb.DeadlineJanky {
		t.Errorf("printed: %+v %+v", pa, pb)
	}
	// With the unextended deadline B is janky: the printed deadline decides (the real
	// captures decide it; see realdata_test.go).
	if r := AndroidJank(b, t60); !r.DeadlineJanky {
		t.Errorf("unextended deadline: %+v", r)
	}
}

// TestJankTrackerFramesWithoutPhases: simulator/Looper frames carry a deadline but no hwui
// phases; both rules still apply (GPU completion = FrameCompleted, legacy to FrameCompleted).
func TestJankTrackerFramesWithoutPhases(t *testing.T) {
	late := &source.Frame{VsyncNs: 1e9, DoneNs: 1e9 + 20_000_000, IntervalNs: t60, DeadlineNs: 1e9 + t60, VsyncID: 3}
	if r := AndroidJank(late, t60); !r.Counted || !r.LegacyJanky || !r.HasDeadline || !r.DeadlineJanky || r.DurationNs != 20_000_000 {
		t.Errorf("late: %+v", r)
	}
	ok := &source.Frame{VsyncNs: 2e9, DoneNs: 2e9 + 10_000_000, IntervalNs: t60, DeadlineNs: 2e9 + t60, VsyncID: 4}
	if r := AndroidJank(ok, t60); !r.Counted || r.LegacyJanky || !r.HasDeadline || r.DeadlineJanky {
		t.Errorf("on time: %+v", r)
	}
}
