// Package reference recomputes fpstop's headline numbers from a simulator --truth file (or any
// frame lines of the recording format) with a deliberately simple, separate implementation of
// DESIGN §4 — no code shared with package metrics — so tests can hold the pipeline against it.
//
// The rule, per frame (T = interval_ns, end = done_ns — or GpuCompleted when a parsed row has it):
//
//   - rows with a deadline (Android 12+): the frame started on time when the vsync it started on
//     (start_vsync_ns, else vsync_ns) is less than T/2 after vsync_ns. An on-time frame whose
//     printed budget deadline_ns − vsync_ns is sane (more than 0, less than 10 s) has that budget,
//     tallied per window in 100 µs steps (rounded half away from zero). Any other frame gets the
//     step all its window's on-time frames had most often (ties: the smaller) — the whole
//     window's, wherever the frame sits among its rows; when the window has none, a
//     late-started frame gets one period and a frame with a garbage deadline takes the rule of
//     rows without one. dropped = max(0, ⌈(end − vsync_ns − budget)/T⌉);
//   - rows without one (Android ≤ 11): dropped = max(0, ⌈d/T⌉ − 1), d = done_ns − vsync_ns less
//     the SyncQueued → SyncStart stall when the row has both (hwui's duration());
//   - janky = dropped ≥ 1; drop levels: Matrix's 60 Hz thresholds 3/9/24/42 scaled to ⌈n·R/60⌉,
//     R = round(1e9/T); fps = frames / Σ (dropped+1)·T, history frames left out of fps only.
//
// A late-started frame's printed deadline is never its budget: anavmode's Docs window prints,
// for a 683 ms frame that started 517 ms late, a deadline before its own start, and anavmode
// prints deadlines before their vsync (garbage). Because the budget of a late frame is the
// whole window's, Calc keeps the frames and works the numbers out when they are asked for.
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
	FPS           float64  // 0 without non-history frames
	History       int64    // frames marked history (in Frames, not in FPS)
	Windows       map[string]int64
	Messages      int64
	// Dropped is each frame's dropped count, in input order (skipped rows left out).
	Dropped []int64
	// JankyDeadline is Android 12+'s "Janky frames" rule on the printed rows: GpuCompleted at
	// or after the printed FrameDeadline (stuffing already in it), SurfaceCanvas rows exempt;
	// Deadlines counts the rows that have a deadline.
	JankyDeadline, Deadlines int64
}

// Line is the part of a frame or message line the rule reads.
type Line struct {
	Type         string  `json:"type"`
	Window       string  `json:"window"`
	VsyncNs      int64   `json:"vsync_ns"`
	StartVsyncNs int64   `json:"start_vsync_ns"`
	DeadlineNs   int64   `json:"deadline_ns"`
	DoneNs       int64   `json:"done_ns"`
	UIDoneNs     int64   `json:"ui_done_ns"`
	IntervalNs   int64   `json:"interval_ns"`
	Flags        int64   `json:"flags"`
	History      bool    `json:"history"`
	Phases       *Phases `json:"phases"`
}

// Phases are the row times the rule reads (the sync stall of rows without a deadline).
type Phases struct {
	SyncQueued   int64 `json:"sync_queued_ns"`
	SyncStart    int64 `json:"sync_start_ns"`
	GpuCompleted int64 `json:"gpu_completed_ns"`
}

const (
	stepNs     = 100_000        // budget tally resolution
	maxFrameNs = 10_000_000_000 // rows completing later than this are not frames
	flagSkip   = 8              // SkippedFrame
	flagCanvas = 4              // SurfaceCanvas: never janky by Android's rules
)

// Calc applies the rule to frame lines fed one at a time, in order.
type Calc struct {
	n       Numbers
	slotsNs float64
	lines   []Line
	// tally[window][step] counts on-time budgets.
	tally map[string]map[int64]int64
	// MainThread uses ui_done_ns as the frame's end and ignores deadlines (Looper-derived frames).
	MainThread bool
}

// NewCalc returns an empty calculator.
func NewCalc() *Calc {
	return &Calc{n: Numbers{Windows: map[string]int64{}}, tally: map[string]map[int64]int64{}}
}

// FromTruth reads truth JSON lines (frames and messages) and computes the numbers. mainThread
// uses ui_done_ns instead of done_ns (and the rule for rows without a deadline).
func FromTruth(r io.Reader, mainThread bool) (Numbers, error) {
	c := NewCalc()
	c.MainThread = mainThread
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var l Line
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return c.Numbers(), fmt.Errorf("truth line %q: %w", sc.Text(), err)
		}
		switch l.Type {
		case "message":
			c.n.Messages++
		case "frame":
			c.Add(l)
		}
	}
	if err := sc.Err(); err != nil {
		return c.Numbers(), fmt.Errorf("reading truth: %w", err)
	}
	return c.Numbers(), nil
}

// Add takes one frame line: its on-time budget joins its window's tally now, the rule is applied
// when Numbers is asked (a late frame's budget is its whole window's).
func (c *Calc) Add(l Line) {
	c.lines = append(c.lines, l)
	if l.DeadlineNs <= 0 || c.MainThread || l.Flags&flagSkip != 0 || l.IntervalNs <= 0 ||
		l.DoneNs == 0 || l.DoneNs < l.VsyncNs || l.DoneNs-l.VsyncNs > maxFrameNs {
		return
	}
	start := l.StartVsyncNs
	if start == 0 {
		start = l.VsyncNs
	}
	if printed := l.DeadlineNs - l.VsyncNs; printed > 0 && printed < maxFrameNs && start-l.VsyncNs < l.IntervalNs/2 {
		t := c.tally[l.Window]
		if t == nil {
			t = map[int64]int64{}
			c.tally[l.Window] = t
		}
		t[roundHalfAway(printed, stepNs)]++
	}
}

// apply applies the rule to one frame line.
func (c *Calc) apply(l Line) {
	end := l.DoneNs
	if c.MainThread {
		end = l.UIDoneNs
	}
	T := l.IntervalNs
	if l.Flags&flagSkip != 0 || T <= 0 || end == 0 || end < l.VsyncNs || end-l.VsyncNs > maxFrameNs {
		return
	}
	if l.DeadlineNs > 0 && !c.MainThread {
		c.n.Deadlines++
		gpu := end
		if l.Phases != nil && l.Phases.GpuCompleted > 0 {
			gpu = l.Phases.GpuCompleted
		}
		if l.Flags&flagCanvas == 0 && gpu >= l.DeadlineNs {
			c.n.JankyDeadline++
		}
	}
	dropped, ok := int64(0), false
	if l.DeadlineNs > 0 && !c.MainThread {
		dropped, ok = c.deadlineDropped(l, end)
	}
	if !ok {
		d := end - l.VsyncNs
		if !c.MainThread && l.Phases != nil && l.Phases.SyncQueued > 0 && l.Phases.SyncStart > 0 && l.Phases.SyncStart > l.Phases.SyncQueued {
			d -= l.Phases.SyncStart - l.Phases.SyncQueued
		}
		dropped = ceilDiv(d, T) - 1
	}
	if dropped < 0 {
		dropped = 0
	}
	R := math.Round(1e9 / float64(T))
	level := 0
	for i, th := range []float64{3, 9, 24, 42} {
		if float64(dropped) >= math.Ceil(th*R/60) {
			level = i + 1
		}
	}
	c.n.Frames++
	if dropped >= 1 {
		c.n.Janky++
	}
	c.n.Levels[level]++
	c.n.Windows[l.Window]++
	c.n.Dropped = append(c.n.Dropped, dropped)
	if l.History {
		c.n.History++
		return
	}
	c.slotsNs += float64(dropped+1) * float64(T)
}

// deadlineDropped is the deadline rule; ok=false when the row's deadline is garbage and its
// window has no on-time budget.
func (c *Calc) deadlineDropped(l Line, end int64) (int64, bool) {
	T := l.IntervalNs
	if g := l.Phases; g != nil && g.GpuCompleted > 0 && g.GpuCompleted >= l.VsyncNs {
		end = g.GpuCompleted
	}
	start := l.StartVsyncNs
	if start == 0 {
		start = l.VsyncNs
	}
	t := c.tally[l.Window]
	printed := l.DeadlineNs - l.VsyncNs
	sane := printed > 0 && printed < maxFrameNs
	var budget int64
	switch {
	case sane && start-l.VsyncNs < T/2:
		budget = printed
	case len(t) > 0:
		var best, bestN int64
		for q, n := range t {
			if n > bestN || (n == bestN && q < best) {
				best, bestN = q, n
			}
		}
		budget = best * stepNs
	case !sane:
		return 0, false
	default:
		budget = T // started late, and the window has no on-time frame at all
	}
	return ceilDiv(end-l.VsyncNs-budget, T), true
}

// Numbers returns the results for the lines added so far.
func (c *Calc) Numbers() Numbers {
	c.n = Numbers{Windows: map[string]int64{}, Messages: c.n.Messages}
	c.slotsNs = 0
	for _, l := range c.lines {
		c.apply(l)
	}
	n := c.n
	if n.Frames-n.History > 0 && c.slotsNs > 0 {
		n.FPS = float64(n.Frames-n.History) / (c.slotsNs / 1e9)
	}
	return n
}

// ceilDiv is ⌈a/b⌉ for b > 0 in integers.
func ceilDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a > 0 {
		q++
	}
	return q
}

// roundHalfAway is a/b rounded to the nearest integer, halves away from zero, for b > 0.
func roundHalfAway(a, b int64) int64 {
	q, r := a/b, a%b
	if r < 0 {
		r = -r
	}
	if 2*r >= b {
		if a < 0 {
			return q - 1
		}
		return q + 1
	}
	return q
}
