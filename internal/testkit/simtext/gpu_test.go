package simtext

import "testing"

func TestGPUHistogram(t *testing.T) {
	for _, c := range []struct {
		ns   int64
		want int
	}{{0, 1}, {999_999, 1}, {1_000_000, 1}, {1_999_999, 1}, {2_000_000, 2}, {25_999_999, 25}, {26_000_000, 4950}, {-5, 1}} {
		if got := GPUBucketMs(GPUIndex(c.ns)); got != c.want {
			t.Errorf("%d ns → %d ms bucket, want %d", c.ns, got, c.want)
		}
	}
	var h GPUHistogram
	if h.Percentile(50) != 4950 {
		t.Fatalf("empty GPU histogram p50 = %d, want 4950", h.Percentile(50))
	}
	// 90 frames of 3 ms, 9 of 10 ms, 1 of 40 ms. Counting N − p·N/100 frames down from the
	// slowest bucket: p50 needs 50 (reached in the 3 ms bucket), p90 10 (1 + 9: the 10 ms
	// bucket), p95 5 (10 ms), p99 1 (the overflow bucket, printed 4950).
	for i := 0; i < 90; i++ {
		h.Add(3_500_000)
	}
	for i := 0; i < 9; i++ {
		h.Add(10_200_000)
	}
	h.Add(40_000_000)
	for p, want := range map[int]int{50: 3, 90: 10, 95: 10, 99: 4950} {
		if got := h.Percentile(p); got != want {
			t.Errorf("p%d = %d, want %d", p, got, want)
		}
	}
}
