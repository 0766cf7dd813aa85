package e2e

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/fpstop/fpstop/device"
	"github.com/fpstop/fpstop/internal/testkit/adbtest"
	"github.com/fpstop/fpstop/internal/testkit/fakeadb"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/gfxinfo"
	"github.com/fpstop/fpstop/source/perfetto"
	"sync/atomic"
)

// BenchmarkSourceLag measures how long after a frame ended on the fake phone (its DoneNs, the
// simulated phone's monotonic clock, which runs in real time) the frame reaches fpstop's
// pipeline, for the live Perfetto source and for gfxinfo, over 20 s of a 120 Hz app behind a
// real adb server. The screen adds its own refresh (250 ms at most) on top. Run it with
// `go test -run '^$' -bench BenchmarkSourceLag -benchtime 1x ./internal/testkit/e2e/`.
func BenchmarkSourceLag(b *testing.B) {
	for _, name := range []string{"perfetto", "gfxinfo"} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				ph := startPhone(b, 120, "smooth", 9, 0)
				tr := newTracing(b, ph, 34, &atomic.Int64{})
				env := adbtest.Start(b, fakeadb.Config{Handler: tr.Wrap(ph.handler), Model: "Pixel 7", Android: "14", SDK: 34})
				target := device.Target{Client: env.Client, Serial: env.Serial}
				var src source.Source
				if name == "perfetto" {
					src = perfetto.NewLive(target, perfetto.LiveOptions{Package: pkg})
				} else {
					src = gfxinfo.NewPoller(target, gfxinfo.PollerConfig{Package: pkg})
				}
				lags := sourceLags(b, ph, src, 20*time.Second)
				if len(lags) < 100 {
					b.Fatalf("%d frames", len(lags))
				}
				sort.Slice(lags, func(i, j int) bool { return lags[i] < lags[j] })
				med, p95 := lags[len(lags)/2], lags[len(lags)*95/100]
				b.Logf("%s: %d frames, frame end → fpstop: median %s, p95 %s, max %s", name, len(lags),
					med.Round(time.Millisecond), p95.Round(time.Millisecond), lags[len(lags)-1].Round(time.Millisecond))
				b.ReportMetric(float64(med)/1e6, "median-ms")
				b.ReportMetric(float64(p95)/1e6, "p95-ms")
			}
		})
	}
}

// sourceLags runs src for d and returns, for each frame it emits after the first 3 s, the
// phone's time at arrival less the frame's end.
func sourceLags(b *testing.B, ph *phone, src source.Source, d time.Duration) []time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	out := make(chan []source.Event, 64)
	go func() { _ = src.Run(ctx, out); close(out) }()
	start := time.Now()
	var lags []time.Duration
	for batch := range out {
		now := ph.sim.Now()
		for _, e := range batch {
			if f, ok := e.(*source.Frame); ok && f.DoneNs > 0 && time.Since(start) > 3*time.Second {
				lags = append(lags, time.Duration(now-f.DoneNs))
			}
		}
	}
	return lags
}
