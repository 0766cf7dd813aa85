// Package exporters runs the exports of one invocation (Prometheus endpoint, metrics file,
// OTLP push) over a feed of Snapshots, and counts the pushing ones' failures for the status
// line, the report and the exit status. The flags that ask for them are the command line's.
package exporters

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"

	"github.com/fpstop/fpstop/internal/exit"
	"github.com/fpstop/fpstop/internal/export"
	"github.com/fpstop/fpstop/internal/export/otlp"
	"github.com/fpstop/fpstop/internal/export/prom"
)

// Config is what to export, from the flags (docs/labs.md).
type Config struct {
	MetricsListen string        // serve /metrics on HOST:PORT
	MetricsFile   string        // rewrite FILE for node_exporter's textfile collector
	Interval      time.Duration // how often the file is rewritten and OTLP pushes
	IntervalSet   bool          // Interval was given (OTLP's default is its own otherwise)
	TopSignatures int           // slow-message signatures per device with their own series
	OTLPEndpoint  string
	OTLPProtocol  string
	Version       string // fpstop's, for OTLP's resource
	Getenv        func(string) string
	Log           *slog.Logger
}

func (e *Config) enabled() bool {
	return e.MetricsListen != "" || e.MetricsFile != "" || e.OTLPEndpoint != ""
}

// Running are the running exporters of one invocation. The pushing ones (OTLP, the metrics
// file) count their attempts and failures, for the status line, the report and the exit status.
type Running struct {
	log    *slog.Logger
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
	health []*export.Health
}

// Start starts what cfg asks for over feed. A port that cannot be bound is
// a runtime error now; later failures are counted (never printed while the dashboard runs) and
// returned by Stop. Stop writes the final numbers (the metrics file) and shuts down.
func Start(ctx context.Context, cfg Config, feed export.Feed) (*Running, error) {
	e := &cfg
	x := &Running{log: cfg.Log, cancel: func() {}}
	if !e.enabled() {
		return x, nil
	}
	reg := prom.NewRegistry(feed, e.TopSignatures)
	ctx, x.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if e.MetricsListen != "" {
		srv, err := prom.Listen(e.MetricsListen, reg)
		if err != nil {
			x.cancel()
			return nil, exit.RuntimeErr(err)
		}
		x.log.Info("metrics endpoint", "addr", srv.Addr())
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
		if err := x.startOTLP(ctx, e, feed); err != nil {
			x.cancel()
			x.wg.Wait()
			return nil, err
		}
	}
	return x, nil
}

// Stop writes the final numbers, shuts the exporters down and returns the first error.
func (x *Running) Stop() error {
	x.cancel()
	x.wg.Wait()
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.err != nil {
		x.log.Warn("metrics export", "err", x.err)
	}
	return x.err
}

// Status is the status line's sentence while an export is failing ("" while all deliver).
func (x *Running) Status() string {
	var parts []string
	for _, h := range x.health {
		if s := h.State().Status(); s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, " · ")
}

// Warnings are the report's lines for the exports that failed, with their counts.
func (x *Running) Warnings() []string {
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
func (x *Running) Failed() error {
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

func (x *Running) run(fn func() error) {
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

// redactURL hides a password in a URL before it is shown.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	return s
}

// startOTLP starts the OTLP pusher; it pushes its final numbers when the exports stop. The
// SDK's own errors and logs go to fpstop's log file, never to the terminal.
func (x *Running) startOTLP(ctx context.Context, e *Config, feed export.Feed) error {
	otel.SetLogger(logr.FromSlogHandler(x.log.Handler()))
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { x.log.Warn("otlp", "err", err) }))
	h := &export.Health{Name: "OTLP pushes to " + redactURL(e.OTLPEndpoint)}
	x.health = append(x.health, h)
	cfg := otlp.Config{Endpoint: e.OTLPEndpoint, Protocol: e.OTLPProtocol, Version: e.Version, Getenv: e.Getenv,
		Health: h}
	if e.IntervalSet {
		cfg.Interval = e.Interval
	}
	p, err := otlp.Start(ctx, cfg, feed, e.TopSignatures)
	if err != nil {
		return exit.Usagef("%v", err)
	}
	x.run(func() error {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return p.Stop(sctx)
	})
	return nil
}
