package metrics

import (
	"math/rand"
	"testing"
)

// TestDisplayRunCounts checks that counting runs of equal display times (agg.run) leaves the
// counts the 1 % low reads exactly as one map increment per frame would, folding included.
func TestDisplayRunCounts(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for trial := 0; trial < 50; trial++ {
		a := newAgg(16)
		want := map[int64]int64{}
		spread := int64(1 + rng.Intn(3*maxDisplayKeys))
		for i := 0; i < 20000; i++ {
			d := (1 + rng.Int63n(spread)) * 1000
			if rng.Intn(4) != 0 && i > 0 {
				d = a.run // runs of equal times, as real frames come
			}
			ff := frameFacts{displayNs: d, interval: 1000}
			key := d
			if _, ok := want[key]; !ok && len(want) >= maxDisplayKeys {
				key = foldKey(want, key)
			}
			want[key]++
			a.add(&ff, 0, int64(i))
		}
		got := map[int64]int64{}
		for k, v := range a.display {
			got[k] = v
		}
		got[a.runKey] += a.runN
		if len(got) != len(want) {
			t.Fatalf("trial %d: %d keys, want %d", trial, len(got), len(want))
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("trial %d: key %d counted %d, want %d", trial, k, got[k], v)
			}
		}
		a.flushRun()
		for k, v := range want {
			if a.display[k] != v {
				t.Fatalf("trial %d: after flushRun key %d counted %d, want %d", trial, k, a.display[k], v)
			}
		}
	}
}
