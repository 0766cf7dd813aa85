package e2e

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/cli"
	"github.com/fpstop/fpstop/metrics"
)

// fpsNumbers read the FPS panel's numbers: the current value, the run's (or the filtered
// window's) fps and fps_wall, min/avg/max ("now 59.7 fps  target 55  run 57.3 fps rendering,
// 52.1 wall" and "per second min 14.2 avg 57.2 max 59.9", on one line or two; the older
// "30.0 fps … fps 37.7 wall 28.7" too). Each must match exactly once on screen.
var fpsNumbers = []*regexp.Regexp{
	regexp.MustCompile(`│ (?:now )?([0-9.]+) fps `),
	regexp.MustCompile(`(?:run ([0-9.]+) fps rendering, ([0-9.]+) wall|fps ([0-9.]+) wall ([0-9.]+))`),
	regexp.MustCompile(`min ([0-9.]+) avg ([0-9.]+) max ([0-9.]+)`),
}

// filterRe is the window filter the windows panel shows.
var filterRe = regexp.MustCompile(`filter: (\S+)`)

// TestWallNeverAboveRefresh is issue 11's "rates can never exceed the refresh rate", done as a
// new user would: a fake phone on a real adb server, at 60 and 120 Hz, running the stress
// scenario (the activity and three popup windows draw on the same vsyncs all the time, the
// phase that summed rates above the display's). The dashboard (the real binary in tmux) is read
// every 250 ms from its first second on, for the run and, with `w`, for every window; then two
// headless reports at once, of 2 s (the connect, when the ring's backlog arrives) and 8 s. Every fps and
// fps_wall, per window and for the run, must be at most the refresh rate.
func TestWallNeverAboveRefresh(t *testing.T) {
	t.Parallel() // waits on real time mostly: overlapped with the other parallel tests
	for _, hz := range []float64{60, 120} {
		t.Run(fmt.Sprintf("%gHz", hz), func(t *testing.T) {
			t.Parallel()
			screenTest(t)
			ph := startPhone(t, hz, "stress", 31, 0)
			env := startEnv(t, ph)
			time.Sleep(1500 * time.Millisecond) // the phone's ring fills: the first poll has history
			checkScreenRates(t, env.Port, env.Serial, hz)
			// the two headless runs at once (two clients of one phone, as two tools would be):
			// the 2 s one still starts at a connect, with the ring's backlog
			type result struct {
				r    metrics.Report
				errs string
				code int
			}
			durs := []string{"2s", "8s"}
			res := make([]chan result, len(durs))
			for i, dur := range durs {
				res[i] = make(chan result, 1)
				go func() {
					r, errs, code := fpstop(t, env, "--headless", "--json", "--duration", dur)
					res[i] <- result{r, errs, code}
				}()
			}
			for i, dur := range durs {
				rr := <-res[i]
				if rr.code != cli.ExitOK {
					t.Fatalf("%s: exit %d: %s", dur, rr.code, rr.errs)
				}
				checkReportRates(t, dur, rr.r, hz)
			}
		})
	}
}

// checkReportRates: the headless report's fps and fps_wall, run and windows, are ≤ hz, and the
// run drew on at least two windows.
func checkReportRates(t *testing.T, what string, r metrics.Report, hz float64) {
	t.Helper()
	over := func(name string, v *metrics.R2) {
		if v != nil && float64(*v) > hz+0.005 {
			t.Errorf("%s report: %s = %.2f above the %g Hz refresh rate", what, name, float64(*v), hz)
		}
	}
	if r.FPSWall == nil || r.Frames == 0 {
		t.Fatalf("%s report: no frames or no fps_wall: frames %d", what, r.Frames)
	}
	over("fps", r.FPS)
	over("fps_wall", r.FPSWall)
	drawing := 0
	for _, w := range r.Windows {
		over(w.Name+" fps", w.FPS)
		over(w.Name+" fps_wall", w.FPSWall)
		if w.Frames > 0 {
			drawing++
		}
	}
	if drawing < 2 {
		t.Errorf("%s report: %d windows drew, want several at once", what, drawing)
	}
	t.Logf("%s at %g Hz: fps %v fps_wall %v, %d windows", what, hz, *r.FPS, *r.FPSWall, drawing)
}

// checkScreenRates samples the dashboard from its first second: the run's numbers for 4 s,
// then each window's (w cycles the filter) for 1.5 s each.
func checkScreenRates(t *testing.T, port int, serial string, hz float64) {
	t.Helper()
	p := startPane(t, "--adb-port", fmt.Sprint(port), "-s", serial, "--no-mouse")
	p.waitFor(15*time.Second, "FeedActivity", fmt.Sprintf("%g Hz", hz))
	samples, filters := 0, map[string]bool{}
	check := func(until time.Time) {
		for time.Now().Before(until) {
			s := p.screen()
			if strings.Contains(s, "SIMULATOR") {
				t.Fatalf("the simulator on screen:\n%s", s)
			}
			var vals []string
			for _, re := range fpsNumbers {
				if m := re.FindAllStringSubmatch(s, -1); len(m) == 1 {
					for _, v := range m[0][1:] {
						if v != "" {
							vals = append(vals, v)
						}
					}
				}
			}
			if len(vals) == 6 {
				samples++
				filters[filterOf(s)] = true
			}
			for _, v := range vals {
				if f, _ := strconv.ParseFloat(v, 64); f > hz+0.05 {
					t.Errorf("%s: %.1f above the %g Hz refresh rate:\n%s", filterOf(s), f, hz, s)
					return
				}
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	check(time.Now().Add(4 * time.Second))
	for i := 0; i < 4; i++ {
		p.key("w")
		check(time.Now().Add(1500 * time.Millisecond))
	}
	p.key("q")
	if !p.exited(5 * time.Second) {
		t.Fatalf("q did not quit:\n%s", p.screen())
	}
	if samples < 20 || len(filters) < 3 {
		t.Errorf("%d samples of the FPS line over %d filters %v, want ≥ 20 over the run and ≥ 2 windows", samples, len(filters), filters)
	}
	t.Logf("%g Hz: %d screen samples, filters %v", hz, samples, filters)
}

// filterOf is the window filter the screen shows ("all" when none).
func filterOf(s string) string {
	if m := filterRe.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return "?"
}
