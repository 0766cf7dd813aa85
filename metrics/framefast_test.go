package metrics

import (
	"math/rand"
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

// TestAggPerfDog checks agg's PerfDog counts against the rule written plainly: a frame longer
// than 83.33 ms and than twice the mean of the three frames before it (125 ms: big jank).
func TestAggPerfDog(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	a := newAgg(8)
	var ts []int64
	var jank, big, stutter int64
	for i := 0; i < 5000; i++ {
		ft := int64(1+rng.Intn(12)) * 16_666_667
		if rng.Intn(4) == 0 {
			ft = int64(rng.Intn(200_000_000))
		}
		if n := len(ts); n >= 3 && ft > perfdogJankNs && ft > 2*(ts[n-1]+ts[n-2]+ts[n-3])/3 {
			jank++
			stutter += ft
			if ft > perfdogBigJankNs {
				big++
			}
		}
		ts = append(ts, ft)
		a.add(&frameFacts{displayNs: ft, interval: 16_666_667}, int64(i/10), int64(i+1)*16_666_667)
	}
	if a.jank != jank || a.bigJank != big || a.stutterN != stutter {
		t.Fatalf("jank %d big %d stutter %d, want %d %d %d", a.jank, a.bigJank, a.stutterN, jank, big, stutter)
	}
}
