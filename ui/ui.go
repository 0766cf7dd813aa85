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
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
)

// Options wire the dashboard to the rest of fpstop. Every field is optional; a callback left
// nil disables its feature (with a notice when its key is pressed).
type Options struct {
	// Theme is the starting theme (zero value: themes.Default).
	Theme themes.Theme
	// Themes is what `t` cycles through (default: the built-in themes that suit the terminal's
	// background, plus Theme when it is not among them).
	Themes []themes.Theme
	// LightBackground says the terminal background is light: themes whose background is auto
	// follow it, and `t` cycles only the themes that suit it (never `light` on a dark
	// terminal, where its dark text is unreadable). Detect it in main before the program
	// starts (lipgloss.HasDarkBackground), never after: the terminal query would race Bubble
	// Tea for stdin.
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
	// Exports says which exports (OTLP, the metrics file) are failing, "" while all deliver;
	// read on every refresh, inside the refresh Cmd.
	Exports func() string
	// SourceNote says what the source is doing beside its state ("" when nothing): auto
	// looking for the app's Looper lines; read on every refresh, inside the refresh Cmd.
	SourceNote func() string
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
	exports   string
	srcNote   string
	hasOffer  bool
	offer     SourceOffer
}

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
	// panelOff: hidden with its number key; shown: laid out now; grid: the rows drawn; wants:
	// the panels' wanted heights the grid was made for; dropOrder: the order panels give way.
	panelOff  [numPanels]bool
	shown     [numPanels]bool
	grid      []layoutRow
	wants     [numPanels]int
	dropOrder []panelID

	snap     *metrics.Snapshot
	applied  bool
	paused   bool
	warnSeen int
	// warns: when each warning arrived and what ends it (it leaves the status line soon
	// after: it no longer applies); outage: the last snapshot's state was an outage; backAt:
	// when the device came back
	warns  []warnLife
	outage bool
	backAt time.Time
	// seenNs is the newest device time shown and seenAt when (wall clock) it arrived: while
	// disconnected the clock goes on from there and the numbers say how old they are
	seenNs   int64
	seenAt   time.Time
	rec      recState
	exports  string // failing exports, from the last refresh
	srcNote  string // what the source is doing, from the last refresh
	recErr   string
	now      time.Time
	overlay  overlay
	quitting bool
	// focus is the panel enter acts on (tab moves it): the messages table or the frame-time graph
	focus panelID

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
	tl     timelineModel
	// layerHint: the snapshot lists SurfaceFlinger layers, so the footer offers `l`
	layerHint bool
	// footerFor is the footerMode the footer's hints were set for
	footerFor int
	// offer is what `P` switches the source to (SourceSwitcher), as last read; switching: a
	// switch it started has not answered yet
	offer     SourceOffer
	switching bool
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
		ts = themes.Fitting(!opts.LightBackground)
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
		tl:       newTimeline(st),
	}
	m.help = newHelp(st, m.helpSections())
	m.footer = m.footer.SetKeys(m.overlayFooter())
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
		if o.Exports != nil {
			t.exports = o.Exports()
		}
		if o.SourceNote != nil {
			t.srcNote = o.SourceNote()
		}
		if be.offer != nil {
			t.hasOffer, t.offer = true, be.offer()
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

// Update routes messages: global keys, size fan-out, overlays, data. The footer follows the
// overlay: an open overlay's own keys, else the dashboard's.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	nm, cmd := m.route(msg)
	m = nm.(Model)
	if mode := m.footerMode(); mode != m.footerFor {
		m.footerFor = mode
		m.footer = m.footer.SetKeys(m.overlayFooter())
	}
	return m, cmd
}

// route handles one message.
func (m Model) route(msg tea.Msg) (tea.Model, tea.Cmd) {
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
		m.header, _ = m.header.Update(m.headerState()) // the header follows the replay's pause
		return m, cmd
	case switchedMsg:
		// the note said why a device had to be picked: one was, so it no longer applies
		m.opts.Note = ""
		m.flash = m.flash.SetStatus(m.status())
		m.flash, cmd = m.flash.Update(FlashMsg{Level: FlashInfo, Text: "now reading " + msg.what})
		return m, cmd
	case sourceSwitchedMsg:
		return m.sourceSwitched(msg)
	case recordMsg:
		return m.recorded(msg)
	case clearedMsg:
		return m, flashCmd(FlashInfo, "statistics cleared")
	case devicesMsg:
		m.devs, cmd = m.devs.Update(msg)
		return m.takePick(cmd) // an enter typed while the devices were listed
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
		return m.takePick(cmd) // an enter typed while the apps were listed
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
		if m.clickOpensTimeline(msg) {
			m = m.setFocus(panelFrameTime)
			m.overlay, m.tl = overlayTimeline, m.tl.Open()
			return m, nil
		}
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
