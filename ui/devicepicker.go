package ui

import (
	"context"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/themes"
)

// DeviceItem is one adb device as the picker shows it.
type DeviceItem struct {
	Serial  string
	Model   string
	Android string // release, e.g. "14"
	// State is adb's state: "device" (usable), "unauthorized", "offline", "no permissions", …
	State string
}

// PickerTimeout bounds one Devices or Apps call.
const PickerTimeout = 10 * time.Second

// pickerKeyMap are the device picker's keys: the list's, vi's j/k too, and refresh.
type pickerKeyMap struct {
	listKeyMap
	Refresh key.Binding
}

func defaultPickerKeys() pickerKeyMap {
	l := defaultListKeys()
	l.Up.SetKeys("up", "k")
	l.Down.SetKeys("down", "j")
	return pickerKeyMap{
		listKeyMap: l,
		Refresh:    key.NewBinding(key.WithKeys("r", "ctrl+r"), key.WithHelp("r", "refresh")),
	}
}

// ShortHelp implements help.KeyMap.
func (k pickerKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Pick, k.Refresh, k.Close}
}

// FullHelp implements help.KeyMap.
func (k pickerKeyMap) FullHelp() [][]key.Binding { return [][]key.Binding{k.ShortHelp()} }

// devicesMsg carries the result of a Devices call.
type devicesMsg struct {
	gen   int
	items []DeviceItem
	err   error
}

// devicePollMsg asks an open picker to list the devices again (hot-plug shows up within about a
// second); gen ties it to the listing that scheduled it, so reopening never doubles the loop.
type devicePollMsg struct{ gen int }

// DevicePollInterval is how often an open device picker lists the devices again.
const DevicePollInterval = time.Second

// pickDeviceMsg says a usable device was chosen.
type pickDeviceMsg struct{ serial string }

// closePickerMsg says a picker was closed without a choice.
type closePickerMsg struct{}

// stateHelp explains the adb states a device cannot be used in.
func stateHelp(state string) string {
	switch state {
	case "unauthorized":
		return "Unauthorized: unlock the phone and accept the “Allow USB debugging?” prompt (tick “Always allow from this computer”), then press r. No prompt? Revoke USB debugging authorisations in Developer options and reconnect."
	case "offline":
		return "Offline: adb lost contact with the device. Reconnect the cable or restart adb (adb kill-server; adb start-server), then press r."
	case "no permissions":
		return "No permissions: the USB device is not accessible to your user. On Linux add a udev rule for the phone (or the plugdev group), replug it, then press r."
	case "recovery", "sideload", "bootloader", "rescue":
		return "The device is in " + state + " mode: boot it into Android to measure frames."
	}
	return ""
}

// devicePickerModel lists adb devices (serial, model, Android version, state) fetched by the
// Devices callback inside a Cmd, with help for devices that cannot be used.
type devicePickerModel struct {
	st      *themes.Styles
	keys    pickerKeyMap
	fetch   func(ctx context.Context) ([]DeviceItem, error)
	after   Timer
	gen     int
	loading bool
	items   []DeviceItem
	err     error
	list    listModel
	w, h    int
	// chosen is the device enter picked, taken by the dashboard in the same Update (take):
	// through a Cmd, a key typed right after enter would still reach this picker.
	chosen string
	// pending: enter was pressed while the first list was loading (the dashboard's status line
	// already names the devices); the row under the cursor is picked when the list arrives.
	pending bool
	// inUse is the phone the dashboard shows (marked in the list, so picking another is a
	// choice, not a guess)
	inUse string
}

// InUse marks serial as the phone the dashboard shows ("" for none).
func (m devicePickerModel) InUse(serial string) devicePickerModel { m.inUse = serial; return m }

func newDevicePicker(st *themes.Styles, fetch func(ctx context.Context) ([]DeviceItem, error), after Timer) devicePickerModel {
	keys := defaultPickerKeys()
	list := newList()
	list.keys = keys.listKeyMap
	return devicePickerModel{st: st, keys: keys, fetch: fetch, after: after, list: list}
}

// SetSize sets the overlay's outer size.
func (m devicePickerModel) SetSize(w, h int) devicePickerModel { m.w, m.h = w, h; return m }

// SetStyles changes the theme.
func (m devicePickerModel) SetStyles(st *themes.Styles) devicePickerModel { m.st = st; return m }

// Load starts fetching the device list.
func (m devicePickerModel) Load() (devicePickerModel, tea.Cmd) {
	m.gen++
	m.loading, m.err, m.pending = true, nil, false
	fetch, gen := m.fetch, m.gen
	if fetch == nil {
		m.loading = false
		m.err = errNoDevices
		return m, nil
	}
	return m, func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), PickerTimeout)
		defer cancel()
		items, err := fetch(ctx)
		return devicesMsg{gen: gen, items: items, err: err}
	}
}

// Update handles the list result and the picker keys.
func (m devicePickerModel) Update(msg tea.Msg) (devicePickerModel, tea.Cmd) {
	switch msg := msg.(type) {
	case devicesMsg:
		if msg.gen == m.gen {
			// the cursor stays on its device when a refresh lists the devices in another
			// order or with one more or less (hot-plug), so enter picks what the user chose
			cur := ""
			if i, ok := m.list.Selected(); ok && i < len(m.items) {
				cur = m.items[i].Serial
			}
			m.loading, m.items, m.err = false, msg.items, msg.err
			m.list = m.list.SetLen(len(m.items))
			for i, d := range m.items {
				if d.Serial == cur {
					m.list = m.list.Select(i)
				}
			}
			if m.pending {
				m.pending = false
				m = m.choose()
			}
			gen := m.gen
			return m, m.after(DevicePollInterval, func(time.Time) tea.Msg { return devicePollMsg{gen: gen} })
		}
	case devicePollMsg:
		if msg.gen == m.gen && !m.loading {
			items := m.items
			m, cmd := m.Load()
			m.loading, m.items = false, items // refresh quietly: keep the list on screen
			return m, cmd
		}
	case tea.KeyMsg:
		var act listAction
		m.list, act = m.list.Update(msg)
		switch act {
		case listClosed:
			return m, func() tea.Msg { return closePickerMsg{} }
		case listPicked:
			return m.choose(), nil
		case listMoved:
			if m.loading && key.Matches(msg, m.keys.Pick) {
				m.pending = true
			}
		case listNone:
			if key.Matches(msg, m.keys.Refresh) {
				return m.Load()
			}
		}
	}
	return m, nil
}

// choose picks the device under the cursor when it is usable (state "device").
func (m devicePickerModel) choose() devicePickerModel {
	if i, ok := m.list.Selected(); ok && i < len(m.items) && m.items[i].State == "device" {
		m.chosen = m.items[i].Serial
	}
	return m
}

// take returns the device enter picked ("" when none) and forgets it.
func (m devicePickerModel) take() (devicePickerModel, string) {
	s := m.chosen
	m.chosen = ""
	return m, s
}

// View renders the picker as a box of its size.
func (m devicePickerModel) View() []string {
	st, w, h := m.st, m.w, m.h
	inner := w - 4
	const sw, mw, aw = 22, 18, 8
	row := func(s, mo, a, state string) string {
		return fit(s, sw) + " " + fit(mo, mw) + " " + fit(a, aw) + " " + state
	}
	body := []string{st.TableHead.Render(fit(row("serial", "model", "android", "state"), inner))}
	switch {
	case m.loading:
		body = append(body, st.Muted.Render("looking for devices…"))
	case m.err != nil:
		for _, l := range wrap("✕ "+m.err.Error(), inner) {
			body = append(body, st.Bad.Render(l))
		}
	case len(m.items) == 0:
		body = append(body, wrap("No devices. Connect a phone with USB debugging on (Settings → Developer options), or start an emulator, then press r.", inner)...)
	}
	sel, hasSel := m.list.Selected()
	for i, d := range m.items {
		state := d.State
		stStyle := st.Good
		if state != "device" {
			stStyle = st.Warn
		}
		if d.Serial == m.inUse && m.inUse != "" {
			state += " · in use"
		}
		line := row(d.Serial, d.Model, d.Android, "")
		if i == sel {
			body = append(body, st.Selected.Render(fit(line+state, inner)))
		} else {
			body = append(body, st.Text.Render(line)+stStyle.Render(state))
		}
	}
	if hasSel {
		if help := stateHelp(m.items[sel].State); help != "" {
			body = append(body, "")
			for _, l := range wrap(help, inner) {
				body = append(body, st.Warn.Render(l))
			}
		}
	}
	for len(body) < h-3 {
		body = append(body, "")
	}
	body = append(body[:min(len(body), h-3)], st.Muted.Render("↑/↓ choose · enter pick · r refresh · esc close"))
	return box(st, "Devices", "", body, w, h)
}
