package main

import (
	"context"
	"strings"
	"testing"
)

// TestCalibration runs the calibration (a tenth of it under -short, all of it otherwise, as in
// CI) and fails when compare breaks a promise docs/compare.md makes: same-build pairs
// unchanged in ≥ 92 % and failing a gate in ≤ 2 %, single runs never better or worse in more
// than 5 %, the build with 9 % more frame work (the plan's Detect) found in ≥ 80 %, smooth against
// janky always.
func TestCalibration(t *testing.T) {
	p := fullPlan
	if testing.Short() {
		p = shortPlan
	}
	res, err := calibrate(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	res.write(&b, p)
	t.Log("\n" + b.String())
	for _, bad := range res.check(p) {
		t.Error(bad)
	}
	if res.Same5.Pairs != p.Pairs5 || res.Power[0].Pairs != p.Power || res.JankySmooth.Pairs != p.JankySmooth {
		t.Errorf("ran %d/%d/%d pairs, planned %d/%d/%d", res.Same5.Pairs, res.Power[0].Pairs, res.JankySmooth.Pairs, p.Pairs5, p.Power, p.JankySmooth)
	}
}

// TestWilson: the interval of 0 of 200 and of 10 of 200 (known values of the Wilson score
// interval) and of nothing.
func TestWilson(t *testing.T) {
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{{0, 200, 0, 1.88}, {10, 200, 2.74, 8.96}} {
		lo, hi := wilson(c.k, c.n)
		if d := lo - c.lo; d > 0.01 || d < -0.01 {
			t.Errorf("wilson(%d, %d) low %.3f, want %.2f", c.k, c.n, lo, c.lo)
		}
		if d := hi - c.hi; d > 0.01 || d < -0.01 {
			t.Errorf("wilson(%d, %d) high %.3f, want %.2f", c.k, c.n, hi, c.hi)
		}
	}
}
