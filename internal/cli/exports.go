package cli

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/fpstop/fpstop/internal/export"
	"github.com/fpstop/fpstop/internal/export/exporters"
	"github.com/fpstop/fpstop/internal/export/otlp"
	"github.com/fpstop/fpstop/internal/export/prom"
	"github.com/fpstop/fpstop/internal/outfile"
	"github.com/fpstop/fpstop/metrics"
)

// ExportOptions are the flags that send metrics to a lab's monitoring (docs/labs.md).
type ExportOptions struct {
	MetricsListen string
	MetricsFile   string
	Interval      time.Duration
	TopSignatures int
	OTLPEndpoint  string
	OTLPProtocol  string
	intervalSet   bool
}

func (e *ExportOptions) bind(fs *pflag.FlagSet) {
	fs.StringVar(&e.MetricsListen, "metrics-listen", "", "serve Prometheus/OpenMetrics /metrics on HOST:PORT, e.g. 127.0.0.1:9464 (no authentication)")
	fs.StringVar(&e.MetricsFile, "metrics-file", "", "rewrite FILE (atomically) with the metrics for node_exporter's textfile collector")
	fs.StringVar(&e.OTLPEndpoint, "otlp-endpoint", "", "push metrics over OTLP to URL, e.g. http://127.0.0.1:4318 (OTEL_EXPORTER_OTLP_* honoured)")
	fs.StringVar(&e.OTLPProtocol, "otlp-protocol", "", "OTLP protocol: http/protobuf or grpc (default $OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf)")
	fs.DurationVar(&e.Interval, "metrics-interval", 15*time.Second, "how often --metrics-file is rewritten and OTLP pushes (default for OTLP: $OTEL_METRIC_EXPORT_INTERVAL or 60s)")
	fs.IntVar(&e.TopSignatures, "metrics-top-signatures", prom.DefaultTopSignatures, "slow-message signatures per device with their own series (the rest: \"other\")")
}

func (e *ExportOptions) validate(changed func(string) bool) error {
	e.intervalSet = changed("metrics-interval")
	if e.OTLPEndpoint != "" {
		if err := otlp.CheckEndpoint(e.OTLPEndpoint); err != nil {
			return usageErr("%v", err)
		}
	}
	switch e.OTLPProtocol {
	case "", otlp.ProtocolHTTP, otlp.ProtocolGRPC:
	default:
		return usageErr("--otlp-protocol %q: want http/protobuf or grpc", e.OTLPProtocol)
	}
	if e.MetricsListen != "" {
		if err := prom.CheckListen(e.MetricsListen); err != nil {
			return usageErr("%v", err)
		}
	}
	if e.MetricsFile != "" {
		if st, err := os.Stat(filepath.Dir(e.MetricsFile)); err != nil || !st.IsDir() {
			return usageErr("--metrics-file %q: its directory does not exist", e.MetricsFile)
		}
		if err := outfile.Check(e.MetricsFile); err != nil {
			return usageErr("--metrics-file: %v", err)
		}
	}
	if e.Interval < time.Second || e.Interval > time.Hour {
		return usageErr("--metrics-interval %v: want 1s to 1h", e.Interval)
	}
	if e.TopSignatures < 1 || e.TopSignatures > 1000 {
		return usageErr("--metrics-top-signatures %d: want 1 to 1000", e.TopSignatures)
	}
	return nil
}

// start starts what the export flags ask for over feed (package exporters).
func (e *ExportOptions) start(ctx context.Context, feed export.Feed, env Env, log *slog.Logger) (*exporters.Running, error) {
	return exporters.Start(ctx, exporters.Config{MetricsListen: e.MetricsListen, MetricsFile: e.MetricsFile,
		Interval: e.Interval, IntervalSet: e.intervalSet, TopSignatures: e.TopSignatures,
		OTLPEndpoint: e.OTLPEndpoint, OTLPProtocol: e.OTLPProtocol,
		Version: env.Build.Version, Getenv: env.Getenv, Log: log}, feed)
}

// latestFeed exports the session's newest Snapshot (what the dashboard shows).
func latestFeed(latest func() *metrics.Snapshot) export.Feed {
	return func() []export.Device { return []export.Device{{Snap: latest(), Connected: true}} }
}
