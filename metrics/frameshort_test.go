package metrics

import (
	"math/rand"
	"testing"
)

// TestPerfDogMatchesDefinition: agg.add's PerfDog counts (the 83.33 ms test made before the
// mean of the previous three) are PerfDog's definition applied frame by frame.
func TestPerfDogMatchesDefinition(t *testing.T) {
	rng := rand.New(rand.NewSource(5))
	for trial := 0; trial < 40; trial++ {
		a := newAgg(16)
		var prev []int64
		var jank, big, stutter int64
		for i := 0; i < 5000; i++ {
			d := int64(1+rng.Intn(3)) * 16_666_667
			if rng.Intn(8) == 0 {
				d = int64(rng.Intn(12)) * 16_666_667 // up to 183 ms, across both thresholds
				if trial%2 == 1 {
					d = int64(rng.Intn(200_000_000)) // any time, off the vsync grid
				}
			}
			if n := len(prev); n >= 3 {
				mean := (prev[n-1] + prev[n-2] + prev[n-3])
				if d > 2*mean/3 && d > perfdogJankNs {
					jank++
					stutter += d
					if d > perfdogBigJankNs {
						big++
					}
				}
			}
			prev = append(prev, d)
			ff := frameFacts{displayNs: d, interval: 16_666_667}
			a.add(&ff, 0, int64(i))
		}
		if a.jank != jank || a.bigJank != big || a.stutterN != stutter {
			t.Fatalf("trial %d: jank %d big %d stutter %d, want %d %d %d", trial, a.jank, a.bigJank, a.stutterN, jank, big, stutter)
		}
	}
}
