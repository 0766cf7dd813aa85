package e2e

import (
	"context"
	"fmt"
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

// TestReplugInventsNoMessage: auto mode on a 120 Hz app that prints its Looper lines, under 16
// CPU burners, through three unplug/replug cycles. A message open when the phone went away is
// closed unpaired at the gap, so the messages panel never lists one longer than the phone's
// longest (before, each replug paired a Dispatching line from before the gap with a Finished
// line after it: an invented ~11 s message at the top of the table).
func TestReplugInventsNoMessage(t *testing.T) {
	ph := startPhone(t, 120, "demo", 13, 0)
	ph.printer.Store(true)
	env := startEnv(t, ph)
	p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "--no-mouse")
	p.waitFor(60*time.Second, "gfxinfo+logcat", "LIVE", "max ms") // (auto's Looper probe, on a machine busy with other tests)
	burnCPU(t, 16, false)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	worst := 0.0
	for i := 0; i < 3; i++ {
		time.Sleep(2 * time.Second)
		if err := env.Unplug(ctx); err != nil {
			t.Fatal(err)
		}
		time.Sleep(3 * time.Second)
		if err := env.Replug(ctx); err != nil {
			t.Fatal(err)
		}
		s := p.waitFor(30*time.Second, "LIVE")
		worst = max(worst, slowestShown(s))
	}
	time.Sleep(3 * time.Second)
	s := p.screen()
	worst = max(worst, slowestShown(s))
	p.key("q")
	ph.stop()
	_, msgs := parseTruth(t, ph.truth.Bytes())
	var truth float64
	for _, m := range msgs {
		truth = max(truth, float64(m.EndNs-m.StartNs)/1e6)
	}
	if worst < 0 {
		t.Fatalf("no message listed:\n%s", s)
	}
	if worst > truth+1 {
		t.Errorf("the panel lists a %.1f ms message; the phone's longest was %.1f ms:\n%s", worst, truth, s)
	}
	t.Logf("slowest listed %.1f ms, the phone's longest %.1f ms; loadavg %s", worst, truth, loadavg())
}
