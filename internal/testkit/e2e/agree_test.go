package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/tmuxctl"
)

// TestFreezeBadgeAndHeadlineAgree: a phone whose app freezes now and then (the frozen
// scenario, Looper lines on), read every samplePeriod through one tmux control client for 15 s
// (FPSTOP_LOAD_SECONDS for longer): on every screen the header badge and
// the FPS headline say the same state — FROZEN with "frozen", IDLE with "idle", LIVE with a
// figure or "waiting" — as both read the session's one state.
func TestFreezeBadgeAndHeadlineAgree(t *testing.T) {
	t.Parallel()
	screenTest(t)
	ph := startPhone(t, 60, "frozen", 29, 0)
	ph.printer.Store(true)
	env := startEnv(t, ph)
	time.Sleep(time.Second)
	p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "--no-mouse")
	p.waitFor(20*time.Second, "gfxinfo+logcat", "LIVE")
	ctl, err := tmuxctl.Attach(context.Background(), p.sock, p.target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ctl.Close)
	frozen, n := 0, 0
	stop := make(chan struct{})
	time.AfterFunc(loadSeconds(15), func() { close(stop) })
	sm := sampleScreen(t, ctl, p.target, stop, func(_ time.Time, s string) {
		lines := strings.SplitN(s, "\n", 5)
		if len(lines) < 5 {
			return
		}
		header, head := lines[0], lines[3]
		n++
		var badge, want string
		switch {
		case strings.Contains(header, "FROZEN"):
			badge, want = "FROZEN", "frozen (the app is stuck)"
			frozen++
		case strings.Contains(header, "IDLE"):
			badge, want = "IDLE", "idle (no frames drawn)"
		case strings.Contains(header, "LIVE"):
			badge, want = "LIVE", "now "
			if strings.Contains(head, "waiting") {
				want = "waiting"
			}
		default:
			return
		}
		if !strings.Contains(head, want) {
			t.Errorf("badge %s, headline %q:\n%s\n%s", badge, strings.TrimSpace(head), header, head)
		}
		for _, other := range []string{"frozen (the app", "idle (no frames"} {
			if !strings.Contains(want, other) && strings.Contains(head, other) {
				t.Errorf("badge %s beside headline %q", badge, strings.TrimSpace(head))
			}
		}
	})
	// (no bound on the intervals here: this test runs beside others; the load tests hold it)
	t.Logf("sampling: %v; loadavg %s", sm, loadavg())
	p.key("q")
	if frozen == 0 {
		t.Errorf("no FROZEN screen in %d reads of a freezing app", n)
	}
	t.Logf("%d screens, %d FROZEN; badge and headline agreed on each", n, frozen)
}
