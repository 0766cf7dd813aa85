package compare

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// rngFor returns the generator for one scope: the user's seed and the scope's name, so each
// scope's resampling is reproducible on its own whatever else is compared.
func rngFor(seed uint64, scope string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(scope))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// meanBootstrap resamples per-recording (or per-occurrence) values on each side with
// replacement and returns the replicate differences of fn (NEW − BASE).
func meanBootstrap(base, new []float64, b int, rng *rand.Rand, fn func([]float64) float64) []float64 {
	reps := make([]float64, b)
	rb, rn := make([]float64, len(base)), make([]float64, len(new))
	for i := range b {
		for j := range rb {
			rb[j] = base[rng.IntN(len(base))]
		}
		for j := range rn {
			rn[j] = new[rng.IntN(len(new))]
		}
		reps[i] = fn(rn) - fn(rb)
	}
	return reps
}

func mean(x []float64) float64 { return stat.Mean(x, nil) }

// p95 is the 95th percentile (nearest rank, gonum's empirical quantile); x is sorted in place.
func p95(x []float64) float64 {
	slices.Sort(x)
	return stat.Quantile(0.95, stat.Empirical, x, nil)
}

// interval turns bootstrap replicates of a difference into a percentile confidence interval
// and a two-sided p-value: twice the share of replicates on the far side of zero (the smallest
// 1 − confidence at which the interval would exclude zero), with the +1 correction so p is
// never 0. NaN replicates are dropped; ok is false when fewer than half remain.
func interval(reps []float64, confidence float64) (lo, hi, p float64, ok bool) {
	x := make([]float64, 0, len(reps))
	for _, v := range reps {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			x = append(x, v)
		}
	}
	if len(x) == 0 || 2*len(x) < len(reps) {
		return math.NaN(), math.NaN(), math.NaN(), false
	}
	slices.Sort(x)
	alpha := 1 - confidence
	lo = stat.Quantile(alpha/2, stat.Empirical, x, nil)
	hi = stat.Quantile(1-alpha/2, stat.Empirical, x, nil)
	var below, above int
	for _, v := range x {
		if v <= 0 {
			below++
		}
		if v >= 0 {
			above++
		}
	}
	p = 2 * float64(min(below, above)+1) / float64(len(x)+1)
	return lo, hi, math.Min(1, p), true
}

func stdDev(x []float64) float64 { return stat.StdDev(x, nil) }
