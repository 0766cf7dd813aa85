package e2e

import (
	"context"
	"os"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/gfxinfo"
	"github.com/fpstop/fpstop/source/perfetto"
	"github.com/fpstop/fpstop/source/surfaceflinger"
)

// BenchmarkSourceLag measures, for each live source beside the others, what it asks of the
// phone and how late its frames reach fpstop: the source runs against the fake phone (a 120 Hz
// app, or a 120 Hz game for SurfaceFlinger) behind Debian's adb server on a private port, and
// over FPSTOP_LAG_SECONDS (default 20) after 5 s of start-up it counts every shell command the
// phone serves and every byte it sends back, and for every frame the delay from its present on
// the phone (the simulated phone's monotonic clock, which runs in real time; a frame's end
// where the source learns no present) to its arrival at fpstop's pipeline. The screen adds its
// two refreshes (the snapshot and the screen's read, 250 ms each) on top. Run it with
// scripts/measure-live-lag.sh; `go test ./...` runs no benchmark.
func BenchmarkSourceLag(b *testing.B) {
	window := 20 * time.Second
	if v := os.Getenv("FPSTOP_LAG_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			b.Fatalf("FPSTOP_LAG_SECONDS=%q: want a positive number of seconds", v)
		}
		window = time.Duration(n) * time.Second
	}
	for _, name := range []string{"perfetto", "gfxinfo", "surfaceflinger"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				var mt meter
				var clock func() int64
				var h fakeadb.Handler
				if name == "surfaceflinger" {
					g := startGamePhone(b, 120, "game", fakeadb.SFAndroid14)
					clock, h = g.sim.Now, g.handler
				} else {
					ph := startPhone(b, 120, "smooth", 9, 0)
					clock, h = ph.sim.Now, newTracing(b, ph, 34, &atomic.Int64{}, nil).Wrap(ph.handler)
				}
				env := adbtest.Start(b, fakeadb.Config{Handler: mt.wrap(h), Model: "Pixel 7", Android: "14", SDK: 34})
				target := device.Target{Client: env.Client, Serial: env.Serial}
				var src source.Source
				switch name {
				case "perfetto":
					src = perfetto.NewLive(target, perfetto.LiveOptions{Package: pkg})
				case "gfxinfo":
					src = gfxinfo.NewPoller(target, gfxinfo.PollerConfig{Package: pkg})
				default:
					src = surfaceflinger.NewPoller(target, surfaceflinger.Config{Package: pkg})
				}
				r := runLagged(b, env, &mt, clock, src, 5*time.Second, window)
				if len(r.lags) < 100 {
					b.Fatalf("%s: %d frames", name, len(r.lags))
				}
				med, p95, top := r.percentiles()
				b.Logf("%s: %s; %d frames (%d timed from their end, no present known), present → fpstop: median %s, p95 %s, max %s (load %s)",
					name, r.cost, len(r.lags), r.fromEnd,
					med.Round(time.Millisecond), p95.Round(time.Millisecond), top.Round(time.Millisecond), loadavg())
				b.ReportMetric(r.cost.perSecond(), "cmds/s")
				b.ReportMetric(float64(r.cost.bytes)/r.cost.seconds/1000, "kB/s")
				b.ReportMetric(float64(med)/1e6, "median-ms")
				b.ReportMetric(float64(p95)/1e6, "p95-ms")
				b.ReportMetric(float64(top)/1e6, "max-ms")
			}
		})
	}
}

// lagged is one source's run: what it asked of the phone over the window and, for each frame
// that arrived in it, its delay.
type lagged struct {
	cost cost
	lags []time.Duration
	// fromEnd counts the frames timed from their end (the source learned no present)
	fromEnd int
}

func (r lagged) percentiles() (med, p95, top time.Duration) {
	l := slices.Clone(r.lags)
	slices.Sort(l)
	return l[len(l)/2], l[len(l)*95/100], l[len(l)-1]
}

// runLagged runs src for warmup and window and returns the window's commands and bytes (the
// fake answers getprop itself: those are counted from its log) and each frame's delay from its
// present (a layer frame's, or an app frame's when known, else its end) to its arrival, by the
// phone's clock.
func runLagged(b *testing.B, env *adbtest.Env, mt *meter, clock func() int64, src source.Source, warmup, window time.Duration) lagged {
	ctx, cancel := context.WithTimeout(context.Background(), warmup+window)
	defer cancel()
	out := make(chan []source.Event, 64)
	errc := make(chan error, 1)
	go func() { errc <- src.Run(ctx, out); close(out) }()
	from := time.Now().Add(warmup)
	gp0 := -1
	var lags []time.Duration
	fromEnd := 0
	for batch := range out {
		now, at := clock(), time.Now()
		if at.Before(from) {
			continue
		}
		if gp0 < 0 {
			gp0 = getprops(env.Fake)
		}
		for _, e := range batch {
			if d, present := presentOf(e); d > 0 {
				lags = append(lags, time.Duration(now-d))
				if !present {
					fromEnd++
				}
			}
		}
	}
	to, gp1 := time.Now(), getprops(env.Fake)
	if err := <-errc; err != nil && ctx.Err() == nil {
		b.Fatalf("source: %v", err)
	}
	return lagged{cost: mt.window(from, to, max(gp0, 0), gp1), lags: lags, fromEnd: fromEnd}
}

// presentOf is an event's present on the phone, or a frame's end when its present is unknown
// (present false); 0 for events that are not live frames.
func presentOf(e source.Event) (int64, bool) {
	switch f := e.(type) {
	case *source.Frame:
		switch {
		case f.History:
			return 0, false
		case f.PresentNs > 0:
			return f.PresentNs, true
		case f.Phases != nil && f.Phases.DisplayPresentTime > 0:
			return f.Phases.DisplayPresentTime, true
		}
		return f.DoneNs, false
	case *source.LayerFrame:
		return f.PresentNs, true
	}
	return 0, false
}
