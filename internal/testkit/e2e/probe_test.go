package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/cli"
)

// TestAutoProbesLooper is issue 11's item 3: when `auto` finds a device it reads the app's
// recent logcat (logcat -d); an app that prints Looper lines is read with gfxinfo+logcat, and
// fpstop says so (headless: on stderr; the dashboard: its status note) — an app that does not
// stays on gfxinfo, and nothing is said.
func TestAutoProbesLooper(t *testing.T) {
	t.Parallel() // waits on real time mostly: overlapped with the other parallel tests
	for _, printer := range []bool{true, false} {
		t.Run(fmt.Sprintf("printer=%v", printer), func(t *testing.T) {
			t.Parallel()
			screenTest(t)
			ph := startPhone(t, 60, "demo", 41, 0)
			ph.printer.Store(printer)
			env := startEnv(t, ph)
			time.Sleep(2 * time.Second) // the app has logged for a while before fpstop starts
			r, errs, code := fpstop(t, env, "--headless", "--json", "--duration", "4s")
			if code != cli.ExitOK {
				t.Fatalf("exit %d: %s", code, errs)
			}
			said := strings.Contains(errs, "logs its Looper messages") && strings.Contains(errs, "gfxinfo+logcat")
			probed := false
			for _, c := range env.Fake.Commands() {
				probed = probed || strings.HasPrefix(c, "logcat -d")
			}
			switch {
			case !probed:
				t.Errorf("auto never read the app's recent logcat; commands %q", env.Fake.Commands())
			case printer && (r.Source != "gfxinfo+logcat" || !said || r.Messages.Paired == 0):
				t.Errorf("printer on: source %q, %d messages paired, stderr %q; want gfxinfo+logcat, said on stderr", r.Source, r.Messages.Paired, errs)
			case !printer && (r.Source != "gfxinfo" || said):
				t.Errorf("printer off: source %q, stderr %q; want gfxinfo and nothing said", r.Source, errs)
			}
			// --all-devices probes each device the same way
			out, lerrs, lcode := runCLI(env.Port, "--all-devices", "--headless", "--json", "--duration", "3s")
			lab := decodeLab(t, out, lerrs)
			got := ""
			if len(lab.Devices) == 1 {
				got = lab.Devices[0].Source
			}
			if want := map[bool]string{true: "gfxinfo+logcat", false: "gfxinfo"}[printer]; lcode != cli.ExitOK || got != want {
				t.Errorf("--all-devices: exit %d, %d devices, source %q, want %s; stderr %q", lcode, len(lab.Devices), got, want, lerrs)
			}
			// On screen: with the printer, gfxinfo+logcat says why and lists the messages; without,
			// the messages panel says gfxinfo cannot see them and how to get them.
			p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "-s", env.Serial, "--no-mouse")
			var s string
			if printer {
				s = p.waitFor(15*time.Second, "gfxinfo+logcat", "logs its Looper messages", "MSG_DO_FR")
			} else {
				// one line: at 120×40 the panel has 68 columns inside
				s = p.waitFor(15*time.Second, "gfxinfo cannot see them: --source gfxinfo+logcat + setMessageLogging")
			}
			if strings.Contains(s, "SIMULATOR") {
				t.Fatalf("the simulator on screen:\n%s", s)
			}
			p.key("q")
			if !p.exited(5 * time.Second) {
				t.Fatalf("q did not quit:\n%s", p.screen())
			}
		})
	}
}
