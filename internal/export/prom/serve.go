package prom

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/expfmt"

	"github.com/fpstop/fpstop/internal/export"
	"github.com/fpstop/fpstop/internal/outfile"
)

// NewRegistry registers the fpstop Collector over feed, plus the process and Go runtime
// collectors (fpstop's own CPU and memory, what a lab watches when it runs many devices).
func NewRegistry(feed export.Feed, topN int) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(feed, topN),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		collectors.NewGoCollector())
	return reg
}

// NewFileRegistry registers only the fpstop Collector over feed: the textfile collector's file
// must hold no go_* or process_* families, which node_exporter exports itself and refuses as
// duplicates (an error on every scrape).
func NewFileRegistry(feed export.Feed, topN int) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(feed, topN))
	return reg
}

// CheckListen validates a --metrics-listen address. The host must be given: ":9464" would
// listen on every interface, and the endpoint has no authentication, so exposing it beyond this
// host takes an explicit address (0.0.0.0:9464, or one interface's address).
func CheckListen(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--metrics-listen %q: want HOST:PORT such as 127.0.0.1:9464: %w", addr, err)
	}
	if host == "" {
		return fmt.Errorf("--metrics-listen %q: give the host: 127.0.0.1%s for this machine only, or 0.0.0.0%s to expose it (it has no authentication)", addr, addr, addr)
	}
	if _, err := net.LookupPort("tcp", port); err != nil || port == "" {
		return fmt.Errorf("--metrics-listen %q: bad port", addr)
	}
	return nil
}

// Server serves /metrics.
type Server struct {
	srv *http.Server
	ln  net.Listener
}

// Listen binds addr now (so a busy port is an error at start, not later) and returns a Server
// for g; call Serve to answer.
func Listen(addr string, g prometheus.Gatherer) (*Server, error) {
	if err := CheckListen(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics endpoint: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(g, promhttp.HandlerOpts{EnableOpenMetrics: true}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintln(w, "fpstop: metrics at /metrics")
	})
	return &Server{ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}, nil
}

// Addr is the address the server listens on (with the port chosen when addr said :0).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Serve answers until ctx ends, then shuts down (waiting up to a second for scrapes in flight).
func (s *Server) Serve(ctx context.Context) error {
	errc := make(chan error, 1)
	go func() { errc <- s.srv.Serve(s.ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("metrics endpoint: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.srv.Shutdown(sctx)
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("metrics endpoint: %w", err)
	}
	return nil
}

// WriteFile writes g's metrics to path in the Prometheus text format that node_exporter's
// textfile collector parses, atomically: a temporary file in the same directory renamed over
// path, so the collector never reads half a file. Only a regular file or a new path is
// replaced (outfile.Replace): a device, FIFO or link at path is refused.
func WriteFile(path string, g prometheus.Gatherer) error {
	mfs, err := g.Gather()
	if err != nil {
		return fmt.Errorf("metrics file: %w", err)
	}
	var buf bytes.Buffer
	enc := expfmt.NewEncoder(&buf, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			return fmt.Errorf("metrics file: %w", err)
		}
	}
	err = outfile.Replace(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
	if err != nil {
		return fmt.Errorf("metrics file: %w", err)
	}
	return nil
}

// WriteFileEvery rewrites path every period until ctx ends, and once more then (the final
// numbers). It returns the first error; a failed write is retried at the next period. Every
// write is counted in h (when not nil), so that failures reach the screen and the report.
func WriteFileEvery(ctx context.Context, path string, period time.Duration, g prometheus.Gatherer, h *export.Health) error {
	var first error
	write := func() {
		err := WriteFile(path, g)
		if h != nil {
			h.Record(err, time.Now())
		}
		if err != nil && first == nil {
			first = err
		}
	}
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			write()
		case <-ctx.Done():
			write()
			return first
		}
	}
}
