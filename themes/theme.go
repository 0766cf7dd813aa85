// Package themes holds fpstop's colour themes: semantic palettes (what a colour means, not
// which colour it is), each colour with a value for dark and for light terminal backgrounds,
// and the lipgloss Styles derived from a palette once per theme change. It is the only place
// in fpstop where colours are defined.
//
// Built-in themes: "dark" (the default), "light", "high-contrast" and "colorblind" (the
// Okabe–Ito palette, safe for the common colour-vision deficiencies). A user theme is a YAML
// file read by Load. Colour output is switched off entirely by NO_COLOR or `--color never`
// (see ColorProfile and SetupColor); the layout never depends on colour.
package themes

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/lipgloss"
)

// Color is one semantic colour with a value for dark and one for light terminal backgrounds.
// Values are "#RRGGBB", "#RGB" or an ANSI colour number "0".."255".
type Color struct {
	Dark  string `yaml:"dark"`
	Light string `yaml:"light"`
}

// On returns the value for a dark (true) or light (false) background.
func (c Color) On(dark bool) lipgloss.Color {
	if dark {
		return lipgloss.Color(c.Dark)
	}
	return lipgloss.Color(c.Light)
}

// Background says which side of a palette a theme uses.
type Background string

// Backgrounds.
const (
	// BackgroundDark uses the palette's dark-background values.
	BackgroundDark Background = "dark"
	// BackgroundLight uses the palette's light-background values.
	BackgroundLight Background = "light"
	// BackgroundAuto uses whichever the terminal has (the caller detects it once, before the
	// program starts, and passes it to NewStyles).
	BackgroundAuto Background = "auto"
)

// Phase indices into Theme.Phase (and Styles.Phase).
const (
	PhaseInput = iota
	PhaseAnimation
	PhaseLayout
	PhaseDraw
	PhaseSync
	PhaseGPU
	NumPhases
)

// PhaseNames are the phase labels in Theme.Phase order.
var PhaseNames = [NumPhases]string{"input", "animation", "layout", "draw", "sync", "gpu"}

// DropLevelNames are the drop-level labels in Theme.DropLevel order (metrics.Level order).
var DropLevelNames = [5]string{"best", "normal", "middle", "high", "frozen"}

// Theme is a semantic palette.
type Theme struct {
	// Name identifies the theme (shown when cycling themes).
	Name string
	// Background picks the dark or light values of every Color (or auto-detects).
	Background Background

	Text   Color // essential text
	Muted  Color // secondary text; still readable (never a near-background grey)
	Accent Color // keys in hints, highlighted values
	Border Color // panel borders
	Title  Color // panel titles, the app name

	Good Color // at or above target
	Warn Color // a little below target, warnings
	Bad  Color // far below target, errors

	// DropLevel colours frames by drop level: best, normal, middle, high, frozen.
	DropLevel [5]Color
	// GraphLine draws neutral graphs (histogram bars, sparkline without a target).
	GraphLine Color
	// Budget is the frame-budget line of the frame-time graph.
	Budget Color
	// Phase colours the Profile-HWUI-style stages: input, animation, layout, draw, sync, gpu.
	Phase [NumPhases]Color

	SelectionFg Color // selected row text
	SelectionBg Color // selected row background
	Rec         Color // the ● REC badge
	Paused      Color // the PAUSED badge
	Idle        Color // idle slices and the idle state
	Badge       Color // text of badges (SIMULATOR, PAUSED, REC) drawn on a coloured background
	// Canvas is painted behind the whole dashboard when the theme's background side is not the
	// terminal's (light on a dark terminal): its text stays readable.
	Canvas Color
}

// colorField names one colour of a theme for user theme files.
type colorField struct {
	key string
	get func(*Theme) *Color
}

// fields lists every colour key a user theme file may set, in documentation order.
func fields() []colorField {
	fs := []colorField{
		{"text", func(t *Theme) *Color { return &t.Text }},
		{"muted", func(t *Theme) *Color { return &t.Muted }},
		{"accent", func(t *Theme) *Color { return &t.Accent }},
		{"border", func(t *Theme) *Color { return &t.Border }},
		{"title", func(t *Theme) *Color { return &t.Title }},
		{"good", func(t *Theme) *Color { return &t.Good }},
		{"warn", func(t *Theme) *Color { return &t.Warn }},
		{"bad", func(t *Theme) *Color { return &t.Bad }},
		{"graph_line", func(t *Theme) *Color { return &t.GraphLine }},
		{"budget", func(t *Theme) *Color { return &t.Budget }},
		{"selection_fg", func(t *Theme) *Color { return &t.SelectionFg }},
		{"selection_bg", func(t *Theme) *Color { return &t.SelectionBg }},
		{"rec", func(t *Theme) *Color { return &t.Rec }},
		{"paused", func(t *Theme) *Color { return &t.Paused }},
		{"idle", func(t *Theme) *Color { return &t.Idle }},
		{"badge", func(t *Theme) *Color { return &t.Badge }},
		{"canvas", func(t *Theme) *Color { return &t.Canvas }},
	}
	for i, n := range DropLevelNames {
		i := i
		fs = append(fs, colorField{"drop_" + n, func(t *Theme) *Color { return &t.DropLevel[i] }})
	}
	for i, n := range PhaseNames {
		i := i
		fs = append(fs, colorField{"phase_" + n, func(t *Theme) *Color { return &t.Phase[i] }})
	}
	return fs
}

// ColorKeys lists every colour key a user theme file may set.
func ColorKeys() []string {
	fs := fields()
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = f.key
	}
	return out
}

// Validate checks that every colour is set and well formed, and that the name and background
// are valid.
func (t Theme) Validate() error {
	if strings.TrimSpace(t.Name) == "" {
		return fmt.Errorf("theme has no name")
	}
	switch t.Background {
	case BackgroundDark, BackgroundLight, BackgroundAuto:
	default:
		return fmt.Errorf("theme %q: background %q: want dark, light or auto", t.Name, t.Background)
	}
	for _, f := range fields() {
		c := f.get(&t)
		if err := checkColor(c.Dark); err != nil {
			return fmt.Errorf("theme %q: %s.dark: %w", t.Name, f.key, err)
		}
		if err := checkColor(c.Light); err != nil {
			return fmt.Errorf("theme %q: %s.light: %w", t.Name, f.key, err)
		}
	}
	return nil
}

// checkColor accepts "#RGB", "#RRGGBB" and "0".."255".
func checkColor(v string) error {
	if v == "" {
		return fmt.Errorf("no colour set")
	}
	if v[0] == '#' {
		h := v[1:]
		if len(h) != 3 && len(h) != 6 {
			return fmt.Errorf("%q is not a colour (want #RRGGBB, #RGB or an ANSI number 0-255)", v)
		}
		for _, r := range h {
			if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
				return fmt.Errorf("%q is not a colour (want #RRGGBB, #RGB or an ANSI number 0-255)", v)
			}
		}
		return nil
	}
	n := 0
	for _, r := range v {
		if r < '0' || r > '9' || len(v) > 3 {
			return fmt.Errorf("%q is not a colour (want #RRGGBB, #RGB or an ANSI number 0-255)", v)
		}
		n = n*10 + int(r-'0')
	}
	if n > 255 {
		return fmt.Errorf("%q is not a colour (ANSI numbers go from 0 to 255)", v)
	}
	return nil
}

// builtins returns the built-in themes in cycling order.
func builtins() []Theme {
	return []Theme{darkTheme(), lightTheme(), highContrastTheme(), colorblindTheme()}
}

// Default is the name of the default theme.
const Default = "dark"

// Names lists the built-in theme names in cycling order ("dark" first).
func Names() []string {
	bs := builtins()
	out := make([]string, len(bs))
	for i, t := range bs {
		out[i] = t.Name
	}
	return out
}

// Fitting lists the built-in themes that suit a terminal background: auto themes and those
// made for it (`light` is unreadable on a dark terminal, `dark` on a light one).
func Fitting(darkBackground bool) []Theme {
	var out []Theme
	for _, t := range builtins() {
		if t.Fits(darkBackground) {
			out = append(out, t)
		}
	}
	return out
}

// Fits reports whether t suits a terminal with a dark (true) or light background.
func (t Theme) Fits(darkBackground bool) bool {
	switch t.Background {
	case BackgroundDark:
		return darkBackground
	case BackgroundLight:
		return !darkBackground
	}
	return true
}

// Get returns the built-in theme called name ("" is the default).
func Get(name string) (Theme, error) {
	if name == "" {
		name = Default
	}
	for _, t := range builtins() {
		if t.Name == name {
			return t, nil
		}
	}
	names := Names()
	sort.Strings(names)
	return Theme{}, fmt.Errorf("unknown theme %q (built-in themes: %s; or a path to a YAML theme file)",
		name, strings.Join(names, ", "))
}

// palette is the shared colour set of the dark and light themes: every value has a dark- and a
// light-background variant.
func palette() Theme {
	return Theme{
		Text:   Color{Dark: "#E4E4E4", Light: "#1F2328"},
		Muted:  Color{Dark: "#A8A8A8", Light: "#555E68"},
		Accent: Color{Dark: "#5FAFFF", Light: "#0550AE"},
		Border: Color{Dark: "#5F6B7A", Light: "#8C959F"},
		Title:  Color{Dark: "#87D7FF", Light: "#0A3069"},
		Good:   Color{Dark: "#5FD75F", Light: "#1A7F37"},
		Warn:   Color{Dark: "#FFD75F", Light: "#9A6700"},
		Bad:    Color{Dark: "#FF5F5F", Light: "#CF222E"},
		DropLevel: [5]Color{
			{Dark: "#5FD75F", Light: "#1A7F37"},
			{Dark: "#AFD75F", Light: "#4D7A00"},
			{Dark: "#FFD75F", Light: "#9A6700"},
			{Dark: "#FF8700", Light: "#BC4C00"},
			{Dark: "#FF5F87", Light: "#A40E26"},
		},
		GraphLine: Color{Dark: "#5FAFFF", Light: "#0969DA"},
		Budget:    Color{Dark: "#D0D0D0", Light: "#57606A"}, // neutral: no colour of the lateness scale
		Phase: [NumPhases]Color{
			{Dark: "#00AFAF", Light: "#007A7A"}, // input
			{Dark: "#AF87FF", Light: "#6639BA"}, // animation
			{Dark: "#5FAF5F", Light: "#2F7D32"}, // layout
			{Dark: "#5F87FF", Light: "#0550AE"}, // draw
			{Dark: "#FFAF5F", Light: "#9A5B00"}, // sync
			{Dark: "#FF5F87", Light: "#B3093C"}, // gpu
		},
		SelectionFg: Color{Dark: "#FFFFFF", Light: "#000000"},
		SelectionBg: Color{Dark: "#3A4A5F", Light: "#CCE4FF"},
		Rec:         Color{Dark: "#FF5F5F", Light: "#CF222E"},
		Paused:      Color{Dark: "#FFAF00", Light: "#9A6700"},
		Idle:        Color{Dark: "#8A8A8A", Light: "#6E7781"},
		Badge:       Color{Dark: "#101010", Light: "#FFFFFF"},
		Canvas:      Color{Dark: "#1C1C1C", Light: "#FFFFFF"},
	}
}

func darkTheme() Theme {
	t := palette()
	t.Name, t.Background = "dark", BackgroundDark
	return t
}

func lightTheme() Theme {
	t := palette()
	t.Name, t.Background = "light", BackgroundLight
	return t
}

func highContrastTheme() Theme {
	return Theme{
		Name:       "high-contrast",
		Background: BackgroundAuto,
		Text:       Color{Dark: "#FFFFFF", Light: "#000000"},
		Muted:      Color{Dark: "#D0D0D0", Light: "#303030"},
		Accent:     Color{Dark: "#00FFFF", Light: "#0000C0"},
		Border:     Color{Dark: "#FFFFFF", Light: "#000000"},
		Title:      Color{Dark: "#FFFF00", Light: "#000080"},
		Good:       Color{Dark: "#00FF00", Light: "#006400"},
		Warn:       Color{Dark: "#FFFF00", Light: "#7A5C00"},
		Bad:        Color{Dark: "#FF3030", Light: "#B00000"},
		DropLevel: [5]Color{
			{Dark: "#00FF00", Light: "#006400"},
			{Dark: "#AFFF00", Light: "#3C6400"},
			{Dark: "#FFFF00", Light: "#7A5C00"},
			{Dark: "#FF8C00", Light: "#A04000"},
			{Dark: "#FF3030", Light: "#B00000"},
		},
		GraphLine: Color{Dark: "#00FFFF", Light: "#0000C0"},
		Budget:    Color{Dark: "#FF00FF", Light: "#8B008B"},
		Phase: [NumPhases]Color{
			{Dark: "#00FFFF", Light: "#006B6B"},
			{Dark: "#D787FF", Light: "#5F00AF"},
			{Dark: "#00FF00", Light: "#006400"},
			{Dark: "#5F87FF", Light: "#0000C0"},
			{Dark: "#FFAF00", Light: "#7A4A00"},
			{Dark: "#FF3030", Light: "#B00000"},
		},
		SelectionFg: Color{Dark: "#000000", Light: "#FFFFFF"},
		SelectionBg: Color{Dark: "#FFFFFF", Light: "#000000"},
		Rec:         Color{Dark: "#FF3030", Light: "#B00000"},
		Paused:      Color{Dark: "#FFFF00", Light: "#7A5C00"},
		Idle:        Color{Dark: "#C0C0C0", Light: "#404040"},
		Badge:       Color{Dark: "#000000", Light: "#FFFFFF"},
		Canvas:      Color{Dark: "#000000", Light: "#FFFFFF"},
	}
}

// colorblindTheme uses the Okabe–Ito palette (orange #E69F00, sky blue #56B4E9, bluish green
// #009E73, yellow #F0E442, blue #0072B2, vermillion #D55E00, reddish purple #CC79A7): good is
// blue, bad is vermillion, so red/green confusion never hides a verdict.
func colorblindTheme() Theme {
	return Theme{
		Name:       "colorblind",
		Background: BackgroundAuto,
		Text:       Color{Dark: "#E4E4E4", Light: "#1A1A1A"},
		Muted:      Color{Dark: "#ABABAB", Light: "#505050"},
		Accent:     Color{Dark: "#56B4E9", Light: "#0072B2"},
		Border:     Color{Dark: "#6C6C6C", Light: "#8A8A8A"},
		Title:      Color{Dark: "#56B4E9", Light: "#0072B2"},
		Good:       Color{Dark: "#56B4E9", Light: "#0072B2"},
		Warn:       Color{Dark: "#F0E442", Light: "#B07800"},
		Bad:        Color{Dark: "#D55E00", Light: "#D55E00"},
		DropLevel: [5]Color{
			{Dark: "#56B4E9", Light: "#0072B2"},
			{Dark: "#009E73", Light: "#009E73"},
			{Dark: "#F0E442", Light: "#B07800"},
			{Dark: "#E69F00", Light: "#E69F00"},
			{Dark: "#D55E00", Light: "#D55E00"},
		},
		GraphLine: Color{Dark: "#56B4E9", Light: "#0072B2"},
		Budget:    Color{Dark: "#CC79A7", Light: "#CC79A7"},
		Phase: [NumPhases]Color{
			{Dark: "#56B4E9", Light: "#56B4E9"},
			{Dark: "#CC79A7", Light: "#CC79A7"},
			{Dark: "#009E73", Light: "#009E73"},
			{Dark: "#0072B2", Light: "#0072B2"},
			{Dark: "#E69F00", Light: "#E69F00"},
			{Dark: "#D55E00", Light: "#D55E00"},
		},
		SelectionFg: Color{Dark: "#000000", Light: "#FFFFFF"},
		SelectionBg: Color{Dark: "#56B4E9", Light: "#0072B2"},
		Rec:         Color{Dark: "#D55E00", Light: "#D55E00"},
		Paused:      Color{Dark: "#E69F00", Light: "#B07800"},
		Idle:        Color{Dark: "#8C8C8C", Light: "#6A6A6A"},
		Badge:       Color{Dark: "#000000", Light: "#FFFFFF"},
		Canvas:      Color{Dark: "#1C1C1C", Light: "#FFFFFF"},
	}
}
