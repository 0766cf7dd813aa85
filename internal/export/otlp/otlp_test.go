package otlp

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/export"
	"github.com/fpstop/fpstop/internal/testkit/otlptest"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

func simSnapshot(t *testing.T, scenario, serial, model string) *metrics.Snapshot {
	t.Helper()
	s, err := sim.New(sim.Config{Scenario: scenario, Hz: 60, Seed: 5, Speed: 0, Duration: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	p := metrics.NewPipeline(metrics.Config{})
	ch := make(chan []source.Event, 16)
	go func() { _ = s.Run(context.Background(), ch); close(ch) }()
	for b := range ch {
		p.AddBatch(b)
	}
	snap := p.Snapshot()
	snap.Session.Device = source.Device{Serial: serial, Model: model, Android: "14"}
	return snap
}

func checkDevices(t *testing.T, rec *otlptest.Received, snaps ...*metrics.Snapshot) {
	t.Helper()
	got := rec.Latest()
	for _, s := range snaps {
		serial := s.Session.Device.Serial
		rm := got[serial]
		if rm == nil {
			t.Fatalf("nothing received for device %s (got %d resources)", serial, len(got))
		}
		for k, want := range map[string]string{"service.name": "fpstop", "device.model.name": s.Session.Device.Model,
			"os.version": "14", "os.name": "Android", "service.version": "test"} {
			if v := otlptest.ResAttr(rm, k); v != want {
				t.Errorf("%s: resource %s = %q, want %q", serial, k, v, want)
			}
		}
		if n, ok := otlptest.MetricSum(rm, "fpstop.frames"); !ok || n != s.Totals.Frames {
			t.Errorf("%s: fpstop.frames = %d (found %v), snapshot says %d", serial, n, ok, s.Totals.Frames)
		}
		var hist uint64
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				for _, dp := range m.GetHistogram().GetDataPoints() {
					hist += dp.GetCount()
					if len(dp.GetBucketCounts()) != len(dp.GetExplicitBounds())+1 {
						t.Errorf("%s: histogram has %d counts for %d bounds", serial, len(dp.GetBucketCounts()), len(dp.GetExplicitBounds()))
					}
				}
			}
		}
		if hist == 0 {
			t.Errorf("%s: no frame-time histogram counts", serial)
		}
	}
}

func TestPushHTTPWithResourceAndEnv(t *testing.T) {
	a, b := simSnapshot(t, "demo", "A1", "Pixel 8"), simSnapshot(t, "janky", "B2", "SM-G991B")
	endpoint, rec := otlptest.HTTP(t)
	// Standard variables reach the official exporter: a header and gzip compression.
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-lab=rack-1")
	t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
	feed := func() []export.Device {
		return []export.Device{{Snap: a, Connected: true}, {Snap: b, Connected: true}}
	}
	p, err := Start(context.Background(), Config{Endpoint: endpoint, Interval: time.Hour, Version: "test", Getenv: os.Getenv}, feed, 5)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Stop(ctx); err != nil { // pushes the final numbers
		t.Fatal(err)
	}
	checkDevices(t, rec, a, b)
	if h := rec.Headers(); len(h) == 0 || h[0].Get("X-Lab") != "rack-1" || h[0].Get("Content-Encoding") != "gzip" {
		t.Errorf("OTEL_EXPORTER_OTLP_* not honoured: headers %v", h)
	}
}

func TestPushGRPCPeriodic(t *testing.T) {
	a := simSnapshot(t, "smooth", "C3", "Pixel 7a")
	endpoint, rec := otlptest.GRPC(t)
	env := map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
	feed := func() []export.Device { return []export.Device{{Snap: a, Connected: true}} }
	p, err := Start(context.Background(), Config{Endpoint: endpoint, Interval: 200 * time.Millisecond, Version: "test",
		Getenv: func(k string) string { return env[k] }}, feed, 5)
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if rec.Count() >= 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	checkDevices(t, rec, a) // periodic pushes arrived before any shutdown
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := p.Stop(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, bad := range []string{"127.0.0.1:4318", "ftp://x", "http://", "::"} {
		if CheckEndpoint(bad) == nil {
			t.Errorf("CheckEndpoint(%q) accepted it", bad)
		}
	}
	if _, err := ResolveProtocol(Config{Getenv: func(string) string { return "http/json" }}); err == nil {
		t.Error("http/json (not supported by the Go exporter) was accepted")
	}
	if p, _ := ResolveProtocol(Config{Getenv: func(string) string { return "" }}); p != ProtocolHTTP {
		t.Errorf("default protocol %q, want http/protobuf", p)
	}
}
