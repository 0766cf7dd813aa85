package metrics

import (
	"context"
	"testing"
	"time"

	"github.com/fpstop/fpstop/source"
)

// TestHistoryKeepsEveryFrame: the history holds the frames beyond RecentLen, in order, with the
// levels the fixtures derive; an older snapshot's history never changes, not even when the
// history drops its older half; Reset empties it.
func TestHistoryKeepsEveryFrame(t *testing.T) {
	p := NewPipeline(Config{RecentLen: 4, HistoryLen: 8})
	p.Add(&source.Refresh{AtNs: origin, Hz: 90})
	// TestFixture90Hz's first seven frames: dropped 0,1,4,5,14,36,63 → levels best, best,
	// best, normal, middle, high, frozen.
	feed(p, 11_111_111, []float64{11, 12, 55, 56, 160, 410, 700}, []int64{0, 1, 4, 5, 14, 36, 63})
	s1 := p.Snapshot()
	if len(s1.Recent) != 4 || len(s1.History) != 7 || s1.HistoryDropped != 0 {
		t.Fatalf("recent %d, history %d (dropped %d), want 4 and 7 (0)", len(s1.Recent), len(s1.History), s1.HistoryDropped)
	}
	wantLevels := []Level{LevelBest, LevelBest, LevelBest, LevelNormal, LevelMiddle, LevelHigh, LevelFrozen}
	for i, m := range s1.History {
		if m.Level != wantLevels[i] || m.Window != "w" {
			t.Errorf("history[%d] = %+v, want level %v of window w", i, m, wantLevels[i])
		}
	}
	if m := s1.History[6]; m.CostNs != 700_000_000 || m.Dropped != 63 || m.VsyncNs <= s1.History[5].VsyncNs {
		t.Errorf("last frame %+v, want cost 700 ms, dropped 63, after the one before", m)
	}
	first := s1.History[0]

	// Three more frames: the 8th fills HistoryLen 8; the 9th overflows it, which keeps the
	// newer half (frames 5–8) and adds the 9th; then the 10th: 6 frames, 4 let go.
	v := s1.History[6].VsyncNs + 64*11_111_111
	for range 3 {
		p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 5e6, IntervalNs: 11_111_111})
		v += 11_111_111
	}
	s2 := p.Snapshot()
	if len(s2.History) != 6 || s2.HistoryDropped != 4 {
		t.Fatalf("history %d (dropped %d), want 6 (4)", len(s2.History), s2.HistoryDropped)
	}
	if s2.History[0].Level != LevelMiddle || s2.History[2].Level != LevelFrozen {
		t.Errorf("kept %+v, want the newer frames from the middle-level one on", s2.History)
	}
	if len(s1.History) != 7 || s1.History[0] != first {
		t.Errorf("the first snapshot's history changed: %d frames, first %+v", len(s1.History), s1.History[0])
	}

	p.Reset()
	if s3 := p.Snapshot(); len(s3.History) != 0 || s3.HistoryDropped != 0 {
		t.Errorf("after Reset: history %d (dropped %d), want empty", len(s3.History), s3.HistoryDropped)
	}
}

// TestNoHistory: HistoryLen < 0 keeps no history (a headless run), and the frames still count.
func TestNoHistory(t *testing.T) {
	p := NewPipeline(Config{HistoryLen: -1})
	p.Add(&source.Refresh{AtNs: origin, Hz: 90})
	feed(p, 11_111_111, []float64{11, 12, 55}, []int64{0, 1, 4})
	s := p.Snapshot()
	if len(s.History) != 0 || s.HistoryDropped != 0 || s.Totals.Frames != 3 {
		t.Errorf("history %d (dropped %d), frames %d; want no history and 3 frames", len(s.History), s.HistoryDropped, s.Totals.Frames)
	}
}

// TestHistorySharedWhileGrowing: a reader walks each published snapshot's history while the
// pipeline keeps adding frames (and drops the older half twice over): every history it sees
// is whole and in order, and under -race no access is reported (the pipeline only ever writes
// past a published history's length, or into a new array).
func TestHistorySharedWhileGrowing(t *testing.T) {
	p := NewPipeline(Config{HistoryLen: 256})
	r := NewRunner(p, time.Millisecond)
	in := make(chan []source.Event)
	ran := make(chan error, 1)
	go func() { ran <- r.Run(context.Background(), in) }()
	stop := make(chan struct{})
	read := make(chan int, 1)
	go func() {
		seen := 0
		for {
			select {
			case <-stop:
				read <- seen
				return
			default:
			}
			h := r.Latest().History
			for i := 1; i < len(h); i++ {
				if h[i].VsyncNs <= h[i-1].VsyncNs || h[i].Window != "w" {
					t.Errorf("history out of order or torn at %d: %+v after %+v", i, h[i], h[i-1])
					read <- seen
					return
				}
			}
			if len(h) > 0 {
				seen++
			}
		}
	}()
	const t60 = int64(16_666_667)
	v := origin
	for range 100 {
		batch := make([]source.Event, 0, 10)
		for range 10 {
			batch = append(batch, &source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 8e6, IntervalNs: t60})
			v += t60
		}
		in <- batch
		time.Sleep(200 * time.Microsecond) // let snapshots be published in between
	}
	close(in)
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	close(stop)
	if seen := <-read; seen == 0 {
		t.Fatal("the reader never saw a history")
	}
	if h := r.Latest().History; len(h) == 0 || h[len(h)-1].VsyncNs != v-t60 {
		t.Errorf("the last history ends at %v, want the last frame %d", h[len(h)-1:], v-t60)
	}
}

// TestHistoryBudget: each frame of the history carries the deadline it was judged against,
// for the timeline's cursor: a pipelined 120 Hz frame's printed one (2 periods: its 14 ms is
// on time), one period on a row without a deadline (its 10 ms is late).
func TestHistoryBudget(t *testing.T) {
	const T = int64(8_333_333)
	p := NewPipeline(Config{HistoryLen: 8})
	p.Add(&source.Refresh{AtNs: origin, Hz: 120})
	v := origin + T
	p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 14_000_000, IntervalNs: T, DeadlineNs: v + 2*T, VsyncID: 1})
	v += 4 * T
	p.Add(&source.Frame{Window: "w", VsyncNs: v, DoneNs: v + 10_000_000, IntervalNs: T, VsyncID: 2})
	h := p.Snapshot().History
	if len(h) != 2 || h[0].BudgetNs != 2*T || h[0].Dropped != 0 || h[1].BudgetNs != T || h[1].Dropped != 1 {
		t.Errorf("history %+v; want budgets %d (0 dropped) and %d (1 dropped)", h, 2*T, T)
	}
}
