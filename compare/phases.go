package compare

import (
	"fmt"
	"math"
	"sort"
)

// Phases (DESIGN §7: warnings for non-comparable recordings). A run's phase is where its frames
// were drawn — which windows and layers, in what shares — and how much of it the app spent
// drawing at all (active_pct). Two sides whose runs caught different phases (one mostly in a
// popup or a game's layer, the other in the activity; one mostly idle, the other scrolling)
// differ for that reason whatever the build, so the comparison says so beside the verdict.
const (
	// phaseShareTV is the total variation distance between the sides' average shares of frames
	// by window/layer from which they caught different phases: at least this share of one
	// side's frames were drawn where the other side's were not.
	phaseShareTV = 0.25
	// phaseActivePts is the difference of the sides' mean active_pct (percentage points) from
	// which one side caught the app drawing much more than the other.
	phaseActivePts = 25
)

// PhaseWarning begins every warning that the sides caught different phases.
const PhaseWarning = "the sides caught different phases"

// frameShares is each window's and layer's share of a run's frames (layers by name, marked so
// a window and a layer of the same name stay apart); nil for a run without any.
func frameShares(r *Run) map[string]float64 {
	var total float64
	out := map[string]float64{}
	for _, w := range r.Report.Windows {
		out["window "+w.Name] += float64(w.Frames)
		total += float64(w.Frames)
	}
	for _, l := range r.Report.Layers {
		out["layer "+l.Name] += float64(l.Frames)
		total += float64(l.Frames)
	}
	if total == 0 {
		return nil
	}
	for k := range out {
		out[k] /= total
	}
	return out
}

// sideShares averages the runs' frame shares (each run weighs the same: the unit is the run).
func sideShares(runs []*Run) map[string]float64 {
	out := map[string]float64{}
	n := 0
	for _, r := range runs {
		s := frameShares(r)
		if s == nil {
			continue
		}
		n++
		for k, v := range s {
			out[k] += v
		}
	}
	for k := range out {
		out[k] /= float64(n)
	}
	return out
}

// phaseWarnings says when the sides caught different phases: their frames drawn in different
// windows or layers (total variation distance of the shares ≥ phaseShareTV, naming the one that
// moved most), or the app drawing for very different shares of the time (mean active_pct apart
// by phaseActivePts or more).
func phaseWarnings(base, new []*Run) []string {
	var w []string
	b, n := sideShares(base), sideShares(new)
	keys := make([]string, 0, len(b)+len(n))
	for k := range b {
		keys = append(keys, k)
	}
	for k := range n {
		if _, ok := b[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var tv, most float64
	var moved string
	for _, k := range keys {
		d := math.Abs(b[k] - n[k])
		tv += d / 2
		if d > most {
			most, moved = d, k
		}
	}
	if tv >= phaseShareTV {
		w = append(w, fmt.Sprintf(PhaseWarning+": %.0f %% of their frames were drawn in different windows or layers (%s: %.0f %% of BASE's frames, %.0f %% of NEW's); compare runs of the same steps",
			100*tv, moved, 100*b[moved], 100*n[moved]))
	}
	ab, an := meanActive(base), meanActive(new)
	if !math.IsNaN(ab) && !math.IsNaN(an) && math.Abs(ab-an) >= phaseActivePts {
		w = append(w, fmt.Sprintf(PhaseWarning+": the app drew during %.0f %% of BASE's time and %.0f %% of NEW's (active_pct); compare runs of the same steps", ab, an))
	}
	return w
}

// meanActive is the runs' mean active_pct (NaN when none has one).
func meanActive(runs []*Run) float64 {
	var sum float64
	n := 0
	for _, r := range runs {
		if a := r.Report.ActivePct; a != nil {
			sum += float64(*a)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
