package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/fpstop/fpstop/compare"
	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/source/sim"
)

// plan is how many comparisons of each kind to run. Every seed follows from the pair's index,
// so a plan always gives the same figures.
type plan struct {
	Pairs5      int // same-build pairs at 5 iterations a side
	Pairs3      int // the first 3 iterations of the first Pairs3 of them
	Single      int // the first iteration of the first Single of them
	Power       int // pairs at PowerIterations a side: the same build against each of WorkScales
	JankySmooth int // smooth (BASE) against janky (NEW), 5 iterations a side
	// PowerIterations of a power pair: BASE is a same-build pair's 5 + 5 iterations (≤ 10).
	PowerIterations int
	// WorkScales slow the NEW build's frame work (each reported); Detect, one of them, must be
	// found in ≥ 80 %: the smallest slowdown 10 iterations find that often (docs/compare.md).
	WorkScales []float64
	Detect     float64
	Duration   time.Duration
	Hz         float64
}

// fullPlan meets the counts docs/compare.md reports; shortPlan is a tenth of it for
// `go test -short`.
var (
	fullPlan  = plan{Pairs5: 200, Pairs3: 100, Single: 50, Power: 50, JankySmooth: 20, PowerIterations: 10, WorkScales: []float64{1.05, 1.08, 1.09, 1.1}, Detect: 1.09, Duration: 20 * time.Second, Hz: 120}
	shortPlan = plan{Pairs5: 20, Pairs3: 10, Single: 10, Power: 5, JankySmooth: 3, PowerIterations: 10, WorkScales: []float64{1.05, 1.08, 1.09, 1.1}, Detect: 1.09, Duration: 20 * time.Second, Hz: 120}
)

// The docs' gates (docs/ci.md, docs/compare.md).
const (
	gateFPS  = 2
	gateJank = 1
)

// tally counts one kind of comparison's outcomes.
type tally struct {
	Name                                          string
	Pairs, Unchanged, Better, Worse, Inconclusive int
	Exit1                                         int // a gate failed
	Phases                                        int // warned that the sides caught different phases
}

func (t *tally) add(r *compare.Result) {
	t.Pairs++
	switch r.Verdict {
	case compare.Better:
		t.Better++
	case compare.Worse:
		t.Worse++
	case compare.Inconclusive:
		t.Inconclusive++
	default:
		t.Unchanged++
	}
	if r.GatesFailed {
		t.Exit1++
	}
	for _, w := range r.Warnings {
		if strings.HasPrefix(w, compare.PhaseWarning) {
			t.Phases++
			break
		}
	}
}

// wilson is the 95 % Wilson score interval of k successes in n, in percent.
func wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	const z = 1.959963984540054
	p, nf := float64(k)/float64(n), float64(n)
	c := (p + z*z/(2*nf)) / (1 + z*z/nf)
	h := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / (1 + z*z/nf)
	return 100 * math.Max(0, c-h), 100 * math.Min(1, c+h)
}

// results of a plan.
type results struct {
	Same5, Same3, Single, JankySmooth tally
	Power                             []tally // one per work scale
}

// simulate runs one simulated iteration in virtual time and loads it as compare loads a
// recording.
func simulate(ctx context.Context, scenario string, seed int64, p plan, scale float64) (*compare.Run, error) {
	s, err := sim.New(sim.Config{Scenario: scenario, Hz: p.Hz, Seed: seed, Duration: p.Duration, WorkScale: scale})
	if err != nil {
		return nil, err
	}
	ch := make(chan []source.Event, 16)
	errc := make(chan error, 1)
	go func() { errc <- s.Run(ctx, ch); close(ch) }()
	var evs []source.Event
	for b := range ch {
		evs = append(evs, b...)
	}
	if err := <-errc; err != nil {
		return nil, err
	}
	return compare.FromEvents(fmt.Sprintf("%s-seed%d-x%g", scenario, seed, scale), evs, metrics.Config{})
}

func simulateAll(ctx context.Context, scenario string, seeds []int64, p plan, scale float64) ([]*compare.Run, error) {
	out := make([]*compare.Run, len(seeds))
	for i, s := range seeds {
		r, err := simulate(ctx, scenario, s, p, scale)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

func seeds(from int64, n int) []int64 {
	out := make([]int64, n)
	for i := range out {
		out[i] = from + int64(i)
	}
	return out
}

func compareRuns(base, new []*compare.Run) (*compare.Result, error) {
	o := compare.DefaultOptions()
	o.MaxFPSDrop, o.MaxJankIncrease = gateFPS, gateJank
	o.BaseLabel, o.NewLabel, o.NoMessages = "base", "new", true
	return compare.Compare(base, new, o)
}

// scaleSeed is the first seed of a work scale's slowed builds: from the scale itself, so a
// scale gives the same figures whatever other scales the plan runs.
func scaleSeed(scale float64) int64 { return 1_000_000 * int64(math.Round(scale*100)) }

// calibrate runs the plan: pair k's same-build iterations are janky at seeds 10,000 + 10k …
// + 9 (BASE the first five, NEW the next five); the power pair's NEW at work scale s is at
// seeds 1,000,000·round(100·s) + 10k …; the janky-smooth pair's BASE is smooth at seeds
// 5,000,000 + 5k ….
func calibrate(ctx context.Context, p plan, progress io.Writer) (*results, error) {
	if p.Pairs3 > p.Pairs5 || p.Single > p.Pairs5 || p.Power > p.Pairs5 || p.JankySmooth > p.Pairs5 || p.PowerIterations > 10 {
		return nil, errors.New("the 3-iteration, single-run, power and janky-smooth pairs reuse the 5-iteration pairs' runs: at most as many, and at most 10 power iterations")
	}
	res := &results{Same5: tally{Name: "same build, 5 iterations"}, Same3: tally{Name: "same build, 3 iterations"},
		Single: tally{Name: "same build, 1 run"}, JankySmooth: tally{Name: "smooth → janky, 5 iterations"}}
	for _, sc := range p.WorkScales {
		res.Power = append(res.Power, tally{Name: fmt.Sprintf("frame work ×%g, %d iterations", sc, p.PowerIterations)})
	}
	for k := range p.Pairs5 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		runs, err := simulateAll(ctx, "janky", seeds(10_000+10*int64(k), 10), p, 1)
		if err != nil {
			return nil, err
		}
		base, new := runs[:5], runs[5:]
		type job struct {
			t    *tally
			b, n []*compare.Run
		}
		jobs := []job{{&res.Same5, base, new}}
		if k < p.Pairs3 {
			jobs = append(jobs, job{&res.Same3, base[:3], new[:3]})
		}
		if k < p.Single {
			jobs = append(jobs, job{&res.Single, base[:1], new[:1]})
		}
		for i, sc := range p.WorkScales {
			if k >= p.Power {
				break
			}
			slow, err := simulateAll(ctx, "janky", seeds(scaleSeed(sc)+10*int64(k), p.PowerIterations), p, sc)
			if err != nil {
				return nil, err
			}
			jobs = append(jobs, job{&res.Power[i], runs[:p.PowerIterations], slow})
		}
		if k < p.JankySmooth {
			smooth, err := simulateAll(ctx, "smooth", seeds(5_000_000+5*int64(k), 5), p, 1)
			if err != nil {
				return nil, err
			}
			jobs = append(jobs, job{&res.JankySmooth, smooth, base})
		}
		for _, j := range jobs {
			r, err := compareRuns(j.b, j.n)
			if err != nil {
				return nil, err
			}
			j.t.add(r)
		}
		if progress != nil && (k+1)%20 == 0 {
			fmt.Fprintf(progress, "calibrate: %d of %d pairs\n", k+1, p.Pairs5)
		}
	}
	return res, nil
}

// check says which of docs/compare.md's promises the results break (none: nil).
func (r *results) check(p plan) []string {
	var bad []string
	pct := func(k, n int) float64 { return 100 * float64(k) / float64(max(n, 1)) }
	for _, t := range []tally{r.Same5, r.Same3} {
		if pct(t.Unchanged, t.Pairs) < 92 {
			bad = append(bad, fmt.Sprintf("%s: unchanged in %.1f %% (want ≥ 92 %%)", t.Name, pct(t.Unchanged, t.Pairs)))
		}
		if pct(t.Exit1, t.Pairs) > 2 {
			bad = append(bad, fmt.Sprintf("%s: a gate failed in %.1f %% (want ≤ 2 %%)", t.Name, pct(t.Exit1, t.Pairs)))
		}
	}
	if s := r.Single; pct(s.Better+s.Worse, s.Pairs) > 5 {
		bad = append(bad, fmt.Sprintf("%s: better or worse in %.1f %% (want ≤ 5 %%)", s.Name, pct(s.Better+s.Worse, s.Pairs)))
	}
	for i, sc := range p.WorkScales {
		if pw := r.Power[i]; sc == p.Detect && pct(pw.Worse, pw.Pairs) < 80 {
			bad = append(bad, fmt.Sprintf("%s: worse in %.1f %% (want ≥ 80 %%)", pw.Name, pct(pw.Worse, pw.Pairs)))
		}
	}
	if !slices.Contains(p.WorkScales, p.Detect) {
		bad = append(bad, fmt.Sprintf("the plan does not run the work scale %g it promises to detect", p.Detect))
	}
	if js := r.JankySmooth; js.Worse != js.Pairs {
		bad = append(bad, fmt.Sprintf("%s: worse in %d of %d (want all)", js.Name, js.Worse, js.Pairs))
	}
	return bad
}

// write prints the results as the Markdown table docs/compare.md holds.
func (r *results) write(w io.Writer, p plan) {
	fmt.Fprintf(w, "Simulator `janky` at %g Hz, %v per iteration; gates --max-fps-drop %d --max-jank-increase %d; 95 %% Wilson intervals.\n\n", p.Hz, p.Duration, gateFPS, gateJank)
	fmt.Fprintf(w, "| comparison | pairs | unchanged | better | worse | inconclusive | exit 1 | phases warned | flagged (better or worse), 95 %% CI |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, t := range append(append([]tally{r.Same5, r.Same3, r.Single}, r.Power...), r.JankySmooth) {
		k := t.Better + t.Worse
		lo, hi := wilson(k, t.Pairs)
		fmt.Fprintf(w, "| %s | %d | %d | %d | %d | %d | %d | %d | %.1f %% [%.1f, %.1f] |\n", t.Name, t.Pairs, t.Unchanged, t.Better, t.Worse, t.Inconclusive, t.Exit1, t.Phases,
			100*float64(k)/float64(max(t.Pairs, 1)), lo, hi)
	}
}
