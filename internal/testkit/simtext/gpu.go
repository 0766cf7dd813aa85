package simtext

import "github.com/fpstop/fpstop/internal/hwui"

// The GPU-time histogram a simulated dump prints (ProfileData's mGPUFrameCounts, Android 10+): a frame's GPU time in whole ms
// lands in bucket ms−1 for 1–25 ms (under 1 ms in the first), and anything longer in the last
// bucket, which Android prints as 4950ms.
const (
	GPUBuckets     = 26
	gpuOverflowMs  = 4950
	gpuLastFastIdx = GPUBuckets - 2
)

// GPUIndex returns the GPU histogram bucket (0..25) of GPU work lasting durNs nanoseconds.
func GPUIndex(durNs int64) int {
	ms := max(durNs, 0) / 1_000_000
	if ms > gpuLastFastIdx+1 {
		return GPUBuckets - 1
	}
	return max(int(ms)-1, 0)
}

// GPUBucketMs is the label Android prints for GPU bucket i ("1ms" … "25ms", "4950ms").
func GPUBucketMs(i int) int {
	if i >= GPUBuckets-1 {
		return gpuOverflowMs
	}
	return i + 1
}

// GPUHistogram is Android's GPU-time histogram. The zero value is empty and ready.
type GPUHistogram struct {
	Counts [GPUBuckets]int64
	Total  int64
}

// Add counts one frame whose GPU work lasted durNs.
func (h *GPUHistogram) Add(durNs int64) {
	h.Counts[GPUIndex(durNs)]++
	h.Total++
}

// Percentile returns the bucket label (ms) Android prints for GPU percentile p, by hwui's
// percentile rule (the one fpstop's frame-time histogram uses).
func (h *GPUHistogram) Percentile(p int) int {
	return hwui.Percentile(h.Counts[:], h.Total, p, GPUBucketMs)
}
