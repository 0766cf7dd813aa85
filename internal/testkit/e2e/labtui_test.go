package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestLabOverviewDashboard: the real binary with --all-devices and no --headless shows one row
// per phone (model, app, source, live FPS); enter opens a phone's dashboard, esc comes back, an
// unplugged phone is marked, q quits.
func TestLabOverviewDashboard(t *testing.T) {
	t.Parallel()
	screenTest(t)
	env, x := twoPhones(t, "janky", "stress", 90)
	p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "--all-devices", "--no-mouse")
	s := p.waitFor(20*time.Second, "2 devices", "Pixel 7", "SM-G991B", "com.example.feed")
	if strings.Contains(s, "SIMULATOR") {
		t.Fatalf("the overview shows the simulator:\n%s", s)
	}
	p.waitFor(15*time.Second, "┤") // sparklines drawn: the phones' first slices are in
	screen := p.screen()
	ix, ie := strings.Index(screen, x.Serial), strings.Index(screen, env.Serial)
	if ix < 0 || ie < 0 {
		t.Fatalf("no row for each phone:\n%s", screen)
	}
	// Open the 90 Hz phone's dashboard: its own header, not the overview.
	if ix > ie {
		p.key("Down")
	}
	p.key("Enter")
	d := p.waitFor(15*time.Second, "FeedActivity")
	if strings.Contains(d, "2 devices") || !strings.Contains(d, "90 Hz") {
		t.Errorf("enter did not open the 90 Hz phone's dashboard:\n%s", d)
	}
	p.key("Escape")
	p.waitFor(5*time.Second, "2 devices", "? help")
	// ? opens the overview's own help over it; esc closes it.
	p.key("?")
	p.waitFor(5*time.Second, "Keys", "next device", "esc or ? closes")
	p.key("Escape")
	for deadline := time.Now().Add(5 * time.Second); strings.Contains(p.screen(), "esc or ? closes"); {
		if time.Now().After(deadline) {
			t.Fatalf("esc did not close the overview's help:\n%s", p.screen())
		}
		time.Sleep(50 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := x.Unplug(ctx); err != nil {
		t.Fatal(err)
	}
	p.waitFor(15*time.Second, " gone ", "last seen") // the STATE column and the stale FPS
	p.key("q")
	if !p.exited(5 * time.Second) {
		t.Fatalf("q did not quit:\n%s", p.screen())
	}
}
