package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/device"
)

// A refused switch to Perfetto says why in one line, with what still runs, and never the
// device's command text.
func TestPerfettoRefusal(t *testing.T) {
	busy := fmt.Errorf("perfetto: %w", fmt.Errorf("%w on emu: perfetto (pid 42) ended at once — (adb logcat -s perfetto says which)", device.ErrTracingBusy))
	for _, c := range []struct {
		err   error
		still string
		want  string
	}{
		{busy, "gfxinfo", "tracing is busy on the phone (another tool's session) — still reading gfxinfo"},
		{fmt.Errorf("x: %w: needs 12", device.ErrPerfettoUnsupported), "surfaceflinger", "needs Android 12 or later — still reading surfaceflinger"},
		{fmt.Errorf("%w: perfetto printed no pid", device.ErrPerfettoRefused), "", "refused the session — the previous source stays"},
		{busy, "perfetto", "— the previous trace goes on"},
		{context.DeadlineExceeded, "gfxinfo", "did not answer in time"},
		{errors.New("device offline"), "gfxinfo", "Perfetto not started: device offline — still reading gfxinfo"},
	} {
		got := perfettoRefusal(c.err, c.still)
		if !strings.Contains(got, c.want) || strings.Contains(got, "adb ") || strings.Contains(got, "\n") {
			t.Errorf("%v: %q, want %q", c.err, got, c.want)
		}
	}
}
