package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestFreezeBadgeAndHeadlineAgree: a phone whose app freezes now and then (the frozen
// scenario, Looper lines on), read every 200 ms for 15 s: on every screen the header badge and
// the FPS headline say the same state — FROZEN with "frozen", IDLE with "idle", LIVE with a
// figure or "waiting" — as both read the session's one state.
func TestFreezeBadgeAndHeadlineAgree(t *testing.T) {
	t.Parallel()
	ph := startPhone(t, 60, "frozen", 29, 0)
	ph.printer.Store(true)
	env := startEnv(t, ph)
	time.Sleep(time.Second)
	p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "--no-mouse")
	p.waitFor(20*time.Second, "gfxinfo+logcat", "LIVE")
	frozen, n := 0, 0
	for until := time.Now().Add(15 * time.Second); time.Now().Before(until); time.Sleep(200 * time.Millisecond) {
		s := p.screen()
		lines := strings.SplitN(s, "\n", 5)
		if len(lines) < 5 {
			continue
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
			continue
		}
		if !strings.Contains(head, want) {
			t.Errorf("badge %s, headline %q:\n%s\n%s", badge, strings.TrimSpace(head), header, head)
		}
		for _, other := range []string{"frozen (the app", "idle (no frames"} {
			if !strings.Contains(want, other) && strings.Contains(head, other) {
				t.Errorf("badge %s beside headline %q", badge, strings.TrimSpace(head))
			}
		}
	}
	p.key("q")
	if frozen == 0 {
		t.Errorf("no FROZEN screen in %d reads of a freezing app", n)
	}
	t.Logf("%d screens, %d FROZEN; badge and headline agreed on each", n, frozen)
}
