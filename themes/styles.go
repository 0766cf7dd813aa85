package themes

import (
	"strings"

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
	// DropLevel styles by drop level (best..frozen), from the theme's drop_* colours.
	DropLevel [5]lipgloss.Style
	// Late is the one scale every coloured frame uses: on time, late, very late, frozen
	// (metrics.Lateness order), from the drop_best, drop_middle, drop_high and drop_frozen
	// colours.
	Late      [4]lipgloss.Style
	GraphLine lipgloss.Style
	Budget    lipgloss.Style
	// Phase styles the frame phases (input..gpu); PhaseDelay the wait before input.
	Phase      [NumPhases]lipgloss.Style
	PhaseDelay lipgloss.Style
	Idle       lipgloss.Style
	// Stale draws numbers that are no longer current (the device is disconnected): one dim
	// colour for everything, so nothing on screen passes for live.
	Stale lipgloss.Style

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
	// Canvas is the escape that paints the theme's own background (Theme.Canvas) behind
	// everything, set only when the theme's background side is not the terminal's (a light
	// theme on a dark terminal); "" otherwise and without colour. Paint applies it.
	Canvas string
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
	if NoColor() {
		return monoStyles(t, dark)
	}
	fg := func(c Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(c.On(dark)) }
	badge := func(c Color) lipgloss.Style {
		return lipgloss.NewStyle().Bold(true).Foreground(t.Badge.On(dark)).Background(c.On(dark))
	}
	s := Styles{
		Theme:      t,
		Dark:       dark,
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
		Stale:      fg(t.Muted).Faint(true),
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
	if dark != darkBackground {
		r := lipgloss.NewStyle().Background(t.Canvas.On(dark)).Render("x")
		if k := strings.IndexByte(r, 'x'); k > 0 {
			s.Canvas = r[:k]
		}
	}
	for i := range t.DropLevel {
		s.DropLevel[i] = fg(t.DropLevel[i])
	}
	s.Late = [4]lipgloss.Style{s.DropLevel[0], s.DropLevel[2], s.DropLevel[3], s.DropLevel[4]}
	for i := range t.Phase {
		s.Phase[i] = fg(t.Phase[i])
	}
	return s
}

// monoStyles are the styles without colour (NO_COLOR, --color never): titles, headers, keys
// and bad values bold, the selection and the badges reversed; everything else plain. Where the
// profile draws no escape codes at all (not a terminal) the attributes vanish too.
func monoStyles(t Theme, dark bool) Styles {
	plain := lipgloss.NewStyle()
	bold := plain.Bold(true)
	badge := bold.Reverse(true)
	s := Styles{
		Theme: t, Dark: dark, Mono: true,
		Text: plain, Muted: plain, Accent: plain, Border: plain, Title: bold,
		Good: plain, Warn: bold, Bad: bold, GraphLine: plain, Budget: plain, Idle: plain, PhaseDelay: plain,
		Selected: badge, Header: bold,
		BadgeRec: badge, BadgePaused: badge, BadgeSim: badge, BadgeLive: badge, BadgeWarn: badge,
		BadgeBad: badge, BadgeIdle: badge,
		HelpKey: bold, HelpDesc: plain, TableHead: bold,
	}
	for i := range s.DropLevel {
		s.DropLevel[i] = plain
	}
	s.DropLevel[len(s.DropLevel)-1] = bold
	s.Late = [4]lipgloss.Style{plain, plain, bold, bold}
	for i := range s.Phase {
		s.Phase[i] = plain
	}
	return s
}

// Paint puts the canvas behind a rendered line of w cells (width its display width): every
// reset re-applies it and the line is padded to w, so nothing shows the terminal's own
// background. Lines pass unchanged when there is no canvas.
func (s *Styles) Paint(line string, width, w int) string {
	if s.Canvas == "" {
		return line
	}
	pad := ""
	if width < w {
		pad = strings.Repeat(" ", w-width)
	}
	return s.Canvas + strings.ReplaceAll(line, "\x1b[0m", "\x1b[0m"+s.Canvas) + pad + "\x1b[0m"
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
// the block or past it. Empty when the profile draws no escape codes at all.
func (s *Styles) Reset() string {
	if lipgloss.ColorProfile() == termenv.Ascii {
		return ""
	}
	return "\x1b[0m"
}
