package source

import (
	"fmt"
	"strings"
)

// invisible reports whether r changes how text around it displays without being seen itself:
// the bidirectional controls (U+202A–U+202E embeddings and overrides, U+2066–U+2069
// isolates, the U+200E/U+200F/U+061C marks) and the zero-width characters (U+200B–U+200D,
// U+2060, U+FEFF). A name holding one can display as another name.
func invisible(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r >= 0x200B && r <= 0x200F:
		return true
	}
	return r == 0x061C || r == 0x2060 || r == 0xFEFF
}

// NeedsVisible reports whether Visible would change s (ASCII text is checked byte by byte).
func NeedsVisible(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return strings.ContainsFunc(s[i:], invisible)
		}
	}
	return false
}

// Visible shows each bidirectional control and zero-width character of s as its escape
// (`\u202e`), so that a window, process or handler name cannot pose as another on the screen or
// in a report. Names from the device are the app's own choice (popup and dialog titles): this
// is the one rule every output applies to them.
func Visible(s string) string {
	if !NeedsVisible(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if invisible(r) {
			fmt.Fprintf(&b, `\u%04x`, r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
