package hwui

import "testing"

func ms(v float64) int64 { return int64(v * 1e6) }

func TestBucketLabels(t *testing.T) {
	// The labels Android prints, in order (HISTOGRAM line of any Android 7+ dump).
	want := []int{5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25,
		26, 27, 28, 29, 30, 31, 32, 34, 36, 38, 40, 42, 44, 46, 48, 53, 57, 61, 65, 69, 73, 77,
		81, 85, 89, 93, 97, 101, 105, 109, 113, 117, 121, 125, 129, 133}
	for i, w := range want {
		if got := BucketMs(i); got != w {
			t.Errorf("BucketMs(%d) = %d, want %d", i, got, w)
		}
	}
	if BucketMs(FastBuckets) != 150 || BucketMs(NumBuckets-1) != 4950 {
		t.Errorf("slow bucket labels: %d .. %d", BucketMs(FastBuckets), BucketMs(NumBuckets-1))
	}
}

func TestIndex(t *testing.T) {
	cases := []struct {
		dur  int64
		want int // bucket label in ms
	}{
		{-5, 5}, {0, 5}, {ms(5.99), 5}, {ms(6), 6}, {ms(16.67), 16}, {ms(32.9), 32},
		{ms(33), 32}, {ms(34), 34}, {ms(35), 34}, {ms(48), 48}, {ms(49), 48}, {ms(50), 48},
		{ms(51), 48}, {ms(52), 53}, {ms(55), 53}, {ms(56), 57}, {ms(133), 133}, {ms(135), 133}, {ms(136), 150},
		{ms(139), 150}, {ms(145), 150}, {ms(199), 150}, {ms(200), 200}, {ms(4949), 4900},
		{ms(4950), 4950}, {ms(100000), 4950}, {1 << 62, 4950},
	}
	for _, c := range cases {
		if got := BucketMs(Index(c.dur)); got != c.want {
			t.Errorf("bucket of %d ns = %d ms, want %d ms", c.dur, got, c.want)
		}
	}
}

func TestPercentile(t *testing.T) {
	var h Histogram
	if h.Percentile(50) != 4950 {
		t.Fatalf("empty histogram p50 = %d, want 4950 as Android prints", h.Percentile(50))
	}
	// 90 frames at 8 ms, 9 at 20 ms, 1 at 700 ms. p50: pos 50, remaining 50 → reaches 0 in the
	// 8 ms bucket. p90: remaining 10 → 700 (1) then 20 (9) → 20. p95: remaining 5 → 20.
	// p99: remaining 1 → 700.
	for i := 0; i < 90; i++ {
		h.Add(ms(8.2))
	}
	for i := 0; i < 9; i++ {
		h.Add(ms(20.5))
	}
	h.Add(ms(700))
	for p, want := range map[int]int{50: 8, 90: 20, 95: 20, 99: 700} {
		if got := h.Percentile(p); got != want {
			t.Errorf("p%d = %d, want %d", p, got, want)
		}
	}
}
