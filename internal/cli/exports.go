package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/pflag"
	"go.opentelemetry.io/otel"

	"github.com/fpstop/fpstop/internal/export"
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

func (e *ExportOptions) enabled() bool {
	return e.MetricsListen != "" || e.MetricsFile != "" || e.OTLPEndpoint != ""
}

// exports are the running exporters of one invocation. The pushing ones (OTLP, the metrics
// file) count their attempts and failures, for the status line, the report and the exit status.
type exports struct {
	a      *app
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
	health []*export.Health
}

// startExports starts what the export flags ask for over feed. A port that cannot be bound is
// a runtime error now; later failures are counted (never printed while the dashboard runs) and
// returned by Stop. Stop writes the final numbers (the metrics file) and shuts down.
func (a *app) startExports(ctx context.Context, feed export.Feed) (*exports, error) {
	e := &a.opts.Exports
	x := &exports{a: a, cancel: func() {}}
	if !e.enabled() {
		return x, nil
	}
	reg := prom.NewRegistry(feed, e.TopSignatures)
	ctx, x.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if e.MetricsListen != "" {
		srv, err := prom.Listen(e.MetricsListen, reg)
		if err != nil {
			x.cancel()
			return nil, runtimeErr(err)
		}
		a.log.Info("metrics endpoint", "addr", srv.Addr())
		x.run(func() error { return srv.Serve(ctx) })
	}
	if e.MetricsFile != "" {
		path := e.MetricsFile
		fileReg := prom.NewFileRegistry(feed, e.TopSignatures) // fpstop's families only
		h := &export.Health{Name: "metrics file " + path + " writes"}
		x.health = append(x.health, h)
		x.run(func() error { return prom.WriteFileEvery(ctx, path, e.Interval, fileReg, h) })
	}
	if e.OTLPEndpoint != "" {
		if err := a.startOTLP(ctx, x, feed); err != nil {
			x.cancel()
			x.wg.Wait()
			return nil, err
		}
	}
	return x, nil
}

// Stop writes the final numbers, shuts the exporters down and returns the first error.
func (x *exports) Stop() error {
	x.cancel()
	x.wg.Wait()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil {
		x.a.log.Warn("metrics export", "err", x.err)
	}
	return x.err
}

// Status is the status line's sentence while an export is failing ("" while all deliver).
func (x *exports) Status() string {
	var parts []string
	for _, h := range x.health {
		if s := h.State().Status(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " · ")
}

// Warnings are the report's lines for the exports that failed, with their counts.
func (x *exports) Warnings() []string {
	var out []string
	for _, h := range x.health {
		if w := h.State().Warning(); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// Failed is the runtime error of a run whose exports all failed: every attempt of every
// pushing exporter failed (nil when any delivered, or none was asked for).
func (x *exports) Failed() error {
	var names []string
	for _, h := range x.health {
		st := h.State()
		if !st.NeverDelivered() {
			return nil
		}
		names = append(names, st.Name)
	}
	if len(names) == 0 {
		return nil
	}
	return fmt.Errorf("every export failed (%s): monitoring received no numbers from this run", strings.Join(names, "; "))
}

func (x *exports) run(fn func() error) {
	x.wg.Add(1)
	go func() {
		defer x.wg.Done()
		if err := fn(); err != nil && !errors.Is(err, context.Canceled) {
			x.mu.Lock()
			if x.err == nil {
				x.err = err
			}
			x.mu.Unlock()
		}
	}()
}

// exportErr reports an export failure after a headless run without changing its exit status
// (the report is what the run is for).
func (a *app) exportErr(err error) {
	if err != nil {
		fmt.Fprintf(a.env.Stderr, "fpstop: %s\n", oneSentence(err))
	}
}

// redactURL hides a password in a URL before it is shown.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return s
}

// latestFeed exports the session's newest Snapshot (what the dashboard shows).
func latestFeed(latest func() *metrics.Snapshot) export.Feed {
	return func() []export.Device { return []export.Device{{Snap: latest(), Connected: true}} }
}

// startOTLP starts the OTLP pusher; it pushes its final numbers when the exports stop. The
// SDK's own errors and logs go to fpstop's log file, never to the terminal.
func (a *app) startOTLP(ctx context.Context, x *exports, feed export.Feed) error {
	e := &a.opts.Exports
	otel.SetLogger(logr.FromSlogHandler(a.log.Handler()))
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { a.log.Warn("otlp", "err", err) }))
	h := &export.Health{Name: "OTLP pushes to " + redactURL(e.OTLPEndpoint)}
	x.health = append(x.health, h)
	cfg := otlp.Config{Endpoint: e.OTLPEndpoint, Protocol: e.OTLPProtocol, Version: a.env.Build.Version, Getenv: a.env.Getenv,
		Health: h}
	if e.intervalSet {
		cfg.Interval = e.Interval
	}
	p, err := otlp.Start(ctx, cfg, feed, e.TopSignatures)
	if err != nil {
		return usageErr("%v", err)
	}
	x.run(func() error {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return p.Stop(sctx)
	})
	return nil
}
