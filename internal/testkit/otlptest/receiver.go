// Package otlptest is an OTLP metrics receiver for tests, built from the official OTLP
// protobuf packages: HTTP/protobuf and gRPC on loopback, keeping every request.
package otlptest

import (
	"compress/gzip"
	"context"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Received collects what a test OTLP receiver got.
type Received struct {
	mu      sync.Mutex
	reqs    []*colmetricpb.ExportMetricsServiceRequest
	headers []http.Header
}

func (r *Received) add(req *colmetricpb.ExportMetricsServiceRequest, h http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	r.headers = append(r.headers, h)
}

// Latest returns, per device.id, the newest ResourceMetrics received.
func (r *Received) Latest() map[string]*metricpb.ResourceMetrics {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]*metricpb.ResourceMetrics{}
	for _, req := range r.reqs {
		for _, rm := range req.GetResourceMetrics() {
			out[ResAttr(rm, "device.id")] = rm
		}
	}
	return out
}

func ResAttr(rm *metricpb.ResourceMetrics, key string) string {
	for _, kv := range rm.GetResource().GetAttributes() {
		if kv.GetKey() == key {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}

// HTTP starts an OTLP/HTTP receiver on loopback built from the OTLP protobuf messages.
func HTTP(t *testing.T) (string, *Received) {
	t.Helper()
	return HTTPWith(t, nil)
}

// HTTPWith is HTTP whose every push is first offered to fail (nil: none): when it returns true
// it has answered the request itself (a collector that is broken for a while).
func HTTPWith(t *testing.T, fail func(http.ResponseWriter) bool) (string, *Received) {
	t.Helper()
	rec := &Received{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/metrics" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		if fail != nil && fail(w) {
			return
		}
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		req := &colmetricpb.ExportMetricsServiceRequest{}
		if err == nil {
			err = proto.Unmarshal(b, req)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rec.add(req, r.Header.Clone())
		out, _ := proto.Marshal(&colmetricpb.ExportMetricsServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String(), rec
}

type grpcMetrics struct {
	colmetricpb.UnimplementedMetricsServiceServer
	rec *Received
}

func (g *grpcMetrics) Export(_ context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	g.rec.add(req, nil)
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

// GRPC starts an OTLP/gRPC receiver on loopback.
func GRPC(t *testing.T) (string, *Received) {
	t.Helper()
	rec := &Received{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer()
	colmetricpb.RegisterMetricsServiceServer(s, &grpcMetrics{rec: rec})
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(s.Stop)
	return "http://" + ln.Addr().String(), rec
}

// MetricSum adds up an int sum's data points.
func MetricSum(rm *metricpb.ResourceMetrics, name string) (int64, bool) {
	var n int64
	found := false
	for _, sm := range rm.GetScopeMetrics() {
		for _, m := range sm.GetMetrics() {
			if m.GetName() == name {
				found = true
				for _, dp := range m.GetSum().GetDataPoints() {
					n += dp.GetAsInt()
				}
			}
		}
	}
	return n, found
}

// Count is how many export requests arrived.
func (r *Received) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

// Headers returns the HTTP headers of every request (nil entries for gRPC).
func (r *Received) Headers() []http.Header {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]http.Header(nil), r.headers...)
}

// Fault is how a failing test collector misbehaves.
type Fault int

const (
	// Down: nothing listens at the address.
	Down Fault = iota
	// Hang: the collector accepts and reads the request, and never answers.
	Hang
	// Status500: every push is answered 500 Internal Server Error.
	Status500
	// Status429: every push is answered 429 Too Many Requests (the exporter retries these).
	Status429
)

// String names the fault in test names.
func (f Fault) String() string {
	return [...]string{"down", "hang", "500", "429"}[f]
}

// Failing starts an OTLP/HTTP collector on loopback that fails every push as f says, and
// returns its URL. Cleanup stops it (and any hung requests).
func Failing(t *testing.T, f Fault) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	if f == Down {
		ln.Close() // the port was free a moment ago and nothing listens on it now
		return url
	}
	stop := make(chan struct{})
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		switch f {
		case Hang:
			select {
			case <-stop:
			case <-r.Context().Done():
			}
		case Status500:
			http.Error(w, "collector broken", http.StatusInternalServerError)
		case Status429:
			w.Header().Set("Retry-After", "1")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		}
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { close(stop); _ = srv.Close() })
	return url
}
