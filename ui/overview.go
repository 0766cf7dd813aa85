package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
)

// LabDevice is one device of a multi-device run as the overview lists it.
type LabDevice struct {
	Serial string
	// Session is the device's own session; enter opens the usual dashboard on it.
	Session Session
	// Connected says whether the device is still there (nil: always).
	Connected func() bool
}

// Overview is the multi-device screen: one row per device (model, app, source, live FPS,
// jank %, a sparkline), enter drills into one device's dashboard, esc comes back. Devices come
// from list, read at every refresh (devices plugged in during the run appear).
type Overview struct {
	opts   Options
	list   func() []LabDevice
	st     *themes.Styles
	rows   []overviewRow
	sel    int
	open   string           // the serial whose dashboard is shown ("" = the overview)
	dash   map[string]Model // dashboards opened so far, by serial
	w, h   int
	notice string
	// noticeAt is when the notice came: it leaves the line after noticeLinger, as the
	// dashboard's flashes do (a warning whose condition has gone must not stay all session)
	noticeAt time.Time
	quiting  bool
	// seen is, per serial, the device time its snapshot last showed and the wall time that
	// was first read: a disconnected device's row says how long ago its numbers were current.
	seen map[string]seenAt
	now  time.Time // the wall time of the newest read

	keys     overviewKeyMap
	themes   []themes.Theme // what `t` cycles, as on one device's dashboard
	themeIdx int
	footer   footerModel
	help     helpModel
	helpOpen bool
}

// seenAt is a device time and the wall time it was first read at.
type seenAt struct {
	ns int64
	at time.Time
}

// overviewRow is what one row shows, read inside a Cmd.
type overviewRow struct {
	dev       LabDevice
	snap      *metrics.Snapshot
	connected bool
}

// overviewMsg carries the rows read at a refresh, and when they were read.
type overviewMsg struct {
	rows []overviewRow
	now  time.Time
}

// NewOverview returns the overview over list; opts are the dashboards' options (Session is set
// per device).
func NewOverview(opts Options, list func() []LabDevice) Overview {
	if opts.Refresh <= 0 {
		opts.Refresh = 250 * time.Millisecond
	}
	if opts.After == nil {
		opts.After = tea.Tick
	}
	if opts.TargetFPS <= 0 {
		opts.TargetFPS = 55
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Theme.Name == "" {
		opts.Theme, _ = themes.Get(themes.Default)
	}
	o := Overview{opts: opts, list: list, dash: map[string]Model{}, seen: map[string]seenAt{},
		keys: defaultOverviewKeys(), themes: opts.Themes}
	if len(o.themes) == 0 {
		o.themes = themes.Fitting(!opts.LightBackground)
	}
	return o.useTheme(opts.Theme)
}

// useTheme draws the overview (its footer and help too) with theme t, adding t to the themes
// `t` cycles when it is not among them.
func (o Overview) useTheme(t themes.Theme) Overview {
	o.themeIdx = -1
	for i, th := range o.themes {
		if th.Name == t.Name {
			o.themeIdx = i
		}
	}
	if o.themeIdx < 0 {
		o.themes = append([]themes.Theme{t}, o.themes...)
		o.themeIdx = 0
	}
	st := themes.NewStyles(t, !o.opts.LightBackground)
	o.st = &st
	o.footer = newFooter(o.st).SetKeys(o.keys.ShortHelp()).SetSize(o.w, 1)
	o.help = newHelp(o.st, o.keys.sections()).SetSize(o.screenW(), o.h)
	return o
}

// screenW is the width drawn at (100 before the first size).
func (o Overview) screenW() int {
	if o.w <= 0 {
		return 100
	}
	return o.w
}

// Init reads the devices at once.
func (o Overview) Init() tea.Cmd { return o.read(0) }

// read returns a Cmd that reads every device's newest snapshot after d (no I/O in Update).
func (o Overview) read(d time.Duration) tea.Cmd {
	list, now := o.list, o.opts.Now
	fetch := func(time.Time) tea.Msg {
		var rows []overviewRow
		for _, dev := range list() {
			r := overviewRow{dev: dev, connected: true}
			if dev.Session != nil {
				r.snap = dev.Session.Latest()
			}
			if dev.Connected != nil {
				r.connected = dev.Connected()
			}
			rows = append(rows, r)
		}
		return overviewMsg{rows: rows, now: now()}
	}
	if d == 0 {
		return func() tea.Msg { return fetch(time.Now()) }
	}
	return o.opts.After(d, fetch)
}

// noticeLinger is how long a flashed notice stays on the overview's notice line.
const noticeLinger = 10 * time.Second

// Update implements tea.Model.
func (o Overview) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case overviewMsg:
		o.rows, o.now = msg.rows, msg.now
		for _, r := range o.rows {
			if r.snap != nil && (r.snap.NowNs != o.seen[r.dev.Serial].ns || o.seen[r.dev.Serial].at.IsZero()) {
				o.seen[r.dev.Serial] = seenAt{ns: r.snap.NowNs, at: o.now}
			}
		}
		if o.sel >= len(o.rows) {
			o.sel = max(0, len(o.rows)-1)
		}
		return o, o.read(o.opts.Refresh)
	case tea.WindowSizeMsg:
		o.w, o.h = msg.Width, msg.Height
		o.footer = o.footer.SetSize(o.w, 1)
		o.help = o.help.SetSize(o.w, o.h)
		return o.toDashboard(msg)
	case FlashMsg:
		o.notice, o.noticeAt = msg.Text, o.now
		return o.toDashboard(msg)
	case tea.KeyMsg:
		if o.open == "" {
			return o.key(msg)
		}
		if msg.String() == "esc" && !o.dash[o.open].modal() {
			// back to the overview, in the theme the dashboard was left in (`t` there)
			o = o.useTheme(o.dash[o.open].theme())
			o.open = ""
			return o, nil
		}
	}
	return o.toDashboard(msg)
}

// toDashboard hands msg to the open dashboard.
func (o Overview) toDashboard(msg tea.Msg) (tea.Model, tea.Cmd) {
	if o.open == "" {
		return o, nil
	}
	m, cmd := o.dash[o.open].Update(msg)
	o.dash[o.open] = m.(Model)
	if o.dash[o.open].Quitting() {
		o.quiting = true
	}
	return o, cmd
}

// key handles the overview's keys: move, open, theme, help, quit. With the help open only
// esc, ? and q mean something.
func (o Overview) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(msg, o.keys.Quit):
		o.quiting = true
		return o, tea.Quit
	case key.Matches(msg, o.keys.Help):
		o.helpOpen = !o.helpOpen
	case o.helpOpen:
		if key.Matches(msg, o.keys.Close) {
			o.helpOpen = false
		}
	case key.Matches(msg, o.keys.Up):
		if o.sel > 0 {
			o.sel--
		}
	case key.Matches(msg, o.keys.Down):
		if o.sel < len(o.rows)-1 {
			o.sel++
		}
	case key.Matches(msg, o.keys.Theme):
		o = o.useTheme(o.themes[(o.themeIdx+1)%len(o.themes)])
		o.notice = "theme: " + o.themes[o.themeIdx].Name
	case key.Matches(msg, o.keys.Open):
		if o.sel < len(o.rows) && o.rows[o.sel].dev.Session != nil {
			return o.drill(o.rows[o.sel].dev)
		}
	}
	return o, nil
}

// drill opens dev's dashboard, making it on first use.
func (o Overview) drill(dev LabDevice) (tea.Model, tea.Cmd) {
	o.open = dev.Serial
	m, ok := o.dash[dev.Serial]
	opts := o.opts
	opts.Session = dev.Session
	opts.Theme = o.themes[o.themeIdx]
	if !ok {
		m = New(opts)
	}
	m = m.useTheme(opts.Theme) // the overview's theme, changed there since the last visit
	var cmds []tea.Cmd
	cmds = append(cmds, m.Init()) // its refresh stopped while the overview was shown
	if o.w > 0 {
		nm, cmd := m.Update(tea.WindowSizeMsg{Width: o.w, Height: o.h})
		m = nm.(Model)
		cmds = append(cmds, cmd)
	}
	o.dash[dev.Serial] = m
	return o, tea.Batch(cmds...)
}

// View implements tea.Model.
func (o Overview) View() string {
	if o.open != "" {
		return o.dash[o.open].View()
	}
	if o.quiting {
		return ""
	}
	w := o.screenW()
	st := o.st
	lines := []string{
		st.Title.Render(fit(fmt.Sprintf("fpstop · %d devices", len(o.rows)), w)),
		st.TableHead.Render(fit(fmt.Sprintf("%-2s%-16s %-10s %-18s %-14s %-12s %3s %7s %7s  %s", "", "DEVICE", "MODEL", "APP", "SOURCE", "STATE", "HZ", "FPS NOW", "JANK %", "FPS (1 s slices)"), w)),
	}
	sparkW := w - 98
	// the devices share the screen: each row's FPS chart grows to use the height (up to
	// overviewMaxRows lines), so a few phones on a tall terminal leave no empty screen
	// (with a blank line between the devices once the charts are 4 lines or more)
	ph, gap := 1, 0
	if n := len(o.rows); n > 0 {
		ph = max(1, min(overviewMaxRows, (o.h-4)/n))
		if ph >= 4 {
			ph, gap = max(1, min(overviewMaxRows, (o.h-4)/n-1)), 1
		}
	}
	for i, r := range o.rows {
		if i > 0 && gap > 0 {
			lines = append(lines, "")
		}
		lines = append(lines, o.row(r, i == o.sel, sparkW, ph)...)
	}
	if len(o.rows) == 0 {
		lines = append(lines, st.Muted.Render("  waiting for devices…"))
	}
	for len(lines) < o.h-2 {
		lines = append(lines, "")
	}
	notice := o.notice
	if !o.noticeAt.IsZero() && o.now.Sub(o.noticeAt) >= noticeLinger {
		notice = ""
	}
	lines = append(lines, st.Muted.Render(fit(notice, w)))
	lines = append(lines, o.footer.View())
	if o.helpOpen {
		lines = composite(lines, o.help.View(), w, max(o.h, len(lines)), st.Reset())
	}
	return strings.Join(paintLines(st, lines, w), "\n")
}

// overviewMaxRows is the tallest a device's row grows.
const overviewMaxRows = 12

// row draws one device's row: its line of figures and its FPS chart, ph lines high (the chart's
// lower lines under blank columns). A stale row (the device went away or is disconnected) keeps
// its last numbers in the one stale style, its chart after "✕ last seen N s ago".
func (o Overview) row(r overviewRow, selected bool, sparkW, ph int) []string {
	st := o.st
	model, app, src, state, hz := "–", "–", "–", stateWord(r.snap), "–"
	fpsText, jank := "–", "–"
	fpsStyle := st.Muted
	stale := o.stale(r)
	var tail string
	var spark []string
	if stale {
		tail = o.lastSeen(r)
	}
	if s := r.snap; s != nil {
		model, app, src = orDash(s.Session.Device.Model), orDash(s.Session.Package), orDash(string(s.Session.Source))
		if s.RefreshHz > 0 {
			hz = fmt.Sprintf("%.0f", s.RefreshHz)
		}
		target := o.opts.TargetFPS
		if s.TargetFPS > 0 {
			target = s.TargetFPS
		}
		// the figure says what the state says, as the dashboard's headline does: none beside
		// idle, frozen or "no frames" (the newest complete second may still hold frames)
		if v, ok := lastFPS(s.Series); ok && !notDrawing(s.State) {
			fpsText = fmt.Sprintf("%.1f", v)
			fpsStyle = st.Good
			switch {
			case v < target*0.8:
				fpsStyle = st.Bad
			case v < target:
				fpsStyle = st.Warn
			}
		}
		if !math.IsNaN(s.Totals.JankPct) {
			jank = fmt.Sprintf("%.1f", s.Totals.JankPct)
		}
		if sw := sparkW - tailWidth(tail); sw > 8 {
			f := newFPS(st, target)
			f, _ = f.Update(dataMsg{snap: s})
			spark = f.spark(sw, ph)
		}
	}
	mark := "  "
	if selected {
		mark = "▶ "
	}
	serial := r.dev.Serial
	if !r.connected {
		serial += " (gone)"
	}
	if !r.connected {
		state = "gone"
	}
	left := fmt.Sprintf("%s%-16s %-10s %-18s %-14s %-12s %3s ", mark, fit(serial, 16), fit(model, 10), fit(app, 18), fit(src, 14),
		fit(state, 12), hz)
	// the figures' line with the chart's top line, the chart's other lines under it
	out := make([]string, ph)
	pad := strings.Repeat(" ", ansi.StringWidth(left)+7+1+7+2+tailWidth(tail))
	for i := 1; i < ph; i++ {
		if i < len(spark) {
			line := spark[i]
			if stale {
				line = st.Stale.Render(ansi.Strip(line))
			}
			out[i] = pad + line
		}
	}
	first := ""
	if len(spark) > 0 {
		first = spark[0]
	}
	if stale {
		right := alignRight(fpsText, 7) + " " + alignRight(jank, 7) + "  " + ansi.Truncate(tail, max(0, sparkW), "…")
		if first != "" {
			right += " " + ansi.Strip(first)
		}
		if selected {
			out[0] = st.Selected.Render(left) + st.Stale.Render(right)
		} else {
			out[0] = st.Stale.Render(left + right)
		}
		return out
	}
	if selected {
		left = st.Selected.Render(left)
	}
	out[0] = left + fpsStyle.Render(alignRight(fpsText, 7)) + " " + alignRight(jank, 7) + "  " + first
	return out
}

// tailWidth is the columns a stale row's note takes before its sparkline (0 without one).
func tailWidth(tail string) int {
	if tail == "" {
		return 0
	}
	return ansi.StringWidth(tail) + 1
}

// stale reports whether a row's numbers are no longer current: the device went away, or its
// session says it is disconnected.
func (o Overview) stale(r overviewRow) bool {
	return !r.connected || r.snap != nil && r.snap.State.Outage()
}

// lastSeen says how long ago a stale row's numbers were current.
func (o Overview) lastSeen(r overviewRow) string {
	s, ok := o.seen[r.dev.Serial]
	if !ok || r.snap == nil {
		return "✕ disconnected"
	}
	return fmt.Sprintf("✕ last seen %d s ago", int(max(0, o.now.Sub(s.at))/time.Second))
}

// lastFPS is the FPS of the newest complete slice; false when it was idle.
func lastFPS(series []metrics.SlicePoint) (float64, bool) {
	for i := len(series) - 1; i >= 0; i-- {
		if series[i].Partial {
			continue
		}
		if series[i].Idle || math.IsNaN(series[i].FPS) {
			return 0, false
		}
		return series[i].FPS, true
	}
	return 0, false
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// modal reports whether the dashboard has something open that esc closes (an overlay).
func (m Model) modal() bool { return m.overlay != overlayNone }
