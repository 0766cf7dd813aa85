package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// burnCPU starts n busy-looping processes (a loaded laptop: Gradle, an emulator) and stops
// them when the test ends. They run at normal priority: a niced burner would load nothing
// that fpstop competes with.
func burnCPU(t *testing.T, n int) {
	t.Helper()
	var cmds []*exec.Cmd
	for i := 0; i < n; i++ {
		c := exec.Command("sh", "-c", "while :; do :; done")
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, c)
	}
	t.Cleanup(func() {
		for _, c := range cmds {
			_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
			_ = c.Wait()
		}
	})
}

// loadSeconds is how long the load tests sample: FPSTOP_LOAD_SECONDS, else def (CI keeps it
// short; issue 27 asks 240 s for the full run: FPSTOP_LOAD_SECONDS=240).
func loadSeconds(def int) time.Duration {
	if v, err := strconv.Atoi(os.Getenv("FPSTOP_LOAD_SECONDS")); err == nil && v > 0 {
		return time.Duration(v) * time.Second
	}
	return time.Duration(def) * time.Second
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

// TestAutoUnderLoad is issue 27's blocker as a user meets it: `fpstop` in its default mode
// (auto: gfxinfo+logcat, the app prints its Looper lines) on a steady 120 Hz app, with 16 CPU
// burners on the machine and the adb server stalled for 1.5 s every 15 s. The header is read every 250 ms: never FROZEN or IDLE while the
// phone draws (it draws 120 frames a second throughout), and the header clock keeps wall
// time within 2 % (plus the clock's one-second resolution). Before, a Tick extrapolated
// ahead of late logcat lines ran the clock at 2× wall time and showed FROZEN for minutes.
func TestAutoUnderLoad(t *testing.T) {
	ph := startPhone(t, 120, "smooth", 7, 0)
	ph.printer.Store(true)
	env := startEnv(t, ph)
	p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "--no-mouse")
	p.waitFor(30*time.Second, "gfxinfo+logcat", "LIVE", "120 Hz")
	// the sampler, not fpstop, is favoured: the tmux server and its clients read the screen
	// every 250 ms however busy the machine is (fpstop, started before, keeps priority 0)
	if out, err := exec.Command("tmux", "-L", p.sock, "display-message", "-p", "#{pid}").Output(); err == nil {
		_ = exec.Command("renice", "-n", "-10", "-p", strings.TrimSpace(string(out))).Run()
	}
	burnCPU(t, 16)
	dur := loadSeconds(30)
	type sample struct {
		at     time.Time
		header string
	}
	var samples []sample
	// every 15 s the adb server stalls for 1.5 s, as a starved host's does: the logcat stream
	// goes silent past the Ticks' lag, then delivers its lines late, in a burst
	stallDone := make(chan struct{})
	go func() {
		defer close(stallDone)
		for until := time.Now().Add(dur - 5*time.Second); time.Now().Before(until); {
			time.Sleep(5 * time.Second)
			if err := env.Stall(1500 * time.Millisecond); err != nil {
				t.Error(err)
				return
			}
			time.Sleep(8500 * time.Millisecond)
		}
	}()
	defer func() { <-stallDone }()
	for until := time.Now().Add(dur); time.Now().Before(until); {
		at := time.Now()
		out, _ := exec.Command("nice", "-n", "-10", "tmux", "-L", p.sock, "capture-pane", "-p").Output()
		samples = append(samples, sample{at, strings.SplitN(string(out), "\n", 2)[0]})
		time.Sleep(time.Until(at.Add(250 * time.Millisecond)))
	}
	t.Logf("loadavg at the end: %s", loadavg())
	bad := 0
	for _, s := range samples {
		if strings.Contains(s.header, "FROZEN") || strings.Contains(s.header, "IDLE") {
			bad++
			if bad <= 5 {
				t.Errorf("%.2f s: %s", s.at.Sub(samples[0].at).Seconds(), s.header)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d samples FROZEN or IDLE while the phone drew at 120 Hz", bad, len(samples))
	}
	// the clock: its first and last readings against the wall time between them
	var c0, c1 int
	var t0, t1 time.Time
	for _, s := range samples {
		if c := headerClock(s.header); c >= 0 {
			if t0.IsZero() {
				c0, t0 = c, s.at
			}
			c1, t1 = c, s.at
		}
	}
	wall := t1.Sub(t0).Seconds()
	if d := float64(c1 - c0); d > wall*1.02+1.5 || d < wall*0.98-1.5 {
		t.Errorf("the header clock moved %.0f s in %.1f s of wall time", d, wall)
	}
	var gap time.Duration
	for i := 1; i < len(samples); i++ {
		gap = max(gap, samples[i].at.Sub(samples[i-1].at))
	}
	t.Logf("%d samples over %v (longest interval %v); clock %d → %d s over %.1f s wall", len(samples), dur, gap.Round(time.Millisecond), c0, c1, wall)
	p.key("q")
}
