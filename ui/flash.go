package ui

import (
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/themes"
)

// FlashLevel is a notice's severity on the notice line.
type FlashLevel int

// Flash levels.
const (
	FlashInfo FlashLevel = iota
	FlashWarn
	FlashErr
)

// FlashDelay is how long a flash stays on the notice line.
const FlashDelay = 6 * time.Second

// FlashMsg shows a notice on the notice line for FlashDelay (k9s-style flash). main may send
// one with Program.Send.
type FlashMsg struct {
	Level FlashLevel
	Text  string
}

// clearFlashMsg clears the flash it was armed for (id), unless a newer one replaced it.
type clearFlashMsg struct{ id int }

// flashModel is the one-line notice area: the current flash (auto-cleared by a tea.Tick), or
// else the persistent state text and note.
type flashModel struct {
	st     *themes.Styles
	w      int
	level  FlashLevel
	text   string
	id     int
	status string // state text and note, shown when no flash is active
	line   string
	after  Timer
}

func newFlash(st *themes.Styles, after Timer) flashModel { return flashModel{st: st, after: after} }

// SetSize sets the width.
func (m flashModel) SetSize(w, _ int) flashModel { m.w = w; return m.render() }

// SetStyles changes the theme.
func (m flashModel) SetStyles(st *themes.Styles) flashModel { m.st = st; return m.render() }

// SetStatus sets the text shown when no flash is active.
func (m flashModel) SetStatus(s string) flashModel {
	if s == m.status {
		return m
	}
	m.status = s
	return m.render()
}

// Text is the flash on show ("" when none).
func (m flashModel) Text() string { return m.text }

// Update shows FlashMsgs and clears them when their time is up.
func (m flashModel) Update(msg tea.Msg) (flashModel, tea.Cmd) {
	switch msg := msg.(type) {
	case FlashMsg:
		m.id++
		m.level, m.text = msg.Level, msg.Text
		id := m.id
		return m.render(), m.after(FlashDelay, func(time.Time) tea.Msg { return clearFlashMsg{id: id} })
	case clearFlashMsg:
		if msg.id == m.id {
			m.text = ""
			return m.render(), nil
		}
	}
	return m, nil
}

// View returns the cached line.
func (m flashModel) View() string { return m.line }

func (m flashModel) render() flashModel {
	st := m.st
	switch {
	case m.text != "":
		s, icon := st.Accent, "ℹ "
		switch m.level {
		case FlashWarn:
			s, icon = st.Warn, "⚠ "
		case FlashErr:
			s, icon = st.Bad, "✕ "
		}
		m.line = s.Render(fit(icon+m.text, m.w))
	default:
		m.line = st.Muted.Render(fit(m.status, m.w))
	}
	return m
}
