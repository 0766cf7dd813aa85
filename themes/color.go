package themes

import (
	"fmt"
	"os"
	"sync/atomic"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// Colour modes for `--color`.
const (
	ColorAuto   = "auto"
	ColorAlways = "always"
	ColorNever  = "never"
)

// ColorProfile decides the colour profile for a `--color` mode: "never" and a non-empty
// NO_COLOR (read through getenv; "auto" only) give termenv.Ascii, which draws no escape codes
// at all while the layout stays the same; "always" gives at least 256 colours even when the
// output is not a terminal; "auto" gives detected.
func ColorProfile(mode string, getenv func(string) string, detected termenv.Profile) (termenv.Profile, error) {
	switch mode {
	case ColorNever:
		return termenv.Ascii, nil
	case ColorAlways:
		if detected == termenv.Ascii || detected == termenv.ANSI {
			if getenv("COLORTERM") == "truecolor" || getenv("COLORTERM") == "24bit" {
				return termenv.TrueColor, nil
			}
			return termenv.ANSI256, nil
		}
		return detected, nil
	case ColorAuto, "":
		if getenv("NO_COLOR") != "" {
			return termenv.Ascii, nil
		}
		return detected, nil
	}
	return termenv.Ascii, fmt.Errorf("--color %q: want auto, always or never", mode)
}

// attrsOnly is set when colour is off (NO_COLOR, --color never) but the output is a terminal:
// styles then keep their attributes (bold titles, reverse selection and badges) without colour.
var attrsOnly atomic.Bool

// SetupColor applies a `--color` mode to lipgloss's renderer (call it once in main, before the
// program starts and before NewStyles) and returns the profile chosen.
func SetupColor(mode string) (termenv.Profile, error) {
	out := termenv.NewOutput(os.Stdout)
	return Setup(mode, os.Getenv, out.EnvColorProfile(), out.ColorProfile() != termenv.Ascii)
}

// Setup is SetupColor with the environment, the detected profile and whether the output is a
// terminal that takes escape codes given. When colour is off on such a terminal it draws
// attributes only: NO_COLOR removes colour, not bold and reverse (no-color.org), so the
// selected row and the badges stay visible. Off a terminal nothing is drawn but text.
func Setup(mode string, getenv func(string) string, detected termenv.Profile, terminal bool) (termenv.Profile, error) {
	p, err := ColorProfile(mode, getenv, detected)
	if err != nil {
		return p, err
	}
	mono := p == termenv.Ascii && terminal
	attrsOnly.Store(mono)
	if mono {
		p = termenv.ANSI // attributes are drawn; NewStyles sets no colour at all
	}
	lipgloss.SetColorProfile(p)
	return p, nil
}

// NoColor reports whether styles draw no colour: colour is off (attributes may still be drawn).
func NoColor() bool { return attrsOnly.Load() || lipgloss.ColorProfile() == termenv.Ascii }
