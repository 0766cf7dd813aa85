package compare

import (
	"testing"
	"time"
)

// BenchmarkCompare60s compares two 60 s 120 Hz simulator recordings (loaded once) with the
// default 2000 resamples: the statistics alone.
func BenchmarkCompare60s(b *testing.B) {
	dir := b.TempDir()
	base := load(b, simRecording(b, dir, "demo", 120, 1, 60*time.Second))
	new := load(b, simRecording(b, dir, "janky", 120, 1, 60*time.Second))
	b.ResetTimer()
	for range b.N {
		if _, err := Compare(base, new, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad60s reads a 60 s 120 Hz recording for comparison (pipeline included).
func BenchmarkLoad60s(b *testing.B) {
	path := simRecording(b, b.TempDir(), "demo", 120, 1, 60*time.Second)
	b.ResetTimer()
	for range b.N {
		load(b, path)
	}
}
