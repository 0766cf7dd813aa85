package metrics

import (
	"math/rand"
	"slices"
	"testing"
)

// anchorBySort is recomputeAnchor as first written: fold every prompt time around the newest,
// sort, drop the offsets more than T/4 from the median, take the 10th percentile.
func anchorBySort(prompt []int64, newest, T int64) (anchor, spread int64) {
	var offs []int64
	for _, p := range prompt {
		offs = append(offs, lfMod(p-newest+T/2, T)-T/2)
	}
	slices.Sort(offs)
	med := offs[len(offs)/2]
	var kept []int64
	for _, d := range offs {
		if lfAbs(d-med) <= T/4 {
			kept = append(kept, d)
		}
	}
	return newest + kept[len(kept)/10], min(kept[len(kept)/10]-kept[0], T/64)
}

// TestAnchorMatchesSort checks the incrementally ordered grid against the full sort on random
// prompt times: jittered, late (wrapped around), millisecond-rounded, with the period changing
// between prompts (learned again, or given) and the ring wrapping many times.
func TestAnchorMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	for trial := 0; trial < 200; trial++ {
		s := &looperStream{T: 16_666_667}
		at := int64(1_700_000_000_000_000_000) + rng.Int63n(1e12)
		for i := 0; i < 300; i++ {
			switch r := rng.Intn(40); {
			case r == 0: // a period learned again, the grid placed at once
				s.T = []int64{8_333_333, 11_111_111, 16_666_667, 16_667_000}[rng.Intn(4)]
				s.recomputeAnchor()
			case r == 1: // a period refined without placing the grid
				s.T += int64(rng.Intn(2001) - 1000)
			case r == 2 && trial%2 == 0: // a period given as 0 and back
				s.T = 0
			}
			if s.T == 0 {
				s.T = 16_666_667
			}
			at += s.T * int64(1+rng.Intn(3))
			p := at + int64(rng.NormFloat64()*float64(s.T)/40)
			switch rng.Intn(10) {
			case 0:
				p += rng.Int63n(s.T) // late: wraps around the grid
			case 1:
				p -= p % 1_000_000 // threadtime text
			case 2:
				if len(s.prompt) > 0 { // a time the ring holds, again
					p = s.prompt[rng.Intn(len(s.prompt))]
				}
			}
			s.addPrompt(p)
			want, wantSpread := anchorBySort(s.prompt, p, s.T)
			if s.anchor != want || s.spread != wantSpread {
				t.Fatalf("trial %d prompt %d (T %d): anchor %d spread %d, a full sort gives %d %d",
					trial, i, s.T, s.anchor, s.spread, want, wantSpread)
			}
		}
	}
}
