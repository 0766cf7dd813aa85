package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
)

// TestSwitchPhoneIsNotARateChange is issue 11's "switching to another phone is not `refresh
// rate changed 120 → 60 Hz`", tried as a user would: two fake phones behind one private adb
// server, a Pixel 7 at 120 Hz and an SM-G991B at 60 Hz. The dashboard (the real binary in tmux)
// reads the first; `d` opens the device picker, the second phone is picked, then its
// foreground app, typed quickly (`d ↓ enter enter`: the second enter used to reach the device
// picker again, or the app picker before its list, and was lost — the old phone stayed on
// screen). The header names the second phone at 60 Hz once its frames arrive, and no note
// calls the switch a refresh-rate change (the old phone's queued batches used to be applied
// after the switch's reset, bringing its 120 Hz back).
func TestSwitchPhoneIsNotARateChange(t *testing.T) {
	t.Parallel()
	screenTest(t)
	ph1 := startPhone(t, 120, "demo", 61, 0)
	ph2 := startPhone(t, 60, "demo", 62, 0)
	env := adbtest.Start(t, fakeadb.Config{Handler: ph1.handler, Model: "Pixel 7", Android: "14", SDK: 34})
	x := env.Connect(fakeadb.Config{Handler: ph2.handler, Model: "SM-G991B", Android: "13", SDK: 33})

	p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "-s", env.Serial, "--no-mouse")
	p.waitFor(15*time.Second, "Pixel 7", "120 Hz", "FeedActivity")
	p.key("d")
	s := p.waitFor(10*time.Second, env.Serial, x.Serial, "SM-G991B")
	// Move the cursor to the second phone's row (the picker lists them in adb's order, the
	// cursor on the first).
	if strings.Index(s, x.Serial) > strings.Index(s, env.Serial) {
		p.key("Down")
	}
	// Enter twice, as a user who knows the foreground app is listed first would type it: the
	// second enter may reach the app picker while it is still listing the second phone's apps.
	p.key("Enter")
	p.key("Enter")
	picked := time.Now()
	connecting := false
	// The header (first line) names the second phone at its rate once its frames arrive.
	deadline := picked.Add(20 * time.Second)
	for {
		s = p.screen()
		if strings.Contains(s, "refresh rate changed") {
			t.Fatalf("the phone switch shows as a refresh-rate change:\n%s", s)
		}
		head := strings.SplitN(s, "\n", 2)[0]
		// From the pick on the header names a phone: the old one until the switch, then the
		// picked one, "connecting" while its source chooses what to read (it used to name no
		// device for about 2 s).
		if !strings.Contains(head, "Pixel 7") && !strings.Contains(head, "SM-G991B") {
			t.Fatalf("%.1f s after the pick the header names no phone:\n%s", time.Since(picked).Seconds(), s)
		}
		if strings.Contains(head, "CONNECTING") {
			connecting = true
		}
		if strings.Contains(head, "SM-G991B") && strings.Contains(head, "60 Hz") && strings.Contains(s, "FeedActivity") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the header does not name the picked phone 20 s after the pick:\n%s", s)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("the header named the picked phone %.1f s after the second enter (connecting seen: %v)", time.Since(picked).Seconds(), connecting)
	if strings.Contains(s, "Pixel 7") {
		t.Errorf("the screen still names the first phone:\n%s", s)
	}
	// Watch a few seconds more: the note must never call the switch a rate change.
	until := time.Now().Add(3 * time.Second)
	for {
		if strings.Contains(s, "refresh rate changed") {
			t.Fatalf("the phone switch shows as a refresh-rate change:\n%s", s)
		}
		if time.Now().After(until) {
			break
		}
		time.Sleep(200 * time.Millisecond)
		s = p.screen()
	}
	p.key("q")
	if !p.exited(5 * time.Second) {
		t.Fatalf("q did not quit:\n%s", p.screen())
	}
}
