package gfxinfo

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fpstop/fpstop/source"
)

// probeScript is a script whose device also answers the counters-only probe (from the same
// steps: readCounters reads a full dump's counters as well).
type probeScript struct {
	*script
	probes []int // the steps served as probes
}

func (p *probeScript) GfxinfoCounters(ctx context.Context, pkg string) ([]byte, error) {
	p.probes = append(p.probes, p.i)
	return p.Gfxinfo(ctx, pkg)
}

// An app that stops drawing is dumped at its drawing pace until it has drawn nothing for a
// second, then only probed, at that pace for a few seconds (a pause in a scroll loses nothing)
// and then every IdleProbeEvery (a Tick at each probe's uptime keeps the session's clock); a
// probe whose counter moved brings a full dump at once.
func TestPacedIdleProbe(t *testing.T) {
	w1 := win(60, 10, 1, 60)
	s := &script{steps: []step{
		{out: dumpAt(11_000, 5, w1)},
		{out: dumpAt(11_700, 5, w1)},
		{out: dumpAt(12_400, 5, w1)},                  // nothing new for 1.4 s: idle
		{out: dumpAt(16_400, 5, w1)},                  // probe: unchanged
		{out: dumpAt(20_400, 5, win(30, 20, 61, 90))}, // probe: the counter moved
		{out: dumpAt(20_450, 5, win(30, 20, 61, 90))}, // the full dump
	}}
	ps := &probeScript{script: s}
	evs, sleeps := run(t, ps, s, PollerConfig{})
	if fmt.Sprint(ps.probes) != "[3 4]" {
		t.Errorf("probes at steps %v, want [3 4]", ps.probes)
	}
	// 60 Hz; quiet; quiet 1.4 s: probes at the watching pace; quiet 5.4 s: every 4 s; the
	// counter moved: a full dump at once; drawing again: the 60 Hz refresh rate's pace (no
	// logcat stream follows its frames, so it is not paced by its slow rate)
	want := "[1s 1.5s 1.5s 4s 0s 1.5s]"
	if fmt.Sprint(rounded(sleeps)) != want {
		t.Errorf("sleeps %v, want %s", sleeps, want)
	}
	ticked, fs := false, 0
	for _, e := range evs {
		switch e := e.(type) {
		case *source.Tick:
			ticked = ticked || e.NowNs == 16_400_000_000
		case *source.Frame:
			fs++
		case *source.Notice:
			if e.Level == source.LevelWarn {
				t.Errorf("warning %q", e.Text)
			}
		}
	}
	if !ticked || fs != 90 {
		t.Errorf("tick at the probe's uptime %v, %d frames (want 90)", ticked, fs)
	}
}

// With a Drawn stream (the logcat stream's vsync messages), the idle poller's probe wait ends
// the moment the app draws again, with a full dump, not a probe.
func TestPacedWakeOnDrawn(t *testing.T) {
	w1 := win(60, 10, 1, 60)
	s := &script{steps: []step{
		{out: dumpAt(11_000, 5, w1)},
		{out: dumpAt(11_700, 5, w1)},
		{out: dumpAt(12_400, 5, w1)},
		{out: dumpAt(12_500, 5, win(30, 12.4, 61, 66))},
	}}
	ps := &probeScript{script: s}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s.cancel = cancel
	drawn := make(chan int, 1)
	now := time.Unix(0, 0)
	var sleeps []time.Duration
	cfg := PollerConfig{Package: pkg, Drawn: drawn}
	cfg.Now = func() time.Time { return now }
	cfg.Sleep = func(ctx context.Context, d time.Duration) error {
		sleeps = append(sleeps, d)
		if len(sleeps) == 3 { // the wait for the first probe
			drawn <- 1 // the app draws while the poller waits to probe
			<-ctx.Done()
			return ctx.Err()
		}
		now = now.Add(d)
		return nil
	}
	out := make(chan []source.Event, 1000)
	if err := NewPoller(ps, cfg).Run(ctx, out); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	if len(ps.probes) != 0 || s.i != 4 || fmt.Sprint(rounded(sleeps[:3])) != "[1s 1.5s 1.5s]" {
		t.Errorf("probes %v, %d dumps, sleeps %v: want the wait for the probe cut short by a full dump", ps.probes, s.i, sleeps)
	}
}

// A host stall makes a poll late, not damaged: no warning, and the next interval is the usual
// one (a stall longer than the ring's span loses frames whatever the margin). A poll late by
// less than that is jitter (a loaded host, a slow adb): the margin grows to cover it.
func TestPacedLatePollIsNotDamage(t *testing.T) {
	at := func(ms int64) []byte { // a 60 fps window drawing since 9 s, dumped at ms
		n := 120 + 60*(ms-11_000)/1000
		return dumpAt(ms, 5, win(120, 10+float64(n-120)/60, n-119, n))
	}
	for _, c := range []struct {
		name  string
		third int64 // when the third dump comes (planned: 13.5 s)
		want  string
	}{
		{"stall", 16_000, "[1s 1.5s 1.5s 1.5s]"},
		{"jitter", 14_100, // 0.6 s late: margin 0.9 s, then decaying by an eighth a dump
			"[1s 1.5s 1.1s 1.213s]"},
	} {
		s := &script{steps: []step{{out: at(11_000)}, {out: at(12_000)}, {out: at(c.third)}, {out: at(c.third + 1_100)}}}
		evs, sleeps := run(t, s, s, PollerConfig{})
		for _, e := range evs {
			if n, ok := e.(*source.Notice); ok && n.Level == source.LevelWarn {
				t.Errorf("%s: warning %q", c.name, n.Text)
			}
		}
		if got := fmt.Sprint(rounded(sleeps)); got != c.want {
			t.Errorf("%s: sleeps %s, want %s", c.name, got, c.want)
		}
	}
}

func TestReadCounters(t *testing.T) {
	c, ok := readCounters(dumpAt(12_345, 77, win(10, 10, 1, 10)), 77)
	if !ok || c.pid != 77 || c.total != 10 || c.uptimeNs != 12_345_000_000 {
		t.Errorf("%+v %v", c, ok)
	}
	if _, ok := readCounters(dumpAt(12_345, 77, win(10, 10, 1, 10)), 78); ok {
		t.Error("another pid's counter read")
	}
	for _, bad := range []string{"", "Uptime: 5\nNo process found for: x\n", "Uptime: x\n** Graphics info for pid 3 [p] **\nTotal frames rendered: 4\n",
		"Uptime: 5\n** Graphics info for pid 3 [p] **\nTotal frames rendered: -4\n"} {
		if _, ok := readCounters([]byte(bad), 3); ok {
			t.Errorf("%q read", bad)
		}
	}
}

// rounded is ds to the millisecond (a period of 16,666,667 ns makes 1.5 s 1.50000003 s).
func rounded(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}

// While the watch flag holds (auto measures the app's SurfaceView layer), the quiet windows
// are probed at the watching pace, never backed off to IdleProbeEvery: their return is what
// switches auto back to them.
func TestPacedWatchKeepsProbing(t *testing.T) {
	w1 := win(60, 10, 1, 60)
	s := &script{steps: []step{
		{out: dumpAt(11_000, 5, w1)},
		{out: dumpAt(11_700, 5, w1)},
		{out: dumpAt(12_400, 5, w1)},                  // nothing new for 1.4 s: idle
		{out: dumpAt(16_400, 5, w1)},                  // probe: unchanged, quiet 5.4 s
		{out: dumpAt(17_900, 5, w1)},                  // probe: unchanged
		{out: dumpAt(19_400, 5, win(30, 19, 61, 90))}, // probe: the counter moved
		{out: dumpAt(19_450, 5, win(30, 19, 61, 90))}, // the full dump
	}}
	ps := &probeScript{script: s}
	var watch atomic.Bool
	watch.Store(true)
	_, sleeps := run(t, ps, s, PollerConfig{Watch: &watch})
	if fmt.Sprint(ps.probes) != "[3 4 5]" {
		t.Errorf("probes at steps %v, want [3 4 5]", ps.probes)
	}
	if want := "[1s 1.5s 1.5s 1.5s 1.5s 0s 1.5s]"; fmt.Sprint(rounded(sleeps)) != want {
		t.Errorf("sleeps %v, want %s", sleeps, want)
	}
}
