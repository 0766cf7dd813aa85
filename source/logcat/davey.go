package logcat

import (
	"bytes"
	"math"

	"github.com/fpstop/fpstop/source"
)

// hwui logs every frame of 700 ms or more (libs/hwui/JankTracker.cpp) as
//
//	Davey! duration=<N>ms; Flags=0, FrameTimelineVsyncId=…, IntendedVsync=…, Vsync=…, …,
//
// with every FrameInfo field as "name=value, " — the row gfxinfo would print for it. On some
// builds the duration is Android's own INT64 overflow (FrameCompleted left at INT64_MAX:
// "duration=9223360591227ms"): not a frame.

var daveyMark = []byte("Davey! duration=")

// maxDaveyNs: a logged frame longer than this is not a frame (JankTracker's own bound on rows).
const maxDaveyNs = 10_000_000_000

// findDavey returns the text from "Davey! duration=" in m.
func findDavey(m []byte) ([]byte, bool) {
	i := bytes.Index(m, daveyMark)
	if i < 0 {
		return nil, false
	}
	return m[i:], true
}

// daveyResult says what a Davey line gave.
type daveyResult uint8

const (
	daveyFrame    daveyResult = iota // a frame
	daveyOverflow                    // Android's INT64 overflow: ignored, counted
	daveyBad                         // unreadable or impossible times: ignored, counted
)

// parseDavey reads a Davey line (from "Davey! duration=") into f and ph (f.Phases = ph).
func parseDavey(m []byte, f *source.Frame, ph *source.Phases) daveyResult {
	durMs, e := atoi(m, len(daveyMark))
	if e == len(daveyMark) || !bytes.HasPrefix(m[e:], []byte("ms")) {
		return daveyBad
	}
	var row [source.NumCols]int64
	for rest := m[e:]; ; {
		i := bytes.Index(rest, []byte(", "))
		j := bytes.IndexByte(rest, ';')
		if j >= 0 && (i < 0 || j < i) {
			i = j
		}
		if i < 0 {
			break
		}
		rest = bytes.TrimLeft(rest[i+1:], " ")
		eq := bytes.IndexByte(rest, '=')
		if eq <= 0 {
			continue
		}
		v, ok := int64At(rest[eq+1:])
		if !ok {
			continue
		}
		if c, ok := source.FrameInfoColumns[string(rest[:eq])]; ok {
			row[c] = v
		}
	}
	f.Flags, f.VsyncID, f.VsyncNs, f.DeadlineNs = row[source.ColFlags], row[source.ColVsyncID], row[source.ColIntendedVsync], row[source.ColDeadline]
	interval, startTime := row[source.ColFrameInterval], row[source.ColFrameStart]
	*ph = source.PhasesOf(&row)
	ph.FrameStartTime = 0 // (told from the period below)
	if durMs > 1_000_000_000 || ph.FrameCompleted >= 1<<62 || ph.GpuCompleted >= 1<<62 {
		return daveyOverflow
	}
	f.DoneNs = ph.FrameCompleted
	if f.VsyncNs <= 0 || f.DoneNs <= f.VsyncNs || f.DoneNs-f.VsyncNs > maxDaveyNs {
		return daveyBad
	}
	// Android 12+ prints FrameInterval and FrameStartTime each under the other's name: the
	// period is the one that looks like one.
	for _, v := range []int64{interval, startTime} {
		if v >= 1_000_000 && v <= 100_000_000 {
			f.IntervalNs = v
		} else if v > 0 && ph.FrameStartTime == 0 {
			ph.FrameStartTime = v
		}
	}
	if f.DeadlineNs <= f.VsyncNs || f.DeadlineNs >= 1<<62 {
		f.DeadlineNs = 0
	}
	if ph.Vsync > f.VsyncNs {
		f.StartVsyncNs = ph.Vsync
	}
	f.UIDoneNs = ph.SyncStart
	f.Logged = true
	f.Phases = ph
	return daveyFrame
}

// int64At reads a decimal integer (optionally negative) at the start of b, up to ',' or the end.
func int64At(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	var v int64
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		d := int64(b[n] - '0')
		if v > (math.MaxInt64-d)/10 {
			v = math.MaxInt64 // (saturated: a garbage value, told by its size)
		} else {
			v = v*10 + d
		}
		n++
	}
	if n == 0 {
		return 0, false
	}
	if neg {
		v = -v
	}
	return v, true
}

// shiftFrame moves every time of f (not its durations) by d ns.
func shiftFrame(f *source.Frame, d int64) {
	for _, p := range []*int64{&f.VsyncNs, &f.DoneNs, &f.UIDoneNs, &f.DeadlineNs, &f.StartVsyncNs} {
		if *p != 0 {
			*p += d
		}
	}
	ph := f.Phases
	for _, p := range []*int64{&ph.Vsync, &ph.HandleInputStart, &ph.AnimationStart, &ph.PerformTraversalsStart,
		&ph.DrawStart, &ph.SyncQueued, &ph.SyncStart, &ph.IssueDrawCommandsStart, &ph.SwapBuffers,
		&ph.FrameCompleted, &ph.GpuCompleted, &ph.SwapBuffersCompleted, &ph.DisplayPresentTime,
		&ph.CommandSubmissionCompleted, &ph.FrameStartTime} {
		if *p > 0 {
			*p += d
		}
	}
}
