package cli

import (
	"os"
	"runtime/debug"
)

// replayGCPercent is the garbage collector's heap growth (GOGC) while a headless run replays a
// capture or a recording. Such a run reads as fast as it can and allocates all the way (a frame
// and its phases per row, a Message per Looper pair), against a small live heap (~7 MB, 4 MB of
// it the capture reader's buffer), so at Go's default of 100 it collects every few MB. At 200
// half as many cycles run, for a peak RSS still well under the 64 MB target (BENCHMARKS.md).
//
// A live run (device, simulator, dashboard) keeps Go's default: it allocates a few hundred
// frames a second, spends next to nothing in the GC, and runs for hours, where a heap allowed
// to grow to three times its live size would only hold memory.
const replayGCPercent = 200

// replayGC sets the GC's heap growth for a capture replay and returns what puts it back. A
// GOGC the user set (the runtime read it at start) is left alone.
func replayGC() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(replayGCPercent)
	return func() { debug.SetGCPercent(old) }
}
