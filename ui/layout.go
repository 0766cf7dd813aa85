package ui

import (
	"strconv"
	"strings"
)

// Layout: which arrangement fits the terminal, the panels' sizes in it, and View joining
// their cached lines.

// layoutKind is the arrangement for the terminal size.
type layoutKind int

const (
	layoutNone     layoutKind = iota // no size yet
	layoutTooSmall                   // below MinWidth×MinHeight
	layoutCompact                    // FPS, drops, messages
	layoutFull                       // every panel
)

// Minimum and full-layout sizes.
const (
	MinWidth   = 60
	MinHeight  = 16
	FullWidth  = 100
	FullHeight = 34
)

// resize picks the layout for the size and sizes every panel.
func (m Model) resize() Model {
	w, h := m.w, m.h
	switch {
	case w <= 0 || h <= 0:
		m.layout = layoutNone
		return m
	case w < MinWidth || h < MinHeight:
		m.layout = layoutTooSmall
		return m
	case w >= FullWidth && h >= FullHeight:
		m.layout = layoutFull
	default:
		m.layout = layoutCompact
	}
	m.header = m.header.SetSize(w, 1)
	m.flash = m.flash.SetSize(w, 1)
	m.help = m.help.SetSize(w, h)
	m.devs = m.devs.SetSize(min(w-4, 84), min(h-2, 18))
	m.apps = m.apps.SetSize(min(w-4, 84), min(h-2, 20))
	m.layers = m.layers.SetSize(min(w-4, 96), min(h-2, 18))
	m.footer = m.footer.SetSize(w, 1)
	m.replay = m.replay.SetSize(w, 1)
	body := m.bodyHeight()
	switch m.layout {
	case layoutFull:
		left := w * 3 / 5
		right := w - left
		extra := body - 37
		ha := 9 + extra/4
		hb := 10 + extra/4
		hc := body - ha - hb
		hw := max(5, hc*2/5)
		m.fps = m.fps.SetSize(left, ha)
		m.drops = m.drops.SetSize(right, ha)
		m.ft = m.ft.SetSize(left, hb)
		m.hist = m.hist.SetSize(right, hb)
		m.msgs = m.msgs.SetSize(left, hc)
		m.wins = m.wins.SetSize(right, hw)
		m.worst = m.worst.SetSize(right, hc-hw)
	case layoutCompact:
		dw := min(max(w*2/5, 30), 46)
		ha := 8
		if body < 20 {
			ha = 7
		}
		m.fps = m.fps.SetSize(w-dw, ha)
		m.drops = m.drops.SetSize(dw, ha)
		m.msgs = m.msgs.SetSize(w, body-ha)
	}
	return m
}

// bodyHeight is the height between the notice line and the footer (and replay bar).
func (m Model) bodyHeight() int {
	h := m.h - 3
	if m.opts.Replay != nil {
		h--
	}
	return h
}

// View joins the cached panel lines for the layout; overlays are drawn on top.
func (m Model) View() string {
	switch m.layout {
	case layoutNone:
		return ""
	case layoutTooSmall:
		return m.tooSmall()
	}
	lines := make([]string, 0, m.h)
	lines = append(lines, m.header.View(), m.flash.View())
	switch m.layout {
	case layoutFull:
		lines = side(lines, m.fps.View(), m.drops.View())
		lines = side(lines, m.ft.View(), m.hist.View())
		lines = side(lines, m.msgs.View(), append(m.wins.View()[:len(m.wins.View()):len(m.wins.View())], m.worst.View()...))
	case layoutCompact:
		lines = side(lines, m.fps.View(), m.drops.View())
		lines = append(lines, m.msgs.View()...)
	}
	if m.opts.Replay != nil {
		lines = append(lines, m.replay.View())
	}
	lines = append(lines, m.footer.View())
	if m.overlay != overlayNone {
		lines = m.drawOverlay(lines)
	}
	return strings.Join(lines, "\n")
}

// side appends the rows of a and b side by side to lines.
func side(lines, a, b []string) []string {
	for i := 0; i < max(len(a), len(b)); i++ {
		l := ""
		if i < len(a) {
			l = a[i]
		}
		if i < len(b) {
			l += b[i]
		}
		lines = append(lines, l)
	}
	return lines
}

// tooSmall is the centred message shown below the minimum size.
func (m Model) tooSmall() string {
	msg := []string{
		"terminal too small",
		"need " + strconv.Itoa(MinWidth) + "×" + strconv.Itoa(MinHeight) + ", have " + strconv.Itoa(m.w) + "×" + strconv.Itoa(m.h),
	}
	lines := make([]string, m.h)
	top := (m.h - len(msg)) / 2
	for i := range lines {
		s := ""
		if j := i - top; j >= 0 && j < len(msg) {
			s = msg[j]
		}
		lines[i] = center(s, m.w)
	}
	if len(lines) > 0 {
		lines[top] = m.st.Warn.Render(lines[top])
	}
	return strings.Join(lines, "\n")
}
