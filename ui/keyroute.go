package ui

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/themes"
)

// key routes a key: overlays first, then replay keys, then global keys, then panel keys.
func (m Model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	if msg.String() == "ctrl+c" {
		m.quitting = true
		return m, tea.Quit
	}
	if m.overlay != overlayNone {
		return m.overlayKey(msg)
	}
	if m.msgs.Typing() { // a filter is being typed: q, p, 1… are letters of it
		m.msgs, cmd = m.msgs.Update(msg)
		return m, cmd
	}
	// Replay keys first: space means play/pause there.
	if m.opts.Replay != nil {
		if key.Matches(msg, m.replay.keys.Back, m.replay.keys.Forward, m.replay.keys.Faster,
			m.replay.keys.Slower, m.replay.keys.Start, m.replay.keys.End, m.replay.keys.Pause) {
			m.replay, cmd = m.replay.Update(msg)
			return m, cmd
		}
	}
	switch {
	case key.Matches(msg, m.keys.Quit):
		m.quitting = true
		return m, tea.Quit
	case key.Matches(msg, m.keys.Help):
		m.overlay = overlayHelp
	case key.Matches(msg, m.keys.Pause):
		m.paused = !m.paused
		m.header, _ = m.header.Update(m.headerState())
		m.flash = m.flash.SetStatus(m.status())
	case key.Matches(msg, m.keys.Record):
		return m, m.record()
	case key.Matches(msg, m.keys.Clear):
		if m.be.clear == nil {
			return m, flashCmd(FlashWarn, "clearing is not available here")
		}
		f := m.be.clear
		return m, func() tea.Msg { f(); return clearedMsg{} }
	case key.Matches(msg, m.keys.Theme):
		m = m.useTheme(m.themes[(m.themeIdx+1)%len(m.themes)])
		return m, flashCmd(FlashInfo, "theme: "+m.themes[m.themeIdx].Name)
	case key.Matches(msg, m.keys.Devices):
		if m.be.devs == nil {
			return m, flashCmd(FlashWarn, "no device picker here (simulator or file input)")
		}
		m.overlay = overlayDevices
		m.devs, cmd = m.devs.InUse(m.serialInUse()).Load()
		return m, cmd
	case key.Matches(msg, m.keys.Apps):
		if m.be.apps == nil {
			return m, flashCmd(FlashWarn, "no app picker here (simulator or file input)")
		}
		serial := ""
		if m.snap != nil {
			serial = m.snap.Session.Device.Serial
		}
		m.overlay = overlayApps
		m.apps, cmd = m.apps.Load(serial)
		return m, cmd
	case key.Matches(msg, m.keys.Layers):
		return m.openLayers()
	case key.Matches(msg, m.keys.Source):
		return m.switchSource()
	case key.Matches(msg, m.keys.Panels):
		return m.togglePanel(panelID(msg.String()[0] - '1'))
	case key.Matches(msg, m.ft.keys.Mode):
		m.ft, cmd = m.ft.Update(msg)
	case key.Matches(msg, m.ft.keys.Timeline),
		m.focused() == panelFrameTime && key.Matches(msg, m.ft.keys.Open):
		m.overlay, m.tl = overlayTimeline, m.tl.Open()
	case key.Matches(msg, m.keys.Focus):
		next := panelFrameTime
		if m.focused() == panelFrameTime {
			next = panelMessages
		}
		m = m.setFocus(next)
	case key.Matches(msg, m.wins.keys.Filter):
		m.wins, cmd = m.wins.Update(msg)
		if m.snap != nil {
			m = m.fanOut(m.snap)
		}
		f := m.wins.Filter()
		if f == "" {
			f = "all windows"
		}
		return m, tea.Batch(cmd, flashCmd(FlashInfo, "window filter: "+f))
	default:
		m.msgs, cmd = m.msgs.Update(msg)
		if m.msgs.Detail() {
			m.overlay = overlayDetail
		}
	}
	return m, cmd
}

// theme is the theme on screen.
func (m Model) theme() themes.Theme { return m.themes[m.themeIdx] }

// useTheme draws the dashboard with t (the multi-device overview hands its theme on), adding t
// to the themes `t` cycles when it is not among them.
func (m Model) useTheme(t themes.Theme) Model {
	if m.themeIdx >= 0 && m.themeIdx < len(m.themes) && m.themes[m.themeIdx].Name == t.Name && m.st != nil {
		return m
	}
	idx := -1
	for i, th := range m.themes {
		if th.Name == t.Name {
			idx = i
		}
	}
	if idx < 0 {
		m.themes = append([]themes.Theme{t}, m.themes...)
		idx = 0
	}
	m.themeIdx = idx
	st := themes.NewStyles(t, !m.opts.LightBackground)
	m = m.setStyles(&st)
	m.flash = m.flash.SetStatus(m.status())
	return m
}

// focused is the panel enter acts on: the frame-time graph when it has the focus and is on
// screen, else the messages table.
func (m Model) focused() panelID {
	if m.focus == panelFrameTime && m.shown[panelFrameTime] {
		return panelFrameTime
	}
	return panelMessages
}

// setFocus gives the focus to id (the frame-time graph or the messages table).
func (m Model) setFocus(id panelID) Model {
	m.focus = id
	m.ft = m.ft.SetFocus(id == panelFrameTime)
	return m
}

// pick switches through the DeviceSwitcher.
func (m Model) pick(serial, pkg string) tea.Cmd {
	if m.be.pick == nil {
		return flashCmd(FlashWarn, "switching devices is not available here")
	}
	what := serial
	if pkg != "" {
		what = pkg + " on " + serial
	}
	return tea.Batch(flashCmd(FlashInfo, "switching to "+what), m.be.pick(serial, pkg))
}

// takePick acts on a picker's choice in the Update that made it: the app picker opens (or the
// switch starts) before the next key is read, so `d ↓ enter enter` typed quickly lands its
// second enter in the app picker, not in the device picker again.
func (m Model) takePick(cmd tea.Cmd) (tea.Model, tea.Cmd) {
	var serial string
	if m.devs, serial = m.devs.take(); serial != "" {
		next, c := m.route(pickDeviceMsg{serial: serial})
		return next, tea.Batch(cmd, c)
	}
	var app *pickAppMsg
	if m.apps, app = m.apps.take(); app != nil {
		next, c := m.route(*app)
		return next, tea.Batch(cmd, c)
	}
	return m, cmd
}

// flashCmd returns a Cmd that shows a flash.
func flashCmd(l FlashLevel, text string) tea.Cmd {
	return func() tea.Msg { return FlashMsg{Level: l, Text: text} }
}

// clearedMsg says Session.Clear ran.
type clearedMsg struct{}

// overlayKey routes a key while an overlay is open: the overlay gets it (q still quits from
// help and the details).
func (m Model) overlayKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch m.overlay {
	case overlayDevices:
		m.devs, cmd = m.devs.Update(msg)
		return m.takePick(cmd)
	case overlayApps:
		m.apps, cmd = m.apps.Update(msg)
		return m.takePick(cmd)
	case overlayLayers:
		m.layers, cmd = m.layers.Update(msg)
		return m, cmd
	case overlayHelp:
		if key.Matches(msg, m.keys.Close, m.keys.Help) {
			m.overlay = overlayNone
			return m, nil
		}
		if key.Matches(msg, m.keys.Quit) {
			m.quitting = true
			return m, tea.Quit
		}
		return m, nil
	case overlayTimeline:
		return m.timelineKey(msg)
	case overlayDetail:
		if key.Matches(msg, m.keys.Quit) {
			m.quitting = true
			return m, tea.Quit
		}
		m.msgs, cmd = m.msgs.Update(msg)
		if !m.msgs.Detail() {
			m.overlay = overlayNone
		}
		return m, cmd
	}
	return m, nil
}

// togglePanel shows or hides a panel (its number key). A panel shown by hand gives way last
// when the terminal is too small; if it still has no room the flash says so.
func (m Model) togglePanel(id panelID) (tea.Model, tea.Cmd) {
	if id < 0 || id >= numPanels || m.layout < layoutNarrow {
		return m, nil
	}
	name := panelNames[id]
	if m.shown[id] {
		m.panelOff[id] = true
		m = m.place()
		return m, flashCmd(FlashInfo, fmt.Sprintf("%s hidden (%d shows it)", name, id+1))
	}
	m.panelOff[id] = false
	order := dropOrder
	if m.dropOrder != nil {
		order = m.dropOrder
	}
	next := make([]panelID, 0, len(order))
	for _, o := range order {
		if o != id {
			next = append(next, o)
		}
	}
	if len(next) < len(order) {
		next = append(next, id)
	}
	m.dropOrder = next
	m = m.place()
	if !m.shown[id] {
		return m, flashCmd(FlashWarn, fmt.Sprintf("no room for %s at %d×%d: hide another panel (1-7) or enlarge the terminal", name, m.w, m.h))
	}
	return m, flashCmd(FlashInfo, fmt.Sprintf("%s shown (%d hides it)", name, id+1))
}

// serialInUse is the phone the dashboard shows ("" for the simulator or a file).
func (m Model) serialInUse() string {
	if m.snap == nil || m.snap.Session.Source == source.KindSim {
		return ""
	}
	return m.snap.Session.Device.Serial
}

// openLayers opens the layer picker (l), or says why there is none to open.
func (m Model) openLayers() (tea.Model, tea.Cmd) {
	if m.be.layer == nil {
		return m, flashCmd(FlashWarn, "no layer picker here (simulator or file input)")
	}
	if m.snap != nil && len(m.snap.LayerChoices) == 0 && m.snap.Session.Source != source.KindSurfaceFlinger {
		// an empty picker would be a dead end: say where the layers come from
		return m, flashCmd(FlashWarn, fmt.Sprintf("l: %s lists no layers; start with --source surfaceflinger to pick one",
			m.snap.Session.Source))
	}
	m.overlay = overlayLayers
	m.layers = m.layers.Open(m.snap)
	return m, nil
}
