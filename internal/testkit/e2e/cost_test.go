package e2e

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/metrics"
)

// startBin starts the real binary against env's adb server, isolated from the user's config.
func startBin(t testing.TB, env *adbtest.Env, args ...string) (*exec.Cmd, *strings.Builder, *strings.Builder) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(binary(t), append([]string{"--adb-port", strconv.Itoa(env.Port)}, args...)...)
	cmd.Env = append(cmd.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_CACHE_HOME="+filepath.Join(home, ".cache"), "ANDROID_SERIAL=")
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd, &out, &errb
}

// waitReport waits for the binary to end and decodes its report.
func waitReport(t testing.TB, cmd *exec.Cmd, out, errb *strings.Builder) metrics.Report {
	t.Helper()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("fpstop: %v\n%s", err, errb.String())
	}
	var r metrics.Report
	if err := json.Unmarshal([]byte(out.String()), &r); err != nil {
		t.Fatalf("no report (%v): %s\n%s", err, out.String(), errb.String())
	}
	return r
}

// TestIdleAppCostAndResume is issue 30's idle app: a 120 Hz app draws for 3 s, then nothing;
// after 5 s of idleness fpstop asks the phone for at most 0.3 commands and 5 kB a second. When
// the app draws again, gfxinfo+logcat loses no frame (checkResume: the logcat stream's vsync
// lines bring the dumps back at once, then at the app's pace), and plain gfxinfo charges what
// its idle probe missed to frames_lost, at most (probe interval − ring span) × rate.
func TestIdleAppCostAndResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts adb and the fpstop binary")
	}
	for _, src := range []string{"gfxinfo+logcat", "gfxinfo"} {
		t.Run(src, func(t *testing.T) {
			m := startMetronome(t, 120)
			m.drawing.Store(true)
			var mt meter
			env := adbtest.Start(t, fakeadb.Config{Handler: mt.wrap(m.handler), Model: "Pixel 7", Android: "14", SDK: 34})
			rec := filepath.Join(t.TempDir(), "run.jsonl")
			cmd, out, errb := startBin(t, env, "-s", env.Serial, "-p", pkg, "--source", src, "--headless", "--json", "--duration", "21s", "--record", rec)
			waits := logWaits(t, cmd.Process.Pid)
			time.Sleep(3 * time.Second)
			m.drawing.Store(false)
			time.Sleep(5 * time.Second)
			from, gp0 := time.Now(), getprops(env.Fake)
			time.Sleep(8 * time.Second)
			c := mt.window(from, time.Now(), gp0, getprops(env.Fake))
			t.Logf("idle app, %s: %s", src, c)
			if c.perSecond() > 0.3 || float64(c.bytes)/c.seconds > 5000 {
				t.Errorf("idle app costs %s: want at most 0.3 commands/s and 5 kB/s", c)
			}
			resumed := m.now()
			m.drawing.Store(true)
			r := waitReport(t, cmd, out, errb)
			first, _, lastPoll, frames := seen(t, rec)
			got := map[int64]bool{}
			for _, f := range frames {
				got[f.VsyncNs] = true
			}
			var gone []drawnFrame
			truth := m.drawn(resumed, lastPoll)
			for _, f := range truth {
				if !got[f.vsync] {
					gone = append(gone, f)
				}
			}
			missing := len(gone)
			lost := int64(0)
			if r.FramesLost != nil {
				lost = *r.FramesLost
			}
			t.Logf("resume: %d frames drawn, %d not read; frames_lost %d; warnings %q", len(truth), missing, lost, r.Warnings)
			if len(truth) < 240 {
				t.Fatalf("only %d frames drawn after the resume before the last poll", len(truth))
			}
			for _, w := range r.Warnings {
				if strings.Contains(w, "damaged") {
					t.Errorf("warning on clean output: %q", w)
				}
			}
			if src == "gfxinfo+logcat" {
				checkResume(t, m, mt.times("dumpsys gfxinfo framestats", m.wall(resumed)), m.wall(resumed), gone, waits)
				// every frame missed in the run is counted, those of its first seconds too (a
				// loaded machine's late first dumps lose some): frames_lost is the run's; it may
				// say 1 more (a frame the counter counted before the dump printed its row)
				all := 0
				for _, f := range m.drawn(first, lastPoll) {
					if !got[f.vsync] {
						all++
					}
				}
				if int64(all) > lost || lost > int64(all)+1 {
					t.Errorf("gfxinfo+logcat: %d frames of the run not read (%d after the resume), frames_lost %d: want each counted, none invented", all, missing, lost)
				}
				return
			}
			// the probe comes every few seconds; the ring holds 1 s at 120 Hz
			if int64(missing) > lost || lost > int64(float64(idleProbeEvery-time.Second)/float64(time.Second)*120)+4 {
				t.Errorf("gfxinfo: %d frames missed on resume, frames_lost %d: want them all counted, at most (probe interval − ring span) × rate", missing, lost)
			}
		})
	}
}

// checkResume holds gfxinfo+logcat's resume (dumps, the framestats dumps the phone served from
// the resume on; gone, the frames drawn after it that fpstop never read) to what it
// promises: the first vsync lines wake a dump at once, which reads every frame drawn since; the
// next dumps come at the app's pace, the ring's time less a margin (their median gap); and no
// frame is lost between two dumps the ring covers. A dump later than the ring's span loses the
// frames the ring overwrote meanwhile, which only the counter can count: on a loaded machine that
// is fpstop (or the fake phone, in this test process) waiting for a CPU, not its pacing, so each
// such gap is logged with its cause (fpstop's run-queue wait, the fake's late wakes, the load)
// and its frames are held to being counted, as the caller does.
func checkResume(t *testing.T, m *metronome, dumps []time.Time, resumed time.Time, gone []drawnFrame, waits *waitLog) {
	t.Helper()
	const ring = time.Second // the dump's 120 frames at 120 Hz
	if len(dumps) < 3 {
		t.Fatalf("%d framestats dumps after the resume", len(dumps))
	}
	if d := dumps[0].Sub(resumed); d > ring {
		t.Errorf("the first dump came %v after the resume: the logcat stream's vsync lines should wake it at once", d.Round(time.Millisecond))
	}
	gaps := make([]time.Duration, 0, len(dumps)-1)
	for i := 1; i < len(dumps); i++ {
		gaps = append(gaps, dumps[i].Sub(dumps[i-1]))
	}
	sorted := slices.Clone(gaps)
	slices.Sort(sorted)
	if med := sorted[len(sorted)/2]; med > ring*9/10 {
		t.Errorf("dumps after the resume a median %v apart: want the ring's time (%v) less a margin (gaps %v)", med, ring, gaps)
	}
	for i, g := range gaps {
		if g > ring {
			t.Logf("a dump %v after the one before (the ring holds %v) at +%.2f s: fpstop waited %v for a CPU meanwhile, the fake phone woke late by %v (load %s)",
				g.Round(time.Millisecond), ring, dumps[i].Sub(resumed).Seconds(), waits.between(dumps[i], dumps[i+1]).Round(time.Millisecond),
				m.late.between(dumps[i], dumps[i+1]).Round(time.Millisecond), loadavg())
		}
	}
	for _, f := range gone {
		w := m.wall(f.added) // when its row joined the ring
		switch i := sort.Search(len(dumps), func(i int) bool { return dumps[i].After(w) }); {
		case i == 0:
			t.Errorf("a frame drawn %v after the resume, before the first dump, was never read", w.Sub(resumed).Round(time.Millisecond))
		case i < len(dumps) && dumps[i].Sub(dumps[i-1]) <= ring:
			t.Errorf("a frame drawn at +%.3f s was never read, between dumps %v apart: the ring covered it", w.Sub(resumed).Seconds(), dumps[i].Sub(dumps[i-1]).Round(time.Millisecond))
		}
	}
}

// medianGap is the median interval between consecutive times of ts (at least two).
func medianGap(ts []time.Time) time.Duration {
	gaps := make([]time.Duration, 0, len(ts)-1)
	for i := 1; i < len(ts); i++ {
		gaps = append(gaps, ts[i].Sub(ts[i-1]))
	}
	slices.Sort(gaps)
	return gaps[len(gaps)/2]
}

// idleProbeEvery is the gfxinfo poller's idle probe interval (gfxinfo.IdleProbeEvery), the
// bound the plain gfxinfo resume is held to.
const idleProbeEvery = 4 * time.Second

// TestHostStallNoBurst: fpstop stopped for 2 s (SIGSTOP, SIGCONT), as a loaded host or a laptop
// lid can, misses frames it then counts as lost, but its next polls come at the usual pace (no
// burst of dumps) and nothing is called damaged: a late poll is not damaged output. The usual
// pace is the ring's time less a margin that grows with the lateness the poller meets (on a
// loaded machine polls come late, and the poller polls sooner to lose nothing: at load 24 one
// run had 9 dumps in the 4 s after the stall, against 1.33 a second before it). So the pace
// after the stall is measured against the pace before it, in the same run at the same load: the
// median interval between the dumps after the stall (the first, at once, aside) at least 0.4
// times the one before; a burst — the quarter interval kept for damaged output, dumps to catch
// up — is faster. Every interval after the stall is logged with fpstop's wait for a CPU in it.
func TestHostStallNoBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("starts adb and the fpstop binary")
	}
	ph := startPhone(t, 120, "stress", 7, 0)
	var mt meter
	env := adbtest.Start(t, fakeadb.Config{Handler: mt.wrap(ph.handler), Model: "Pixel 7", Android: "14", SDK: 34})
	cmd, out, errb := startBin(t, env, "-s", env.Serial, "-p", pkg, "--source", "gfxinfo", "--headless", "--json", "--duration", "12s")
	waits := logWaits(t, cmd.Process.Pid)
	time.Sleep(4 * time.Second)
	stopped := time.Now()
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	from := time.Now()
	time.Sleep(4 * time.Second)
	to := time.Now()
	r := waitReport(t, cmd, out, errb)
	const dumps = "dumpsys gfxinfo framestats"
	var before, after []time.Time
	for _, at := range mt.times(dumps, stopped.Add(-3*time.Second)) {
		switch {
		case at.Before(stopped):
			before = append(before, at)
		case !at.Before(from) && at.Before(to):
			after = append(after, at)
		}
	}
	if len(before) < 3 || len(after) < 4 {
		t.Fatalf("%d dumps in the 3 s before the stall, %d in the 4 s after it", len(before), len(after))
	}
	var steps []string
	for i := 2; i < len(after); i++ {
		steps = append(steps, fmt.Sprintf("%v (fpstop waited %v for a CPU)", after[i].Sub(after[i-1]).Round(time.Millisecond),
			waits.between(after[i-1], after[i]).Round(time.Millisecond)))
	}
	pre, post := medianGap(before), medianGap(after[1:])
	t.Logf("dumps after the stall: the first %v after SIGCONT, then %s; a median %v apart, %v before the stall; warnings %q (load %s)",
		after[0].Sub(from).Round(time.Millisecond), strings.Join(steps, ", "), post.Round(time.Millisecond), pre.Round(time.Millisecond), r.Warnings, loadavg())
	if post*10 < pre*4 {
		t.Errorf("dumps after a 2 s stall a median %v apart, %v before it: want the usual pace (a burst is for damaged output only)", post.Round(time.Millisecond), pre.Round(time.Millisecond))
	}
	for _, w := range r.Warnings {
		if strings.Contains(w, "damaged") {
			t.Errorf("a host stall read as damage: %q", w)
		}
	}
	if r.FramesLost == nil || *r.FramesLost < 100 {
		t.Errorf("frames_lost %v: the frames drawn during the 2 s stall beyond the ring must be counted", r.FramesLost)
	}
}
