package e2e

import (
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
)

// BenchmarkDeviceCost measures what each mode asks of the phone (DESIGN §7 "Observer effect"):
// the real binary runs headless against fake phones behind Debian's adb server on a private
// port, and every shell command the phone serves and every byte it sends back is counted over
// FPSTOP_COST_SECONDS (default 30) after start-up (and, for the idle app, after 5 s of
// idleness). Run it with scripts/measure-device-cost.sh; `go test ./...` runs no benchmark.
func BenchmarkDeviceCost(b *testing.B) {
	window := 30 * time.Second
	if v := os.Getenv("FPSTOP_COST_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("FPSTOP_COST_SECONDS=%q: want a positive number of seconds", v)
		}
		window = time.Duration(n) * time.Second
	}
	sim := func(hz float64, scenario string, printer bool) func(b *testing.B) (fakeadb.Handler, func()) {
		return func(b *testing.B) (fakeadb.Handler, func()) {
			ph := startPhone(b, hz, scenario, 7, 0)
			ph.printer.Store(printer)
			return ph.handler, nil
		}
	}
	idle := func(b *testing.B) (fakeadb.Handler, func()) {
		m := startMetronome(b, 120)
		m.drawing.Store(true)
		time.AfterFunc(2*time.Second, func() { m.drawing.Store(false) })
		return m.handler, func() { time.Sleep(5 * time.Second) } // 5 s of idleness first
	}
	game := func(hz float64, scenario string) func(b *testing.B) (fakeadb.Handler, func()) {
		return func(b *testing.B) (fakeadb.Handler, func()) {
			g := startGamePhone(b, hz, scenario, fakeadb.SFAndroid14)
			return g.handler, nil
		}
	}
	perf := func(hz float64) func(b *testing.B) (fakeadb.Handler, func()) {
		return func(b *testing.B) (fakeadb.Handler, func()) {
			ph := startPhone(b, hz, "smooth", 7, 0)
			return newTracing(b, ph, 34, &atomic.Int64{}, nil).Wrap(ph.handler), nil
		}
	}
	for _, c := range []struct {
		name  string
		src   string
		phone func(b *testing.B) (fakeadb.Handler, func())
	}{
		{"perfetto/120Hz-scrolling", "perfetto", perf(120)},
		{"perfetto/60Hz-scrolling", "perfetto", perf(60)},
		{"gfxinfo/120Hz-scrolling", "gfxinfo", sim(120, "smooth", false)},
		{"gfxinfo/60Hz-scrolling", "gfxinfo", sim(60, "smooth", false)},
		{"gfxinfo/idle-app", "gfxinfo", idle},
		{"gfxinfo+logcat/120Hz-scrolling", "gfxinfo+logcat", sim(120, "smooth", true)},
		{"gfxinfo+logcat/idle-app", "gfxinfo+logcat", idle},
		{"sf/120Hz-game", "surfaceflinger", game(120, "game")},
		{"sf/60Hz-game", "surfaceflinger", game(60, "game")},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var mt meter
				h, settle := c.phone(b)
				env := adbtest.Start(b, fakeadb.Config{Handler: mt.wrap(h), Model: "Pixel 7", Android: "14", SDK: 34})
				cost := costRun(b, env, &mt, settle, window, "-s", env.Serial, "-p", pkg, "--source", c.src)
				b.Logf("%s: %s", c.name, cost)
				b.ReportMetric(cost.perSecond(), "cmds/s")
				b.ReportMetric(float64(cost.bytes)/cost.seconds/1000, "kB/s")
			}
		})
	}
	b.Run("all-devices/2-phones", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			var m1, m2 meter
			p1, p2 := startPhone(b, 120, "smooth", 7, 0), startPhone(b, 120, "smooth", 8, 0)
			env := adbtest.Start(b, fakeadb.Config{Handler: m1.wrap(p1.handler), Model: "Pixel 7", Android: "14", SDK: 34})
			x := env.Connect(fakeadb.Config{Handler: m2.wrap(p2.handler), Model: "Pixel 8", Android: "14", SDK: 34})
			w := costWindow(b, env, []*fakeadb.Device{env.Fake, x.Fake}, nil, window, "--all-devices", "-p", pkg, "--source", "gfxinfo")
			for i, m := range []*meter{&m1, &m2} {
				c := m.window(w.from, w.to, w.getprops[i][0], w.getprops[i][1])
				b.Logf("all-devices/2-phones: phone %d: %s", i+1, c)
				b.ReportMetric(c.perSecond(), "cmds/s/phone")
			}
		}
	})
}

// costRun runs the binary with args against env and returns what the phone was asked over
// window, after start-up and settle (nil: none).
func costRun(b *testing.B, env *adbtest.Env, mt *meter, settle func(), window time.Duration, args ...string) cost {
	w := costWindow(b, env, []*fakeadb.Device{env.Fake}, settle, window, args...)
	return mt.window(w.from, w.to, w.getprops[0][0], w.getprops[0][1])
}

// measured is a run's measuring window and each phone's getprop count at its ends (the fake
// answers getprop itself, without the metered handler).
type measured struct {
	from, to time.Time
	getprops [][2]int
}

// costWindow runs the binary headless for start-up, settle and window, and returns the
// window.
func costWindow(b *testing.B, env *adbtest.Env, fakes []*fakeadb.Device, settle func(), window time.Duration, args ...string) measured {
	const warmup = 5 * time.Second
	total := warmup + window + 3*time.Second
	if settle != nil {
		total += 5 * time.Second
	}
	cmd, out, errb := startBin(b, env, append(args, "--headless", "--json", "--duration", total.String())...)
	time.Sleep(warmup)
	if settle != nil {
		settle()
	}
	m := measured{from: time.Now(), getprops: make([][2]int, len(fakes))}
	for i, f := range fakes {
		m.getprops[i][0] = getprops(f)
	}
	time.Sleep(window)
	m.to = time.Now()
	for i, f := range fakes {
		m.getprops[i][1] = getprops(f)
	}
	if err := cmd.Wait(); err != nil {
		b.Fatalf("fpstop: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "{") {
		b.Fatalf("no report: %s\n%s", out.String(), errb.String())
	}
	return m
}
