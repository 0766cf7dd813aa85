// Package ui is fpstop's terminal dashboard, built with Bubble Tea: a header, an FPS sparkline,
// the frame-time graph (or stacked phase bars), drop-level bars, the frame-time histogram, the
// slowest main-thread messages, the worst frames, the per-window table, a notice line, key hints
// and a help overlay, plus device and app pickers and replay controls.
//
// The package reads *metrics.Snapshot values and never modifies them; it never parses device
// output and never touches adb, files or recordings itself: the CLI hands it a Session (an
// interface defined here), whose methods run inside tea.Cmds, never in Update or View.
//
// Data flow: a tea.Tick every Options.Refresh calls Session.Latest; panels redraw their
// cached chart strings only when Snapshot.Seq moved (or on resize / theme change), so View with
// nothing new only joins cached lines. Pausing (p) stops applying snapshots; collection goes on.
//
// Each panel is one component in its own file with Update (returning its concrete type), View
// and SetSize, and its own key map where it has keys; the root Model only routes: global keys,
// window-size fan-out, overlays.
package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
)

// Options wire the dashboard to the rest of fpstop. Every field is optional; a callback left
// nil disables its feature (with a notice when its key is pressed).
type Options struct {
	// Theme is the starting theme (zero value: themes.Default).
	Theme themes.Theme
	// Themes is what `t` cycles through (default: the built-in themes, plus Theme when it is
	// a user theme).
	Themes []themes.Theme
	// LightBackground says the terminal background is light; used by themes whose background
	// is auto. Detect it in main before the program starts (lipgloss.HasDarkBackground), never
	// after: the terminal query would race Bubble Tea for stdin.
	LightBackground bool
	// TargetFPS colours the current FPS until a snapshot says otherwise (default 55).
	TargetFPS float64
	// Refresh is how often snapshots are read (default 250 ms).
	Refresh time.Duration
	// Now is the clock (default time.Now); tests inject a fixed one.
	Now func() time.Time
	// After schedules a timer message (default tea.Tick); tests inject one whose Cmd returns
	// at once, so running a Cmd never means waiting for a timer.
	After Timer
	// Session is what the dashboard shows and steers (nil: nothing to show; SnapshotMsg can
	// still hand it snapshots).
	Session Session
	// Replay is set when the dashboard drives a recording: it enables the progress bar and
	// the ←/→ +/- home/end and space keys.
	Replay ReplayControl
	// Note is a persistent line for the notice area, e.g. "no device found: showing the
	// simulator".
	Note string
	// PickDevice opens the device picker at start (several devices and none chosen).
	PickDevice bool
}

// Timer schedules fn's message after d, as tea.Tick does.
type Timer func(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd

// SnapshotMsg hands the dashboard a snapshot directly (besides the Refresh tick); it is applied
// like a ticked one: not while paused, and panels redraw only when Seq moved.
type SnapshotMsg struct{ Snapshot *metrics.Snapshot }

// tickMsg is the refresh tick with what the callbacks returned (read inside the Cmd).
type tickMsg struct {
	snap      *metrics.Snapshot
	hasRec    bool
	rec       recState
	hasReplay bool
	replay    replayStatus
	now       time.Time
}

// recordMsg is the result of starting or stopping a recording.
type recordMsg struct {
	start bool
	path  string
	err   error
}

// clearedMsg says Session.Clear ran.
type clearedMsg struct{}

// overlay is what covers the dashboard.
type overlay int

const (
	overlayNone overlay = iota
	overlayHelp
	overlayDetail
	overlayDevices
	overlayApps
	overlayLayers
)

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

// Model is the dashboard: a tea.Model. Create it with New.
type Model struct {
	opts     Options
	be       backend // what the Session offers
	keys     KeyMap
	themes   []themes.Theme
	themeIdx int
	st       *themes.Styles

	w, h   int
	layout layoutKind

	snap     *metrics.Snapshot
	applied  bool
	paused   bool
	warnSeen int
	rec      recState
	recErr   string
	now      time.Time
	overlay  overlay
	quitting bool

	header headerModel
	flash  flashModel
	fps    fpsModel
	ft     frameTimeModel
	drops  dropsModel
	hist   histogramModel
	msgs   messagesModel
	worst  worstModel
	wins   windowsModel
	footer footerModel
	replay replayModel
	help   helpModel
	devs   devicePickerModel
	apps   appPickerModel
	layers layerPickerModel
	// layerHint: the snapshot lists SurfaceFlinger layers, so the footer offers `l`
	layerHint bool
}

// New returns the dashboard for opts.
func New(opts Options) Model {
	if opts.Refresh <= 0 {
		opts.Refresh = 250 * time.Millisecond
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.After == nil {
		opts.After = tea.Tick
	}
	if opts.TargetFPS <= 0 {
		opts.TargetFPS = 55
	}
	if opts.Theme.Name == "" {
		opts.Theme, _ = themes.Get(themes.Default)
	}
	ts := opts.Themes
	if len(ts) == 0 {
		ts = themes.All()
	}
	idx := -1
	for i, t := range ts {
		if t.Name == opts.Theme.Name {
			idx = i
		}
	}
	if idx < 0 {
		ts = append([]themes.Theme{opts.Theme}, ts...)
		idx = 0
	}
	stv := themes.NewStyles(opts.Theme, !opts.LightBackground)
	st := &stv
	be := newBackend(opts.Session)
	m := Model{
		opts:     opts,
		keys:     DefaultKeyMap(),
		themes:   ts,
		themeIdx: idx,
		st:       st,
		header:   newHeader(st),
		flash:    newFlash(st, opts.After),
		fps:      newFPS(st, opts.TargetFPS),
		ft:       newFrameTime(st),
		drops:    newDrops(st),
		hist:     newHistogram(st),
		msgs:     newMessages(st),
		worst:    newWorst(st),
		wins:     newWindows(st),
		footer:   newFooter(st),
		replay:   newReplay(st, opts.Replay),
		be:       be,
		devs:     newDevicePicker(st, be.devs, opts.After),
		apps:     newAppPicker(st, be.apps),
		layers:   newLayerPicker(st),
	}
	m.help = newHelp(st, m.helpSections())
	m.footer = m.footer.SetKeys(m.footerKeys())
	m.flash = m.flash.SetStatus(m.status())
	return m
}

// Init starts the refresh loop with an immediate first read.
func (m Model) Init() tea.Cmd {
	if m.opts.PickDevice && m.be.devs != nil {
		return tea.Batch(m.poll(0), func() tea.Msg { return openDevicePickerMsg{} })
	}
	return m.poll(0)
}

// openDevicePickerMsg opens the device picker as if `d` was pressed.
type openDevicePickerMsg struct{}

// poll reads the callbacks inside a Cmd after d (0 = now) and reports a tickMsg. Exactly one
// poll is in flight at any time: the next one is armed when its tickMsg arrives.
func (m Model) poll(d time.Duration) tea.Cmd {
	o, be := m.opts, m.be
	read := func() tea.Msg {
		t := tickMsg{now: o.Now()}
		if be.latest != nil {
			t.snap = be.latest()
		}
		if be.status != nil {
			t.hasRec = true
			st := be.status()
			t.rec.active, t.rec.path, t.rec.since, t.rec.err = st.Active, st.Path, st.Since, st.Err
		}
		if o.Replay != nil {
			t.hasReplay, t.replay = true, readReplay(o.Replay)
		}
		return t
	}
	if d <= 0 {
		return read
	}
	return o.After(d, func(time.Time) tea.Msg { return read() })
}

// Paused reports whether the screen is paused.
func (m Model) Paused() bool { return m.paused }

// Snapshot is the snapshot on screen (nil before the first).
func (m Model) Snapshot() *metrics.Snapshot { return m.snap }

// Quitting reports whether the user asked to quit.
func (m Model) Quitting() bool { return m.quitting }

// HelpOpen reports whether the help overlay is open.
func (m Model) HelpOpen() bool { return m.overlay == overlayHelp }

// Update routes messages: global keys, size fan-out, overlays, data.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		return m.resize(), nil
	case tickMsg:
		m = m.applyTick(msg)
		if msg.snap != nil && !m.paused {
			m = m.apply(msg.snap)
		}
		return m.withFlashFromRecorder(m.poll(m.opts.Refresh))
	case SnapshotMsg:
		if msg.Snapshot != nil && !m.paused {
			m = m.apply(msg.Snapshot)
		}
		return m, nil
	case FlashMsg, clearFlashMsg:
		m.flash, cmd = m.flash.Update(msg)
		return m, cmd
	case replayStatusMsg:
		m.replay, cmd = m.replay.Update(msg)
		return m, cmd
	case recordMsg:
		return m.recorded(msg)
	case clearedMsg:
		return m, flashCmd(FlashInfo, "statistics cleared")
	case devicesMsg:
		m.devs, cmd = m.devs.Update(msg)
		return m, cmd
	case openDevicePickerMsg:
		m.overlay = overlayDevices
		m.devs, cmd = m.devs.Load()
		return m, cmd
	case devicePollMsg:
		if m.overlay != overlayDevices {
			return m, nil // the picker was closed: the polling stops
		}
		m.devs, cmd = m.devs.Update(msg)
		return m, cmd
	case appsMsg:
		m.apps, cmd = m.apps.Update(msg)
		return m, cmd
	case pickDeviceMsg:
		if m.be.apps == nil {
			m.overlay = overlayNone
			return m, m.pick(msg.serial, "")
		}
		m.overlay = overlayApps
		m.apps, cmd = m.apps.Load(msg.serial)
		return m, cmd
	case pickAppMsg:
		m.overlay = overlayNone
		return m, m.pick(msg.serial, msg.pkg)
	case pickLayerMsg:
		m.overlay = overlayNone
		return m, tea.Batch(flashCmd(FlashInfo, "switching to layer "+msg.layer), m.be.layer(msg.layer))
	case closePickerMsg:
		m.overlay = overlayNone
		return m, nil
	case tea.KeyMsg:
		return m.key(msg)
	case tea.MouseMsg:
		// The wheel scrolls the messages table (when the program enables the mouse).
		if m.overlay == overlayNone && msg.Action == tea.MouseActionPress {
			switch msg.Button {
			case tea.MouseButtonWheelUp:
				m.msgs, cmd = m.msgs.Update(tea.KeyMsg{Type: tea.KeyUp})
			case tea.MouseButtonWheelDown:
				m.msgs, cmd = m.msgs.Update(tea.KeyMsg{Type: tea.KeyDown})
			}
		}
		return m, cmd
	}
	return m, nil
}

// key routes a key: overlays first, then global keys, then panel keys.
func (m Model) key(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	if msg.String() == "ctrl+c" {
		m.quitting = true
		return m, tea.Quit
	}
	switch m.overlay {
	case overlayDevices:
		m.devs, cmd = m.devs.Update(msg)
		return m, cmd
	case overlayApps:
		m.apps, cmd = m.apps.Update(msg)
		return m, cmd
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
		m.themeIdx = (m.themeIdx + 1) % len(m.themes)
		st := themes.NewStyles(m.themes[m.themeIdx], !m.opts.LightBackground)
		m = m.setStyles(&st)
		return m, flashCmd(FlashInfo, "theme: "+m.themes[m.themeIdx].Name)
	case key.Matches(msg, m.keys.Devices):
		if m.be.devs == nil {
			return m, flashCmd(FlashWarn, "no device picker here (simulator or file input)")
		}
		m.overlay = overlayDevices
		m.devs, cmd = m.devs.Load()
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
		if m.be.layer == nil {
			return m, flashCmd(FlashWarn, "no layer picker here (simulator or file input)")
		}
		m.overlay = overlayLayers
		m.layers = m.layers.Open(m.snap)
	case key.Matches(msg, m.ft.keys.Mode):
		m.ft, cmd = m.ft.Update(msg)
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

// applyTick applies the recorder and replay state and the clock.
func (m Model) applyTick(t tickMsg) Model {
	m.now = t.now
	if t.hasRec {
		m.rec = t.rec
	}
	if t.hasReplay {
		m.replay, _ = m.replay.Update(replayStatusMsg{t.replay})
	}
	m.header, _ = m.header.Update(m.headerState())
	return m
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

// apply shows snap when it is new (Seq moved, or the first).
func (m Model) apply(s *metrics.Snapshot) Model {
	if m.applied && s.Seq == m.snap.Seq {
		return m
	}
	m.snap, m.applied = s, true
	return m.fanOut(s)
}

// fanOut hands the snapshot and the window filter to every panel.
func (m Model) fanOut(s *metrics.Snapshot) Model {
	d := dataMsg{snap: s, window: m.wins.Filter()}
	m.header, _ = m.header.Update(d)
	m.fps, _ = m.fps.Update(d)
	m.ft, _ = m.ft.Update(d)
	m.drops, _ = m.drops.Update(d)
	m.hist, _ = m.hist.Update(d)
	m.msgs, _ = m.msgs.Update(d)
	m.worst, _ = m.worst.Update(d)
	m.wins, _ = m.wins.Update(d)
	if m.overlay == overlayLayers {
		m.layers, _ = m.layers.Update(d)
	}
	if h := len(s.LayerChoices) > 0; h != m.layerHint {
		m.layerHint = h
		m.footer = m.footer.SetKeys(m.footerKeys())
	}
	m.flash = m.flash.SetStatus(m.status())
	if n := len(s.Warnings); n != m.warnSeen {
		if n > m.warnSeen {
			m.flash, _ = m.flash.Update(FlashMsg{Level: FlashWarn, Text: s.Warnings[n-1]})
		}
		m.warnSeen = n
	}
	return m
}

func (m Model) headerState() headerMsg {
	return headerMsg{paused: m.paused, rec: m.rec, now: m.now, replay: m.opts.Replay != nil}
}

// status is the notice line's text when no flash is on show.
func (m Model) status() string {
	var parts []string
	if m.paused {
		parts = append(parts, "paused: the screen is frozen, collection continues (p resumes)")
	}
	if m.snap != nil && m.snap.StateText != "" {
		parts = append(parts, m.snap.StateText)
	}
	if m.opts.Note != "" {
		parts = append(parts, m.opts.Note)
	}
	if m.snap != nil && len(m.snap.Warnings) > 0 {
		w := m.snap.Warnings
		parts = append(parts, "⚠ "+strconv.Itoa(len(w))+" warnings, latest: "+w[len(w)-1])
		if len(w) == 1 {
			parts[len(parts)-1] = "⚠ " + w[0]
		}
	}
	return strings.Join(parts, " · ")
}

// record starts or stops a recording through the Recorder, inside a Cmd.
func (m Model) record() tea.Cmd {
	if m.be.record == nil {
		return flashCmd(FlashWarn, "recording is not available here")
	}
	f, start := m.be.record, !m.rec.active
	return func() tea.Msg {
		path, err := f(start)
		return recordMsg{start: start, path: path, err: err}
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
	return m, flashCmd(FlashInfo, "recording saved: "+msg.path)
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

// flashCmd returns a Cmd that shows a flash.
func flashCmd(l FlashLevel, text string) tea.Cmd {
	return func() tea.Msg { return FlashMsg{Level: l, Text: text} }
}

// setStyles hands a new theme to every component.
func (m Model) setStyles(st *themes.Styles) Model {
	m.st = st
	m.header = m.header.SetStyles(st)
	m.flash = m.flash.SetStyles(st)
	m.fps = m.fps.SetStyles(st)
	m.ft = m.ft.SetStyles(st)
	m.drops = m.drops.SetStyles(st)
	m.hist = m.hist.SetStyles(st)
	m.msgs = m.msgs.SetStyles(st)
	m.worst = m.worst.SetStyles(st)
	m.wins = m.wins.SetStyles(st)
	m.footer = m.footer.SetStyles(st)
	m.replay = m.replay.SetStyles(st)
	m.help = m.help.SetStyles(st)
	m.devs = m.devs.SetStyles(st)
	m.apps = m.apps.SetStyles(st)
	m.layers = m.layers.SetStyles(st)
	return m
}

// helpSections lists every key for the help overlay.
func (m Model) helpSections() []helpSection {
	k := m.keys
	mk := m.msgs.keys
	rk := m.replay.keys
	secs := []helpSection{
		{"General", []key.Binding{k.Quit, k.Help, k.Close}},
		{"Dashboard", []key.Binding{k.Pause, k.Record, k.Clear, k.Theme, k.Devices, k.Apps}},
		{"Panels", []key.Binding{m.wins.keys.Filter, m.ft.keys.Mode, mk.Sort, mk.Up, mk.Down, mk.Open}},
	}
	if m.opts.Replay != nil {
		secs = append(secs, helpSection{"Replay", []key.Binding{rk.Pause, rk.Back, rk.Forward, rk.Faster, rk.Slower, rk.Start, rk.End}})
	}
	return secs
}

// footerKeys are the footer's hints with short labels; keys whose callback is missing are
// left out (the help overlay still lists every key).
func (m Model) footerKeys() []key.Binding {
	b := func(k, d string) key.Binding { return key.NewBinding(key.WithKeys(k), key.WithHelp(k, d)) }
	o := m.opts
	ks := []key.Binding{b("q", "quit"), b("p", "pause")}
	if o.Replay != nil {
		ks = []key.Binding{b("q", "quit"), b("space", "play/pause"), b("←/→", "seek"), b("+/-", "speed")}
	}
	if m.be.record != nil {
		ks = append(ks, b("r", "rec"))
	}
	ks = append(ks, b("w", "window"), b("s", "sort"), b("g", "graph"), b("t", "theme"))
	if m.be.clear != nil {
		ks = append(ks, b("c", "clear"))
	}
	if m.be.devs != nil {
		ks = append(ks, b("d", "device"))
	}
	if m.be.apps != nil {
		ks = append(ks, b("a", "app"))
	}
	if m.be.layer != nil && m.layerHint {
		ks = append(ks, b("l", "layer"))
	}
	return append(ks, b("?", "help"))
}

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

// drawOverlay draws the open overlay centred over the dashboard lines.
func (m Model) drawOverlay(base []string) []string {
	var ov []string
	switch m.overlay {
	case overlayHelp:
		ov = m.help.View()
	case overlayDetail:
		ov = m.msgs.DetailView(min(m.w-4, 90), min(m.h-2, 22))
	case overlayDevices:
		ov = m.devs.View()
	case overlayApps:
		ov = m.apps.View()
	case overlayLayers:
		ov = m.layers.View()
	}
	if len(ov) == 0 {
		return base
	}
	ow, oh := width(ov[0]), len(ov)
	x0, y0 := (m.w-ow)/2, (m.h-oh)/2
	reset := "\x1b[0m"
	if m.st.Mono {
		reset = ""
	}
	out := append([]string(nil), base...)
	for i, l := range ov {
		y := y0 + i
		if y < 0 || y >= len(out) {
			continue
		}
		b := out[y]
		out[y] = ansi.Truncate(b, x0, "") + reset + l + reset + ansi.TruncateLeft(b, x0+ow, "")
	}
	return out
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
