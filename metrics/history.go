package metrics

import "github.com/fpstop/fpstop/source"

// The run's frame history: every frame of the session (or of the recording replayed so far),
// for the screen's timeline view. Snapshot.Recent keeps only the newest RecentLen frames, which
// a fast replay or a seek outruns between two screen refreshes; the history does not.

// FrameMark is one frame of the history: enough to draw it on a time axis, mark its drop level
// and find it again among Snapshot.Worst for its messages.
type FrameMark struct {
	Window  string
	VsyncNs int64 // device time of the frame's intended vsync
	CostNs  int64 // the frame's cost (DESIGN §4)
	Dropped int64
	Level   Level
	// BudgetNs is how long after its vsync the frame had before it dropped a refresh (its
	// deadline: hwui's printed one, one period on older rows, the pace for a layer's frame);
	// 0 when no single deadline applies (frames derived from Looper lines)
	BudgetNs int64
	// Detail is FrameTimeline's verdict and the frame's slowest sections, for the frames it
	// has something to say of (blamed or dropping; Perfetto sources only), nil otherwise.
	Detail *FrameDetail
}

// FrameDetail is what FrameTimeline and atrace say of one frame, for the timeline's cursor.
type FrameDetail struct {
	Blame    []string
	Sections []FrameSectionReport // the slowest first, at most maxMarkSections
}

const maxMarkSections = 3

// frameDetail is f's detail for the history (nil when there is nothing to say).
func frameDetail(f *source.Frame, dropped int64) *FrameDetail {
	if f.Timeline == nil {
		return nil
	}
	blame := BlameOf(f.Timeline.JankType)
	if len(blame) == 0 && dropped == 0 {
		return nil
	}
	secs := frameSections(f)
	if len(secs) > maxMarkSections {
		secs = secs[:maxMarkSections]
	}
	return &FrameDetail{Blame: blame, Sections: secs}
}

// history is append-only: a snapshot takes h.marks[:len] and shares the backing array, which
// the pipeline only ever writes past that length. When it is full, the older half is dropped
// into a new array (old snapshots keep the old one), so memory stays within HistoryLen frames.
type history struct {
	marks []FrameMark
	max   int
	// dropped counts the frames let go from the front since the last Reset.
	dropped int64
}

func (h *history) add(m FrameMark) {
	if h.max < 0 {
		return // kept by no one (Config.HistoryLen < 0)
	}
	if len(h.marks) == h.max {
		keep := h.max / 2
		next := make([]FrameMark, keep, h.max)
		copy(next, h.marks[len(h.marks)-keep:])
		h.dropped += int64(len(h.marks) - keep)
		h.marks = next
	}
	h.marks = append(h.marks, m)
}

// view is the history as a snapshot carries it: a slice the pipeline never writes inside.
func (h *history) view() []FrameMark { return h.marks[:len(h.marks):len(h.marks)] }
