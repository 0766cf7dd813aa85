package gfxinfo

import (
	"strings"
	"testing"
)

// The PROFILEDATA header current AOSP prints: libs/hwui/FrameInfo.cpp's FrameInfoNames, 24
// names with WorkloadTarget (after FrameStartTime, FrameInterval) and 25 with AnimationTime
// after WorkloadTarget.
var (
	aospNames24 = []string{"Flags", "FrameTimelineVsyncId", "IntendedVsync", "Vsync", "InputEventId",
		"HandleInputStart", "AnimationStart", "PerformTraversalsStart", "DrawStart", "FrameDeadline",
		"FrameStartTime", "FrameInterval", "WorkloadTarget", "SyncQueued", "SyncStart",
		"IssueDrawCommandsStart", "SwapBuffers", "FrameCompleted", "DequeueBufferDuration",
		"QueueBufferDuration", "GpuCompleted", "SwapBuffersCompleted", "DisplayPresentTime",
		"CommandSubmissionCompleted"}
	aospNames25 = append(append(append([]string{}, aospNames24[:13]...), "AnimationTime"), aospNames24[13:]...)
)

// aospRow prints one 120 Hz frame under names: each value is chosen by column name, with the
// period and the frame start time swapped between their labels when swap is set (as real
// devices print them).
func aospRow(names []string, v int64, swap bool) string {
	const T = 8_333_333
	val := map[string]int64{
		"Flags": 0, "FrameTimelineVsyncId": 900, "IntendedVsync": v, "Vsync": v, "InputEventId": 0,
		"HandleInputStart": v + 500_000, "AnimationStart": v + 600_000, "PerformTraversalsStart": v + 700_000,
		"DrawStart": v + 1_000_000, "FrameDeadline": v + 2*T, "FrameStartTime": v + 400_000, "FrameInterval": T,
		"WorkloadTarget": 7_000_000, "AnimationTime": v + 450_000, "SyncQueued": v + 2_000_000,
		"SyncStart": v + 2_100_000, "IssueDrawCommandsStart": v + 2_300_000, "SwapBuffers": v + 4_000_000,
		"FrameCompleted": v + 6_000_000, "DequeueBufferDuration": 30_000, "QueueBufferDuration": 200_000,
		"GpuCompleted": v + 6_500_000, "SwapBuffersCompleted": v + 4_500_000, "DisplayPresentTime": 0,
		"CommandSubmissionCompleted": v + 4_200_000,
	}
	if swap {
		val["FrameStartTime"], val["FrameInterval"] = val["FrameInterval"], val["FrameStartTime"]
	}
	var b strings.Builder
	for _, n := range names {
		b.WriteString(itoa(val[n]))
		b.WriteByte(',')
	}
	return b.String() + "\n"
}

func itoa(v int64) string {
	if v == 0 {
		return "0"
	}
	var buf [20]byte
	i := len(buf)
	for ; v > 0; v /= 10 {
		i--
		buf[i] = byte('0' + v%10)
	}
	return string(buf[i:])
}

// TestAOSPCurrentHeaders: the 24- and 25-column headers current AOSP prints are mapped by name
// (no unknown column, WorkloadTarget read, AnimationTime known), the period is recognised by
// value under either label, and rows printed without the header are told apart by width.
func TestAOSPCurrentHeaders(t *testing.T) {
	const T = 8_333_333
	for _, names := range [][]string{aospNames24, aospNames25} {
		for _, headerless := range []bool{false, true} {
			v0 := int64(5_000_000_000)
			text := "---PROFILEDATA---\n"
			if !headerless {
				text += strings.Join(names, ",") + ",\n"
			}
			text += aospRow(names, v0, false) + aospRow(names, v0+T, true) + "---PROFILEDATA---\n"
			d := mustParse(t, []byte(text))
			w := oneWindow(t, d)
			for _, warn := range d.Warnings {
				if !headerless || !strings.Contains(warn, "without a header line") {
					t.Errorf("%d columns (headerless %v): warning %q", len(names), headerless, warn)
				}
			}
			if len(w.Frames) != 2 || w.Columns != len(names) && !headerless {
				t.Fatalf("%d columns (headerless %v): %d frames, %d columns", len(names), headerless, len(w.Frames), w.Columns)
			}
			for i, f := range w.Frames {
				v := v0 + int64(i)*T
				p := f.Phases
				if f.VsyncNs != v || f.IntervalNs != T || f.DeadlineNs != v+2*T || f.VsyncID != 900 ||
					p.FrameStartTime != v+400_000 || p.WorkloadTarget != 7_000_000 || p.SyncQueued != v+2_000_000 ||
					p.GpuCompleted != v+6_500_000 || p.CommandSubmissionCompleted != v+4_200_000 || f.DoneNs != v+6_000_000 {
					t.Errorf("%d columns (headerless %v) row %d: %+v %+v", len(names), headerless, i, f, *p)
				}
			}
		}
	}
}
