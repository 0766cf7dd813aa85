package ui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
)

// worstModel lists the costliest frames, each with the main-thread messages behind it when
// the source could attribute them.
type worstModel struct {
	st     *themes.Styles
	w, h   int
	frames []metrics.WorstFrame
	window string
	blame  *metrics.Blame // the run's (or the filtered window's) FrameTimeline verdict
	thr    [4]int64       // drop-level thresholds in dropped refreshes (the scale's very late, frozen)
	lines  []string
}

func newWorst(st *themes.Styles) worstModel { return worstModel{st: st} }

// SetSize sets the panel's outer size.
func (m worstModel) SetSize(w, h int) worstModel { m.w, m.h = w, h; return m.render() }

// SetStyles changes the theme.
func (m worstModel) SetStyles(st *themes.Styles) worstModel { m.st = st; return m.render() }

// Update applies a dataMsg.
func (m worstModel) Update(msg tea.Msg) (worstModel, tea.Cmd) {
	if d, ok := msg.(dataMsg); ok && d.snap != nil {
		m.window, m.thr = d.window, d.snap.DropThresholds
		m.blame = d.snap.Blame
		for _, w := range d.snap.Windows {
			if d.window != "" && w.Name == d.window {
				m.blame = w.Blame
			}
		}
		m.frames = m.frames[:0:0]
		for _, f := range d.snap.Worst {
			if d.window == "" || f.Window == d.window {
				m.frames = append(m.frames, f)
			}
		}
		return m.render(), nil
	}
	return m, nil
}

// View returns the cached panel.
func (m worstModel) View() []string { return m.lines }

func (m worstModel) render() worstModel {
	if m.w <= 0 || m.h <= 0 {
		m.lines = nil
		return m
	}
	st := m.st
	inner, ih := m.w-4, m.h-2
	var body []string
	if len(m.frames) == 0 {
		body = append(body, st.Muted.Render("no frames yet"))
	}
	for _, f := range m.frames {
		if len(body) >= ih {
			break
		}
		// The frame's place on the one scale, from its dropped refreshes at this refresh rate.
		lvl := st.Late[m.lateness(f.Dropped)]
		head := st.Muted.Render(fit(startLabel(float64(f.StartMs), 2), 9)) +
			lvl.Render(alignRight(msu(float64(f.CostMs)), 8)) +
			st.Muted.Render(fmt.Sprintf(" %3d dropped  ", f.Dropped))
		if m.window == "" {
			head += st.Text.Render(shortClass(f.Window))
		}
		if len(f.Blame) > 0 {
			head += st.Muted.Render(" · ") + st.Accent.Render(blameNames(f.Blame))
		}
		body = append(body, head)
		body = m.sectionLines(body, telling(f.Sections), inner, ih)
		for i, msg := range f.Messages {
			if len(body) >= ih {
				break
			}
			if i == 2 && len(f.Messages) > 3 {
				body = append(body, st.Muted.Render(fmt.Sprintf("   └ … %d more", len(f.Messages)-2)))
				break
			}
			tail := " " + msu(float64(msg.Ms))
			nw := inner - 5 - width(tail)
			body = append(body, st.Muted.Render("   └ ")+st.Accent.Render(fit(frameMessageLabel(msg, nw), nw))+st.Text.Render(tail))
		}
	}
	title := "Worst frames"
	if m.window != "" {
		title += " · " + shortClass(m.window)
	}
	right := ""
	if b := blameSummary(m.blame); b != "" {
		right = st.Muted.Render("blame: " + b)
	}
	m.lines = box(st, title, right, body, m.w, m.h)
	return m
}

// sectionLines lists a frame's slowest atrace sections (Perfetto), at most maxWorstSections.
func (m worstModel) sectionLines(body []string, secs []metrics.FrameSectionReport, inner, ih int) []string {
	for i, s := range secs {
		if len(body) >= ih || i == maxWorstSections {
			break
		}
		tail := " " + msu(float64(s.Ms))
		name := s.Name
		if s.Thread != "" && s.Thread != "main" {
			name += " (" + s.Thread + ")"
		}
		nw := inner - 5 - width(tail)
		body = append(body, m.st.Muted.Render("   ├ ")+m.st.Accent.Render(fit(name, nw))+m.st.Text.Render(tail))
	}
	return body
}

// maxWorstSections: the worst frames panel shows a frame's few slowest sections.
const maxWorstSections = 3

// frameMessageLabel names a frame's message in about w cells: handler, what name (or the
// handler's "(what)" when the name is unknown), callback — "android.app.ActivityThread$H
// EXECUTE_TRANSACTION". The what name, the most telling part, stays whole; the class names
// share the rest (classWidths: their simple names first, packages with the room left) and are
// shortened from the left (classFit); the callback gives way unless the handler's simple name
// fits whole beside at least 6 cells of it and its own innermost class.
func frameMessageLabel(msg metrics.FrameMessage, w int) string {
	h, cb := msg.Handler, callbackFull(msg.Callback)
	what := ""
	if msg.WhatName != "" {
		what = " " + msg.WhatName
	}
	suffix := "" // "(2)": the what code, glued to the handler when it has no name
	if msg.WhatName == "" {
		suffix = fmt.Sprintf("(%d)", msg.What)
	}
	if cb == "-" {
		cb = ""
	}
	label := func(h, cb string) string {
		if cb != "" {
			cb = " " + cb
		}
		return h + suffix + what + cb
	}
	if width(label(h, cb)) <= w {
		return label(h, cb)
	}
	avail := w - width(suffix+what)
	if cb != "" && avail-1 >= width(shortClass(h))+6 { // the handler's simple name whole first
		ws := classWidths([]int{width(shortClass(h)), width(shortClass(cb))}, []int{width(h), width(cb)},
			[]int{8, 6}, []float64{1, 0.6}, avail-1)
		if ws[1] >= cleanWidth(cb) && ws[0] >= min(8, width(shortClass(h))) { // else no callback: no garbage
			return label(classFit(h, ws[0]), classFit(cb, ws[1]))
		}
	}
	return label(classFit(h, max(avail, min(8, width(shortClass(h))))), "")
}

// Want is the panel's height with every worst frame and its messages listed.
func (m worstModel) Want() int {
	n := 0
	for _, f := range m.frames {
		n += 1 + min(len(telling(f.Sections)), maxWorstSections)
		switch k := len(f.Messages); {
		case k > 3:
			n += 3
		default:
			n += k
		}
	}
	return max(n, 1) + 2
}

// lateness places a frame that dropped d refreshes on the scale (late, not worse, while the
// thresholds are unknown).
func (m worstModel) lateness(d int64) metrics.Lateness {
	if m.thr[0] <= 0 {
		return metrics.LatenessOf(d, metrics.LevelBest)
	}
	return metrics.LatenessOf(d, metrics.Classify(d, m.thr))
}

// startLabel is when a frame or message started, seconds since the session began ("+52.30s"),
// or "history" for one from before it (the ring's backlog read on the first poll): never a
// negative offset such as "+-2.02s".
func startLabel(startMs float64, decimals int) string {
	if startMs < 0 {
		return "history"
	}
	return fmt.Sprintf("+%.*fs", decimals, startMs/1000)
}
