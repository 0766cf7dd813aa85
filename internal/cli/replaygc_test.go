package cli

import (
	"os"
	"runtime/debug"
	"testing"
)

// replayGC raises the heap growth for a replay and puts the old one back; a GOGC the user set
// is left alone.
func TestReplayGC(t *testing.T) {
	t.Setenv("GOGC", "") // (restored after the test)
	os.Unsetenv("GOGC")
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)

	restore := replayGC()
	if got := debug.SetGCPercent(replayGCPercent); got != replayGCPercent {
		t.Errorf("during a replay GOGC = %d, want %d", got, replayGCPercent)
	}
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("after the replay GOGC = %d, want 100 back", got)
	}

	t.Setenv("GOGC", "50")
	debug.SetGCPercent(50) // (what the runtime made of it at start)
	replayGC()()
	if got := debug.SetGCPercent(100); got != 50 {
		t.Errorf("with GOGC=50 set by the user, GOGC = %d, want 50", got)
	}
}
