package otlp

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fpstop/fpstop/internal/export"
	"github.com/fpstop/fpstop/internal/testkit/otlptest"
)

// waitFor polls cond until it holds or 15 s pass (a deadline, not a timing assertion).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPushFailuresCounted (issue 31): pushes to a collector that is down, hangs, or answers
// 500 or 429 are counted as failed in the Health, which says so while they fail; Stop returns
// (the final push is bounded too).
func TestPushFailuresCounted(t *testing.T) {
	a := simSnapshot(t, "smooth", "F1", "Pixel 8")
	feed := func() []export.Device { return []export.Device{{Snap: a, Connected: true}} }
	for _, f := range []otlptest.Fault{otlptest.Down, otlptest.Hang, otlptest.Status500, otlptest.Status429} {
		t.Run(f.String(), func(t *testing.T) {
			t.Parallel() // each waits for two pushes 200 ms apart
			h := &export.Health{Name: "OTLP pushes"}
			p, err := Start(context.Background(), Config{Endpoint: otlptest.Failing(t, f), Interval: 200 * time.Millisecond,
				Health: h}, feed, 5)
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, "two failed pushes", func() bool { return h.State().Failures >= 2 })
			st := h.State()
			if !st.Failing || !st.NeverDelivered() || st.Last == "" || !strings.Contains(st.Status(), "failing") {
				t.Errorf("state %+v, status %q", st, st.Status())
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = p.Stop(ctx) // the final push fails too; Stop must still return
			if ctx.Err() != nil {
				t.Error("Stop waited for its whole deadline")
			}
			if w := h.State().Warning(); !strings.Contains(w, "failed") {
				t.Errorf("warning %q", w)
			}
		})
	}
}

// TestPushRecovers (issue 31): a collector that answers again clears the failing state; the
// counts stay for the report.
func TestPushRecovers(t *testing.T) {
	a := simSnapshot(t, "smooth", "R1", "Pixel 8")
	feed := func() []export.Device { return []export.Device{{Snap: a, Connected: true}} }
	var broken atomic.Bool
	broken.Store(true)
	endpoint, rec := otlptest.HTTPWith(t, func(w http.ResponseWriter) bool {
		if broken.Load() {
			http.Error(w, "down for maintenance", http.StatusInternalServerError)
			return true
		}
		return false
	})
	h := &export.Health{Name: "OTLP pushes"}
	p, err := Start(context.Background(), Config{Endpoint: endpoint, Interval: 200 * time.Millisecond, Health: h}, feed, 5)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(context.Background())
	waitFor(t, "a failed push", func() bool { return h.State().Failing })
	broken.Store(false)
	waitFor(t, "recovery", func() bool { return !h.State().Failing })
	st := h.State()
	if st.Failures == 0 || st.NeverDelivered() || st.Status() != "" || !strings.Contains(st.Warning(), "recovered") || rec.Count() == 0 {
		t.Errorf("after recovery: %+v status %q warning %q, %d received", st, st.Status(), st.Warning(), rec.Count())
	}
}
