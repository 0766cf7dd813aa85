package compare

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/record"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// simRecording records the simulator (virtual time) to a file in dir, as
// `fpstop --headless --source sim --record` would.
func simRecording(t testing.TB, dir, scenario string, hz float64, seed int64, d time.Duration) string {
	t.Helper()
	s, err := sim.New(sim.Config{Scenario: scenario, Hz: hz, Seed: seed, Speed: 0, Duration: d})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("%s-%g-%d.jsonl.gz", scenario, hz, seed))
	ch := make(chan []source.Event, 64)
	errc := make(chan error, 1)
	go func() { errc <- s.Run(context.Background(), ch); close(ch) }()
	var w *record.Writer
	for batch := range ch {
		if w == nil {
			var sess *source.Session
			for _, ev := range batch {
				if se, ok := ev.(*source.Session); ok {
					sess = se
				}
			}
			if w, err = record.Create(path, record.HeaderFromSession(sess, "test", time.Unix(0, 0)), record.Options{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Write(batch); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func load(t testing.TB, paths ...string) []*Run {
	t.Helper()
	var out []*Run
	for _, p := range paths {
		r, err := Load(p, metrics.Config{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}
