package html

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"

	"github.com/muesli/termenv"

	"github.com/fpstop/fpstop/themes"
)

// themeVars names the CSS custom properties the stylesheet uses and the theme colour behind
// each: the report takes its colours from themes/ like the dashboard, the light values for a
// light page and the dark values under prefers-color-scheme: dark.
func themeVars(t *themes.Theme) [][2]any {
	v := [][2]any{
		{"text", t.Text}, {"muted", t.Muted}, {"accent", t.Accent}, {"border", t.Border},
		{"title", t.Title}, {"good", t.Good}, {"warn", t.Warn}, {"bad", t.Bad},
		{"graph", t.GraphLine}, {"budget", t.Budget}, {"idle", t.Idle}, {"sel", t.SelectionBg},
	}
	for i, c := range t.DropLevel {
		v = append(v, [2]any{fmt.Sprintf("lv%d", i), c})
	}
	for i, c := range t.Phase {
		v = append(v, [2]any{fmt.Sprintf("ph%d", i), c})
	}
	return v
}

// themeCSS returns the :root custom properties for both colour schemes.
func themeCSS(t themes.Theme) template.CSS {
	var b strings.Builder
	write := func(dark bool) {
		b.WriteString(":root{")
		for _, kv := range themeVars(&t) {
			c := kv[1].(themes.Color)
			val := c.Light
			if dark {
				val = c.Dark
			}
			fmt.Fprintf(&b, "--%s:%s;", kv[0], cssColor(val))
		}
		b.WriteString("}")
	}
	write(false)
	b.WriteString("\n@media (prefers-color-scheme: dark){")
	write(true)
	b.WriteString("}\n")
	return template.CSS(b.String())
}

// cssColor turns a theme colour ("#RRGGBB", "#RGB" or an ANSI number 0–255, validated by
// themes) into a CSS colour: an ANSI number as xterm's 256-colour palette draws it.
func cssColor(v string) string {
	if strings.HasPrefix(v, "#") {
		return v
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > 255 {
		return "currentColor"
	}
	return strings.ToUpper(termenv.ANSI256Color(n).String())
}
