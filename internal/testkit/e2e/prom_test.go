package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// prometheus is a real Prometheus server (Debian's `prometheus` package) on loopback, with a
// temporary configuration and data directory, scraping one target every second.
type prometheus struct {
	api string // http://127.0.0.1:PORT
}

// findPrometheus returns the prometheus binary, skipping under -short and when it is missing
// (failing instead when FPSTOP_REQUIRE_PROMETHEUS=1, as .ci/run sets).
func findPrometheus(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the Prometheus test starts a Prometheus server")
	}
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		msg := "prometheus not found on PATH: skipping the scrape test (install it with `apt-get install prometheus`)"
		if os.Getenv("FPSTOP_REQUIRE_PROMETHEUS") == "1" {
			t.Fatal(msg + " — FPSTOP_REQUIRE_PROMETHEUS=1")
		}
		t.Skip(msg)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startPrometheus runs Prometheus scraping target (host:port) every second until the test ends.
func startPrometheus(t *testing.T, bin, target string) *prometheus {
	t.Helper()
	dir := t.TempDir()
	cfg := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: fpstop
    static_configs:
      - targets: ['%s']
`, target)
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	listen := freeAddr(t)
	cmd := exec.Command(bin, "--config.file="+cfgPath, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+listen, "--log.level=warn")
	cmd.Dir = dir
	var log strings.Builder
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting prometheus: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	p := &prometheus{api: "http://" + listen}
	waitUntil(t, "prometheus to be ready", 30*time.Second, func() bool {
		select {
		case <-exited:
			t.Fatalf("prometheus exited: %s", log.String())
		default:
		}
		resp, err := http.Get(p.api + "/-/ready")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return p
}

// sample is one series of an instant query's result.
type sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// query runs an instant PromQL query through the HTTP API.
func (p *prometheus) query(t *testing.T, q string) []sample {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", p.api+"/api/v1/query?query="+url.QueryEscape(q), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("query %q: %v", q, err)
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string   `json:"resultType"`
			Result     []sample `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("query %q: %v", q, err)
	}
	if body.Status != "success" {
		t.Fatalf("query %q: %s", q, body.Error)
	}
	return body.Data.Result
}

// value is a sample's number.
func (s sample) value() float64 {
	var f float64
	str, _ := s.Value[1].(string)
	fmt.Sscan(str, &f)
	return f
}

// dashboardQueries returns every PromQL expression of the Grafana dashboard, with its
// variables replaced as Grafana would for "all devices" and a 1 s scrape interval.
func dashboardQueries(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "grafana", "fpstop.json"))
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatalf("docs/grafana/fpstop.json: %v", err)
	}
	r := strings.NewReplacer(`"$serial"`, `".*"`, `"$package"`, `".*"`, "$__rate_interval", "5s")
	var out []string
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			if tg.Expr != "" {
				out = append(out, r.Replace(tg.Expr))
			}
		}
	}
	if len(out) < 4 {
		t.Fatalf("the dashboard has %d queries", len(out))
	}
	return out
}
