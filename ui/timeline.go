package ui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
)

// The timeline view: every frame of the run (Snapshot.History) on a full-screen braille
// time-series chart drawn by ntcharts, with a real time axis (time since the session began),
// zoom and pan, janky frames and freezes marked on a strip under the chart, and a cursor whose
// frame is shown with the messages attributed to it. Live and in replay the cursor follows the
// newest frame (the playhead) until a key moves it; `0` follows again.

// timelineKeyMap are the timeline's keys. Inside the timeline + - ← → zoom and pan; outside
// they keep their replay meaning (the root model routes keys to the timeline only while open).
type timelineKeyMap struct {
	Close                key.Binding
	ZoomIn, ZoomOut      key.Binding
	PanLeft, PanRight    key.Binding
	PrevFrame, NextFrame key.Binding
	PrevJank, NextJank   key.Binding
	Follow               key.Binding
}

func defaultTimelineKeys() timelineKeyMap {
	return timelineKeyMap{
		Close:     key.NewBinding(key.WithKeys("esc", "f"), key.WithHelp("esc", "close the timeline")),
		ZoomIn:    key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "zoom in")),
		ZoomOut:   key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "zoom out")),
		PanLeft:   key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←", "pan back in time")),
		PanRight:  key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→", "pan forward in time")),
		PrevFrame: key.NewBinding(key.WithKeys(","), key.WithHelp(",", "cursor to the previous frame")),
		NextFrame: key.NewBinding(key.WithKeys("."), key.WithHelp(".", "cursor to the next frame")),
		PrevJank:  key.NewBinding(key.WithKeys("["), key.WithHelp("[", "cursor to the previous janky frame")),
		NextJank:  key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "cursor to the next janky frame")),
		Follow:    key.NewBinding(key.WithKeys("0"), key.WithHelp("0", "whole run, follow the newest frame")),
	}
}

var _ help.KeyMap = timelineKeyMap{}

// ShortHelp implements help.KeyMap: the timeline's footer.
func (k timelineKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{joined("+/-", "zoom", k.ZoomIn, k.ZoomOut), joined("←/→", "pan", k.PanLeft, k.PanRight),
		joined("[/]", "janky frame", k.PrevJank, k.NextJank), joined(",/.", "frame", k.PrevFrame, k.NextFrame),
		hint(k.Follow, "0", "follow"), hint(k.Close, "esc", "close")}
}

// FullHelp implements help.KeyMap.
func (k timelineKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.ZoomIn, k.ZoomOut, k.PanLeft, k.PanRight, k.PrevJank, k.NextJank,
		k.PrevFrame, k.NextFrame, k.Follow, k.Close}}
}

// Zoom limits: each + halves the span shown; the narrowest span is minTimelineSpanNs.
const (
	maxTimelineZoom   = 12
	minTimelineSpanNs = int64(500e6)
)

// timelineModel is the timeline component. It keeps the newest snapshot always (cheap) and
// renders only while open.
type timelineModel struct {
	st     *themes.Styles
	keys   timelineKeyMap
	footer footerModel
	w, h   int
	open   bool

	snap   *metrics.Snapshot
	window string              // the window filter ("" = all)
	frames []metrics.FrameMark // snap.History of window
	// freezes are the stretches the screen stood still (timelinefreeze.go), oldest first
	freezes []freezeSpan

	zoom   int   // 0 = the whole run; each step halves the span
	center int64 // device time at the middle of the view while not following
	cursor int   // index into frames; -1 = none
	follow bool  // cursor on the newest frame, view ending at the newest time

	lines []string
}

func newTimeline(st *themes.Styles) timelineModel {
	m := timelineModel{st: st, keys: defaultTimelineKeys(), footer: newFooter(st), cursor: -1, follow: true}
	m.footer = m.footer.SetKeys(m.keys.ShortHelp())
	return m
}

// SetSize sets the screen size (the timeline is full-screen).
func (m timelineModel) SetSize(w, h int) timelineModel {
	m.w, m.h = w, h
	m.footer = m.footer.SetSize(w, 1)
	return m.render()
}

// SetStyles changes the theme.
func (m timelineModel) SetStyles(st *themes.Styles) timelineModel {
	m.st = st
	m.footer = m.footer.SetStyles(st)
	return m.render()
}

// Open shows the timeline, following the newest frame over the whole run.
func (m timelineModel) Open() timelineModel {
	m.open, m.follow, m.zoom = true, true, 0
	return m.setFrames().render()
}

// Close hides it (it stops rendering).
func (m timelineModel) Close() timelineModel { m.open = false; m.lines = nil; return m }

// IsOpen reports whether the timeline is on screen.
func (m timelineModel) IsOpen() bool { return m.open }

// Update applies data (dataMsg) and the timeline's keys; it reports nothing back: the root
// closes the timeline on Close.
func (m timelineModel) Update(msg tea.Msg) (timelineModel, tea.Cmd) {
	switch msg := msg.(type) {
	case dataMsg:
		if msg.snap == nil {
			return m, nil
		}
		m.snap, m.window = msg.snap, msg.window
		if !m.open {
			return m, nil
		}
		return m.setFrames().render(), nil
	case tea.KeyMsg:
		if !m.open {
			return m, nil
		}
		return m.key(msg).render(), nil
	}
	return m, nil
}

// key applies one key to the view and the cursor.
func (m timelineModel) key(msg tea.KeyMsg) timelineModel {
	lo, hi := m.viewRange()
	span := hi - lo
	switch {
	case key.Matches(msg, m.keys.ZoomIn):
		if m.zoom < maxTimelineZoom && span/2 >= minTimelineSpanNs {
			m.zoom++
			m.center = m.cursorNs(lo + span/2)
		}
	case key.Matches(msg, m.keys.ZoomOut):
		if m.zoom > 0 {
			m.zoom--
			m.center = m.cursorNs(lo + span/2)
		}
	case key.Matches(msg, m.keys.PanLeft), key.Matches(msg, m.keys.PanRight):
		if m.zoom == 0 {
			return m // the whole run is on screen: nothing to pan to
		}
		step := max(span/4, 1)
		if key.Matches(msg, m.keys.PanLeft) {
			step = -step
		}
		m.follow = false
		m.center = lo + span/2 + step
		m.cursor = m.nearest(m.center)
	case key.Matches(msg, m.keys.PrevFrame):
		m = m.moveCursor(max(m.cursor-1, 0))
	case key.Matches(msg, m.keys.NextFrame):
		m = m.moveCursor(min(m.cursor+1, len(m.frames)-1))
	case key.Matches(msg, m.keys.PrevJank):
		m = m.moveCursor(m.jank(-1))
	case key.Matches(msg, m.keys.NextJank):
		m = m.moveCursor(m.jank(1))
	case key.Matches(msg, m.keys.Follow):
		m.follow, m.zoom = true, 0
		m.cursor = len(m.frames) - 1
	}
	return m
}

// moveCursor puts the cursor on frame i, stops following and scrolls the view to keep it in.
func (m timelineModel) moveCursor(i int) timelineModel {
	if i < 0 || i >= len(m.frames) {
		return m
	}
	lo, hi := m.viewRange()
	m.follow, m.cursor = false, i
	m.center = lo + (hi-lo)/2
	if v := m.frames[i].VsyncNs; v < lo || v >= hi {
		m.center = v
	}
	return m
}

// cursorNs is the cursor frame's time, else def.
func (m timelineModel) cursorNs(def int64) int64 {
	if m.cursor >= 0 && m.cursor < len(m.frames) {
		return m.frames[m.cursor].VsyncNs
	}
	return def
}

// jank returns the index of the next janky frame (dropped a vsync or more, or ended a freeze)
// from the cursor in direction dir, or -1.
func (m timelineModel) jank(dir int) int {
	for i := m.cursor + dir; i >= 0 && i < len(m.frames); i += dir {
		if _, froze := m.freezeEnding(i); m.frames[i].Dropped > 0 || froze {
			return i
		}
	}
	return -1
}

// nearest returns the index of the frame nearest to device time t (-1 with no frames).
func (m timelineModel) nearest(t int64) int {
	fs := m.frames
	if len(fs) == 0 {
		return -1
	}
	i := searchFrames(fs, t)
	if i == len(fs) || (i > 0 && t-fs[i-1].VsyncNs < fs[i].VsyncNs-t) {
		i--
	}
	return i
}

// searchFrames returns the index of the first frame at or after t.
func searchFrames(fs []metrics.FrameMark, t int64) int {
	lo, hi := 0, len(fs)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if fs[mid].VsyncNs < t {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// setFrames takes the window's frames from the snapshot and keeps the cursor on its frame
// (or on the newest, following).
func (m timelineModel) setFrames() timelineModel {
	if m.snap == nil {
		return m
	}
	var at int64 = -1
	if m.cursor >= 0 && m.cursor < len(m.frames) {
		at = m.frames[m.cursor].VsyncNs
	}
	m.frames = m.snap.History
	if m.window != "" {
		m.frames = make([]metrics.FrameMark, 0, len(m.snap.History))
		for _, f := range m.snap.History {
			if f.Window == m.window {
				m.frames = append(m.frames, f)
			}
		}
	}
	m.freezes = freezes(m.frames, m.snap.Series, m.snap.SliceNs, m.snap.NowNs)
	switch {
	case m.follow || at < 0:
		m.cursor = len(m.frames) - 1
	default:
		m.cursor = m.nearest(at)
	}
	return m
}

// runRange is the whole run's time range: the session origin to the newest time seen.
func (m timelineModel) runRange() (lo, hi int64) {
	if m.snap == nil {
		return 0, 1
	}
	lo, hi = m.snap.OriginNs, m.snap.NowNs
	if len(m.frames) > 0 {
		lo = min(lo, m.frames[0].VsyncNs)
		hi = max(hi, m.frames[len(m.frames)-1].VsyncNs)
	}
	return lo, max(hi, lo+minTimelineSpanNs)
}

// viewRange is the device-time range on screen: the run's at zoom 0, else a span of the
// run's / 2^zoom around center (ending at the newest time while following), kept inside the run.
func (m timelineModel) viewRange() (lo, hi int64) {
	rlo, rhi := m.runRange()
	span := (rhi - rlo) >> m.zoom
	if m.zoom == 0 || span >= rhi-rlo {
		return rlo, rhi
	}
	span = max(span, minTimelineSpanNs)
	c := m.center
	if m.follow {
		c = rhi - span/2
	}
	lo = min(max(c-span/2, rlo), rhi-span)
	return lo, lo + span
}

// View returns the cached screen lines (nil while closed).
func (m timelineModel) View() []string { return m.lines }

// timelineKey routes a key while the timeline is open: q quits, esc or f closes it, space
// still plays and pauses a replay (so the cursor can be watched following the playhead), and
// the rest are the timeline's.
func (m Model) timelineKey(msg tea.KeyMsg) (tea.Model, tea.Cmd) {
	var cmd tea.Cmd
	switch {
	case key.Matches(msg, m.keys.Quit):
		m.quitting = true
		return m, tea.Quit
	case key.Matches(msg, m.tl.keys.Close):
		m.overlay, m.tl = overlayNone, m.tl.Close()
	case m.opts.Replay != nil && key.Matches(msg, m.replay.keys.Pause):
		m.replay, cmd = m.replay.Update(msg)
	default:
		m.tl, cmd = m.tl.Update(msg)
	}
	return m, cmd
}

// panelAt is the panel drawn at cell (x, y) of the dashboard, or -1: the rows of the layout grid
// start under the header and the notice line.
func (m Model) panelAt(x, y int) panelID {
	y0 := 2
	for _, r := range m.grid {
		if y >= y0 && y < y0+r.h {
			x0 := 0
			for j, c := range r.cols {
				if x >= x0 && x < x0+r.widths[j] {
					y1 := y0
					for k, id := range c {
						if y >= y1 && y < y1+r.hs[j][k] {
							return id
						}
						y1 += r.hs[j][k]
					}
				}
				x0 += r.widths[j]
			}
		}
		y0 += r.h
	}
	return -1
}

// clickOpensTimeline reports whether msg is a left click on the frame-time panel (which opens
// the timeline, as f does).
func (m Model) clickOpensTimeline(msg tea.MouseMsg) bool {
	return m.overlay == overlayNone && msg.Action == tea.MouseActionPress && msg.Button == tea.MouseButtonLeft &&
		m.panelAt(msg.X, msg.Y) == panelFrameTime
}
