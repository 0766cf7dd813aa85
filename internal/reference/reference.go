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
	Type         string `json:"type"`
	Window       string `json:"window"`
	VsyncNs      int64  `json:"vsync_ns"`
	StartVsyncNs int64  `json:"start_vsync_ns"`
	DoneNs       int64  `json:"done_ns"`
	UIDoneNs     int64  `json:"ui_done_ns"`
	IntervalNs   int64  `json:"interval_ns"`
	DeadlineNs   int64  `json:"deadline_ns"`
	Flags        int64  `json:"flags"`
	History      bool   `json:"history"`
	Phases       *struct {
		Vsync        int64 `json:"vsync_actual_ns"`
		SyncQueued   int64 `json:"sync_queued_ns"`
		SyncStart    int64 `json:"sync_start_ns"`
		GpuCompleted int64 `json:"gpu_completed_ns"`
	} `json:"phases"`
}

// budgets is one window's tally of on-time frames' budgets in 100 µs steps.
type budgets map[int64]int64

// mode is the most frequent step (ties: the smaller), ok=false when empty.
func (b budgets) mode() (int64, bool) {
	best, bestN := int64(0), int64(0)
	for q, n := range b {
		if n > bestN || (n == bestN && q < best) {
			best, bestN = q, n
		}
	}
	return best * 100000, bestN > 0
}

// droppedOf applies DESIGN §4's rule to one frame line: against the frame's real budget when it
// has a deadline (Android 12+), else Android's ≤ 11 rule on the JankTracker duration.
func droppedOf(l *line, end int64, tally map[string]budgets) int64 {
	T := l.IntervalNs
	b := tally[l.Window]
	if b == nil {
		b = budgets{}
		tally[l.Window] = b
	}
	printed := l.DeadlineNs - l.VsyncNs
	sane := printed > 0 && printed < 10e9
	_, haveMode := b.mode()
	if l.DeadlineNs == 0 || !sane && !haveMode {
		d := end - l.VsyncNs
		if p := l.Phases; p != nil && p.SyncQueued > 0 && p.SyncStart > p.SyncQueued && end > p.SyncQueued {
			d -= p.SyncStart - p.SyncQueued
		}
		n := int64(math.Ceil(float64(d)/float64(T))) - 1
		return max(n, 0)
	}
	if l.Phases != nil && l.Phases.GpuCompleted >= l.VsyncNs && l.Phases.GpuCompleted > 0 {
		end = l.Phases.GpuCompleted
	}
	start := l.StartVsyncNs
	if start == 0 && l.Phases != nil {
		start = l.Phases.Vsync
	}
	if start == 0 {
		start = l.VsyncNs
	}
	var budget int64
	if sane && start-l.VsyncNs < T/2 {
		budget = l.DeadlineNs - l.VsyncNs
		b[int64(math.Round(float64(budget)/100000))]++
	} else if m, ok := b.mode(); ok {
		budget = m
	} else if budget = l.DeadlineNs - start; budget <= 0 {
		budget = l.DeadlineNs - l.VsyncNs // the deadline did not move with the late start
	}
	over := end - l.VsyncNs - budget
	if over <= 0 {
		return 0
	}
	return int64(math.Ceil(float64(over) / float64(T)))
}

// FromTruth reads truth JSON lines and computes the numbers with Matrix's 60 Hz thresholds
// 3/9/24/42 scaled to each frame's rate. mainThread uses ui_done_ns instead of done_ns.
func FromTruth(r io.Reader, mainThread bool) (Numbers, error) {
	n := Numbers{Windows: map[string]int64{}}
	var sumSlots float64 // Σ (dropped+1)·T in seconds
	var rateFrames int64
	tally := map[string]budgets{}
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
		var dropped float64
		if mainThread {
			dropped = math.Max(0, math.Ceil(float64(end-l.VsyncNs)/T)-1)
		} else {
			dropped = float64(droppedOf(&l, end, tally))
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
		if l.History {
			continue // history: not in the rate
		}
		rateFrames++
		sumSlots += (dropped + 1) * T / 1e9
	}
	if err := sc.Err(); err != nil {
		return n, err
	}
	if rateFrames > 0 {
		n.FPS = float64(rateFrames) / sumSlots
	}
	return n, nil
}
