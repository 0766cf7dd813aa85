package metrics

import (
	"maps"
	"math"
	"slices"
)

// Game figures of a layer (DESIGN §4a), each after the convention of the tool that named it, so
// a number can be held against that tool's: per-frame percentiles as CapFrameX computes its
// "P10"/"P1" fps, and GameBench's "Low 1 %" (the average FPS of the slowest 1 % of frames),
// rather than percentiles of per-second counts, which a 60 fps game with one slow second in ten
// reads as a 0.

const (
	// frameTimeUnitNs is the resolution frame times are kept at: 10 µs, well below a
	// refresh's jitter on a real display, so a session's distinct keys stay few.
	frameTimeUnitNs = 10_000
	// frameTimeMaxUnits caps a kept frame time at 10 s (a longer one counts as 10 s).
	frameTimeMaxUnits = 1_000_000
	// maxFrameTimeKeys bounds the map; past it a new time folds into the nearest larger key.
	maxFrameTimeKeys = 8192
)

// frameTimes counts a layer's judged frame times (present intervals) in 10 µs units.
type frameTimes struct {
	n      int64
	counts map[int64]int64
}

func (f *frameTimes) add(ns int64) {
	u := min(max((ns+frameTimeUnitNs/2)/frameTimeUnitNs, 1), frameTimeMaxUnits)
	if f.counts == nil {
		f.counts = make(map[int64]int64, 8)
	}
	if _, ok := f.counts[u]; !ok && len(f.counts) >= maxFrameTimeKeys {
		u = foldKey(f.counts, u)
	}
	f.counts[u]++
	f.n++
}

// sorted returns the kept times ascending.
func (f *frameTimes) sorted() []int64 { return slices.Sorted(maps.Keys(f.counts)) }

// percentileMs is the nearest-rank percentile of the frame times in ms: the time at rank
// ceil(q × n) in ascending order (q 0.9: the time 90 % of frames are at or under). NaN
// without frames.
func (f *frameTimes) percentileMs(q float64) float64 {
	if f.n == 0 {
		return math.NaN()
	}
	rank := max(int64(math.Ceil(q*float64(f.n)-1e-9)), 1)
	var cum int64
	for _, k := range f.sorted() {
		cum += f.counts[k]
		if cum >= rank {
			return float64(k*frameTimeUnitNs) / 1e6
		}
	}
	return math.NaN()
}

// fpsAt is 1000 / the q-th percentile frame time in ms (fps_p90, fps_p99).
func (f *frameTimes) fpsAt(q float64) float64 {
	ms := f.percentileMs(q)
	if math.IsNaN(ms) || ms <= 0 {
		return math.NaN()
	}
	return 1000 / ms
}

// low1pctAvg is GameBench's "Low 1 %": the slowest 1 % of frames (floor(n / 100), at least one)
// divided by their summed frame time in seconds. NaN without frames.
func (f *frameTimes) low1pctAvg() float64 {
	if f.n == 0 {
		return math.NaN()
	}
	want := max(f.n/100, 1)
	keys := f.sorted()
	var took, units int64
	for i := len(keys) - 1; i >= 0 && took < want; i-- {
		c := min(f.counts[keys[i]], want-took)
		took += c
		units += c * keys[i]
	}
	if units == 0 {
		return math.NaN()
	}
	return float64(took) * 1e9 / float64(units*frameTimeUnitNs)
}
