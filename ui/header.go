package ui

import (
	"fmt"
	"math"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/themes"
)

// recState is what the recorder reports.
type recState struct {
	active bool
	path   string
	since  time.Time
	err    error
}

// headerModel is the one-line header: app name, device and model (or a SIMULATOR badge),
// package, source, refresh rate, state (live / paused / idle / disconnected / waiting / ended),
// ● REC with its elapsed time, and the session clock.
type headerModel struct {
	st    *themes.Styles
	w     int
	sess  source.Session
	state source.State
	busy  string // the main-thread message a freeze is in
	forNs int64  // how long the frozen / no-frames state has lasted
	hz    float64
	// layerFPS is the measured SurfaceFlinger layer's latest whole-second FPS (NaN unknown)
	layerFPS float64
	spanNs   int64
	paused   bool
	replay   bool
	rec      recState
	now      time.Time
	// seenAt is when (wall clock) the device time last moved: while disconnected the clock
	// goes on from it and the badge says how old the numbers are
	seenAt time.Time
	// startAt is the session's start by the wall clock (the first snapshot's time less its
	// span; again when the origin moved, after `c`), originNs the origin it was taken for: the
	// clock of a live session is wall time (DESIGN §6), never the device's estimate, which a
	// late logcat line once ran at 2× wall time
	startAt  time.Time
	originNs int64
	pausedAt time.Time // when p froze the screen
	line     string
}

func newHeader(st *themes.Styles) headerModel { return headerModel{st: st} }

// SetSize sets the width (the header is one line high).
func (m headerModel) SetSize(w, _ int) headerModel { m.w = w; return m.render() }

// SetStyles changes the theme.
func (m headerModel) SetStyles(st *themes.Styles) headerModel { m.st = st; return m.render() }

// headerMsg carries what the header shows besides the snapshot.
type headerMsg struct {
	paused bool
	rec    recState
	now    time.Time
	replay bool
	seenAt time.Time
}

// Update applies snapshot data (dataMsg) and state (headerMsg).
func (m headerModel) Update(msg tea.Msg) (headerModel, tea.Cmd) {
	switch msg := msg.(type) {
	case dataMsg:
		if s := msg.snap; s != nil {
			m.sess, m.state, m.hz = s.Session, s.State, s.RefreshHz
			m.busy, m.forNs = s.Busy, s.StateForNs
			m.layerFPS = measuredLayerFPS(s)
			m.spanNs = 0
			if s.NowNs > s.OriginNs && s.OriginNs > 0 {
				m.spanNs = s.NowNs - s.OriginNs
			}
			if s.OriginNs != m.originNs || m.startAt.IsZero() {
				m.originNs, m.startAt = s.OriginNs, time.Time{}
				if !m.now.IsZero() {
					// A first dump alone spans nothing yet: the session starts with it.
					m.startAt = m.now.Add(-time.Duration(m.spanNs))
				}
			}
		}
		return m.render(), nil
	case headerMsg:
		if msg.paused && !m.paused {
			m.pausedAt = msg.now // the screen is frozen: its clock too
		}
		m.paused, m.rec, m.now, m.replay, m.seenAt = msg.paused, msg.rec, msg.now, msg.replay, msg.seenAt
		return m.render(), nil
	}
	return m, nil
}

// View returns the cached header line.
func (m headerModel) View() string { return m.line }

func (m headerModel) render() headerModel {
	if m.w <= 0 {
		m.line = ""
		return m
	}
	st := m.st
	sep := st.Muted.Render(" │ ")
	var left []string
	left = append(left, st.Header.Render("fpstop"))
	switch {
	case m.sess.Source == source.KindSim:
		b := " SIMULATOR "
		if m.sess.Scenario != "" {
			b = " SIMULATOR " + m.sess.Scenario + " "
		}
		left = append(left, st.BadgeSim.Render(b))
	case m.sess.Device.Model != "" || m.sess.Device.Serial != "":
		d := source.Visible(m.sess.Device.Model)
		if d == "" {
			d = m.sess.Device.Serial
		}
		if m.sess.Device.Android != "" {
			d += st.Muted.Render(" Android " + m.sess.Device.Android)
		}
		left = append(left, st.Text.Render(d))
	}
	if m.sess.Package != "" {
		left = append(left, st.Accent.Render(m.sess.Package))
	}
	switch {
	case m.sess.Source == source.KindPerfetto:
		left = append(left, st.Muted.Render("perfetto · FrameTimeline"))
	case m.sess.Source == source.KindPerfettoLogcat:
		left = append(left, st.Muted.Render("perfetto+logcat · FrameTimeline · Looper"))
	case m.sess.Source != "" && m.sess.Source != source.KindSim:
		left = append(left, st.Muted.Render(string(m.sess.Source)))
	}
	if m.sess.LayerKind != "" {
		l := m.sess.LayerKind
		if !math.IsNaN(m.layerFPS) {
			l += fmt.Sprintf(" · %.0f fps", m.layerFPS)
		}
		left = append(left, st.Text.Render(l))
	}
	if m.hz > 0 {
		left = append(left, st.Text.Render(fmt.Sprintf("%.0f Hz", m.hz)))
	}
	var right []string
	if m.rec.active && m.rec.err == nil { // a recording whose writes failed has stopped
		el := ""
		if !m.rec.since.IsZero() && !m.now.IsZero() {
			el = " " + clock(int64(m.now.Sub(m.rec.since)/time.Second))
		}
		right = append(right, st.BadgeRec.Render(" ● REC"+el+" "))
	}
	right = append(right, m.stateBadge())
	if span := m.clockNs(); span > 0 {
		right = append(right, st.Muted.Render(clock(span/1e9)))
	}
	l := strings.Join(left, sep)
	r := strings.Join(right, " ")
	m.line = spread(l, r, m.w)
	return m
}

// stateBadge is the state as a coloured badge; PAUSED wins over the source state.
func (m headerModel) stateBadge() string {
	st := m.st
	if m.paused {
		return st.BadgePaused.Render(" ❚❚ PAUSED ")
	}
	state := m.state
	if state == "" {
		state = source.StateWaiting
	}
	label := " " + strings.ToUpper(string(state)) + " "
	switch state {
	case source.StateLive:
		if m.replay {
			label = " ▶ REPLAY "
		} else {
			label = " ● LIVE "
		}
		return st.BadgeLive.Render(label)
	case source.StateIdle:
		return st.BadgeIdle.Render(" ○ IDLE ")
	case source.StateFrozen:
		// The worst state gets the loudest badge: how long, and the message that blocks.
		label = fmt.Sprintf(" ■ FROZEN %.1f s ", float64(m.forNs)/1e9)
		if m.busy != "" {
			label = fmt.Sprintf(" ■ FROZEN %.1f s · %s ", float64(m.forNs)/1e9, m.busy)
		}
		return st.BadgeBad.Render(label)
	case source.StateNoFrames:
		// gfxinfo polling cannot tell an idle app from a stuck one: say what is known.
		return st.BadgeWarn.Render(fmt.Sprintf(" ◌ NO FRAMES %.1f s ", float64(m.forNs)/1e9))
	case source.StateWaiting:
		if m.sess.Source == "" && m.sess.Device.Serial != "" {
			// a picked phone whose source is still starting (it names no source yet)
			return st.BadgeWarn.Render(" … CONNECTING ")
		}
		return st.BadgeWarn.Render(" … WAITING ")
	case source.StateDisconnected, source.StateAdbDown:
		label := " ✕ DISCONNECTED"
		if state == source.StateAdbDown {
			label = " ✕ ADB SERVER DOWN"
		}
		if d := m.staleFor(); d >= time.Second {
			return st.BadgeBad.Render(fmt.Sprintf("%s · last seen %d s ago ", label, int(d/time.Second)))
		}
		return st.BadgeBad.Render(label + " ")
	case source.StateEnded:
		return st.BadgeIdle.Render(" ■ ENDED ")
	}
	return st.BadgeIdle.Render(label)
}

// clockNs is the session clock: wall time since the session started, live; a replay's
// position in the recording's device time, the simulator's own time (exact, and --speed runs
// it faster than the wall). (Disconnected, the device time stands still but the
// session goes on: so does the clock.)
func (m headerModel) clockNs() int64 {
	if m.replay || m.sess.Source == source.KindSim || m.startAt.IsZero() || m.now.Before(m.startAt) {
		return m.spanNs + int64(m.staleFor())
	}
	now := m.now
	if m.paused && !m.pausedAt.IsZero() && m.pausedAt.Before(now) {
		now = m.pausedAt
	}
	return int64(now.Sub(m.startAt))
}

// staleFor is how long the numbers on screen have been stale: the time since the device time
// last moved, while disconnected (0 otherwise).
func (m headerModel) staleFor() time.Duration {
	if !m.state.Outage() || m.seenAt.IsZero() || m.now.Before(m.seenAt) || m.replay {
		return 0
	}
	return m.now.Sub(m.seenAt)
}

// dataMsg hands the components the snapshot to show and the window filter ("" = all).
type dataMsg struct {
	snap   *metrics.Snapshot
	window string
}

// measuredLayerFPS is the measured layer's FPS in its newest whole slice with frames, else over
// the run; NaN when no layer is measured.
func measuredLayerFPS(s *metrics.Snapshot) float64 {
	for _, l := range s.Layers {
		if !l.Measured || l.Totals == nil {
			continue
		}
		for i := len(l.Series) - 1; i >= 0; i-- {
			if sp := l.Series[i]; !sp.Partial && sp.Frames > 0 {
				return sp.FPS
			}
		}
		return l.Totals.FPS
	}
	return math.NaN()
}
