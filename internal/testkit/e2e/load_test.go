package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/tmuxctl"
)

// burnCPU starts n busy-looping processes (a loaded laptop: Gradle, an emulator) and stops
// them when the test ends. They run at normal priority: a niced burner would load nothing
// that fpstop competes with. apart puts each in a session of its own, so that with the
// kernel's autogroup scheduling each is a group fpstop competes with, as separate programs are;
// in the test's own session they share that session's group, and starve the test's own
// sampler and fake phone first.
func burnCPU(t *testing.T, n int, apart bool) {
	t.Helper()
	var cmds []*exec.Cmd
	for i := 0; i < n; i++ {
		c := exec.Command("sh", "-c", "while :; do :; done")
		c.SysProcAttr = &syscall.SysProcAttr{Setpgid: !apart, Setsid: apart}
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

// loadBurners is how many CPU burners the load tests start: with fpstop, the fake phone and
// the sampler, the load issue 27 asks (15 or more), not the 35 where a busy machine's own
// noise swamps what fpstop does.
const loadBurners = 14

// favouredSampler gives this test process (the sampler and the fake phone, a device of its own
// on a real desk) and the pane's tmux server nice -10, thread by thread and for their autogroups
// (with autogroup scheduling, nice counts within the session's group: the group's weight is
// what the burners compete with), and returns a control-mode client on the pane: reads with no
// process started per sample. fpstop, in a session of its own under the tmux server, keeps
// priority 0. All go back to 0 when the test ends.
func (p *pane) favouredSampler() *tmuxctl.Client {
	p.t.Helper()
	if out, err := exec.Command("tmux", "-L", p.sock, "display-message", "-p", "#{pid}").Output(); err == nil {
		pid := strings.TrimSpace(string(out))
		_ = exec.Command("renice", "-n", "-10", "-p", pid).Run()
		_ = os.WriteFile("/proc/"+pid+"/autogroup", []byte("-10"), 0)
	}
	setNice := func(n int) {
		tasks, _ := filepath.Glob("/proc/self/task/*")
		for _, tp := range tasks {
			if tid, err := strconv.Atoi(filepath.Base(tp)); err == nil {
				_ = syscall.Setpriority(syscall.PRIO_PROCESS, tid, n)
			}
		}
	}
	setNice(-10)
	_ = os.WriteFile("/proc/self/autogroup", []byte("-10"), 0)
	p.t.Cleanup(func() {
		setNice(0)
		_ = os.WriteFile("/proc/self/autogroup", []byte("0"), 0)
	})
	c, err := tmuxctl.Attach(context.Background(), p.sock, p.target)
	if err != nil {
		p.t.Fatal(err)
	}
	p.t.Cleanup(c.Close)
	return c
}

// sampleLimit is the longest a screen may go unread (issue 27: every ≤ 250 ms, plus 10 ms for
// the clock's own jitter); samplePeriod reads faster than that so that a late wake-up or a slow
// reply of up to 160 ms still keeps within it.
const (
	samplePeriod = 100 * time.Millisecond
	sampleLimit  = 260 * time.Millisecond
)

// sampling is what a run of screen reads saw of its own timing. longest is the longest interval
// between two replies (how long the screen went unread); lateWake, how long after its tick the
// sampler woke at worst (the test process starved); slowReply, how long tmux took to answer at
// worst (the tmux server starved): the last two say where a long interval came from.
// ownCPU is the CPU this test process (the sampler and the fake phone) used per second of wall
// time: what its share of a loaded machine must cover.
type sampling struct {
	n, over                      int
	longest, lateWake, slowReply time.Duration
	ownCPU                       float64
	overAt                       []string // each interval over sampleLimit: when, how late the sampler woke, how long tmux took
}

func (s sampling) String() string {
	return fmt.Sprintf("%d samples, longest interval %v (%d over %v); sampler woke late by up to %v, tmux answered in up to %v; this process used %.0f %% of a core",
		s.n, s.longest.Round(time.Millisecond), s.over, sampleLimit, s.lateWake.Round(time.Millisecond), s.slowReply.Round(time.Millisecond), 100*s.ownCPU)
}

// cpuTime is this process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// sampleScreen reads target through ctl on a fixed grid of samplePeriod until stop closes and
// hands each screen, with the time its reply came, to f. A grid, not a sleep after each read,
// so that one late read does not push every later one.
func sampleScreen(t *testing.T, ctl *tmuxctl.Client, target string, stop <-chan struct{}, f func(at time.Time, screen string)) sampling {
	t.Helper()
	tick := time.NewTicker(samplePeriod)
	defer tick.Stop()
	var s sampling
	var prev time.Time
	begin, cpu0 := time.Now(), cpuTime()
	for {
		var due time.Time
		select {
		case <-stop:
			s.ownCPU = float64(cpuTime()-cpu0) / float64(time.Since(begin))
			return s
		case due = <-tick.C:
		}
		start := time.Now()
		s.lateWake = max(s.lateWake, start.Sub(due))
		out, err := ctl.Capture(target)
		if err != nil {
			t.Error(err)
			return s
		}
		at := time.Now()
		s.slowReply = max(s.slowReply, at.Sub(start))
		if !prev.IsZero() {
			d := at.Sub(prev)
			s.longest = max(s.longest, d)
			if d > sampleLimit {
				s.over++
				s.overAt = append(s.overAt, fmt.Sprintf("+%.1f s: %v (woke %v late, reply %v)", at.Sub(begin).Seconds(),
					d.Round(time.Millisecond), start.Sub(due).Round(time.Millisecond), at.Sub(start).Round(time.Millisecond)))
			}
		}
		prev = at
		s.n++
		f(at, out)
	}
}

// sampleInBackground runs sampleScreen on a goroutine of its own; stop ends it and returns what
// it saw (again on later calls). It also ends when the test does, before ctl is closed.
func sampleInBackground(t *testing.T, ctl *tmuxctl.Client, target string, f func(at time.Time, screen string)) (stop func() sampling) {
	halt, sampled := make(chan struct{}), make(chan sampling, 1)
	go func() { sampled <- sampleScreen(t, ctl, target, halt, f) }()
	stop = sync.OnceValue(func() sampling { close(halt); return <-sampled })
	t.Cleanup(func() { stop() })
	return stop
}

// checkSampling fails the test when screens went unread longer than sampleLimit more than once
// in a hundred reads (or part of a hundred: a 10 s run's hundred reads may have one), or any for
// over a second. Every interval over the limit is logged with its cause: on a loaded 2-core
// machine the test process itself now and then wakes 250–350 ms late, or the tmux server
// answers 180 ms late (seen at load 35), which says nothing of fpstop's screen.
func checkSampling(t *testing.T, s sampling) {
	t.Helper()
	t.Logf("sampling: %v; loadavg %s", s, loadavg())
	if s.over > (s.n+99)/100 || s.longest > time.Second {
		t.Errorf("%d of %d intervals between screen reads over %v (longest %v): %s", s.over, s.n-1, sampleLimit, s.longest.Round(time.Millisecond), strings.Join(s.overAt, "; "))
	}
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return strings.TrimSpace(string(b))
}

// TestAutoUnderLoad is issue 27's blocker as a user meets it: `fpstop` in its default mode
// (auto: gfxinfo+logcat, the app prints its Looper lines) on a steady 120 Hz app, with
// loadBurners CPU burners on the machine and the adb server stalled for 1.5 s 5 s in and every
// 15 s after (CI samples 20 s, one stall and 15 s after it; it sampled 30 s, two stalls, and
// FPSTOP_LOAD_SECONDS=240 is issue 27's full run). The
// header is read every samplePeriod, never more than sampleLimit apart: never FROZEN or IDLE while the
// phone draws (it draws 120 frames a second throughout), and the header clock keeps wall
// time within 2 % (plus the clock's one-second resolution). Before, a Tick extrapolated
// ahead of late logcat lines ran the clock at 2× wall time and showed FROZEN for minutes.
func TestAutoUnderLoad(t *testing.T) {
	screenTest(t)
	ph := startPhone(t, 120, "smooth", 7, 0)
	ph.printer.Store(true)
	env := startEnv(t, ph)
	p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "--no-mouse")
	p.waitFor(30*time.Second, "gfxinfo+logcat", "LIVE", "120 Hz")
	// the sampler, not fpstop, is favoured: the tmux server and this test's threads read the
	// screen every samplePeriod however busy the machine is (fpstop keeps priority 0)
	ctl := p.favouredSampler()
	burnCPU(t, loadBurners, true)
	dur := loadSeconds(20)
	type sample struct {
		at     time.Time
		header string
	}
	var samples []sample
	// 5 s in and every 15 s after, the adb server stalls for 1.5 s, as a starved host's does: the logcat stream
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
	stop := make(chan struct{})
	time.AfterFunc(dur, func() { close(stop) })
	sm := sampleScreen(t, ctl, p.target, stop, func(at time.Time, screen string) {
		samples = append(samples, sample{at, strings.SplitN(screen, "\n", 2)[0]})
	})
	checkSampling(t, sm)
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
	t.Logf("%d samples over %v, %d FROZEN or IDLE; clock %d → %d s over %.1f s wall", len(samples), dur, bad, c0, c1, wall)
	p.key("q")
}
