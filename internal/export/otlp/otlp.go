// Package otlp pushes fpstop's metrics over OTLP with the official OpenTelemetry SDK and
// exporters (HTTP/protobuf or gRPC). Every device gets its own MeterProvider, so its resource
// says which phone it is (device.model.name, os.version …, service.name=fpstop); the numbers
// come from the devices' Snapshots through a metric Producer, exactly as Prometheus sees them.
package otlp

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.39.0"

	"github.com/fpstop/fpstop/internal/export"
)

// Protocols OTLP exporters speak here (OTEL_EXPORTER_OTLP_PROTOCOL's values).
const (
	ProtocolHTTP = "http/protobuf"
	ProtocolGRPC = "grpc"
)

// Config says where and how to push.
type Config struct {
	// Endpoint is the collector's URL: http(s)://host:port, with an optional path for HTTP
	// (default /v1/metrics). https means TLS.
	Endpoint string
	// Protocol is ProtocolHTTP or ProtocolGRPC; "" reads OTEL_EXPORTER_OTLP_METRICS_PROTOCOL,
	// then OTEL_EXPORTER_OTLP_PROTOCOL, else http/protobuf (the specification's default).
	Protocol string
	// Interval between pushes; 0 leaves it to OTEL_METRIC_EXPORT_INTERVAL or the SDK (60 s).
	Interval time.Duration
	// Version is fpstop's version (service.version).
	Version string
	// Getenv reads the environment (tests substitute it).
	Getenv func(string) string
	// Health counts the pushes and their failures (nil: not counted).
	Health *export.Health
}

// maxPushTimeout bounds one push with its retries: a collector that hangs or keeps answering
// 429/503 costs a push at most this long (or half an interval, when shorter), never the
// pipeline, which the pushes only read.
const maxPushTimeout = 10 * time.Second

// interval is the push period cfg asks for, from the flag, OTEL_METRIC_EXPORT_INTERVAL (ms)
// or the SDK's default of 60 s.
func (cfg Config) interval() time.Duration {
	if cfg.Interval > 0 {
		return cfg.Interval
	}
	if cfg.Getenv != nil {
		if ms, err := strconv.Atoi(strings.TrimSpace(cfg.Getenv("OTEL_METRIC_EXPORT_INTERVAL"))); err == nil && ms > 0 {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return 60 * time.Second
}

// pushTimeout bounds one push and its retries: half an interval (a failing push is known, and
// shown, before the next one is due), at most maxPushTimeout.
func (cfg Config) pushTimeout() time.Duration {
	return min(cfg.interval()/2, maxPushTimeout)
}

// CheckEndpoint validates an --otlp-endpoint URL.
func CheckEndpoint(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return fmt.Errorf("--otlp-endpoint %q: %w", s, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--otlp-endpoint %q: want a URL such as http://127.0.0.1:4318 (https for TLS)", s)
	}
	return nil
}

// ResolveProtocol is the protocol cfg asks for, from the flag or the standard variables.
func ResolveProtocol(cfg Config) (string, error) {
	p := cfg.Protocol
	for _, k := range []string{"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p == "" && cfg.Getenv != nil {
			p = strings.TrimSpace(cfg.Getenv(k))
		}
	}
	switch p {
	case "", ProtocolHTTP:
		return ProtocolHTTP, nil
	case ProtocolGRPC:
		return ProtocolGRPC, nil
	}
	return "", fmt.Errorf("OTLP protocol %q: want grpc or http/protobuf", p)
}

func newExporter(ctx context.Context, cfg Config, proto string) (sdkmetric.Exporter, error) {
	u, err := url.Parse(cfg.Endpoint)
	if err != nil {
		return nil, fmt.Errorf("otlp endpoint: %w", err)
	}
	// bounded retries with backoff, all within one push's timeout (a push that is still failing
	// then is counted as failed and the next interval tries again)
	timeout := cfg.pushTimeout()
	if proto == ProtocolGRPC {
		exp, err := otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(u.String()),
			otlpmetricgrpc.WithTimeout(timeout), otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig(retryConfig(timeout))))
		if err != nil {
			return nil, fmt.Errorf("otlp grpc exporter: %w", err)
		}
		return exp, nil
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/v1/metrics"
	}
	exp, err := otlpmetrichttp.New(ctx, otlpmetrichttp.WithEndpointURL(u.String()),
		otlpmetrichttp.WithTimeout(timeout), otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig(retryConfig(timeout))))
	if err != nil {
		return nil, fmt.Errorf("otlp http exporter: %w", err)
	}
	return exp, nil
}

// retryConfig retries a push that failed in a way worth retrying (429, 502–504, unavailable)
// with exponential backoff, for at most timeout in all.
func retryConfig(timeout time.Duration) otlpmetrichttp.RetryConfig {
	return otlpmetrichttp.RetryConfig{Enabled: true, InitialInterval: min(500*time.Millisecond, timeout/4),
		MaxInterval: max(timeout/2, time.Millisecond), MaxElapsedTime: timeout}
}

// counted is an exporter whose pushes are counted in a Health: the SDK reports a failed push
// only to the global error handler, which says nothing to the screen or the report.
type counted struct {
	sdkmetric.Exporter
	h *export.Health
}

// Export implements sdkmetric.Exporter.
func (c counted) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	err := c.Exporter.Export(ctx, rm)
	c.h.Record(err, time.Now())
	return err
}

// Pusher pushes every device the feed lists, adding a MeterProvider when a device appears.
type Pusher struct {
	cfg   Config
	proto string
	feed  export.Feed
	sigs  *export.Signatures
	start time.Time

	mu        sync.Mutex
	providers map[string]*sdkmetric.MeterProvider
	stop      context.CancelFunc
	done      chan struct{}
}

// Start begins pushing. The exporters connect lazily: an unreachable collector is an error of
// a later push (reported through the OpenTelemetry error handler), not of Start.
func Start(ctx context.Context, cfg Config, feed export.Feed, topN int) (*Pusher, error) {
	if err := CheckEndpoint(cfg.Endpoint); err != nil {
		return nil, err
	}
	proto, err := ResolveProtocol(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	p := &Pusher{cfg: cfg, proto: proto, feed: feed, sigs: &export.Signatures{N: topN}, start: time.Now(),
		providers: map[string]*sdkmetric.MeterProvider{}, stop: cancel, done: make(chan struct{})}
	if err := p.sync(ctx); err != nil {
		cancel()
		return nil, err
	}
	go p.watch(ctx)
	return p, nil
}

// watch picks up devices that appear during the run.
func (p *Pusher) watch(ctx context.Context) {
	defer close(p.done)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = p.sync(ctx) // a failure is retried next second; Stop reports nothing new
		}
	}
}

func (p *Pusher) sync(ctx context.Context) error {
	for _, d := range p.feed() {
		if d.Snap == nil || d.Snap.Session.Source == "" {
			continue // no session yet: the resource would not say which device this is
		}
		l := export.LabelsOf(d)
		p.mu.Lock()
		_, ok := p.providers[l.Serial]
		p.mu.Unlock()
		if ok {
			continue
		}
		mp, err := p.provider(ctx, l)
		if err != nil {
			return err
		}
		p.mu.Lock()
		p.providers[l.Serial] = mp
		p.mu.Unlock()
	}
	return nil
}

// provider builds one device's MeterProvider: its resource, exporter and periodic reader.
func (p *Pusher) provider(ctx context.Context, l export.Labels) (*sdkmetric.MeterProvider, error) {
	res, err := Resource(ctx, l, p.cfg.Version)
	if err != nil {
		return nil, err
	}
	exp, err := newExporter(ctx, p.cfg, p.proto)
	if err != nil {
		return nil, err
	}
	if p.cfg.Health != nil {
		exp = counted{Exporter: exp, h: p.cfg.Health}
	}
	opts := []sdkmetric.PeriodicReaderOption{sdkmetric.WithProducer(&producer{p: p, serial: l.Serial}),
		sdkmetric.WithTimeout(p.cfg.pushTimeout())}
	if p.cfg.Interval > 0 {
		opts = append(opts, sdkmetric.WithInterval(p.cfg.Interval))
	}
	return sdkmetric.NewMeterProvider(sdkmetric.WithResource(res),
		sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, opts...))), nil
}

// Resource describes one device by OpenTelemetry's semantic conventions; OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES override what fpstop sets.
func Resource(ctx context.Context, l export.Labels, version string) (*resource.Resource, error) {
	opts := []resource.Option{resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithAttributes(semconv.ServiceName("fpstop"), semconv.OSName("Android"))}
	if version != "" {
		opts = append(opts, resource.WithAttributes(semconv.ServiceVersion(version)))
	}
	if l.Serial != "" {
		opts = append(opts, resource.WithAttributes(semconv.DeviceID(l.Serial)))
	}
	if l.Model != "" {
		opts = append(opts, resource.WithAttributes(semconv.DeviceModelName(l.Model)))
	}
	if l.Android != "" {
		opts = append(opts, resource.WithAttributes(semconv.OSVersion(l.Android)))
	}
	opts = append(opts, resource.WithTelemetrySDK(), resource.WithFromEnv())
	res, err := resource.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("otlp resource: %w", err)
	}
	return res, nil
}

// Stop pushes the final numbers of every device and shuts the exporters down.
func (p *Pusher) Stop(ctx context.Context) error {
	p.stop()
	<-p.done
	var errs []error
	if err := p.sync(ctx); err != nil { // a device whose session arrived since the last second
		errs = append(errs, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, mp := range p.providers {
		if err := mp.Shutdown(ctx); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("otlp: %w", err)
	}
	return nil
}

// producer hands one device's metrics to its reader at each push.
type producer struct {
	p      *Pusher
	serial string
}

// Produce implements sdkmetric.Producer.
func (pr *producer) Produce(context.Context) ([]metricdata.ScopeMetrics, error) {
	for _, d := range pr.p.feed() {
		if d.Snap != nil && d.Snap.Session.Device.Serial == pr.serial {
			return []metricdata.ScopeMetrics{scopeMetrics(d, pr.p.sigs, pr.p.start, time.Now())}, nil
		}
	}
	return nil, nil
}
