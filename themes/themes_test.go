package themes

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

func TestBuiltins(t *testing.T) {
	names := Names()
	want := []string{"dark", "light", "high-contrast", "colorblind"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Fatalf("Names() = %v, want %v", names, want)
	}
	for _, n := range names {
		th, err := Get(n)
		if err != nil {
			t.Fatalf("Get(%q): %v", n, err)
		}
		if err := th.Validate(); err != nil {
			t.Errorf("built-in theme %s: %v", n, err)
		}
	}
	if th, err := Get(""); err != nil || th.Name != Default {
		t.Fatalf("Get(\"\") = %v, %v; want the default", th.Name, err)
	}
	if _, err := Get("solarized"); err == nil || !strings.Contains(err.Error(), "built-in themes: colorblind, dark, high-contrast, light") {
		t.Fatalf("unknown theme error = %v", err)
	}
}

// TestColorblindIsOkabeIto checks the verdict colours come from the Okabe–Ito palette.
func TestColorblindIsOkabeIto(t *testing.T) {
	okabe := map[string]bool{"#E69F00": true, "#56B4E9": true, "#009E73": true, "#F0E442": true,
		"#0072B2": true, "#D55E00": true, "#CC79A7": true, "#B07800": true}
	th, _ := Get("colorblind")
	check := func(what string, c Color) {
		if !okabe[c.Dark] || !okabe[c.Light] {
			t.Errorf("colorblind %s = %v is not from the Okabe–Ito palette", what, c)
		}
	}
	check("good", th.Good)
	check("bad", th.Bad)
	check("warn", th.Warn)
	for i, c := range th.DropLevel {
		check(DropLevelNames[i], c)
	}
	for i, c := range th.Phase {
		check(PhaseNames[i], c)
	}
}

// TestMutedIsReadable keeps secondary text away from the background: its luminance contrast
// with a black (dark) or white (light) background must be at least 4.5:1 (WCAG AA).
func TestMutedIsReadable(t *testing.T) {
	for _, th := range All() {
		for _, c := range []struct {
			name string
			col  Color
		}{{"text", th.Text}, {"muted", th.Muted}, {"idle", th.Idle}} {
			if r := contrast(c.col.Dark, "#000000"); r < 4.5 {
				t.Errorf("%s %s on dark: contrast %.1f < 4.5", th.Name, c.name, r)
			}
			if r := contrast(c.col.Light, "#FFFFFF"); r < 4.5 {
				t.Errorf("%s %s on light: contrast %.1f < 4.5", th.Name, c.name, r)
			}
		}
	}
}

func TestParse(t *testing.T) {
	th, err := Parse([]byte(`
name: mine
base: light
background: auto
colors:
  text: "#101010"
  muted: {dark: "#AAAAAA", light: "#555555"}
  drop_frozen: "196"
  phase_gpu: "#f0a"
`))
	if err != nil {
		t.Fatal(err)
	}
	if th.Name != "mine" || th.Background != BackgroundAuto {
		t.Fatalf("name/background = %q/%q", th.Name, th.Background)
	}
	if th.Text != Both("#101010") || th.Muted != (Color{"#AAAAAA", "#555555"}) ||
		th.DropLevel[4] != Both("196") || th.Phase[PhaseGPU] != Both("#f0a") {
		t.Fatalf("colours not applied: %+v", th)
	}
	light, _ := Get("light")
	if th.Accent != light.Accent {
		t.Fatalf("unset colours do not come from the base theme")
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct{ name, yaml, want string }{
		{"empty", ``, "empty file"},
		{"no name", "colors:\n  text: \"#fff\"\n", "no name"},
		{"unknown key", "name: x\ncolour: {}\n", `line 2: unknown key "colour"`},
		{"unknown colour", "name: x\ncolors:\n  txt: \"#fff\"\n", `line 3: unknown colour key "txt" (known keys: text, muted`},
		{"bad hex", "name: x\ncolors:\n  text: \"#ggg\"\n", `line 3: colors.text: "#ggg" is not a colour`},
		{"bad number", "name: x\ncolors:\n  bad: \"300\"\n", `ANSI numbers go from 0 to 255`},
		{"half pair", "name: x\ncolors:\n  good: {dark: \"#fff\"}\n", "needs both dark and light"},
		{"pair key", "name: x\ncolors:\n  good: {dim: \"#fff\"}\n", `unknown key "dim" in a colour`},
		{"list", "name: x\ncolors:\n  good: [1, 2]\n", "want a colour"},
		{"bad background", "name: x\nbackground: grey\n", `background "grey": want dark, light or auto`},
		{"bad base", "name: x\nbase: nope\n", `base: unknown theme "nope"`},
		{"not yaml", "name: [\n", "not a valid theme"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse([]byte(c.yaml))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error = %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("name: g\ncolors:\n  accent: \"#123456\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	th, err := Load(good)
	if err != nil || th.Accent != Both("#123456") {
		t.Fatalf("Load = %+v, %v", th.Accent, err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: b\ncolors:\n  accent: blue\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), "theme file "+bad+": line 3: colors.accent: \"blue\" is not a colour") {
		t.Fatalf("bad file error = %v", err)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "theme file:") {
		t.Fatalf("missing file error = %v", err)
	}
	if th, err := Resolve(good); err != nil || th.Name != "g" {
		t.Fatalf("Resolve(path) = %v, %v", th.Name, err)
	}
	if th, err := Resolve("light"); err != nil || th.Name != "light" {
		t.Fatalf("Resolve(light) = %v, %v", th.Name, err)
	}
	if _, err := Resolve("nope"); err == nil || !strings.Contains(err.Error(), "unknown theme") {
		t.Fatalf("Resolve(nope) = %v", err)
	}
}

func TestValidate(t *testing.T) {
	th, _ := Get("dark")
	th.Bad = Color{Dark: "#FF0000"}
	if err := th.Validate(); err == nil || !strings.Contains(err.Error(), "bad.light: no colour set") {
		t.Fatalf("Validate = %v", err)
	}
	th, _ = Get("dark")
	th.Name = " "
	if err := th.Validate(); err == nil {
		t.Fatalf("a theme without a name validated")
	}
}

func TestColorKeysCoverEveryColour(t *testing.T) {
	keys := ColorKeys()
	if len(keys) != 17+5+NumPhases {
		t.Fatalf("%d colour keys", len(keys))
	}
	// Every key reaches a distinct field: zero the theme through the keys and it must fail
	// validation on each one in turn.
	for _, f := range fields() {
		th, _ := Get("dark")
		*f.get(&th) = Color{}
		if err := th.Validate(); err == nil || !strings.Contains(err.Error(), f.key+".dark") {
			t.Errorf("key %s: %v", f.key, err)
		}
	}
}

func TestNewStylesBackground(t *testing.T) {
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(termenv.Ascii)
	dark, _ := Get("dark")
	light, _ := Get("light")
	hc, _ := Get("high-contrast")
	if s := NewStyles(dark, false); !s.Dark {
		t.Errorf("dark theme on a light terminal must still use its dark values")
	}
	if s := NewStyles(light, true); s.Dark {
		t.Errorf("light theme must use its light values")
	}
	if s := NewStyles(hc, false); s.Dark {
		t.Errorf("auto theme on a light terminal must use light values")
	}
	if s := NewStyles(hc, true); !s.Dark || s.Mono {
		t.Errorf("auto theme on a dark terminal: dark=%v mono=%v", s.Dark, s.Mono)
	}
	if got := NewStyles(dark, true).Text.Render("x"); !strings.Contains(got, "\x1b[38;2;") {
		t.Errorf("TrueColor text has no colour: %q", got)
	}
	lipgloss.SetColorProfile(termenv.Ascii)
	s := NewStyles(dark, true)
	if !s.Mono {
		t.Errorf("Ascii profile must give Mono styles")
	}
	if got := s.BadgeRec.Render(" ● REC "); got != " ● REC " {
		t.Errorf("Ascii badge = %q, want plain text", got)
	}
}

func TestColorProfile(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, c := range []struct {
		mode     string
		env      func(string) string
		detected termenv.Profile
		want     termenv.Profile
	}{
		{"auto", env(), termenv.TrueColor, termenv.TrueColor},
		{"auto", env("NO_COLOR", "1"), termenv.TrueColor, termenv.Ascii},
		{"", env("NO_COLOR", "yes"), termenv.ANSI256, termenv.Ascii},
		{"never", env(), termenv.TrueColor, termenv.Ascii},
		{"always", env("NO_COLOR", "1"), termenv.Ascii, termenv.ANSI256},
		{"always", env("COLORTERM", "truecolor"), termenv.Ascii, termenv.TrueColor},
		{"always", env(), termenv.TrueColor, termenv.TrueColor},
	} {
		got, err := ColorProfile(c.mode, c.env, c.detected)
		if err != nil || got != c.want {
			t.Errorf("ColorProfile(%q) = %v, %v; want %v", c.mode, got, err, c.want)
		}
	}
	if _, err := ColorProfile("sometimes", env(), termenv.TrueColor); err == nil {
		t.Errorf("a bad mode was accepted")
	}
}

// contrast is the WCAG contrast ratio of two #RRGGBB colours.
func contrast(a, b string) float64 {
	la, lb := luminance(a), luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func luminance(hex string) float64 {
	if len(hex) != 7 {
		return 0
	}
	var rgb [3]float64
	for i := range rgb {
		var v int
		for _, r := range hex[1+2*i : 3+2*i] {
			v *= 16
			switch {
			case r >= '0' && r <= '9':
				v += int(r - '0')
			case r >= 'a' && r <= 'f':
				v += int(r-'a') + 10
			case r >= 'A' && r <= 'F':
				v += int(r-'A') + 10
			}
		}
		c := float64(v) / 255
		if c <= 0.03928 {
			c /= 12.92
		} else {
			c = math.Pow((c+0.055)/1.055, 2.4)
		}
		rgb[i] = c
	}
	return 0.2126*rgb[0] + 0.7152*rgb[1] + 0.0722*rgb[2]
}

func TestSetupColor(t *testing.T) {
	defer lipgloss.SetColorProfile(termenv.Ascii)
	t.Setenv("NO_COLOR", "1")
	p, err := SetupColor(ColorAuto)
	if err != nil || p != termenv.Ascii || lipgloss.ColorProfile() != termenv.Ascii {
		t.Fatalf("NO_COLOR: profile %v (lipgloss %v), %v", p, lipgloss.ColorProfile(), err)
	}
	p, err = SetupColor(ColorAlways)
	if err != nil || p == termenv.Ascii || lipgloss.ColorProfile() != p {
		t.Fatalf("--color always: profile %v, %v", p, err)
	}
	if _, err := SetupColor("rainbow"); err == nil {
		t.Fatalf("a bad --color mode was accepted")
	}
}

func TestReset(t *testing.T) {
	defer lipgloss.SetColorProfile(lipgloss.ColorProfile())
	lipgloss.SetColorProfile(termenv.Ascii)
	if r := (&Styles{Mono: true}).Reset(); r != "" {
		t.Errorf("reset without escape codes %q, want none", r)
	}
	// Without colour on a terminal, attributes are drawn: they must be reset too.
	lipgloss.SetColorProfile(termenv.ANSI)
	if r := (&Styles{Mono: true}).Reset(); r != "\x1b[0m" {
		t.Errorf("mono reset %q, want SGR 0", r)
	}
	lipgloss.SetColorProfile(termenv.TrueColor)
	if r := (&Styles{}).Reset(); r != "\x1b[0m" {
		t.Errorf("reset %q, want SGR 0", r)
	}
}

// TestSetupKeepsAttributes: NO_COLOR on a terminal draws bold and reverse, no colour; off a
// terminal nothing.
func TestSetupKeepsAttributes(t *testing.T) {
	defer lipgloss.SetColorProfile(termenv.Ascii)
	defer attrsOnly.Store(false)
	noColor := func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}
	if _, err := Setup(ColorAuto, noColor, termenv.Ascii, true); err != nil {
		t.Fatal(err)
	}
	st := NewStyles(darkTheme(), true)
	if !st.Mono {
		t.Fatalf("NO_COLOR on a terminal: styles are not mono")
	}
	if got := st.Selected.Render("x"); got != "\x1b[1;7mx\x1b[0m" {
		t.Fatalf("NO_COLOR selection = %q, want bold reverse and no colour", got)
	}
	if got := st.Good.Render("x"); got != "x" {
		t.Fatalf("NO_COLOR good = %q, want plain", got)
	}
	if _, err := Setup(ColorAuto, noColor, termenv.Ascii, false); err != nil {
		t.Fatal(err)
	}
	st = NewStyles(darkTheme(), true)
	if got := st.Selected.Render("x"); got != "x" {
		t.Fatalf("NO_COLOR off a terminal: selection = %q, want plain text", got)
	}
}

// TestFitting: `t` never cycles into a theme made for the other background.
func TestFitting(t *testing.T) {
	for _, dark := range []bool{true, false} {
		var names []string
		for _, th := range Fitting(dark) {
			names = append(names, th.Name)
		}
		got := strings.Join(names, ",")
		want := "dark,high-contrast,colorblind"
		if !dark {
			want = "light,high-contrast,colorblind"
		}
		if got != want {
			t.Errorf("dark background %v: themes %s, want %s", dark, got, want)
		}
	}
}
