package metrics

import "github.com/fpstop/fpstop/source"

// Android 12+ pipelines frames: the UI thread starts the next frame while RenderThread and the
// GPU finish this one, and Choreographer gives each frame a deadline that is more than one
// period (the real captures print a base of one period at 120 Hz and 20 ms at 60 Hz, plus one
// period when hwui's JankTracker finds the pipeline buffer-stuffed and writes the extension
// back into the row). A frame is late — and the display showed an old frame — only when it
// completed after the budget it really had, not after one period (DESIGN §4, `dropped`).

// budgetQuantumNs is the resolution at which the budgets of on-time frames are tallied: printed
// budgets jitter by a few µs (16.64 vs 16.65 ms in the same steady scroll), so the mode is taken
// over 100 µs steps.
const budgetQuantumNs = 100_000

// maxBudgetKeys bounds a window's budget tally: real windows show two or three distinct
// budgets; garbage rows must not grow it.
const maxBudgetKeys = 64

// budgetTally is the per-window tally of the budgets (FrameDeadline − IntendedVsync) of frames
// that started on their intended vsync, in budgetQuantumNs steps (in the order first seen),
// with its running mode: a window has two or three steps.
type budgetTally struct {
	steps  []int64
	counts []int64
	modeQ  int64 // most frequent step; ties go to the smaller step
	modeN  int64
}

// add counts a budget (ns) and keeps the mode current.
func (b *budgetTally) add(budgetNs int64) {
	q := roundDiv(budgetNs, budgetQuantumNs)
	i := b.find(q)
	if i < 0 {
		if len(b.steps) >= maxBudgetKeys {
			return
		}
		i = len(b.steps)
		b.steps, b.counts = append(b.steps, q), append(b.counts, 0)
	}
	b.counts[i]++
	if c := b.counts[i]; c > b.modeN || (c == b.modeN && q < b.modeQ) {
		b.modeQ, b.modeN = q, c
	}
}

// find returns the index of step q, -1 when not counted yet.
func (b *budgetTally) find(q int64) int {
	for i, s := range b.steps {
		if s == q {
			return i
		}
	}
	return -1
}

// mode returns the most frequent budget in ns, ok=false before any on-time frame.
func (b *budgetTally) mode() (int64, bool) {
	if b.modeN == 0 {
		return 0, false
	}
	return b.modeQ * budgetQuantumNs, true
}

// roundDiv is a/b rounded to the nearest integer, halves away from zero (b > 0).
func roundDiv(a, b int64) int64 {
	if a >= 0 {
		return (a + b/2) / b
	}
	return -((-a + b/2) / b)
}

// ceilDiv is ⌈a/b⌉ for b > 0.
func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return -((-a) / b)
	}
	return (a + b - 1) / b
}

// maxSaneBudgetNs: a printed deadline further than this from its vsync is garbage (INT64_MAX is
// Android's "unknown"); such a row is treated as one without a deadline.
const maxSaneBudgetNs = 10_000_000_000

// frameEnd is when a frame was really done for the display: GpuCompleted where the row has it
// (Android 12+), else FrameCompleted (DoneNs).
func frameEnd(f *source.Frame) int64 {
	if f.Phases != nil && f.Phases.GpuCompleted >= f.VsyncNs && f.Phases.GpuCompleted > 0 {
		return f.Phases.GpuCompleted
	}
	return f.DoneNs
}

// startVsync is the vsync a frame actually started on: StartVsyncNs, else the row's Vsync,
// else its intended vsync.
func startVsync(f *source.Frame) int64 {
	if f.StartVsyncNs > 0 {
		return f.StartVsyncNs
	}
	if f.Phases != nil && f.Phases.Vsync > 0 {
		return f.Phases.Vsync
	}
	return f.VsyncNs
}
