package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/themes"
)

// ReplayControl drives a replay source. All its methods are called inside tea.Cmds, never in
// Update or View; they must be safe to call from another goroutine than the source's.
type ReplayControl interface {
	// Seek moves the position by d (negative goes back), clamped to [0, total].
	Seek(d time.Duration)
	// SetSpeed sets the playback speed (1 = real time).
	SetSpeed(speed float64)
	// Speed returns the playback speed.
	Speed() float64
	// Position returns where the replay is and the recording's length (total 0 = unknown,
	// e.g. a file still growing).
	Position() (cur, total time.Duration)
	// TogglePause pauses or resumes playback and returns whether it is now paused.
	TogglePause() bool
	// Paused reports whether playback is paused.
	Paused() bool
}

// replaySpeeds are the steps of +/-.
var replaySpeeds = []float64{0.25, 0.5, 1, 2, 4, 8, 16, 32}

// SeekStep is how far ←/→ move in a replay.
const SeekStep = 10 * time.Second

// replayKeyMap are the replay keys.
type replayKeyMap struct {
	Back, Forward, Faster, Slower, Start, End, Pause key.Binding
}

func defaultReplayKeys() replayKeyMap {
	return replayKeyMap{
		Back:    key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "seek back 10 s")),
		Forward: key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "seek forward 10 s")),
		Faster:  key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+", "faster")),
		Slower:  key.NewBinding(key.WithKeys("-", "_"), key.WithHelp("-", "slower")),
		Start:   key.NewBinding(key.WithKeys("home"), key.WithHelp("home", "go to start")),
		End:     key.NewBinding(key.WithKeys("end"), key.WithHelp("end", "go to end")),
		Pause:   key.NewBinding(key.WithKeys(" "), key.WithHelp("space", "pause/resume playback")),
	}
}

// ShortHelp implements help.KeyMap (the footer's hints).
func (k replayKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{hint(k.Pause, "space", "play/pause"), joined("←/→", "seek", k.Back, k.Forward),
		joined("+/-", "speed", k.Faster, k.Slower)}
}

// FullHelp implements help.KeyMap.
func (k replayKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Pause, k.Back, k.Forward, k.Faster, k.Slower, k.Start, k.End}}
}

// replayStatus is what the replay control reported (read inside a Cmd).
type replayStatus struct {
	cur, total time.Duration
	speed      float64
	paused     bool
}

// replayStatusMsg carries a fresh replayStatus.
type replayStatusMsg struct{ status replayStatus }

// readReplay reads the control's state; call it only inside a Cmd.
func readReplay(r ReplayControl) replayStatus {
	cur, total := r.Position()
	return replayStatus{cur: cur, total: total, speed: r.Speed(), paused: r.Paused()}
}

// replayModel is the replay progress bar with its keys (seek, speed, start/end, pause).
type replayModel struct {
	st     *themes.Styles
	keys   replayKeyMap
	ctl    ReplayControl
	w      int
	status replayStatus
	line   string
}

func newReplay(st *themes.Styles, ctl ReplayControl) replayModel {
	return replayModel{st: st, keys: defaultReplayKeys(), ctl: ctl, status: replayStatus{speed: 1}}
}

// SetSize sets the width (one line).
func (m replayModel) SetSize(w, _ int) replayModel { m.w = w; return m.render() }

// SetStyles changes the theme.
func (m replayModel) SetStyles(st *themes.Styles) replayModel { m.st = st; return m.render() }

// Update handles replay keys (each control call runs in a Cmd that answers with the new
// status) and status messages.
func (m replayModel) Update(msg tea.Msg) (replayModel, tea.Cmd) {
	switch msg := msg.(type) {
	case replayStatusMsg:
		if msg.status != m.status {
			m.status = msg.status
			return m.render(), nil
		}
		return m, nil
	case tea.KeyMsg:
		if m.ctl == nil {
			return m, nil
		}
		ctl, st := m.ctl, m.status
		var do func()
		switch {
		case key.Matches(msg, m.keys.Back):
			do = func() { ctl.Seek(-SeekStep) }
		case key.Matches(msg, m.keys.Forward):
			do = func() { ctl.Seek(SeekStep) }
		case key.Matches(msg, m.keys.Start):
			do = func() { cur, _ := ctl.Position(); ctl.Seek(-cur) }
		case key.Matches(msg, m.keys.End):
			do = func() {
				if cur, total := ctl.Position(); total > cur {
					ctl.Seek(total - cur)
				}
			}
		case key.Matches(msg, m.keys.Faster):
			do = func() { ctl.SetSpeed(stepSpeed(st.speed, 1)) }
		case key.Matches(msg, m.keys.Slower):
			do = func() { ctl.SetSpeed(stepSpeed(st.speed, -1)) }
		case key.Matches(msg, m.keys.Pause):
			do = func() { ctl.TogglePause() }
		default:
			return m, nil
		}
		return m, func() tea.Msg { do(); return replayStatusMsg{readReplay(ctl)} }
	}
	return m, nil
}

// stepSpeed returns the next speed step up (dir 1) or down (-1) from s.
func stepSpeed(s float64, dir int) float64 {
	if dir > 0 {
		for _, v := range replaySpeeds {
			if v > s {
				return v
			}
		}
		return replaySpeeds[len(replaySpeeds)-1]
	}
	for i := len(replaySpeeds) - 1; i >= 0; i-- {
		if replaySpeeds[i] < s {
			return replaySpeeds[i]
		}
	}
	return replaySpeeds[0]
}

// View returns the cached progress line.
func (m replayModel) View() string { return m.line }

// Paused reports whether the replay is paused (space).
func (m replayModel) Paused() bool { return m.ctl != nil && m.status.paused }

func (m replayModel) render() replayModel {
	if m.w <= 0 {
		m.line = ""
		return m
	}
	st := m.st
	s := m.status
	icon := "▶"
	if s.paused {
		icon = "❚❚"
	}
	left := fmt.Sprintf(" %s %s× %s ", icon, trimSpeed(s.speed), clock(int64(s.cur/time.Second)))
	right := " --:--"
	if s.total > 0 {
		right = " " + clock(int64(s.total/time.Second))
	}
	bw := m.w - width(left) - width(right) - 1
	bar := ""
	if bw > 0 {
		frac := 0.0
		if s.total > 0 {
			frac = float64(s.cur) / float64(s.total)
		}
		frac = max(0, min(1, frac))
		done := int(frac * float64(bw))
		bar = st.Accent.Render(strings.Repeat("━", done))
		if done < bw {
			bar += st.Accent.Render("╸") + st.Muted.Render(strings.Repeat("─", bw-done-1))
		}
	}
	label := st.Text.Render(left)
	if s.paused {
		label = st.BadgePaused.Render(left)
	}
	m.line = fit(label+bar+st.Text.Render(right), m.w)
	return m
}

// trimSpeed prints 0.25, 0.5, 1, 2 …
func trimSpeed(f float64) string {
	s := fmt.Sprintf("%.2f", f)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}
