package metrics

import "testing"

// TestLatenessOf: the scale follows the dropped refreshes and the drop level at the frame's own
// rate: at 120 Hz (thresholds 6/18/48/84) 5 dropped is late, 18 very late, 84 frozen; a frame
// with no refresh dropped is on time whatever its cost.
func TestLatenessOf(t *testing.T) {
	thr := [4]int64{6, 18, 48, 84}
	for _, c := range []struct {
		d    int64
		want Lateness
	}{{0, OnTime}, {1, Late}, {5, Late}, {6, Late}, {17, Late}, {18, VeryLate}, {48, VeryLate}, {83, VeryLate}, {84, Frozen}, {500, Frozen}} {
		if got := LatenessOf(c.d, Classify(c.d, thr)); got != c.want {
			t.Errorf("%d dropped at 120 Hz: %s, want %s", c.d, got, c.want)
		}
	}
	if got := (FramePoint{CostMs: 48, Dropped: 0, Level: LevelBest}).Lateness(); got != OnTime {
		t.Errorf("a 48 ms frame that dropped nothing is %s", got)
	}
}
