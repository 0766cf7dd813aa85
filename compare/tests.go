package compare

import (
	"math"
	"sort"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// maxExact bounds the arrangements an exact permutation test enumerates: up to 7 + 7
// iterations (3,432 arrangements) the test is exact; beyond, Welch's t, whose normal
// approximation of a mean over that many iterations is good.
const maxExact = 5000

// twoSample is a test of NEW − BASE on per-iteration values.
type twoSample struct {
	d, lo, hi float64 // difference of the means and Welch's t interval
	p         float64 // two-sided p-value
	pMin      float64 // the smallest p this test could give with these sample sizes (0: none)
	method    string
}

// testIterations compares per-iteration values (n ≥ 2 each side): Welch's t interval always;
// the p-value from an exact permutation test when its arrangements are few enough to enumerate
// and its smallest p can still reach alpha (it cannot below 2/C(n₁+n₂, n₁): 0.1 for 3 + 3),
// else from Welch's t test. ok is false when neither side varies and the means are equal.
func testIterations(base, new []float64, confidence, alpha float64) (t twoSample, ok bool) {
	nb, nn := float64(len(base)), float64(len(new))
	mb, mn := mean(base), mean(new)
	vb, vn := stat.Variance(base, nil), stat.Variance(new, nil)
	t.d = mn - mb
	se2 := vb/nb + vn/nn
	arr := binomial(len(base)+len(new), len(base))
	exactMin := math.Inf(1)
	if arr <= maxExact {
		exactMin = minPermutationP(len(base), len(new), arr)
	}
	if se2 == 0 {
		// both sides identical run to run: the difference is exact, a test has nothing to add
		t.lo, t.hi, t.method = t.d, t.d, MethodWelch
		if t.d == 0 {
			return t, false
		}
		t.p = 0
		if !math.IsInf(exactMin, 1) {
			t.p, t.pMin, t.method = exactMin, exactMin, MethodPermutation
		}
		return t, true
	}
	se := math.Sqrt(se2)
	df := se2 * se2 / (sq(vb/nb)/(nb-1) + sq(vn/nn)/(nn-1))
	st := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}
	q := st.Quantile(1 - (1-confidence)/2)
	t.lo, t.hi = t.d-q*se, t.d+q*se
	if exactMin <= alpha {
		t.p, t.pMin, t.method = permutationP(base, new), exactMin, MethodPermutation
		return t, true
	}
	t.p, t.method = 2*st.CDF(-math.Abs(t.d)/se), MethodWelch
	return t, true
}

func sq(x float64) float64 { return x * x }

// binomial is C(n, k) as a float (exact for the sizes compared here).
func binomial(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return math.Round(r)
}

// minPermutationP is the smallest two-sided p an exact permutation test can give: the one
// arrangement putting the largest values on one side (and, with equal sizes, its mirror).
func minPermutationP(nb, nn int, arrangements float64) float64 {
	if nb == nn {
		return 2 / arrangements
	}
	return 1 / arrangements
}

// permutationP is the exact two-sided permutation p-value of the difference of the means: the
// share of all ways to split the pooled values into sides of these sizes whose difference is
// at least as far from zero as the observed one.
func permutationP(base, new []float64) float64 {
	pool := append(append([]float64(nil), base...), new...)
	total := 0.0
	for _, v := range pool {
		total += v
	}
	nb, nn := len(base), len(new)
	obs := math.Abs(mean(new) - mean(base))
	tol := 1e-9 * math.Max(1, obs)
	var hits, all int
	// choose which pool indices go to BASE; the rest are NEW
	var rec func(start, left int, sum float64)
	rec = func(start, left int, sum float64) {
		if left == 0 {
			all++
			d := (total-sum)/float64(nn) - sum/float64(nb)
			if math.Abs(d) >= obs-tol {
				hits++
			}
			return
		}
		for i := start; i <= len(pool)-left; i++ {
			rec(i+1, left-1, sum+pool[i])
		}
	}
	rec(0, nb, 0)
	return float64(hits) / float64(all)
}

// holm adjusts p-values for testing them together (Holm's step-down): the i-th smallest is
// multiplied by (m − i + 1), and adjusted values never decrease in that order. NaN stays NaN
// and is not counted.
func holm(p []float64) []float64 {
	idx := make([]int, 0, len(p))
	for i, v := range p {
		if !math.IsNaN(v) {
			idx = append(idx, i)
		}
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	out := make([]float64, len(p))
	for i := range out {
		out[i] = math.NaN()
	}
	m, run := len(idx), 0.0
	for rank, i := range idx {
		run = math.Max(run, math.Min(1, float64(m-rank)*p[i]))
		out[i] = run
	}
	return out
}

// tInterval is the t interval of a mean from n ≥ 2 values at confidence.
func tInterval(x []float64, confidence float64) (lo, hi float64) {
	m, s := stat.MeanStdDev(x, nil)
	n := float64(len(x))
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - (1-confidence)/2)
	h := q * s / math.Sqrt(n)
	return m - h, m + h
}
