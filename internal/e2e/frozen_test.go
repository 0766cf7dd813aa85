package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// frozenBadge reads the header's FROZEN badge: the busy message.
var frozenBadge = regexp.MustCompile(`FROZEN [0-9.]+ s · (\S+)`)

// TestFrozenOnDevice is issue 11's first item on a phone: a fake phone whose app prints its
// Looper lines runs the frozen scenario (0.8–2.5 s main-thread freezes) behind a real adb
// server; the dashboard (the real binary in tmux, auto: the probe picks gfxinfo+logcat) is read
// every 200 ms for 20 s beside the phone's own clock. FROZEN, naming the message, shows during
// every freeze of 1.5 s or more (from the Dispatching line, before the Finished one), and
// IDLE never shows during a freeze or within the second after it.
func TestFrozenOnDevice(t *testing.T) {
	ph := startPhone(t, 60, "frozen", 66, 0) // seed 66: freezes of 2.4, 2.4 and 2.0 s at 5, 11 and 19 s
	ph.printer.Store(true)
	env := startEnv(t, ph)
	time.Sleep(time.Second) // the app has logged before fpstop probes it
	p := startPane(t, "--adb-port", fmt.Sprint(env.Port), "--no-mouse")
	p.waitFor(20*time.Second, "gfxinfo+logcat", "LIVE")
	type sample struct {
		at     int64 // the phone's clock when the screen was read
		header string
	}
	var samples []sample
	for until := time.Now().Add(20 * time.Second); time.Now().Before(until); {
		at := ph.sim.Now()
		samples = append(samples, sample{at, strings.SplitN(p.screen(), "\n", 2)[0]})
		time.Sleep(200 * time.Millisecond)
	}
	p.key("q")
	ph.stop()
	_, msgs := parseTruth(t, ph.truth.Bytes())
	// what the screen shows lags the phone by the logcat stream, the 250 ms refresh and the
	// capture: a sample may show the state up to lag before it was taken
	const lag = int64(600 * time.Millisecond)
	first, last := samples[0].at, samples[len(samples)-1].at
	long := 0
	for _, m := range msgs {
		// 1.5 s, not the simulator's 800 ms: on a device the pipeline's clock moves with the
		// gfxinfo polls (about one a second at 60 Hz) and the logcat Ticks (a second behind), so
		// a freeze of about 1 s can end before any of them has seen it last 250 ms (seen once
		// in a loaded full e2e run: LIVE through a 1009 ms freeze)
		if m.EndNs-m.StartNs < int64(1500*time.Millisecond) || m.StartNs < first || m.EndNs+lag > last {
			continue
		}
		long++
		name := m.Callback[strings.LastIndexByte(m.Callback, '.')+1:]
		if i := strings.IndexByte(name, '@'); i > 0 {
			name = name[:i]
		}
		shown := false
		for _, s := range samples {
			if b := frozenBadge.FindStringSubmatch(s.header); b != nil && b[1] == name && s.at >= m.StartNs && s.at <= m.EndNs+lag {
				shown = true
			}
			if strings.Contains(s.header, "IDLE") && s.at >= m.StartNs && s.at-lag <= m.EndNs+int64(time.Second) {
				t.Errorf("IDLE %.2f s into a %d ms freeze (%s):\n%s", float64(s.at-m.StartNs)/1e9, (m.EndNs-m.StartNs)/1e6, name, s.header)
			}
		}
		if !shown {
			t.Errorf("no FROZEN · %s during the %d ms freeze", name, (m.EndNs-m.StartNs)/1e6)
			for _, s := range samples {
				if s.at >= m.StartNs-int64(time.Second) && s.at <= m.EndNs+2*lag {
					t.Logf("%+.2f s: %s", float64(s.at-m.StartNs)/1e9, s.header)
				}
			}
		}
	}
	if long < 2 {
		t.Fatalf("%d freezes of 1.5 s or more in the sampled 20 s, want at least 2", long)
	}
	t.Logf("%d samples, %d freezes of 1.5 s or more", len(samples), long)
}
