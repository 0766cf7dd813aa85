package themes

import (
	"fmt"
	"os"

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

// SetupColor applies a `--color` mode to lipgloss's renderer (call it once in main, before the
// program starts and before NewStyles) and returns the profile chosen.
func SetupColor(mode string) (termenv.Profile, error) {
	detected := termenv.NewOutput(os.Stdout).EnvColorProfile()
	p, err := ColorProfile(mode, os.Getenv, detected)
	if err != nil {
		return p, err
	}
	lipgloss.SetColorProfile(p)
	return p, nil
}
