package metrics

import (
	"testing"

	"github.com/fpstop/fpstop/source"
)

// TestGapSlicesAreMarked (issue 27): the seconds a disconnection left unseen are marked Gap in
// the run's series and its window's, so the screen draws them as a gap, not as the app's idle
// time; seconds the app drew nothing in while it was seen stay plain idle, and the rates are
// what they were without the mark (a gap slice is idle to them).
func TestGapSlicesAreMarked(t *testing.T) {
	const s = int64(1e9)
	build := func(gap bool) *Snapshot {
		p := NewPipeline(Config{})
		p.Add(&source.Session{Source: source.KindGfxinfo, RefreshHz: 60})
		v := steady(p, 1*s, 60) // slice 0: frames
		// slices 1 and 2: nothing drawn, seen (idle); slices 3–6: the phone away
		p.Add(&source.Tick{NowNs: 4 * s})
		if gap {
			p.Add(&source.Gap{FromNs: 4 * s, ToNs: 8 * s, Reason: "device disconnected"})
		}
		steady(p, 8*s+(v-2*s)%16_666_667, 60) // slice 7: frames again
		return p.Snapshot()
	}
	marked, plain := build(true), build(false)
	var gaps []int
	for i, sp := range marked.Series {
		if sp.Gap {
			gaps = append(gaps, i)
			if !sp.Idle || sp.Frames != 0 {
				t.Errorf("gap slice %d: %+v", i, sp)
			}
		}
	}
	if len(gaps) != 4 || gaps[0] != 3 || gaps[3] != 6 {
		t.Errorf("gap slices %v, want 3–6 (slice 1 and 2 idle, seen); series %+v", gaps, marked.Series)
	}
	if w := marked.Windows[0].Series; len(w) < 7 || !w[4].Gap || w[1].Gap {
		t.Errorf("the window's series: %+v", w)
	}
	for i, sp := range plain.Series {
		if sp.Gap {
			t.Errorf("slice %d marked a gap without one: %+v", i, sp)
		}
	}
	if marked.Totals.FPSWall != plain.Totals.FPSWall || marked.Totals.FPS != plain.Totals.FPS {
		t.Errorf("the mark moved the rates: fps %v / %v, wall %v / %v", marked.Totals.FPS, plain.Totals.FPS, marked.Totals.FPSWall, plain.Totals.FPSWall)
	}
}
