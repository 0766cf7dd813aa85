package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/cli"
)

// TestAutoFindsLooperLater (issue 27): auto's first look at the app's recent logcat may fail
// (a phone or host too busy to answer in time) or come before the app prints a Looper line (in
// two whole-package runs the replug test's phone stayed on plain gfxinfo for 60 s). auto looks
// again while it runs, says so on the status line, and reads gfxinfo+logcat within seconds of
// the lines being there — on screen and headless.
func TestAutoFindsLooperLater(t *testing.T) {
	t.Parallel()
	t.Run("first look times out", func(t *testing.T) {
		t.Parallel()
		screenTest(t)
		ph := startPhone(t, 120, "demo", 13, 0)
		ph.printer.Store(true)
		ph.dumpStall.Store(int64(5 * time.Second)) // past the first look's 3 s
		env := startEnv(t, ph)
		binary(t) // (built before the clock starts)
		t0 := time.Now()
		p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "-s", env.Serial, "--no-mouse")
		t.Cleanup(func() { logProbes(t, p.home, false) })
		p.waitFor(30*time.Second, "gfxinfo+logcat", "max ms")
		t.Logf("gfxinfo+logcat on screen %.1f s after the start (load %s)", time.Since(t0).Seconds(), loadavg())
	})
	t.Run("printer on later", func(t *testing.T) {
		t.Parallel()
		screenTest(t)
		ph := startPhone(t, 120, "demo", 13, 0)
		env := startEnv(t, ph)
		p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "-s", env.Serial, "--no-mouse")
		t.Cleanup(func() { logProbes(t, p.home, false) })
		s := p.waitFor(20*time.Second, "LIVE", "no Looper lines from "+pkg)
		if header, _, _ := strings.Cut(s, "\n"); strings.Contains(header, "gfxinfo+logcat") {
			t.Fatalf("gfxinfo+logcat before the app printed a Looper line:\n%s", s)
		}
		ph.printer.Store(true)
		on := time.Now()
		p.waitFor(30*time.Second, "gfxinfo+logcat", "logs its Looper messages", "max ms")
		t.Logf("gfxinfo+logcat on screen %.1f s after the app began to print (load %s)", time.Since(on).Seconds(), loadavg())
	})
	t.Run("headless", func(t *testing.T) {
		t.Parallel()
		ph := startPhone(t, 120, "demo", 13, 0)
		env := startEnv(t, ph)
		go func() {
			time.Sleep(time.Second)
			ph.printer.Store(true)
		}()
		r, errs, code := fpstop(t, env, "--headless", "--json", "--duration", "6s")
		if code != cli.ExitOK {
			t.Fatalf("exit %d: %s", code, errs)
		}
		if r.Source != "gfxinfo+logcat" || r.Messages.Paired == 0 || !strings.Contains(errs, "logs its Looper messages") {
			t.Errorf("source %q, %d messages paired, stderr %q; want gfxinfo+logcat with messages, said on stderr", r.Source, r.Messages.Paired, errs)
		}
	})
}
