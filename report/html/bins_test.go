package html

import (
	"math/rand"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
)

// binTestFrames fills two frame sets with the same 120 Hz frames (jankyEvery-th janky, a freeze
// every 5000): one kept frame by frame, one summarised into bins as a day-long recording is.
func binTestFrames(n, jankyEvery int) (exact, binned *frameSet) {
	rng := rand.New(rand.NewSource(5))
	exact, binned = &frameSet{}, &frameSet{}
	binned.bins = newBinSet()
	T := int64(8_333_333)
	for i := 0; i < n; i++ {
		c := &metrics.ClassifiedFrame{Frame: source.Frame{VsyncNs: 5e12 + int64(i)*T}, CostNs: T/3 + rng.Int63n(T/2)}
		switch {
		case i%5000 == 2500:
			c.CostNs, c.Dropped, c.Level = 100*T, 99, metrics.LevelFrozen
		case i%jankyEvery == 7:
			c.Dropped = 1 + rng.Int63n(30)
			c.CostNs = (c.Dropped + 1) * T
			c.Level = metrics.LevelNormal
			if c.Dropped >= 24 {
				c.Level = metrics.LevelHigh
			} else if c.Dropped >= 9 {
				c.Level = metrics.LevelMiddle
			}
		}
		exact.add(c)
		binned.add(c)
	}
	return exact, binned
}

var bandRe = regexp.MustCompile(`: (\d+) frames on time`)
var worstOfRe = regexp.MustCompile(`the worst of (\d+) `)

// drawnCounts sums what a timeline's tooltips say: on-time frames in bars, frozen markers, and
// janky frames (one per point, or the count a column's worst point stands for).
func drawnCounts(tl string) (ok, frozen, janky int) {
	for _, m := range bandRe.FindAllStringSubmatch(tl, -1) {
		n, _ := strconv.Atoi(m[1])
		ok += n
	}
	frozen = strings.Count(tl, `class="pt fz"`)
	for _, el := range strings.Split(tl, "<circle")[1:] {
		if !strings.Contains(el, `class="pt j`) {
			continue
		}
		if m := worstOfRe.FindStringSubmatch(el); m != nil {
			n, _ := strconv.Atoi(m[1])
			janky += n
		} else {
			janky++
		}
	}
	return ok, frozen, janky
}

// drawTimeline draws fs on an axis from the session's start (or its earliest frame when
// earlier) to its last frame's end.
func drawTimeline(fs *frameSet) timelineOut {
	const originNs = 5e12
	toS := func(ns int64) float64 { return float64(ns-originNs) / 1e9 }
	lo, hi := toS(min(fs.minNs, originNs)), toS(fs.maxNs)
	if hi <= lo {
		hi = lo + 1
	}
	return timeline(timelineIn{fs: fs, originNs: originNs, budgetMs: 8.33, span: [2]float64{lo, hi}})
}

// TestBinnedTimelineAccountsForEveryFrame: summarised while reading, the timeline still counts
// every on-time frame in its bars, draws every frozen frame and accounts for every janky one —
// the same totals as the frame-by-frame drawing — and needs no per-frame memory.
func TestBinnedTimelineAccountsForEveryFrame(t *testing.T) {
	for _, tc := range []struct {
		name       string
		jankyEvery int
	}{{"few janky: each drawn", 97}, {"many janky: worst per column", 9}} {
		t.Run(tc.name, func(t *testing.T) {
			exact, binned := binTestFrames(200_000, tc.jankyEvery)
			if binned.frames != nil || len(binned.bins.bins) > maxBins {
				t.Fatalf("binned set keeps %d frames and %d bins", len(binned.frames), len(binned.bins.bins))
			}
			want := [3]int{exact.count[clsOK], exact.count[clsFrozen], exact.jankyCount() - exact.count[clsFrozen]}
			for name, fs := range map[string]*frameSet{"frame by frame": exact, "binned": binned} {
				out := drawTimeline(fs)
				ok, fz, jk := drawnCounts(string(out.SVG))
				if got := [3]int{ok, fz, jk}; got != want {
					t.Errorf("%s: tooltips count on time/frozen/janky %v, the frames are %v", name, got, want)
				}
				if strings.Count(string(out.SVG), `class="freeze"`) != want[1] {
					t.Errorf("%s: not one band per frozen frame", name)
				}
				if !strings.Contains(out.Note, "every frozen frame is drawn") {
					t.Errorf("%s: note %q", name, out.Note)
				}
			}
		})
	}
}

// TestBinsStayBounded: bins double in width rather than grow, and keep the costliest frame of
// each class when they merge.
func TestBinsStayBounded(t *testing.T) {
	bs := newBinSet()
	worst := frameRec{}
	rng := rand.New(rand.NewSource(9))
	for i := 0; i < 1_000_000; i++ {
		f := frameRec{vsync: int64(i) * 86_400_000_000, costMs: float32(rng.Intn(1000)), cls: clsJ2}
		if i == 0 || f.costMs > worst.costMs {
			worst = f
		}
		bs.add(f)
	}
	if len(bs.bins) > maxBins {
		t.Fatalf("%d bins, want at most %d", len(bs.bins), maxBins)
	}
	var total int32
	var best frameRec
	for _, b := range bs.bins {
		total += b.jankyCount[clsJ2]
		if b.worst[clsJ2].costMs > best.costMs {
			best = b.worst[clsJ2]
		}
	}
	if total != 1_000_000 || best.costMs != worst.costMs {
		t.Fatalf("bins hold %d frames with worst %+v, want 1000000 and %+v", total, best, worst)
	}
}
