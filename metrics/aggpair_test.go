package metrics

import (
	"math/rand"
	"reflect"
	"testing"

	"github.com/fpstop/fpstop/internal/hwui"
)

// TestAddPair holds addPair (the frame path's one call for the run's and the window's
// aggregates) to agg.add called on each: every field of the window's aggregate and of the
// run's with the window's counts added (addCounts, as Pipeline.run reads it), the slice ring,
// the display counts and PerfDog's state included, after runs of frames with every kind of facts
// (late, flagged, deadline and legacy jank, history, outside the histogram, long PerfDog
// stutters), slices that repeat, advance, jump past the ring and go back, and a late frame's
// stall over later slices, with one window or two. The run's aggregate has its slot set, as the
// pipeline's has; a window's may have one too.
func TestAddPair(t *testing.T) {
	rng := rand.New(rand.NewSource(17))
	for trial := 0; trial < 20; trial++ {
		const ringLen = 8
		pt, at := newAgg(ringLen), newAgg(ringLen)      // the run's, through addPair and add
		pws := []*agg{newAgg(ringLen), newAgg(ringLen)} // two windows'
		aws := []*agg{newAgg(ringLen), newAgg(ringLen)}
		pt.slots, at.slots = newSlotSet(), newSlotSet()
		if trial%5 == 4 {
			pws[0].slots, aws[0].slots = newSlotSet(), newSlotSet()
		}
		periods := []int64{16_666_667, 8_333_333, 11_111_111}
		var idx, vsync int64 = 0, 1_000_000_000
		for i := 0; i < 2000; i++ {
			T := periods[rng.Intn(len(periods))]
			if trial%2 == 0 {
				T = periods[0]
			}
			switch r := rng.Intn(100); {
			case r < 60: // same slice
			case r < 90:
				idx++
			case r < 97:
				idx += 1 + rng.Int63n(3*ringLen)
			default:
				idx = max(0, idx-1-rng.Int63n(2*ringLen)) // back past the ring's cell
			}
			vsync += T - 2*T + rng.Int63n(3*T)
			ff := frameFacts{interval: T}
			switch r := rng.Intn(20); {
			case r < 14:
			case r < 18:
				ff.dropped = 1 + rng.Int63n(3)
			default:
				ff.dropped = 4 + rng.Int63n(12) // > 83 ms: PerfDog's test
			}
			ff.displayNs = (ff.dropped + 1) * T
			ff.cost = ff.displayNs - rng.Int63n(T)
			ff.level = Classify(ff.dropped, [4]int64{1, 2, 4, 8})
			ff.endIdx = idx
			if ff.dropped > 0 && rng.Intn(2) == 0 {
				ff.endIdx = idx + rng.Int63n(2*ringLen)
			}
			ff.flagged = rng.Intn(10) == 0
			ff.inHist = rng.Intn(20) != 0
			if ff.inHist {
				ff.histNs = ff.cost
				ff.histIdx = hwui.Index(ff.histNs)
			}
			ff.hasDeadline = trial%3 != 0 && rng.Intn(10) != 0
			ff.deadlineJanky = ff.hasDeadline && ff.dropped > 0
			ff.legacyKnown = rng.Intn(10) != 0
			ff.legacyJanky = ff.legacyKnown && rng.Intn(6) == 0
			ff.history = rng.Intn(30) == 0
			ff2 := ff
			k := 0
			if trial%2 == 1 && rng.Intn(3) == 0 {
				k = 1
			}
			pw, aw := pws[k], aws[k]
			addPair(pt, pw, &ff, idx, vsync)
			at.add(&ff2, idx, vsync)
			aw.add(&ff2, idx, vsync)
			if !ff2.history { // a window's bursts (its fps_wall) are addPair's only
				aw.bursts.add(vsync, vsync+ff2.cost, ff2.interval)
			}
			// (compared every few frames: reflect over the ring and histogram is slow)
			if i%5 != 0 && i != 1999 {
				continue
			}
			run := *pt
			run.addCounts(pws[0])
			run.addCounts(pws[1])
			if !reflect.DeepEqual(&run, at) || !reflect.DeepEqual(pw, aw) {
				t.Fatalf("trial %d, frame %d (%+v, slice %d): addPair's aggregates differ from add's:\n"+
					"run   %+v\nwant  %+v\nwindow %+v\nwant   %+v", trial, i, ff, idx, run, *at, *pw, *aw)
			}
		}
	}
}
