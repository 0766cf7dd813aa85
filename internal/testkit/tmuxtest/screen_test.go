package tmuxtest

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// panelNames are the panels as the hidden-panels line names them, by number key.
var panelNames = []string{"FPS", "drop levels", "frame time", "histogram", "messages", "windows", "worst frames"}

// panelTitles are the titles that show a panel is on screen, in the same order.
var panelTitles = []string{"¹ FPS", "Drop levels", "Frame time (ms)", "Frame-time histogram", "Slow main-thread messages", "⁶ Windows", "Worst frames"}

// lastLine is the pane's bottom line.
func lastLine(s string) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return ls[len(ls)-1]
}

// clockRe is the header's elapsed time (mm:ss at the end of the first line).
var clockRe = regexp.MustCompile(`(\d\d):(\d\d)\s*\n`)

// elapsed is the header's elapsed time in seconds (-1 when not shown).
func elapsed(s string) int {
	m := clockRe.FindStringSubmatch(s)
	if m == nil {
		return -1
	}
	mm, _ := strconv.Atoi(m[1])
	ss, _ := strconv.Atoi(m[2])
	return mm*60 + ss
}

// blankRun is the longest run of panel rows with nothing in them ("│" spaces "│" at the same
// column on consecutive lines).
func blankRun(s string) int {
	best := 0
	run := map[int]int{}
	for _, l := range strings.Split(s, "\n") {
		next := map[int]int{}
		rs := []rune(l)
		for i := 0; i < len(rs); i++ {
			if rs[i] != '│' {
				continue
			}
			j := i + 1
			for j < len(rs) && rs[j] == ' ' {
				j++
			}
			if j < len(rs) && rs[j] == '│' && j-i > 8 {
				next[i] = run[i] + 1
				best = max(best, next[i])
				i = j - 1
			}
		}
		run = next
	}
	return best
}

// TestScreenSizes: the real binary at common sizes, as a new user sees it. The core view (FPS,
// drop levels, the frame-time graph) is always there; panels without room are named on the
// line above the footer; the footer is the bottom line and starts with `? help`; at 100×30,
// 120×30 and 200×20 no panel is a tall stack of empty rows; at 120×40 and 200×60 every panel is
// shown.
func TestScreenSizes(t *testing.T) {
	t.Parallel()
	for _, sz := range []struct {
		w, h     int
		all      bool // every panel must be shown
		blankMax int  // the most empty rows one panel may show (0: not checked)
	}{
		{80, 24, false, 0}, {100, 30, false, 8}, {120, 30, false, 8}, {200, 20, true, 8},
		{120, 40, true, 0}, {200, 60, true, 0},
	} {
		tm := newTerm(t)
		tm.run(sz.w, sz.h, nil, "--scenario", "demo", "--speed", "4")
		tm.waitText("SIMULATOR demo")
		// Until the worst frames and the messages have content (the demo's first stalls).
		s := tm.waitFor("20 s of the demo", false, func(s string) bool { return elapsed(s) >= 20 })
		for _, title := range panelTitles[:3] {
			if !strings.Contains(s, title) {
				t.Errorf("%d×%d: no %q panel:\n%s", sz.w, sz.h, title, s)
			}
		}
		if last := lastLine(s); !strings.HasPrefix(last, "? help") {
			t.Errorf("%d×%d: the bottom line is %q, not the footer starting with `? help`", sz.w, sz.h, last)
		}
		for i, title := range panelTitles {
			switch shown := strings.Contains(s, title); {
			case !shown && sz.all:
				t.Errorf("%d×%d: the %s panel is hidden:\n%s", sz.w, sz.h, panelNames[i], s)
			case !shown && !strings.Contains(s, panelNames[i]):
				t.Errorf("%d×%d: the %s panel is hidden without a word:\n%s", sz.w, sz.h, panelNames[i], s)
			}
		}
		if sz.blankMax > 0 {
			if n := blankRun(s); n > sz.blankMax {
				t.Errorf("%d×%d: a panel shows %d empty rows:\n%s", sz.w, sz.h, n, s)
			}
		}
		tm.key("q")
		tm.waitExit()
	}
}

// TestSmallTerminalToggles: at 80×24 the hidden panels are named with the keys that show
// them; 6 shows the windows table (another panel gives way), 3 hides the frame-time graph.
func TestSmallTerminalToggles(t *testing.T) {
	t.Parallel()
	tm := newTerm(t)
	tm.run(80, 24, nil, "--scenario", "demo", "--speed", "4")
	s := tm.waitText("Frame time (ms)", "Drop levels", "1-7 toggles panels")
	if !strings.Contains(s, "6 windows") {
		t.Fatalf("the hidden windows table is not named:\n%s", s)
	}
	tm.key("6")
	s = tm.waitText("⁶ Windows", "windows shown")
	if !strings.Contains(s, "Frame time (ms)") || !strings.Contains(s, "Drop levels") {
		t.Fatalf("showing the windows table hid a core panel:\n%s", s)
	}
	tm.key("3")
	tm.waitGone("Frame time (ms)")
	tm.waitText("3 frame time")
	tm.key("q")
	tm.waitExit()
}

// TestTargetAt120Hz: the FPS target defaults to 92 % of the refresh rate: `target 110` at
// 120 Hz.
func TestTargetAt120Hz(t *testing.T) {
	t.Parallel()
	tm := newTerm(t)
	tm.run(120, 40, nil, "--scenario", "smooth", "--hz", "120")
	tm.waitText("120 Hz", "target 110")
	tm.key("q")
	tm.waitExit()
}
