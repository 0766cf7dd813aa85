package metrics

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fpstop/fpstop/source"
)

// TestRunnerDoAfterQueuedBatches: a Do asked for while batches are still queued runs after
// them. A Switch to another phone resets the pipeline through Do; were the old phone's last
// batches applied after that reset, its rate would come back and the new phone's would read
// "refresh rate changed: 120 Hz → 60 Hz". The runner picks among ready channels at random,
// so the race is tried many times.
func TestRunnerDoAfterQueuedBatches(t *testing.T) {
	for i := 0; i < 200; i++ {
		p := NewPipeline(Config{})
		r := NewRunner(p, time.Hour)
		in := make(chan []source.Event, 4)
		in <- []source.Event{&source.Refresh{AtNs: 1, Hz: 120}}
		done := make(chan struct{})
		go func() { _ = r.Run(context.Background(), in); close(done) }()
		if !r.Do(context.Background(), func(p *Pipeline) { p.ResetSource() }) {
			t.Fatal("Do did not run")
		}
		in <- []source.Event{&source.Refresh{AtNs: 2, Hz: 60}}
		close(in)
		<-done
		s := r.Latest()
		for _, w := range s.Warnings {
			if strings.Contains(w, "refresh rate changed") {
				t.Fatalf("try %d: the reset ran before the queued batch: %q", i, w)
			}
		}
		if s.RefreshHz != 60 {
			t.Fatalf("try %d: refresh %v Hz, want 60", i, s.RefreshHz)
		}
	}
}
