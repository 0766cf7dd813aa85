package ui

import (
	"strconv"
	"strings"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/themes"
)

// Fan-out: snapshots, ticks and themes handed to every panel.

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
