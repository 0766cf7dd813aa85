// Package metrics is fpstop's pipeline: it classifies every frame (dropped vsyncs, drop level,
// jank), aggregates per time slice, per Android window and for the whole run, keeps Android's
// own histogram buckets, PerfDog-style jank and the slowest main-thread messages, and publishes
// immutable Snapshots for the screen and Reports for headless runs and recordings.
//
// Every number fpstop shows is computed here and only here (DESIGN §4). One goroutine owns a
// Pipeline; others read Snapshots. Memory is bounded: rings and capped tables only.
package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Level is a frame's drop level, after Tencent Matrix.
type Level int

// Drop levels, from best to worst.
const (
	LevelBest Level = iota
	LevelNormal
	LevelMiddle
	LevelHigh
	LevelFrozen
)

// Levels lists every level in order.
var Levels = [...]Level{LevelBest, LevelNormal, LevelMiddle, LevelHigh, LevelFrozen}

// String names the level as Matrix does.
func (l Level) String() string {
	if l < LevelBest || l > LevelFrozen {
		return "best"
	}
	return [...]string{"best", "normal", "middle", "high", "frozen"}[l]
}

// DefaultDropLevels are Matrix's thresholds, in dropped frames at 60 Hz.
var DefaultDropLevels = [4]int{3, 9, 24, 42}

// ParseDropLevels reads "3,9,24,42": four increasing positive counts of 60 Hz frames.
func ParseDropLevels(s string) ([4]int, error) {
	var out [4]int
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return out, fmt.Errorf("drop levels %q: want four comma-separated counts, e.g. 3,9,24,42", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > 100000 {
			return out, fmt.Errorf("drop levels %q: %q is not a count from 1 to 100000", s, p)
		}
		if i > 0 && n <= out[i-1] {
			return out, fmt.Errorf("drop levels %q: counts must increase", s)
		}
		out[i] = n
	}
	return out, nil
}

// Config sets the pipeline's definitions. The zero value is usable: Matrix's levels, 1 s
// slices, an FPS target of 92 % of the refresh rate, slow messages from one frame interval.
type Config struct {
	// DropLevels are NORMAL, MIDDLE, HIGH, FROZEN thresholds in 60 Hz frames.
	DropLevels [4]int
	// SliceNs is the aggregation slice length (default 1 s).
	SliceNs int64
	// TargetFPS colours the current FPS; 0 means AutoTarget of the refresh rate in use
	// (55 at 60 Hz, 110 at 120 Hz), so a 120 Hz phone is not green at 60 fps.
	TargetFPS float64
	// SlowMs lists a message signature when its max reaches it (0 = one frame interval).
	SlowMs float64
	// SeriesLen is how many slices the FPS series keeps (default 600).
	SeriesLen int
	// RecentLen is how many recent frames the snapshot carries (default 512).
	RecentLen int
	// HistoryLen is how many frames Snapshot.History keeps at most (default 2^19, 72 min at
	// 120 Hz); past it the older half is let go. Negative: no history (a run without a screen
	// draws no timeline, and needs not hold one).
	HistoryLen int
}

func (c Config) withDefaults() Config {
	if c.DropLevels == ([4]int{}) {
		c.DropLevels = DefaultDropLevels
	}
	if c.SliceNs <= 0 {
		c.SliceNs = 1e9
	}
	if c.SeriesLen <= 0 {
		c.SeriesLen = 600
	}
	if c.RecentLen <= 0 {
		c.RecentLen = 512
	}
	if c.HistoryLen >= 0 && c.HistoryLen <= 1 {
		c.HistoryLen = 1 << 19
	}
	return c
}

// AutoTarget is the FPS target for refresh rate hz when none is given: round(0.92 × hz), a
// little under the rate so an app that holds it with the odd late frame still counts as on
// target (55 at 60 Hz, 83 at 90 Hz, 110 at 120 Hz); 55 when the rate is unknown.
func AutoTarget(hz float64) float64 {
	if hz <= 0 || math.IsNaN(hz) || math.IsInf(hz, 0) {
		return 55
	}
	return math.Round(0.92 * hz)
}
