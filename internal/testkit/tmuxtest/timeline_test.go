package tmuxtest

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// shownRe reads the timeline title's zoom and the range on screen: "zoom 4× (00:12–00:18 shown)".
var shownRe = regexp.MustCompile(`zoom (\d+)× \(([0-9:]+)–([0-9:]+) shown(?:, narrowest)?\)`)

// timeAxisRe is a time-axis label under the chart.
var timeAxisRe = regexp.MustCompile(`\b\d\d:\d\d(\.\d)?\b`)

// stripLine is the timeline's mark strip: the line between the time axis and the caret (the
// fifth from the bottom: strip, caret, cursor frame, messages, footer).
func stripLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) < 5 {
		return ""
	}
	return lines[len(lines)-5]
}

// cursorLine is the timeline's line describing the cursor's frame (third from the bottom).
func cursorLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) < 3 {
		return ""
	}
	return lines[len(lines)-3]
}

// TestTimelineView is issue 10's timeline "done when", tried as a user would: the real binary
// runs `--scenario frozen` (main-thread freezes of 0.8–2.5 s every few seconds), `f` opens the
// timeline, which must show a freeze as a freeze (█ on the strip under the chart, and the
// cursor walked back onto the frozen frame reads FROZEN, with the caret under █ and the
// blocking message FeedActivity$3 among its messages); + zooms (the title
// names the zoom and the range shown, shorter each time), ← pans back in time, - zooms out,
// esc returns to the dashboard, q quits cleanly.
func TestTimelineView(t *testing.T) {
	t.Parallel()
	tm := newTerm(t)
	tm.run(120, 40, nil, "--scenario", "frozen", "--speed", "2")
	tm.waitText("SIMULATOR frozen", "Drop levels", "f timeline")
	// Wait for a freeze to come and go on the dashboard's header.
	header := func(s string) string { return strings.SplitN(s, "\n", 2)[0] }
	tm.waitFor("the header's FROZEN badge", false, func(s string) bool { return frozenBadge.MatchString(header(s)) })
	tm.waitFor("the freeze to end", false, func(s string) bool { return !frozenBadge.MatchString(header(s)) })

	tm.key("f")
	tm.waitText("Frame timeline (ms)", "following the newest frame", "+/- zoom", "←/→ pan")
	s := tm.waitFor("a freeze marked █ on the timeline's strip", false, func(s string) bool {
		return strings.Contains(stripLine(s), "█")
	})
	if n := len(timeAxisRe.FindAllString(s, -1)); n < 3 {
		t.Errorf("the time axis has %d m:ss labels, want several:\n%s", n, s)
	}

	// Walk the cursor back over the janky frames until it stands on a frozen one (a frame whose
	// vsync waited for the blocked main thread), one frame at a time: each [ is waited for on
	// screen before the next (keys sent faster than the screen is drawn moved the cursor over
	// frames no screen showed). The header's badge clears when the blocking message finishes,
	// a moment before the frozen frame is drawn, and a cursor moved by hand keeps the frames the
	// timeline held: when the walk reaches the first janky frame without a frozen one, 0
	// follows the newest frames again and the walk starts over.
	frozen := false
	for walk := 0; walk < 4 && !frozen; walk++ {
		if walk > 0 {
			tm.key("0")
			s = tm.waitText("following the newest frame")
			time.Sleep(time.Second)
		}
		for range 80 {
			at := cursorMs(s)
			tm.key("[")
			var moved bool
			if s, moved = cursorMoved(tm, at); !moved {
				break // the first janky frame: nothing earlier
			}
			if strings.Contains(cursorLine(s), "FROZEN:") {
				frozen = true
				break
			}
		}
	}
	if !frozen {
		t.Fatalf("[ never put the cursor on a frozen frame:\n%s", s)
	}
	// The simulator's freezes are FeedActivity$3 blocking the main thread: the frozen frame's
	// messages name it.
	if lines := strings.Split(strings.TrimRight(s, "\n"), "\n"); !strings.Contains(lines[len(lines)-2], "FeedActivity$3") {
		t.Errorf("the frozen frame's messages do not name FeedActivity$3:\n%s", s)
	}
	if strings.Contains(s, "following the newest frame") {
		t.Errorf("the cursor moved by hand but the title still says it follows:\n%s", s)
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	caret := []rune(lines[len(lines)-4])
	strip := []rune(stripLine(s))
	at := -1
	for i, r := range caret {
		if r == '^' {
			at = i
		}
	}
	if at < 0 || at >= len(strip) || strip[at] != '█' {
		t.Errorf("the caret (column %d) is not under a █ of the strip:\n%s", at, s)
	}

	// Zoom in twice: each halves the range shown.
	span := func(s string) (zoom string, lo, hi int) {
		m := shownRe.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("no zoom in the title:\n%s", s)
		}
		return m[1], secs(m[2]), secs(m[3])
	}
	tm.key("+")
	s = tm.waitText("zoom 2×")
	_, lo2, hi2 := span(s)
	tm.key("+")
	s = tm.waitText("zoom 4×")
	_, lo4, hi4 := span(s)
	if hi4-lo4 > hi2-lo2 {
		t.Errorf("zoom 4× shows %d s, zoom 2× showed %d s: want less", hi4-lo4, hi2-lo2)
	}
	// Pan back in time: the range shown moves earlier. (When the zoomed range starts at the
	// run's start — the cursor stood on an early frozen frame, as on a slow machine — it is
	// first panned forward, so that there is somewhere to go back to.)
	if lo4 == 0 {
		tm.key("Right")
		tm.key("Right")
		s = tm.waitFor("→ to move the range shown forward", false, func(s string) bool {
			_, lo, _ := span(s)
			return lo > 0
		})
		_, lo4, _ = span(s)
	}
	tm.key("Left")
	tm.key("Left")
	s = tm.waitFor("← to move the range shown back", false, func(s string) bool {
		_, lo, _ := span(s)
		return lo < lo4
	})
	if z, _, _ := span(s); z != "4" {
		t.Errorf("panning changed the zoom to %s×", z)
	}
	tm.key("-")
	tm.waitText("zoom 2×")

	tm.key("Escape")
	tm.waitText("Drop levels", "f timeline")
	tm.waitGone("Frame timeline (ms)")

	// tab gives the graph the focus (its title says so, the footer offers enter): enter opens
	// the timeline too.
	tm.key("Tab")
	tm.waitText("▶ Frame time", "enter timeline")
	tm.key("Enter")
	tm.waitText("Frame timeline (ms)")
	tm.key("Escape")
	tm.waitText("Drop levels")
	tm.key("q")
	tm.waitExit()
}

// cursorAtRe reads the cursor frame's time in the timeline: "frame 12/340 at 00:05.216".
var cursorAtRe = regexp.MustCompile(`frame \d+/\d+ at (\d\d):(\d\d)\.(\d{3})`)

// cursorMoved waits (3 s at most) for the timeline's cursor to stand on a frame other than
// the one at ms, and returns the screen and whether it did.
func cursorMoved(tm *term, ms int) (string, bool) {
	deadline := time.Now().Add(3 * time.Second)
	for {
		s := tm.screen(false)
		if c := cursorMs(s); c >= 0 && c != ms {
			return s, true
		}
		if time.Now().After(deadline) {
			return s, false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// cursorMs is the cursor frame's time in ms since the session began (-1 when not shown).
func cursorMs(s string) int {
	m := cursorAtRe.FindStringSubmatch(cursorLine(s))
	if m == nil {
		return -1
	}
	return (secs(m[1]+":"+m[2]))*1000 + secs(m[3])
}

// TestTimelineReplay: in a replay the timeline's cursor follows the playhead; inside the
// timeline → and + pan and zoom it and leave the replay alone (no seek, speed still 1×); after
// esc → seeks again.
func TestTimelineReplay(t *testing.T) {
	t.Parallel()
	tm := newTerm(t)
	rec := filepath.Join(tm.work, "frozen.jsonl.gz")
	cmd := exec.Command(bin, "--scenario", "frozen", "--headless", "--duration", "40s", "--speed", "0", "--record", rec)
	cmd.Env, cmd.Dir = tm.env, tm.work
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("recording the simulator: %v\n%s", err, out)
	}
	start := time.Now()
	tm.run(120, 40, nil, "replay", rec)
	progress := func(s string) bool { _, _, _, ok := replay(s); return ok }
	tm.waitFor("the replay's progress bar", false, progress)
	tm.key("f")
	s := tm.waitText("Frame timeline (ms)", "following the newest frame")
	first := cursorMs(s)
	// Followed for a while (4 s at least, so that 4× still shows more than the narrowest span).
	tm.waitFor("the cursor to follow the playhead", false, func(s string) bool {
		return cursorMs(s) >= max(first+1500, 4000)
	})

	// One key at a time, each waited for: keys that arrive together reach the program as one.
	tm.key("+")
	tm.waitText("zoom 2×")
	tm.key("+")
	s = tm.waitText("zoom 4×")
	lo := secs(shownRe.FindStringSubmatch(s)[2])
	tm.key("Left")
	tm.waitFor("← to pan back", false, func(s string) bool {
		m := shownRe.FindStringSubmatch(s)
		return m != nil && secs(m[2]) < lo
	})
	tm.key("Right")
	tm.key("Escape")
	s = tm.waitFor("the dashboard with the replay's progress bar", false, progress)
	_, pos, speed, ok := replay(s)
	if !ok {
		t.Fatalf("no progress bar after closing the timeline:\n%s", s)
	}
	if elapsed := int(time.Since(start).Seconds()); secs(pos) > elapsed+2 || speed != "1" {
		t.Errorf("after + + ← → inside the timeline the replay is at %s (%d s since it started), %s×: want no seek, 1×", pos, elapsed, speed)
	}
	want := secs(pos) + 9
	tm.key("Right")
	tm.waitFor(fmt.Sprintf("→ outside the timeline to seek to %d s or later", want), false, func(s string) bool {
		_, p, _, ok := replay(s)
		return ok && secs(p) >= want
	})
	tm.key("q")
	tm.waitExit()
}
