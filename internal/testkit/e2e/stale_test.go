package e2e

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// clockRe reads the header's session clock (the last mm:ss on the first line).
var clockRe = regexp.MustCompile(`(\d\d):(\d\d)\s*$`)

// headerClock is the header's clock in seconds (-1 when not shown).
func headerClock(screen string) int {
	m := clockRe.FindStringSubmatch(strings.SplitN(screen, "\n", 2)[0])
	if m == nil {
		return -1
	}
	var mm, ss int
	fmt.Sscan(m[1], &mm)
	fmt.Sscan(m[2], &ss)
	return mm*60 + ss
}

// TestUnplugOnScreen is issue 11's item 5 tried as a user would: the dashboard (the real
// binary in tmux) reads a fake phone over a real adb server; the phone is unplugged. The
// header says DISCONNECTED with how old the numbers are, the status line says so in plain
// words (no adb command), the clock keeps counting; the phone comes back and the screen is
// LIVE again with the clock not jumping.
func TestUnplugOnScreen(t *testing.T) {
	t.Parallel()
	screenTest(t)
	ph := startPhone(t, 60, "demo", 51, 0)
	env := startEnv(t, ph)
	p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "--no-mouse")
	p.waitFor(15*time.Second, "Pixel 7", "LIVE", "FeedActivity")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := env.Unplug(ctx); err != nil {
		t.Fatal(err)
	}
	s := p.waitFor(20*time.Second, "DISCONNECTED", "phone disconnected — waiting for it", "last seen")
	if strings.Contains(s, "adb shell") || strings.Contains(s, "dumpsys") {
		t.Errorf("the screen shows the failed adb command:\n%s", s)
	}
	c1 := headerClock(s)
	time.Sleep(3 * time.Second)
	s = p.screen()
	c2, at2 := headerClock(s), time.Now()
	if !strings.Contains(s, "DISCONNECTED") || c2-c1 < 2 {
		t.Errorf("while disconnected the clock went from %d to %d s in 3 s:\n%s", c1, c2, s)
	}
	if err := env.Replug(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		s = p.screen()
		if strings.Contains(s, "LIVE") && !strings.Contains(s, "DISCONNECTED") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not live again 30 s after the replug:\n%s", s)
		}
		time.Sleep(200 * time.Millisecond)
	}
	c3 := headerClock(s)
	wall := int(time.Since(at2).Seconds())
	if c3 < c2+wall-2 || c3 > c2+wall+2 {
		t.Errorf("the clock jumped on the resume: %d s while disconnected, %d s back live (%d s later)", c2, c3, wall)
	}
	p.key("q")
	if !p.exited(5 * time.Second) {
		t.Fatalf("q did not quit:\n%s", p.screen())
	}
}
