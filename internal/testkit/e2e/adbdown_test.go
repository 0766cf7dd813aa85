package e2e

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestAdbServerKilledOnScreen: the adb server is killed mid-run (an IDE or a user's `adb
// kill-server`). The screen names it in plain words with the fix — ADB SERVER DOWN,
// `adb start-server` — never the failed command; the numbers go stale; when the server is
// back and the phone reconnected, the screen is live again, and the seconds it could not see
// are drawn as a gap, named the adb server's.
func TestAdbServerKilledOnScreen(t *testing.T) {
	t.Parallel()
	screenTest(t)
	ph := startPhone(t, 60, "smooth", 5, 0)
	ph.printer.Store(true)
	env := startEnv(t, ph)
	p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "--no-mouse")
	p.waitFor(30*time.Second, "gfxinfo+logcat", "LIVE", "now ")
	time.Sleep(3 * time.Second) // past the first dump's history figure
	ctl := p.favouredSampler()
	// the screen is read every samplePeriod from the kill to the gap mark; the fake phone draws
	// 60 frames a second throughout, so no sample may say FROZEN
	var (
		mu                      sync.Mutex
		named, stale, live, gap time.Time
		restarted               time.Time
		last, frozen, rawSeen   string
		liveDuringOutage        string
	)
	killed := time.Now()
	stopSampling := sampleInBackground(t, ctl, p.target, func(at time.Time, s string) {
		mu.Lock()
		defer mu.Unlock()
		last = s
		if strings.Contains(s, "FROZEN") && frozen == "" {
			frozen = s
		}
		down := strings.Contains(s, "ADB SERVER DOWN")
		if down && strings.Contains(s, "adb start-server") && named.IsZero() {
			named = at
		}
		if down {
			for _, raw := range []string{"adb shell", "pidof", "dumpsys", "WAITING"} {
				if strings.Contains(s, raw) && rawSeen == "" {
					rawSeen = raw + ":\n" + s
				}
			}
			if strings.Contains(s, "now ") && liveDuringOutage == "" {
				liveDuringOutage = s
			}
			if strings.Contains(s, "(stale)") && strings.Contains(s, "last seen") && stale.IsZero() {
				stale = at
			}
		}
		if !restarted.IsZero() && at.After(restarted) && !down && strings.Contains(s, "LIVE") &&
			strings.Contains(s, "now ") && live.IsZero() {
			live = at
		}
		if !live.IsZero() && strings.Contains(s, "┆") && gap.IsZero() {
			gap = at
			if strings.Contains(s, "device disconnected") {
				t.Errorf("the adb server's outage called the device's:\n%s", s)
			}
		}
	})
	// waitUntil polls the samples' findings (no tmux read of its own) until cond holds.
	waitUntil := func(d time.Duration, cond func() bool) bool {
		for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			mu.Lock()
			ok := cond()
			mu.Unlock()
			if ok {
				return true
			}
		}
		return false
	}
	env.KillServer()
	if !waitUntil(15*time.Second, func() bool { return !named.IsZero() && !stale.IsZero() }) {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("15 s after the adb server was killed the screen does not say so (named %v, stale %v):\n%s",
			!named.IsZero(), !stale.IsZero(), last)
	}
	// down 6 s: longer than the 2 s of frames the phone's ring keeps, so seconds are lost
	time.Sleep(time.Until(killed.Add(6 * time.Second)))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := env.RestartServer(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	restarted = time.Now()
	back := restarted
	mu.Unlock()
	if !waitUntil(30*time.Second, func() bool { return !live.IsZero() }) {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("not live 30 s after the adb server came back:\n%s", last)
	}
	// the seconds the outage left unseen are drawn as a gap (┆), not as idle (gfxinfo's next
	// poll may be a backoff of 5 s away)
	if !waitUntil(15*time.Second, func() bool { return !gap.IsZero() }) {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("no gap mark 15 s after the screen was live again:\n%s", last)
	}
	checkSampling(t, stopSampling())
	mu.Lock()
	defer mu.Unlock()
	if d := named.Sub(killed); d > 2*time.Second {
		t.Errorf("the outage was named %v after the kill (issue 27 asks 2 s)", d.Round(time.Millisecond))
	}
	if rawSeen != "" {
		t.Errorf("the outage screen shows %s", rawSeen)
	}
	if liveDuringOutage != "" {
		t.Errorf("a current figure while the adb server is down:\n%s", liveDuringOutage)
	}
	if frozen != "" {
		t.Errorf("FROZEN while the phone drew 60 frames a second:\n%s", frozen)
	}
	t.Logf("named %v after the kill; live again %v and the gap marked %v after the server was back (load %s)",
		named.Sub(killed).Round(time.Millisecond), live.Sub(back).Round(time.Millisecond),
		gap.Sub(back).Round(time.Millisecond), loadavg())
	p.key("q")
}
