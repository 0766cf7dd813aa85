package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// onsetMax is how long into a main-thread block FROZEN may take to show: 250 ms, the logcat
// stream and its 100 ms flushes, the fake phone printing a long message's Dispatching line
// 100 ms late, the screen's redraw, and a loaded machine.
const onsetMax = int64(650 * time.Millisecond)

// frozenBadge reads the header's FROZEN badge: how long, and the busy message.
var frozenBadge = regexp.MustCompile(`FROZEN ([0-9.]+) s · (\S+)`)

// TestFrozenOnDevice is issue 11's first item on a phone: a fake phone whose app prints its
// Looper lines runs the frozen scenario behind a real adb server; the dashboard (the real
// binary in tmux, auto: the probe picks gfxinfo+logcat) is read every samplePeriod (≤ 250 ms apart) for 20 s beside
// the phone's own clock. FROZEN, naming the message, shows during every main-thread block of
// 800 ms or more (from the Dispatching line, before the Finished one), and IDLE never shows
// during a block or within the second after it.
func TestFrozenOnDevice(t *testing.T) {
	t.Parallel()
	screenTest(t)
	// seed 29: blocks of 942, 1112, 1683, 2024 and 812 ms at 5.0, 8.1, 14.6, 18.5 and 22.6 s
	frozenOnDevice(t, 29, "gfxinfo+logcat")
}

// TestFrozenOnDeviceLogcat is the same with `--source logcat` alone: the frames come from the
// Looper lines, and FROZEN must not wait for the Ticks that trail the device by a second.
func TestFrozenOnDeviceLogcat(t *testing.T) {
	t.Parallel()
	screenTest(t)
	// seed 119: blocks of 880, 2329, 899 and 832 ms at 4.4, 11.1, 17.5 and 20.7 s
	frozenOnDevice(t, 119, "logcat", "--source", "logcat")
}

func frozenOnDevice(t *testing.T, seed int64, want string, args ...string) {
	ph := startPhone(t, 60, "frozen", seed, 0)
	ph.printer.Store(true)
	env := startEnv(t, ph)
	time.Sleep(time.Second) // the app has logged before fpstop probes it
	p := startPane(t, append([]string{"--adb-port", fmt.Sprint(env.Port), "--no-mouse"}, args...)...)
	p.waitFor(20*time.Second, want, "LIVE")
	type sample struct {
		at, after int64 // the phone's clock before and after the screen was read
		header    string
	}
	var samples []sample
	// read by the control-mode sampler every samplePeriod (checkSampling holds it to the 250 ms
	// limit); a sample's at is the phone's clock when the previous reply was handled, before
	// this read began, as after is once it was answered
	ctl := p.favouredSampler()
	stop := make(chan struct{})
	time.AfterFunc(20*time.Second, func() { close(stop) })
	prev := ph.sim.Now()
	sm := sampleScreen(t, ctl, p.target, stop, func(_ time.Time, screen string) {
		after := ph.sim.Now()
		samples = append(samples, sample{prev, after, strings.SplitN(screen, "\n", 2)[0]})
		prev = after
	})
	checkSampling(t, sm)
	p.key("q")
	ph.stop()
	_, msgs := parseTruth(t, ph.truth.Bytes())
	// what the screen shows lags the phone by the logcat stream, the 250 ms refresh and the
	// capture: a sample may show the state up to lag before it was taken
	const lag = int64(600 * time.Millisecond)
	// a block that began before fpstop's logcat stream did has a Dispatching line it never saw
	first, last := max(samples[0].at, ph.streamedAt.Load()), samples[len(samples)-1].at
	long, unseen := 0, 0
	var onsets []string
	for _, m := range msgs {
		if m.Tid != m.Pid || m.EndNs-m.StartNs < int64(800*time.Millisecond) || m.StartNs < first || m.EndNs+lag > last {
			continue
		}
		name := m.Callback[strings.LastIndexByte(m.Callback, '.')+1:]
		if i := strings.IndexByte(name, '@'); i > 0 {
			name = name[:i]
		}
		onset := int64(-1) // the first sample showing it, after the block began
		judged := false    // a screen was read wholly within the block's last part
		for _, s := range samples {
			if b := frozenBadge.FindStringSubmatch(s.header); b != nil && b[2] == name && s.after >= m.StartNs && s.at <= m.EndNs+lag && onset < 0 {
				onset = s.at - m.StartNs
			}
			// IDLE read before the block began (a read can take most of a second on a loaded
			// machine) may be the idle time before it
			if strings.Contains(s.header, "IDLE") && s.at >= m.StartNs && s.at-lag <= m.EndNs+int64(time.Second) {
				t.Errorf("IDLE %.2f s into a %d ms block (%s):\n%s", float64(s.at-m.StartNs)/1e9, (m.EndNs-m.StartNs)/1e6, name, s.header)
			}
			judged = judged || s.at >= m.StartNs+onsetMax && s.after <= m.EndNs
		}
		if onset < 0 && !judged {
			// On a loaded machine the reader itself can stall for a second: a block it did not
			// look at is not judged (and logged); at least two must be.
			unseen++
			t.Logf("the %d ms block at %+.2f s was not sampled after its first %d ms", (m.EndNs-m.StartNs)/1e6, float64(m.StartNs-first)/1e9, onsetMax/1e6)
			continue
		}
		long++
		if onset < 0 {
			t.Errorf("no FROZEN · %s during the %d ms block", name, (m.EndNs-m.StartNs)/1e6)
			for _, s := range samples {
				if s.at >= m.StartNs-int64(time.Second) && s.at <= m.EndNs+2*lag {
					t.Logf("%+.2f s (read by %+.2f s): %s", float64(s.at-m.StartNs)/1e9, float64(s.after-m.StartNs)/1e9, s.header)
				}
			}
			continue
		}
		onsets = append(onsets, fmt.Sprintf("%d ms block: %d ms", (m.EndNs-m.StartNs)/1e6, onset/1e6))
	}
	if long < 2 {
		t.Fatalf("%d blocks of 800 ms or more judged in the sampled 20 s (%d not sampled), want at least 2", long, unseen)
	}
	t.Logf("%s: %d samples, %d blocks of 800 ms or more judged (%d not sampled); FROZEN first read %s",
		want, len(samples), long, unseen, strings.Join(onsets, ", "))
}
