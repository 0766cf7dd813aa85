package prom

import (
	"context"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/fpstop/fpstop/internal/export"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// simSnapshot runs the simulator's scenario to its end through a pipeline and returns the
// final Snapshot, relabelled as the device serial.
func simSnapshot(t *testing.T, scenario, serial string) *metrics.Snapshot {
	t.Helper()
	s, err := sim.New(sim.Config{Scenario: scenario, Hz: 60, Seed: 3, Speed: 0, Duration: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	p := metrics.NewPipeline(metrics.Config{})
	ch := make(chan []source.Event, 16)
	errc := make(chan error, 1)
	go func() { errc <- s.Run(context.Background(), ch); close(ch) }()
	for b := range ch {
		p.AddBatch(b)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	snap := p.Snapshot()
	snap.Session.Device = source.Device{Serial: serial, Model: "Pixel " + serial, Android: "14"}
	if snap.Totals.Frames == 0 || len(snap.Windows) == 0 {
		t.Fatalf("the %s scenario produced no frames", scenario)
	}
	return snap
}

func gather(t *testing.T, feed export.Feed, topN int) map[string]*dto.MetricFamily {
	t.Helper()
	mfs, err := NewRegistry(feed, topN).Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, mf := range mfs {
		out[mf.GetName()] = mf
	}
	return out
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// find returns the sample of family name whose labels include want.
func find(t *testing.T, fams map[string]*dto.MetricFamily, name string, want map[string]string) *dto.Metric {
	t.Helper()
	mf := fams[name]
	if mf == nil {
		t.Fatalf("no %s in the scrape", name)
	}
next:
	for _, m := range mf.GetMetric() {
		for k, v := range want {
			if label(m, k) != v {
				continue next
			}
		}
		return m
	}
	t.Fatalf("no %s with %v", name, want)
	return nil
}

func TestCollectorMatchesSnapshots(t *testing.T) {
	a, b := simSnapshot(t, "demo", "A1"), simSnapshot(t, "janky", "B2")
	feed := func() []export.Device {
		return []export.Device{{Snap: a, Connected: true}, {Snap: b, Source: "gfxinfo+logcat", Connected: true}}
	}
	fams := gather(t, feed, 0)
	for _, snap := range []*metrics.Snapshot{a, b} {
		serial := snap.Session.Device.Serial
		for _, w := range snap.Windows {
			sel := map[string]string{"serial": serial, "window": w.Name, "model": "Pixel " + serial, "android": "14"}
			if got := find(t, fams, "fpstop_frames_total", sel).GetCounter().GetValue(); got != float64(w.Totals.Frames) {
				t.Errorf("%s %s frames_total = %v, snapshot says %d", serial, w.Name, got, w.Totals.Frames)
			}
			if got := find(t, fams, "fpstop_janky_frames_total", sel).GetCounter().GetValue(); got != float64(w.Totals.Janky) {
				t.Errorf("%s %s janky = %v, snapshot says %d", serial, w.Name, got, w.Totals.Janky)
			}
			if got := find(t, fams, "fpstop_dropped_refreshes_total", sel).GetCounter().GetValue(); got != float64(w.Totals.Dropped) {
				t.Errorf("%s %s dropped = %v, snapshot says %d", serial, w.Name, got, w.Totals.Dropped)
			}
			checkHistogram(t, find(t, fams, "fpstop_frame_time_seconds", sel).GetHistogram(), w)
			if fps, ok := export.LastFPS(w.Series); ok {
				if got := find(t, fams, "fpstop_fps", sel).GetGauge().GetValue(); got != fps {
					t.Errorf("%s %s fps = %v, want %v", serial, w.Name, got, fps)
				}
			}
		}
	}
	if got := label(find(t, fams, "fpstop_frames_total", map[string]string{"serial": "B2"}), "source"); got != "gfxinfo+logcat" {
		t.Errorf("source label %q, want the run's --source", got)
	}
	// The names and units follow Prometheus conventions (client_golang's own linter).
	problems, err := testutil.CollectAndLint(NewCollector(feed, 0))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range problems {
		t.Errorf("lint: %s: %s", p.Metric, p.Text)
	}
}

// checkHistogram holds one exported histogram against the window's Android buckets.
func checkHistogram(t *testing.T, h *dto.Histogram, w metrics.WindowSnapshot) {
	t.Helper()
	var total int64
	for _, b := range w.Histogram {
		total += b.Count
	}
	if h.GetSampleCount() != uint64(total) {
		t.Errorf("%s histogram count %d, Android buckets hold %d", w.Name, h.GetSampleCount(), total)
	}
	if math.Abs(h.GetSampleSum()-float64(w.Totals.HistSumNs)/1e9) > 1e-9 {
		t.Errorf("%s histogram sum %v, want %v", w.Name, h.GetSampleSum(), float64(w.Totals.HistSumNs)/1e9)
	}
	prevLe, prevN := 0.0, uint64(0)
	for _, b := range h.GetBucket() {
		if b.GetUpperBound() <= prevLe || b.GetCumulativeCount() < prevN {
			t.Fatalf("%s buckets not ascending at le=%v", w.Name, b.GetUpperBound())
		}
		prevLe, prevN = b.GetUpperBound(), b.GetCumulativeCount()
	}
	// Every Android bucket's frames are at or below its own le and above the previous one.
	for _, ab := range w.Histogram {
		var below, at uint64
		for _, b := range h.GetBucket() {
			le := b.GetUpperBound() * 1000
			if le <= float64(ab.Ms) {
				below = b.GetCumulativeCount()
			}
			if le > float64(ab.Ms) && at == 0 {
				at = b.GetCumulativeCount()
			}
		}
		if at-below < uint64(ab.Count) {
			t.Errorf("%s: Android bucket %d ms (%d frames) is not inside one exported bucket", w.Name, ab.Ms, ab.Count)
		}
	}
}

func TestSlowSignaturesCapped(t *testing.T) {
	snap := simSnapshot(t, "demo", "C3")
	var msgs []metrics.MessageSnapshot
	for i, c := range []int64{50, 40, 30, 20, 10} {
		msgs = append(msgs, metrics.MessageSnapshot{Handler: "android.os.Handler", Callback: "cb", What: i, Count: c})
	}
	snap.Messages = msgs
	feed := func() []export.Device { return []export.Device{{Snap: snap, Connected: true}} }
	c := NewCollector(feed, 2)
	if n := testutil.CollectAndCount(c, "fpstop_slow_messages_total"); n != 3 {
		t.Fatalf("%d slow-message series with top 2, want 2 + other", n)
	}
	// A new signature later, even the most frequent, goes to "other": membership is fixed so
	// every series only grows.
	grown := *snap
	grown.Messages = append(append([]metrics.MessageSnapshot(nil), msgs...),
		metrics.MessageSnapshot{Handler: "x.New", What: 9, Count: 500})
	snap2 := &grown
	fams := gather(t, func() []export.Device { return []export.Device{{Snap: snap2, Connected: true}} }, 2)
	var other float64
	for _, m := range fams["fpstop_slow_messages_total"].GetMetric() {
		if label(m, "signature") == export.OtherSignature {
			other = m.GetCounter().GetValue()
		}
	}
	// A fresh collector admits the top two of this snapshot (500 and 50); the rest sum up.
	if want := float64(40 + 30 + 20 + 10); other != want {
		t.Errorf("other = %v, want %v", other, want)
	}
	sigs := &export.Signatures{N: 2}
	first := sigs.Counts("C3", msgs)
	second := sigs.Counts("C3", grown.Messages)
	if first[len(first)-1].Signature != export.OtherSignature || second[len(second)-1].Count <= first[len(first)-1].Count {
		t.Errorf("other did not grow with a late signature: %v then %v", first, second)
	}
	for i := 0; i < 2; i++ {
		if first[i].Signature != second[i].Signature {
			t.Errorf("admitted signatures changed: %v then %v", first, second)
		}
	}
}

func TestCheckListen(t *testing.T) {
	for _, bad := range []string{":9464", "9464", "localhost", "127.0.0.1:notaport", ""} {
		if CheckListen(bad) == nil {
			t.Errorf("CheckListen(%q) accepted it", bad)
		}
	}
	for _, ok := range []string{"127.0.0.1:9464", "0.0.0.0:9464", "[::1]:9464", "localhost:0"} {
		if err := CheckListen(ok); err != nil {
			t.Errorf("CheckListen(%q): %v", ok, err)
		}
	}
}

func TestServeOpenMetrics(t *testing.T) {
	snap := simSnapshot(t, "smooth", "D4")
	reg := NewRegistry(func() []export.Device { return []export.Device{{Snap: snap, Connected: true}} }, 0)
	srv, err := Listen("127.0.0.1:0", reg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx) }()
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+srv.Addr()+"/metrics", nil)
	req.Header.Set("Accept", "application/openmetrics-text; version=1.0.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/openmetrics-text") {
		t.Errorf("content type %q, want OpenMetrics", ct)
	}
	text := string(body)
	for _, want := range []string{"# EOF", `fpstop_frames_total{`, `serial="D4"`, "fpstop_frame_time_seconds_bucket{", "process_resident_memory_bytes"} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	if _, err := Listen(srv.Addr(), reg); err == nil || !strings.Contains(err.Error(), "metrics endpoint") {
		t.Errorf("binding a busy port: %v, want an error naming the metrics endpoint", err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
}

func TestWriteFileAtomicText(t *testing.T) {
	snap := simSnapshot(t, "demo", "E5")
	reg := NewRegistry(func() []export.Device { return []export.Device{{Snap: snap, Connected: true}} }, 0)
	dir := t.TempDir()
	path := filepath.Join(dir, "fpstop.prom")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, reg); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// node_exporter's textfile collector parses with this parser.
	// (legacy names: what older node_exporters accept).
	parser := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := parser.TextToMetricFamilies(f)
	if err != nil {
		t.Fatalf("the file does not parse as the text format: %v", err)
	}
	m := find(t, fams, "fpstop_frames_total", map[string]string{"serial": "E5", "window": snap.Windows[0].Name})
	if m.GetCounter().GetValue() != float64(snap.Windows[0].Totals.Frames) {
		t.Errorf("file says %v frames, snapshot %d", m.GetCounter().GetValue(), snap.Windows[0].Totals.Frames)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left behind: %v", ents)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x.prom"), reg); err == nil {
		t.Error("writing into a missing directory did not fail")
	}
}
