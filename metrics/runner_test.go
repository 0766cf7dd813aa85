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

// TestRunnerPublishesAFreezeAtOnce: a batch that turns the state to FROZEN is published when it
// is applied, with a signal on Changes, not at the next refresh (an hour away here).
func TestRunnerPublishesAFreezeAtOnce(t *testing.T) {
	p := NewPipeline(Config{})
	r := NewRunner(p, time.Hour)
	in := make(chan []source.Event)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = r.Run(ctx, in); close(done) }()
	defer func() { cancel(); <-done }()

	batch := []source.Event{&source.Session{Source: source.KindLogcat, RefreshHz: 60}}
	v := int64(1e9)
	for i := 0; i < 60; i++ {
		batch = append(batch, &source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 10*ms, IntervalNs: 16_666_667})
		v += 16_666_667
	}
	batch = append(batch, &source.Dispatch{Pid: 7, Tid: 7, Handler: "android.os.Handler",
		Callback: "com.example.feed.FeedActivity$3@1", StartNs: v, SeenNs: v + 400*ms})
	in <- batch
	select {
	case <-r.Changes():
	case <-time.After(10 * time.Second):
		t.Fatal("no change of state signalled")
	}
	if s := r.Latest(); s.State != source.StateFrozen || s.Busy != "FeedActivity$3" || s.StateForNs != 400*ms {
		t.Errorf("published %q %q for %d ms, want frozen FeedActivity$3 for 400 ms", s.State, s.Busy, s.StateForNs/ms)
	}
}
