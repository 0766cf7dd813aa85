package ui

import tea "github.com/charmbracelet/bubbletea"

// The source switch (`P`, a SourceSwitcher): auto offers Perfetto on the notice line and the
// footer instead of starting a tracing session by itself, and `P` takes the offer (or goes
// back). The switch runs in a Cmd; the running source stays until the new one has started, so
// a refusal (tracing busy, Android 11) leaves the screen reading what it read, and says why.

// sourceSwitchedMsg is SwitchSource's answer, with the offer as it stands after it.
type sourceSwitchedMsg struct {
	what  string
	err   error
	offer SourceOffer
}

// switchSource acts on `P`: takes the session's offer, or says why there is none.
func (m Model) switchSource() (tea.Model, tea.Cmd) {
	switch {
	case m.be.source == nil:
		return m, flashCmd(FlashWarn, "P: no other source here (simulator, replay or file input)")
	case m.switching:
		return m, flashCmd(FlashInfo, "P: a switch is already starting")
	case m.offer.Kind == "":
		return m, flashCmd(FlashWarn, "P: nothing to switch to: auto offers Perfetto on Android 12+ when the app does not log its Looper messages")
	}
	m.switching = true
	return m, tea.Batch(flashCmd(FlashInfo, "switching to "+m.offer.Label+"…"), m.be.source(m.offer.Kind))
}

// sourceSwitched shows a switch's outcome: the new source in the flash, or, refused, the
// reason in the flash and (through the offer the session now makes) on the notice line.
func (m Model) sourceSwitched(msg sourceSwitchedMsg) (tea.Model, tea.Cmd) {
	m.switching = false
	m = m.setOffer(msg.offer)
	m.flash = m.flash.SetStatus(m.status())
	var cmd tea.Cmd
	if msg.err != nil {
		m.flash, cmd = m.flash.Update(FlashMsg{Level: FlashErr, Text: msg.err.Error()})
		return m, cmd
	}
	m.flash, cmd = m.flash.Update(FlashMsg{Level: FlashInfo, Text: "now reading " + msg.what})
	return m, cmd
}

// setOffer keeps the session's offer; the footer's `P` hint follows it.
func (m Model) setOffer(o SourceOffer) Model {
	if o == m.offer {
		return m
	}
	m.offer = o
	m.footer = m.footer.SetKeys(m.overlayFooter())
	m.msgs, _ = m.msgs.Update(offerMsg{perfetto: o.Kind == "perfetto"})
	return m
}
