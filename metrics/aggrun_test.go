package metrics

import (
	"math"
	"math/rand"
	"sort"
	"testing"
)

// TestDisplayRunCounts checks that counting display times outside the map (agg.pend) leaves
// the counts the 1 % low reads exactly as one map increment per frame would, folding included,
// with runs of equal times (as real frames come) and times that come back after others.
func TestDisplayRunCounts(t *testing.T) {
	rng := rand.New(rand.NewSource(3))
	for trial := 0; trial < 50; trial++ {
		a := newAgg(16)
		want := map[int64]int64{}
		spread := int64(1 + rng.Intn(3*maxDisplayKeys))
		if trial%2 == 0 {
			spread = int64(1 + rng.Intn(2*displayPend)) // few times: pend's entries reused
		}
		var last int64
		for i := 0; i < 20000; i++ {
			d := (1 + rng.Int63n(spread)) * 1000
			if rng.Intn(4) != 0 && i > 0 {
				d = last
			}
			last = d
			ff := frameFacts{displayNs: d, interval: 1000}
			key := d
			if _, ok := want[key]; !ok && len(want) >= maxDisplayKeys {
				key = foldKey(want, key)
			}
			want[key]++
			a.add(&ff, 0, int64(i))
		}
		got := a.displayCounts()
		if len(got) != len(want) || len(a.display) != len(want) {
			t.Fatalf("trial %d: %d keys (%d in the map), want %d", trial, len(got), len(a.display), len(want))
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("trial %d: key %d counted %d, want %d", trial, k, got[k], v)
			}
		}
		if got, want := a.low1pct(), low1pctOf(want, 20000); got != want {
			t.Fatalf("trial %d: 1 %% low %v, want %v", trial, got, want)
		}
	}
}

// low1pctOf is the 1 % low of counts (display time → frames) over n frames, by its definition.
func low1pctOf(counts map[int64]int64, n int64) float64 {
	keys := make([]int64, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	rank := int64(math.Ceil(0.99 * float64(n)))
	var cum int64
	for _, k := range keys {
		if cum += counts[k]; cum >= rank {
			return 1e12 / float64(k) / 1e3
		}
	}
	return math.NaN()
}
