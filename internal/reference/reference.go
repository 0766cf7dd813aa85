// Package reference recomputes fpstop's headline numbers from a simulator --truth file with a
// deliberately simple, separate implementation of DESIGN §4 (no shared code with package
// metrics beyond nothing at all), so tests can hold the pipeline against it.
package reference

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
)

// Numbers are the reference results.
type Numbers struct {
	Frames, Janky int64
	Levels        [5]int64 // best, normal, middle, high, frozen
	FPS           float64
	Windows       map[string]int64 // frames per window
	Messages      int64
}

type line struct {
	Type       string `json:"type"`
	Window     string `json:"window"`
	VsyncNs    int64  `json:"vsync_ns"`
	DoneNs     int64  `json:"done_ns"`
	UIDoneNs   int64  `json:"ui_done_ns"`
	IntervalNs int64  `json:"interval_ns"`
	Flags      int64  `json:"flags"`
}

// FromTruth reads truth JSON lines and computes the numbers with Matrix's 60 Hz thresholds
// 3/9/24/42 scaled to each frame's rate. mainThread uses ui_done_ns instead of done_ns.
func FromTruth(r io.Reader, mainThread bool) (Numbers, error) {
	n := Numbers{Windows: map[string]int64{}}
	var sumSlots float64 // Σ (dropped+1)·T in seconds
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return n, fmt.Errorf("truth line %q: %w", sc.Text(), err)
		}
		switch l.Type {
		case "message":
			n.Messages++
			continue
		case "frame":
		default:
			continue
		}
		if l.Flags&8 != 0 {
			continue
		}
		end := l.DoneNs
		if mainThread {
			end = l.UIDoneNs
		}
		T := float64(l.IntervalNs)
		cost := float64(end - l.VsyncNs)
		dropped := math.Ceil(cost/T) - 1
		if dropped < 0 {
			dropped = 0
		}
		R := math.Round(1e9 / T)
		level := 0
		for i, th := range []float64{3, 9, 24, 42} {
			if dropped >= math.Ceil(th*R/60) {
				level = i + 1
			}
		}
		n.Frames++
		if dropped >= 1 {
			n.Janky++
		}
		n.Levels[level]++
		n.Windows[l.Window]++
		sumSlots += (dropped + 1) * T / 1e9
	}
	if err := sc.Err(); err != nil {
		return n, err
	}
	if n.Frames > 0 {
		n.FPS = float64(n.Frames) / sumSlots
	}
	return n, nil
}
