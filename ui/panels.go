package ui

import (
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/themes"
)

// Fan-out: snapshots, ticks and themes handed to every panel.

// applyTick applies the recorder and replay state and the clock.
func (m Model) applyTick(t tickMsg) Model {
	m.now = t.now
	m.exports = t.exports
	m.srcNote = t.srcNote
	if t.hasOffer {
		m = m.setOffer(t.offer)
	}
	// (every tick: a warning's time on the status line runs out with no new snapshot too)
	m.flash = m.flash.SetStatus(m.status())
	if t.hasRec {
		m.rec = t.rec
	}
	if t.hasReplay {
		m.replay, _ = m.replay.Update(replayStatusMsg{t.replay})
	}
	m.header, _ = m.header.Update(m.headerState())
	return m
}

// apply shows snap when it is new (Seq moved, or the first).
func (m Model) apply(s *metrics.Snapshot) Model {
	if m.applied && s.Seq == m.snap.Seq {
		return m
	}
	m.snap, m.applied = s, true
	if s.NowNs != m.seenNs || m.seenAt.IsZero() {
		m.seenNs, m.seenAt = s.NowNs, m.now
	}
	m = m.fanOut(s)
	m.header, _ = m.header.Update(m.headerState())
	return m
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
	m.tl, _ = m.tl.Update(d)
	if m.overlay == overlayLayers {
		m.layers, _ = m.layers.Update(d)
	}
	m = m.relayout()
	if h := len(s.LayerChoices) > 0; h != m.layerHint {
		m.layerHint = h
		m.footer = m.footer.SetKeys(m.overlayFooter())
	}
	m = m.noteWarnings(s)
	m.flash = m.flash.SetStatus(m.status())
	if n := len(s.Warnings); n != m.warnSeen {
		if n > m.warnSeen {
			m.flash, _ = m.flash.Update(FlashMsg{Level: FlashWarn, Text: s.Warnings[n-1]})
		}
		m.warnSeen = n
	}
	return m
}

// warningLinger is how long a warning stays on the status line once it no longer applies: a
// disconnection's after the device is back (or after it arrived when that is later: a gap is
// told when the source resumes), the phone-not-responding one after the phone answers again.
// The report keeps every warning.
const warningLinger = 5 * time.Second

// warnLife is when a warning arrived and what ends it.
type warnLife struct {
	at time.Time
	// outage: it is about a disconnection (the gap, the resume, or said while disconnected)
	outage bool
	// unanswered: the phone was not responding; askedNs is the device time then, and
	// answeredAt when (wall clock) the device time moved past it: the phone answered
	unanswered bool
	askedNs    int64
	answeredAt time.Time
}

// noteWarnings records each new warning's life, when the device came back from an outage and
// when a not-responding phone answered again: those warnings stop applying then, so the status
// line drops them warningLinger later.
func (m Model) noteWarnings(s *metrics.Snapshot) Model {
	if out := s.State.Outage(); out != m.outage {
		m.outage = out
		if !out {
			m.backAt = m.now
		}
	}
	n := len(s.Warnings)
	if n < len(m.warns) { // cleared
		m.warns = nil
	}
	for i := range m.warns {
		if w := &m.warns[i]; w.unanswered && w.answeredAt.IsZero() && s.NowNs > w.askedNs {
			w.answeredAt = m.now
		}
	}
	for i := len(m.warns); i < n; i++ {
		w := s.Warnings[i]
		m.warns = append(m.warns, warnLife{at: m.now, askedNs: s.NowNs,
			outage: s.State.Outage() || strings.HasPrefix(w, "gap: ") ||
				strings.HasPrefix(w, "resumed after a disconnection"),
			unanswered: strings.HasPrefix(w, source.NotRespondingPrefix)})
	}
	return m
}

// shownWarnings are the warnings the status line still shows.
func (m Model) shownWarnings() []string {
	if m.snap == nil {
		return nil
	}
	var out []string
	for i, w := range m.snap.Warnings {
		if i < len(m.warns) && m.ended(m.warns[i]) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// ended: the warning's condition has been gone for warningLinger.
func (m Model) ended(w warnLife) bool {
	var since time.Time
	switch {
	case w.outage && !m.snap.State.Outage():
		since = later(w.at, m.backAt)
	case w.unanswered && !w.answeredAt.IsZero():
		since = w.answeredAt
	default:
		return false
	}
	return m.now.Sub(since) >= warningLinger
}

// later is the later of a and b.
func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func (m Model) headerState() headerMsg {
	return headerMsg{paused: m.paused || m.replay.Paused(), rec: m.rec, now: m.now, replay: m.opts.Replay != nil,
		seenAt: m.seenAt}
}

// status is the notice line's text when no flash is on show.
func (m Model) status() string {
	var parts []string
	if m.paused {
		parts = append(parts, "paused: the screen is frozen, collection continues (p resumes)")
	}
	switch {
	case m.opts.Replay != nil:
		// the recording's live source is not running: say what runs
		parts = append(parts, "replay of a recording")
		if m.snap != nil && m.snap.StateText != "" && m.snap.State != source.StateLive {
			parts = append(parts, "recorded: "+m.snap.StateText)
		}
	case m.snap != nil && m.snap.StateText != "":
		parts = append(parts, m.snap.StateText)
	}
	if m.offer.Text != "" { // a key's offer (P), or why there is none, before what the source is doing
		parts = append(parts, m.offer.Text)
	}
	if m.srcNote != "" && m.opts.Replay == nil {
		parts = append(parts, m.srcNote)
	}
	if m.opts.Note != "" {
		parts = append(parts, m.opts.Note)
	}
	if m.exports != "" {
		parts = append(parts, "⚠ "+m.exports)
	}
	if w := m.shownWarnings(); len(w) > 0 {
		parts = append(parts, "⚠ "+strconv.Itoa(len(w))+" warnings, latest: "+w[len(w)-1])
		if len(w) == 1 {
			parts[len(parts)-1] = "⚠ " + w[0]
		}
	}
	return strings.Join(parts, " · ")
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
	m.tl = m.tl.SetStyles(st)
	return m
}

// stale reports whether the numbers on screen are no longer current: the device is
// disconnected (a replay's recorded disconnection is history, not staleness).
func (m Model) stale() bool {
	return m.snap != nil && m.snap.State.Outage() && m.opts.Replay == nil
}

// dimStale draws the panels' lines in the one stale style while the device is disconnected, so
// that the last numbers are not read as current; the header says how old they are.
func (m Model) dimStale(lines []string) {
	if !m.stale() {
		return
	}
	for i, l := range lines {
		lines[i] = m.st.Stale.Render(ansi.Strip(l))
	}
}
