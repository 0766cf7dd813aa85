package metrics

import (
	"testing"
)

// TestClassifyMin checks the frame path's LevelBest shortcut against Classify, exhaustively
// over small thresholds (in any order, not only increasing) and drops around them.
func TestClassifyMin(t *testing.T) {
	var th [4]int64
	for a := int64(0); a < 5; a++ {
		for b := int64(0); b < 5; b++ {
			for c := int64(0); c < 5; c++ {
				for e := int64(0); e < 5; e++ {
					th = [4]int64{a, b, c, e}
					lo := min(a, b, c, e)
					for d := int64(-1); d < 7; d++ {
						if got, want := classifyMin(d, th, lo), Classify(d, th); got != want {
							t.Fatalf("classifyMin(%d, %v, %d) = %v, Classify = %v", d, th, lo, got, want)
						}
					}
				}
			}
		}
	}
}

// TestAggLevels checks agg's per-level counter array against DropLevels.add, the plain
// computation it replaces.
func TestAggLevels(t *testing.T) {
	a := newAgg(8)
	var want DropLevels
	for i := 0; i < 200; i++ {
		l := Levels[(i*7+i/3)%len(Levels)]
		a.add(&frameFacts{level: l, displayNs: 16_666_667, interval: 16_666_667}, int64(i/10), int64(i+1)*16_666_667)
		want.add(l)
	}
	if got := a.dropLevels(); got != want {
		t.Fatalf("dropLevels = %+v, want %+v", got, want)
	}
}
