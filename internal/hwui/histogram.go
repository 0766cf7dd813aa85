// Package hwui reproduces the frame-time histogram and percentile rule of Android's
// libs/hwui/ProfileData.cpp exactly, so fpstop's percentiles are comparable with what
// `dumpsys gfxinfo` prints. It is written by hand (no library has Android's buckets) and is
// shared by metrics (to compute) and the tests' simulated phone (internal/testkit/simtext, to
// render gfxinfo text with a summary).
//
// Buckets: frames up to 5 ms → "5ms"; then 1 ms steps to 32 ms, 2 ms steps to 48 ms, 4 ms steps
// to 133 ms (57 buckets in all); then 50 ms steps from 150 ms to 4950 ms (97 buckets). A frame's
// ms is its duration truncated to whole ms, as ns2ms does. Frames of 136–199 ms land in the
// 150 ms bucket (ProfileData.cpp's `<=` bound check writes index 57, which aliases the first slow
// bucket; 140–149 ms reach it through the slow path, whose (ms−150)/50 truncates to 0).
package hwui

// Bucket counts.
const (
	FastBuckets = 57
	SlowBuckets = 97
	NumBuckets  = FastBuckets + SlowBuckets // 154

	bucketMin   = 5
	bucket2ms   = 32
	bucket4ms   = 48
	slowStartMs = 150
	slowStepMs  = 50
)

// Index returns the histogram bucket (0..153) of a frame lasting durNs nanoseconds.
func Index(durNs int64) int {
	if durNs < 0 {
		durNs = 0
	}
	ms := durNs / 1_000_000
	if ms <= bucketMin {
		return 0
	}
	// A uint32 in Android: a frame longer than ~49 days wraps there; we clamp instead.
	if ms > 1<<31 {
		return NumBuckets - 1
	}
	idx := ms
	if idx > bucket4ms {
		idx = (idx-bucket4ms)>>1 + bucket4ms
	}
	if idx > bucket2ms {
		idx = (idx-bucket2ms)>>1 + bucket2ms
	}
	idx -= bucketMin
	if idx <= FastBuckets { // Android's off-by-one: 57 aliases slow bucket 0
		return int(idx)
	}
	s := (ms - slowStartMs) / slowStepMs // truncates toward zero, as C does
	if s < 0 {
		s = 0
	}
	if s > SlowBuckets-1 {
		s = SlowBuckets - 1
	}
	return FastBuckets + int(s)
}

// BucketMs is the label Android prints for bucket i ("5ms" … "4950ms").
func BucketMs(i int) int {
	if i >= FastBuckets {
		return (i-FastBuckets)*slowStepMs + slowStartMs
	}
	v := i + bucketMin
	if v > bucket2ms {
		v += v - bucket2ms
	}
	if v > bucket4ms {
		v += v - bucket4ms + 1
	}
	return v
}

// Histogram is Android's frame-time histogram. The zero value is empty and ready.
type Histogram struct {
	Counts [NumBuckets]int64
	Total  int64
}

// Add counts one frame of durNs.
func (h *Histogram) Add(durNs int64) {
	h.Counts[Index(durNs)]++
	h.Total++
}

// Merge adds o's counts to h.
func (h *Histogram) Merge(o *Histogram) {
	for i, c := range o.Counts {
		h.Counts[i] += c
	}
	h.Total += o.Total
}

// Percentile returns the bucket label (ms) Android prints for percentile p: the bucket where the
// count accumulated from the slowest bucket down reaches N − p·N/100 (integer division). An empty
// histogram gives 4950, as Android prints for windows without frames.
func (h *Histogram) Percentile(p int) int {
	return Percentile(h.Counts[:], h.Total, p, BucketMs)
}

// Percentile is ProfileData.cpp's rule over any of its histograms (the frame-time one here, the
// GPU-time one a simulated dump prints): walk the buckets from the slowest down until the count
// seen reaches N − p·N/100 (integer division); label names the bucket found. An empty histogram
// gives the slowest bucket's label.
func Percentile(counts []int64, total int64, p int, label func(int) int) int {
	pos := int64(p) * total / 100
	remaining := total - pos
	for i := len(counts) - 1; i >= 0; i-- {
		remaining -= counts[i]
		if remaining <= 0 {
			return label(i)
		}
	}
	return 0
}
