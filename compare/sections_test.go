package compare

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// simRun is a simulator run in memory with atrace sections added: each name in ms gets
// n occurrences on the main thread lasting about that long (a Perfetto recording's work).
func simRun(t *testing.T, name string, seed int64, n int, ms map[string]float64) *Run {
	t.Helper()
	s, err := sim.New(sim.Config{Scenario: "janky", Hz: 60, Seed: seed, Speed: 0, Duration: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	ch := make(chan []source.Event, 64)
	errc := make(chan error, 1)
	go func() { errc <- s.Run(context.Background(), ch); close(ch) }()
	var evs []source.Event
	var from int64
	for b := range ch {
		for _, e := range b {
			if f, ok := e.(*source.Frame); ok && from == 0 {
				from = f.VsyncNs
			}
		}
		evs = append(evs, b...)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	for sec, d := range ms {
		for i := range n {
			start := from + int64(i)*100_000_000
			dur := int64((d + float64(i%5)) * 1e6) // a spread, so p95 is not one value
			evs = append(evs, &source.Section{Thread: "main", Name: sec + " 1234", StartNs: start, EndNs: start + dur})
		}
	}
	r, err := FromEvents(name, evs, metrics.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestCompareSections: two recordings with atrace sections compare their slow sections by
// folded name as slow messages are (slower, gone, new, with counts and p95), informationally:
// the verdict and metrics are those of the same runs without sections, and a comparison
// without sections carries no slow_sections key.
func TestCompareSections(t *testing.T) {
	base := simRun(t, "base", 1, 40, map[string]float64{"inflate": 20, "RV OnBindView": 30})
	new := simRun(t, "new", 1, 40, map[string]float64{"inflate": 45, "Compose:recompose": 25})
	plainB, plainN := simRun(t, "base", 1, 0, nil), simRun(t, "new", 1, 0, nil)
	res, err := Compare([]*Run{base}, []*Run{new}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"inflate N": MsgSlower, "RV OnBindView N": MsgGone, "Compose:recompose N": MsgNew}
	for _, s := range res.Sections {
		if st, ok := want[s.Name]; ok {
			if s.Status != st || s.Thread != "main" {
				t.Errorf("%s: %s on %q, want %s on main (%+v)", s.Name, s.Status, s.Thread, st, s)
			}
			delete(want, s.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("not compared: %v (got %+v)", want, res.Sections)
	}
	inflate := res.Sections[0]
	if inflate.Name != "inflate N" || inflate.CountBase != 40 || inflate.CountNew != 40 || *inflate.P95.Diff < 20 || inflate.P95.Method != MethodOccurrenceBootstrap {
		t.Errorf("slowest section first, counted and tested: %+v", inflate)
	}
	plain, err := Compare([]*Run{plainB}, []*Run{plainN}, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if plain.Verdict != res.Verdict || !sameJSON(t, plain.Metrics, res.Metrics) {
		t.Errorf("sections changed the verdict or metrics: %s vs %s", plain.Verdict, res.Verdict)
	}
	if js, _ := json.Marshal(plain); bytes.Contains(js, []byte(`"slow_sections"`)) || len(plain.Sections) != 0 {
		t.Errorf("a comparison without sections has slow_sections: %v", plain.Sections)
	}
	var txt, md strings.Builder
	if err := WriteText(&txt, res); err != nil {
		t.Fatal(err)
	}
	if err := WriteMarkdown(&md, res); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "slow sections (p95 ms):\n  slower    inflate N (main): ") || !strings.Contains(md.String(), "| inflate N (main) | slower | 40 → 40 |") {
		t.Errorf("text or markdown without the sections:\n%s\n%s", txt.String(), md.String())
	}
}

func sameJSON(t *testing.T, a, b any) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Equal(ja, jb)
}
