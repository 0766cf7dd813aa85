package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/cli"
)

// fpsGaugeRe reads a per-window FPS gauge of the metrics file: name, labels, value.
var fpsGaugeRe = regexp.MustCompile(`(?m)^(fpstop_fps(?:_10s)?)\{([^}]*)\} (\S+)$`)

// windowLabelRe reads a series' window label.
var windowLabelRe = regexp.MustCompile(`window="([^"]*)"`)

// TestHeadlessRatesFromFirstSecond is issue 11's "every fps_wall in the headless report, per
// window and for the run, is ≤ the refresh rate from the first second on", at 60 and 120 Hz,
// with windows drawing at once (the stress scenario: the activity and popups on the same
// vsyncs), against the fake phone over a real adb server, after its 120-frame ring has filled
// (the first poll brings a backlog of history frames, which must not enter a rate):
//   - headless runs of 1 s and 1.5 s: the report of the first second, run and windows (at
//     60 Hz a 1 s run may end before the second poll: no frame but history, rates null);
//   - a 4 s headless run writing its per-second output (--metrics-file rewritten every second,
//     fpstop_fps = the newest complete second per window, fpstop_fps_10s) read every 100 ms
//     from the start; every value, and the final report's, ≤ the refresh rate.
func TestHeadlessRatesFromFirstSecond(t *testing.T) {
	t.Parallel() // waits on real time mostly: overlapped with the other parallel tests
	for _, hz := range []float64{60, 120} {
		t.Run(fmt.Sprintf("%gHz", hz), func(t *testing.T) {
			t.Parallel()
			ph := startPhone(t, hz, "stress", 43, 0)
			env := startEnv(t, ph)
			time.Sleep(1500 * time.Millisecond) // the ring fills: the first poll has history
			for _, dur := range []string{"1s", "1500ms"} {
				r, errs, code := fpstop(t, env, "--headless", "--json", "--duration", dur)
				if code != cli.ExitOK {
					t.Fatalf("%s: exit %d: %s", dur, code, errs)
				}
				if (r.Frames == 0 || r.FPSWall == nil) && dur == "1s" {
					// at 60 Hz the adaptive poll may not have polled twice yet: only the
					// ring's history (auto forwards it at once), no rate at all (null, not a
					// number above the display's)
					if r.FPS != nil || r.FPSWall != nil {
						t.Errorf("1s: no frames but fps %v, fps_wall %v", r.FPS, r.FPSWall)
					}
					t.Logf("1s at %g Hz: no live frame yet, fps and fps_wall null", hz)
					continue
				}
				checkReportRates(t, dur, r, hz)
			}

			file := filepath.Join(t.TempDir(), "fpstop.prom")
			stop, done := make(chan struct{}), make(chan struct{})
			var mu sync.Mutex
			writes, maxSeen, windows := 0, 0.0, map[string]bool{}
			var over []string
			go func() {
				defer close(done)
				last := ""
				for {
					select {
					case <-stop:
						return
					case <-time.After(100 * time.Millisecond):
					}
					b, err := os.ReadFile(file)
					if err != nil || string(b) == last {
						continue
					}
					last = string(b)
					mu.Lock()
					writes++
					for _, m := range fpsGaugeRe.FindAllStringSubmatch(last, -1) {
						v, err := strconv.ParseFloat(m[3], 64)
						if err != nil {
							over = append(over, "unreadable "+m[0])
							continue
						}
						maxSeen = max(maxSeen, v)
						if w := windowLabelRe.FindStringSubmatch(m[2]); w != nil && m[1] == "fpstop_fps" {
							windows[w[1]] = true
						}
						if v > hz+0.005 {
							over = append(over, fmt.Sprintf("write %d: %s", writes, m[0]))
						}
					}
					mu.Unlock()
				}
			}()
			r, errs, code := fpstop(t, env, "--headless", "--json", "--duration", "4s",
				"--metrics-file", file, "--metrics-interval", "1s")
			close(stop)
			<-done
			if code != cli.ExitOK {
				t.Fatalf("4s: exit %d: %s", code, errs)
			}
			checkReportRates(t, "4s", r, hz)
			mu.Lock()
			defer mu.Unlock()
			if len(over) > 0 {
				t.Errorf("per-second FPS above the %g Hz refresh rate:\n%s", hz, strings.Join(over, "\n"))
			}
			if writes < 3 || len(windows) < 2 {
				t.Errorf("%d writes of the per-second output with %d windows %v, want ≥ 3 with ≥ 2 windows", writes, len(windows), windows)
			}
			t.Logf("%g Hz: %d per-second writes, windows %v, max fps %.2f", hz, writes, windows, maxSeen)
		})
	}
}
