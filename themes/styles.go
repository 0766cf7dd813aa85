package themes

import (
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Styles are the lipgloss styles derived from one Theme for one background. They are built
// once per theme change (NewStyles) and passed down to every component, which share one copy
// by pointer and never modify it; nothing else in fpstop builds a coloured style.
type Styles struct {
	// Theme is the palette the styles come from; Dark is the background side used.
	Theme Theme
	Dark  bool
	// Mono is true when no colour is drawn at all (NO_COLOR, --color never): components then
	// tell things apart by glyphs and text, never by colour alone.
	Mono bool

	Text, Muted, Accent, Border, Title lipgloss.Style
	Good, Warn, Bad                    lipgloss.Style
	// DropLevel styles frames and bars by drop level (best..frozen).
	DropLevel [5]lipgloss.Style
	GraphLine lipgloss.Style
	Budget    lipgloss.Style
	// Phase styles the frame phases (input..gpu); PhaseDelay the wait before input.
	Phase      [NumPhases]lipgloss.Style
	PhaseDelay lipgloss.Style
	Idle       lipgloss.Style

	// Selected is a selected table row.
	Selected lipgloss.Style
	// Header is the app name in the header; Badge* are the coloured state badges.
	Header      lipgloss.Style
	BadgeRec    lipgloss.Style
	BadgePaused lipgloss.Style
	BadgeSim    lipgloss.Style
	BadgeLive   lipgloss.Style
	BadgeWarn   lipgloss.Style
	BadgeBad    lipgloss.Style
	BadgeIdle   lipgloss.Style
	// HelpKey and HelpDesc draw key hints; TableHead the header row of tables.
	HelpKey   lipgloss.Style
	HelpDesc  lipgloss.Style
	TableHead lipgloss.Style
}

// NewStyles derives the styles of theme t. darkBackground is what the terminal has; it is used
// only when t.Background is auto (detect it once, before the program starts: e.g.
// lipgloss.HasDarkBackground()).
func NewStyles(t Theme, darkBackground bool) Styles {
	dark := darkBackground
	switch t.Background {
	case BackgroundDark:
		dark = true
	case BackgroundLight:
		dark = false
	}
	fg := func(c Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(c.On(dark)) }
	badge := func(c Color) lipgloss.Style {
		return lipgloss.NewStyle().Bold(true).Foreground(t.Badge.On(dark)).Background(c.On(dark))
	}
	s := Styles{
		Theme:      t,
		Dark:       dark,
		Mono:       lipgloss.ColorProfile() == termenv.Ascii,
		Text:       fg(t.Text),
		Muted:      fg(t.Muted),
		Accent:     fg(t.Accent),
		Border:     fg(t.Border),
		Title:      fg(t.Title).Bold(true),
		Good:       fg(t.Good),
		Warn:       fg(t.Warn),
		Bad:        fg(t.Bad),
		GraphLine:  fg(t.GraphLine),
		Budget:     fg(t.Budget),
		Idle:       fg(t.Idle),
		PhaseDelay: fg(t.Muted),
		Selected: lipgloss.NewStyle().Bold(true).
			Foreground(t.SelectionFg.On(dark)).Background(t.SelectionBg.On(dark)),
		Header:      fg(t.Title).Bold(true),
		BadgeRec:    badge(t.Rec),
		BadgePaused: badge(t.Paused),
		BadgeSim:    badge(t.Accent),
		BadgeLive:   badge(t.Good),
		BadgeWarn:   badge(t.Warn),
		BadgeBad:    badge(t.Bad),
		BadgeIdle:   badge(t.Idle),
		HelpKey:     fg(t.Accent).Bold(true),
		HelpDesc:    fg(t.Muted),
		TableHead:   fg(t.Muted).Bold(true),
	}
	for i := range t.DropLevel {
		s.DropLevel[i] = fg(t.DropLevel[i])
	}
	for i := range t.Phase {
		s.Phase[i] = fg(t.Phase[i])
	}
	return s
}

// stackColor is the colour of stacked-bar segment i: 0 the delay before input (muted), 1..6
// the phases input..gpu.
func (s Styles) stackColor(i int) lipgloss.Color {
	if i <= 0 {
		return s.Theme.Muted.On(s.Dark)
	}
	return s.Theme.Phase[min(i-1, NumPhases-1)].On(s.Dark)
}

// HalfBlock is the style of a "▄" cell showing two stacked-bar segments, lower in its
// foreground and upper in its background (segments: 0 delay, 1..6 input..gpu; upper < 0 leaves
// the background alone). It doubles the vertical resolution of the phase bars.
func (s Styles) HalfBlock(lower, upper int) lipgloss.Style {
	st := lipgloss.NewStyle().Foreground(s.stackColor(lower))
	if upper >= 0 {
		st = st.Background(s.stackColor(upper))
	}
	return st
}

// Reset is the escape that ends every style, for compositing one rendered block into the
// middle of another line (an overlay over the dashboard): the line's styles must not leak into
// the block or past it. Empty when no colour is drawn (Mono).
func (s *Styles) Reset() string {
	if s.Mono {
		return ""
	}
	return "\x1b[0m"
}
