package e2e

import (
	"strings"
	"testing"

	"github.com/fpstop/fpstop/internal/cli"
)

// TestCleanLiveSessionHasNoWarnings is TestCleanCaptureHasNoWarnings live: 30 s of the janky
// scenario at 120 Hz from the fake phone over a real adb server, a stream with no damage, must
// give a report without a damage warning. The fake phone attaches and removes the popup as the
// app shows and dismisses it, which a capture of Observe'd frames never does: a popup's last
// frame completes after its window is removed, and the fake dump once attached a phantom
// window for it that the next popup took over, so 30 s runs warned twice of a damaged window
// counter and twice of a deferred process counter. Seed 12 dismisses a popup shown a second
// time at 13.5 s of the phone's clock (seed 7 of the report did so only at 31 s).
func TestCleanLiveSessionHasNoWarnings(t *testing.T) {
	if testing.Short() {
		t.Skip("a 30 s live session")
	}
	t.Parallel() // waits on real time mostly: overlapped with the other parallel tests
	ph := startPhone(t, 120, "janky", 12, 0)
	env := startEnv(t, ph)
	r, errs, code := fpstop(t, env, "-p", pkg, "--source", "gfxinfo", "--headless", "--json", "--duration", "30s")
	if code != cli.ExitOK {
		t.Fatalf("exit %d: %s", code, errs)
	}
	popup := false
	for _, w := range r.Windows {
		popup = popup || (strings.HasPrefix(w.Name, "PopupWindow:") && w.Frames > 0)
	}
	if len(r.Warnings) > 0 || r.Frames < 1000 || !popup {
		t.Errorf("%d frames (want 1000 or more, a popup's among them), warnings %q", r.Frames, r.Warnings)
	}
}
