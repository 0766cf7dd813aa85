package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// slowestShown reads the messages panel's first row (sorted by max, descending) and returns its
// max ms (-1 when the panel lists none).
func slowestShown(screen string) float64 {
	lines := strings.Split(screen, "\n")
	for i, l := range lines {
		if !strings.Contains(l, "max ms") || i+1 >= len(lines) {
			continue
		}
		row := lines[i+1]
		if j := strings.Index(row[3:], "│"); j >= 0 {
			row = row[:j+3] // the messages panel is the left one
		}
		var nums []float64
		for _, f := range strings.Fields(strings.Trim(row, "│ ")) {
			if v, err := strconv.ParseFloat(strings.TrimSuffix(f, "k"), 64); err == nil {
				if strings.HasSuffix(f, "k") {
					v *= 1000
				}
				nums = append(nums, v)
			}
		}
		if len(nums) >= 4 {
			return nums[len(nums)-3]
		}
	}
	return -1
}

// TestReplugInventsNoMessage: auto (gfxinfo+logcat) on a 120 Hz app that prints its Looper lines, under
// loadBurners CPU burners, through three unplug/replug cycles, the screen read every samplePeriod. A
// message open when the phone went away is closed unpaired at the gap, so the messages panel
// never lists one longer than the phone's longest (before, each replug paired a Dispatching line from before the gap with a Finished
// line after it: an invented ~11 s message at the top of the table).
func TestReplugInventsNoMessage(t *testing.T) {
	screenTest(t)
	ph := startPhone(t, 120, "demo", 13, 0)
	ph.printer.Store(true)
	env := startEnv(t, ph)
	// auto, the default: it reads gfxinfo+logcat once a look at the app's recent logcat finds
	// Looper lines (looking again while it finds none: TestAutoFindsLooperLater)
	binary(t) // (built before the clock starts)
	t0 := time.Now()
	p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "--no-mouse")
	t.Cleanup(func() { logProbes(t, p.home, true) })
	p.waitFor(30*time.Second, "gfxinfo+logcat", "LIVE", "max ms")
	t.Logf("auto read gfxinfo+logcat %.1f s after the start (load %s)", time.Since(t0).Seconds(), loadavg())
	ctl := p.favouredSampler()
	burnCPU(t, loadBurners, true)
	// the messages panel is read every samplePeriod throughout the three cycles, not only once the
	// phone is back: an invented message shown for a second counts
	worst, live := -1.0, 0
	var last string
	stopSampling := sampleInBackground(t, ctl, p.target, func(_ time.Time, s string) {
		worst = max(worst, slowestShown(s))
		if strings.Contains(s, "LIVE") {
			live++
		}
		last = s
	})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var back []string // per cycle: how long adb took to reconnect, then fpstop to show LIVE
	for i := 0; i < 3; i++ {
		time.Sleep(2 * time.Second)
		if err := env.Unplug(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Second)
		replugged := time.Now()
		if err := env.Replug(ctx); err != nil {
			t.Fatal(err)
		}
		online := time.Now()
		p.waitFor(30*time.Second, "LIVE")
		back = append(back, fmt.Sprintf("adb %.1f s + fpstop %.1f s", online.Sub(replugged).Seconds(), time.Since(online).Seconds()))
	}
	time.Sleep(3 * time.Second)
	sm := stopSampling()
	checkSampling(t, sm)
	p.key("q")
	ph.stop()
	_, msgs := parseTruth(t, ph.truth.Bytes())
	var truth float64
	for _, m := range msgs {
		truth = max(truth, float64(m.EndNs-m.StartNs)/1e6)
	}
	if worst < 0 {
		t.Fatalf("no message listed:\n%s", last)
	}
	if worst > truth+1 {
		t.Errorf("the panel listed a %.1f ms message; the phone's longest was %.1f ms", worst, truth)
	}
	t.Logf("%d screens (%d LIVE): slowest listed %.1f ms, the phone's longest %.1f ms; replug to LIVE: %s",
		sm.n, live, worst, truth, strings.Join(back, ", "))
}

// logProbes logs what fpstop (HOME home) wrote to its log about auto's looks for the app's
// Looper lines: always, or only when the test failed.
func logProbes(t *testing.T, home string, always bool) {
	if !always && !t.Failed() {
		return
	}
	b, _ := os.ReadFile(filepath.Join(home, ".cache", "fpstop", "fpstop.log"))
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "looper probe") || strings.Contains(line, "logcat joins") {
			t.Log(line)
		}
	}
}
