package ui

import tea "github.com/charmbracelet/bubbletea"

// Recording state: `r` starts and stops a recording through the Recorder, inside a Cmd; the
// header shows it.

// recordMsg is the result of starting or stopping a recording.
type recordMsg struct {
	start   bool
	path    string
	summary string // the saved recording in one line ("" when the Recorder cannot say)
	err     error
}

// record starts or stops a recording through the Recorder, inside a Cmd.
func (m Model) record() tea.Cmd {
	if m.be.record == nil {
		return flashCmd(FlashWarn, "recording is not available here")
	}
	if m.opts.Replay != nil && !m.rec.active {
		// a replay is a recording already; a new one of it, paused, would be empty
		return flashCmd(FlashWarn, "r records live sessions: this is a replay (fpstop report/export write its numbers)")
	}
	f, start := m.be.record, !m.rec.active
	return func() tea.Msg {
		path, sum, err := f(start)
		return recordMsg{start: start, path: path, summary: sum, err: err}
	}
}

// recorded applies a recordMsg.
func (m Model) recorded(msg recordMsg) (tea.Model, tea.Cmd) {
	if msg.err != nil {
		return m, flashCmd(FlashErr, "recording: "+msg.err.Error())
	}
	if m.be.status == nil { // nobody reports the state: keep it here
		m.rec = recState{active: msg.start, path: msg.path}
		if msg.start {
			m.rec.since = m.opts.Now()
		}
	} else {
		m.rec.active, m.rec.path = msg.start, msg.path
		if msg.start && m.rec.since.IsZero() {
			m.rec.since = m.opts.Now()
		}
	}
	if m.now.IsZero() {
		m.now = m.opts.Now()
	}
	m.header, _ = m.header.Update(m.headerState())
	if msg.start {
		return m, flashCmd(FlashInfo, "recording to "+msg.path)
	}
	if msg.summary != "" {
		return m, flashCmd(FlashInfo, "recording saved: "+msg.summary)
	}
	return m, flashCmd(FlashInfo, "recording saved: "+msg.path)
}

// withFlashFromRecorder adds a flash for a new recorder error to cmd.
func (m Model) withFlashFromRecorder(cmd tea.Cmd) (tea.Model, tea.Cmd) {
	e := ""
	if m.rec.err != nil {
		e = m.rec.err.Error()
	}
	if e != m.recErr {
		m.recErr = e
		if e != "" {
			return m, tea.Batch(cmd, flashCmd(FlashErr, "recording: "+e))
		}
	}
	return m, cmd
}
