package ui

import (
	"fmt"
	"math"
	"strings"

	"github.com/fpstop/fpstop/metrics"
)

// The timeline's cursor: a caret under its column, its frame, and the main-thread messages
// attributed to that frame.

// caret is the line with ^ under the cursor frame's column (blank when it is out of view).
func (m timelineModel) caret(lo, hi int64, gx, gw int) string {
	if m.cursor < 0 || m.cursor >= len(m.frames) {
		return ""
	}
	v := m.frames[m.cursor].VsyncNs
	if v < lo || v >= hi {
		return ""
	}
	return strings.Repeat(" ", gx+column(v, lo, hi, gw)) + m.st.Accent.Render("^")
}

// cursorLine describes the cursor's frame: when, how long, what it dropped, which window.
func (m timelineModel) cursorLine() string {
	st := m.st
	if m.cursor < 0 || m.cursor >= len(m.frames) {
		return st.Muted.Render(" no frame under the cursor")
	}
	f := m.frames[m.cursor]
	rel := f.VsyncNs - m.snap.OriginNs
	lvl := st.DropLevel[min(max(int(f.Level), 0), len(st.DropLevel)-1)]
	what := "on time"
	switch {
	case m.freezeText(m.cursor) != "":
		what = m.freezeText(m.cursor)
		lvl = st.DropLevel[metrics.LevelFrozen]
	case f.Dropped > 0:
		what = fmt.Sprintf("janky: %d vsync(s) dropped, %s level", f.Dropped, f.Level)
	}
	if f.BudgetNs > 0 {
		// the deadline the verdict was made against: a 29.5 ms frame with 33.3 ms is on time
		// where a 24.1 ms one with 16.7 ms is janky
		what += " · deadline " + msu(float64(f.BudgetNs)/1e6)
	}
	s := st.Muted.Render(fmt.Sprintf(" frame %d/%d at ", m.cursor+1, len(m.frames))) +
		st.Text.Render(fmt.Sprintf("%s.%03d", clock(rel/1e9), rel/1e6%1000)) + st.Muted.Render(" · ") +
		lvl.Render(msu(float64(f.CostNs)/1e6)+" "+what)
	if m.window == "" {
		s += st.Muted.Render(" · ") + st.Text.Render(shortClass(f.Window))
	}
	if blame := frameBlame(m.snap, f); len(blame) > 0 {
		s += st.Muted.Render(" · blame ") + st.Accent.Render(blameNames(blame))
	}
	return s
}

// frameBlame is who FrameTimeline says missed f's deadline (the worst frames' verdict when f
// is one, else the history's).
func frameBlame(s *metrics.Snapshot, f metrics.FrameMark) []string {
	if w := worstOf(s, f); w != nil && len(w.Blame) > 0 {
		return w.Blame
	}
	if f.Detail != nil {
		return f.Detail.Blame
	}
	return nil
}

// frameSectionsOf is f's slowest atrace sections (Perfetto), as frameBlame finds them.
func frameSectionsOf(s *metrics.Snapshot, f metrics.FrameMark) []metrics.FrameSectionReport {
	if w := worstOf(s, f); w != nil && len(w.Sections) > 0 {
		return w.Sections
	}
	if f.Detail != nil {
		return f.Detail.Sections
	}
	return nil
}

// worstOf finds f among the snapshot's worst frames.
func worstOf(s *metrics.Snapshot, f metrics.FrameMark) *metrics.WorstFrame {
	rel := float64(f.VsyncNs-s.OriginNs) / 1e6
	for i := range s.Worst {
		if w := &s.Worst[i]; w.Window == f.Window && math.Abs(float64(w.StartMs)-rel) < 0.01 {
			return w
		}
	}
	return nil
}

// messagesLine lists the messages behind the cursor's frame.
func (m timelineModel) messagesLine() string {
	st := m.st
	if m.cursor < 0 || m.cursor >= len(m.frames) {
		return ""
	}
	f := m.frames[m.cursor]
	if fz, ok := m.freezeEnding(m.cursor); ok && fz.lo < f.VsyncNs {
		// The frame after a stretch without frames: what kept the main thread is in the stretch.
		f.VsyncNs, f.CostNs = fz.lo, f.VsyncNs+f.CostNs-fz.lo
	}
	msgs, exact := frameMessages(m.snap, f)
	if secs := telling(frameSectionsOf(m.snap, f)); len(secs) > 0 && len(msgs) == 0 {
		var parts []string
		for i, sec := range secs {
			if i == maxWorstSections {
				break
			}
			parts = append(parts, st.Accent.Render(truncate(sec.Name, 40))+st.Text.Render(" "+msu(float64(sec.Ms))))
		}
		return st.Muted.Render(" sections: ") + strings.Join(parts, st.Muted.Render(" · "))
	}
	if len(msgs) == 0 {
		if m.snap.Paired+m.snap.Unpaired == 0 {
			return st.Muted.Render(" messages: this source sees no main-thread messages")
		}
		return st.Muted.Render(" messages: no slow message overlaps this frame")
	}
	head := " messages: "
	if !exact {
		head = " slow messages overlapping it: "
	}
	var parts []string
	for _, msg := range msgs {
		parts = append(parts, st.Accent.Render(frameMessageLabel(msg, 40))+st.Text.Render(" "+msu(float64(msg.Ms))))
	}
	return st.Muted.Render(head) + strings.Join(parts, st.Muted.Render(" · "))
}

// frameMessages returns the messages attributed to frame f: exactly those of Snapshot.Worst
// when f is one of the worst frames (exact true), else the slow-message occurrences the
// snapshot keeps whose run overlaps the frame (metrics' own rule, on what the screen has).
func frameMessages(s *metrics.Snapshot, f metrics.FrameMark) (msgs []metrics.FrameMessage, exact bool) {
	rel := float64(f.VsyncNs-s.OriginNs) / 1e6
	for _, w := range s.Worst {
		if w.Window == f.Window && math.Abs(float64(w.StartMs)-rel) < 0.01 {
			return w.Messages, true
		}
	}
	end := rel + float64(f.CostNs)/1e6
	for _, sig := range s.Messages {
		for _, o := range sig.Worst {
			if float64(o.StartMs) < end && float64(o.StartMs+o.Ms) > rel {
				msgs = append(msgs, metrics.FrameMessage{Handler: sig.Handler, Callback: sig.Callback,
					What: sig.What, WhatName: sig.WhatName, Ms: o.Ms})
			}
		}
	}
	return msgs, false
}
