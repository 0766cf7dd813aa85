package e2e

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
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
// the app draws again, gfxinfo+logcat loses no frame (the logcat stream's vsync lines bring the
// dumps back at once), and plain gfxinfo charges what its idle probe missed to frames_lost, at
// most (probe interval − ring span) × rate.
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
			_, _, lastPoll, frames := seen(t, rec)
			got := map[int64]bool{}
			for _, f := range frames {
				got[f.VsyncNs] = true
			}
			missing := 0
			truth := m.drawn(resumed, lastPoll-10_000_000)
			for _, v := range truth {
				if !got[v] {
					missing++
				}
			}
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
				// (frames_lost may say 1 where the truth shows none missing: a frame the
				// counter counted before the dump printed its row, seen on the old poller too)
				if missing > 0 || lost > 1 {
					t.Errorf("gfxinfo+logcat lost %d frames on resume (frames_lost %d): the logcat stream should bring the dumps back in time", missing, lost)
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

// idleProbeEvery is the gfxinfo poller's idle probe interval (gfxinfo.IdleProbeEvery), the
// bound the plain gfxinfo resume is held to.
const idleProbeEvery = 4 * time.Second

// TestHostStallNoBurst: fpstop stopped for 2 s (SIGSTOP, SIGCONT), as a loaded host or a laptop
// lid can, misses frames it then counts as lost, but its next polls come at the usual pace (no
// burst of dumps) and nothing is called damaged: a late poll is not damaged output.
func TestHostStallNoBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("starts adb and the fpstop binary")
	}
	ph := startPhone(t, 120, "stress", 7, 0)
	var mt meter
	env := adbtest.Start(t, fakeadb.Config{Handler: mt.wrap(ph.handler), Model: "Pixel 7", Android: "14", SDK: 34})
	cmd, out, errb := startBin(t, env, "-s", env.Serial, "-p", pkg, "--source", "gfxinfo", "--headless", "--json", "--duration", "12s")
	time.Sleep(4 * time.Second)
	if err := cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2 * time.Second)
	if err := cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	from := time.Now()
	time.Sleep(4 * time.Second)
	c := mt.window(from, time.Now(), 0, 0)
	r := waitReport(t, cmd, out, errb)
	t.Logf("after the stall: %s; warnings %q", c, r.Warnings)
	if d := c.kindPerSecond("dumpsys gfxinfo framestats"); d > 1.75 {
		t.Errorf("%.2f dumps/s after a 2 s stall: want the usual pace (a burst is for damaged output only)", d)
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
