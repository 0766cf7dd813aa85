package ui

import (
	"fmt"
	"math"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/fpstop/fpstop/themes"
)

// width is the display width of s in cells (escape codes excluded).
func width(s string) int { return ansi.StringWidth(s) }

// fit truncates s to w cells (with "…") and pads it with spaces to exactly w cells.
func fit(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := width(s)
	if sw > w {
		s = ansi.Truncate(s, w, "…")
		sw = width(s)
	}
	if sw < w {
		s += strings.Repeat(" ", w-sw)
	}
	return s
}

// fitLeft is fit that drops the start of s instead of its end ("…tail").
func fitLeft(s string, w int) string {
	if w <= 0 {
		return ""
	}
	sw := width(s)
	if sw > w {
		s = "…" + ansi.TruncateLeft(s, sw-w+1, "")
	}
	return fit(s, w)
}

// alignRight pads s on the left to w cells (truncating when longer).
func alignRight(s string, w int) string {
	sw := width(s)
	if sw >= w {
		return fit(s, w)
	}
	return strings.Repeat(" ", w-sw) + s
}

// spread puts left and right on one line of w cells, right-aligned; left is cut when they do
// not both fit.
func spread(left, right string, w int) string {
	lw, rw := width(left), width(right)
	if rw >= w {
		return fit(right, w)
	}
	if lw+rw+1 > w {
		return fit(left, w-rw-1) + " " + right
	}
	return left + strings.Repeat(" ", w-lw-rw) + right
}

// center centres s in w cells.
func center(s string, w int) string {
	sw := width(s)
	if sw >= w {
		return fit(s, w)
	}
	l := (w - sw) / 2
	return strings.Repeat(" ", l) + s + strings.Repeat(" ", w-sw-l)
}

// blank returns h lines of w spaces.
func blank(w, h int) []string {
	if h <= 0 {
		return nil
	}
	line := strings.Repeat(" ", max(w, 0))
	out := make([]string, h)
	for i := range out {
		out[i] = line
	}
	return out
}

// box draws a rounded panel of exactly w×h cells with title in its top border and body lines
// inside (one space of padding each side; lines are cut or padded to fit, missing lines are
// blank).
func box(st *themes.Styles, title, right string, body []string, w, h int) []string {
	if w < 4 || h < 2 {
		return blank(w, h)
	}
	inner := w - 4
	out := make([]string, 0, h)
	if width(title) > w-6 {
		title = ansi.Truncate(title, max(w-6, 0), "…")
	}
	top := "─"
	if title != "" {
		top += " " + st.Title.Render(title) + " "
	}
	rs := ""
	if right != "" {
		rs = " " + right + " "
	}
	fill := w - 3 - width(top) - width(rs)
	if fill < 1 {
		rs = ""
		fill = w - 3 - width(top)
	}
	out = append(out, st.Border.Render("╭")+top+st.Border.Render(strings.Repeat("─", max(fill, 0)))+
		rs+st.Border.Render("─╮"))
	side := st.Border.Render("│")
	for i := 0; i < h-2; i++ {
		line := ""
		if i < len(body) {
			line = body[i]
		}
		out = append(out, side+" "+fit(line, inner)+" "+side)
	}
	out = append(out, st.Border.Render("╰"+strings.Repeat("─", w-2)+"╯"))
	return out
}

// focusMark starts the title of the panel that has the focus, so that it shows without colour
// too (the same cursor as the selected table row).
const focusMark = "▶ "

// focusStyles are st with the border of the focused panel: the theme's accent.
func focusStyles(st *themes.Styles) *themes.Styles {
	f := *st
	f.Border = st.Accent
	return &f
}

// cellRow builds one line of single-cell glyphs, each with a style index, and renders runs of
// the same style with one Render call (charts draw thousands of cells).
type cellRow struct {
	runes  []rune
	styles []int
}

func (r *cellRow) reset(n int) {
	if cap(r.runes) < n {
		r.runes = make([]rune, n)
		r.styles = make([]int, n)
	}
	r.runes = r.runes[:n]
	r.styles = r.styles[:n]
	for i := range r.runes {
		r.runes[i] = ' '
		r.styles[i] = -1
	}
}

func (r *cellRow) set(i int, ch rune, style int) {
	if i >= 0 && i < len(r.runes) {
		r.runes[i] = ch
		r.styles[i] = style
	}
}

// render draws the row; style -1 is unstyled, others index table.
func (r *cellRow) render(table []brush) string {
	var b strings.Builder
	for i := 0; i < len(r.runes); {
		j := i
		for j < len(r.runes) && r.styles[j] == r.styles[i] {
			j++
		}
		seg := string(r.runes[i:j])
		if s := r.styles[i]; s >= 0 && s < len(table) && strings.TrimSpace(seg) != "" {
			b.WriteString(table[s].pre)
			b.WriteString(seg)
			b.WriteString(table[s].post)
		} else {
			b.WriteString(seg)
		}
		i = j
	}
	return b.String()
}

// brush is a style's escape codes before and after a text, taken once from lipgloss so charts
// can paint thousands of cells without a Render call each (only for styles without padding,
// margins, borders or widths: colours and attributes).
type brush struct{ pre, post string }

// brushes takes the escape codes of styles.
func brushes(styles ...lipgloss.Style) []brush {
	out := make([]brush, len(styles))
	for i, st := range styles {
		r := st.Render("x")
		if k := strings.IndexByte(r, 'x'); k >= 0 {
			out[i] = brush{pre: r[:k], post: r[k+1:]}
		}
	}
	return out
}

// blocks are the eighth-height bar glyphs, 1/8 to 8/8.
var blocks = []rune("▁▂▃▄▅▆▇█")

// hblocks are the eighth-width bar glyphs, 1/8 to 8/8.
var hblocks = []rune("▏▎▍▌▋▊▉█")

// hbar draws a horizontal bar of frac (0..1) over w cells with eighth-cell precision; a
// non-zero frac always shows at least a sliver.
func hbar(frac float64, w int) string {
	if w <= 0 {
		return ""
	}
	if frac < 0 || math.IsNaN(frac) {
		frac = 0
	}
	if frac > 1 {
		frac = 1
	}
	e := int(math.Round(frac * float64(w*8)))
	if e == 0 && frac > 0 {
		e = 1
	}
	full := e / 8
	var b strings.Builder
	b.WriteString(strings.Repeat("█", full))
	n := full
	if rem := e % 8; rem > 0 {
		b.WriteRune(hblocks[rem-1])
		n++
	}
	b.WriteString(strings.Repeat(" ", w-n))
	return b.String()
}

// msu formats a duration in ms with its unit: "8.3 ms", "412 ms", "1.2 s".
func msu(f float64) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ms(f)
	}
	if f >= 1000 {
		return fmt.Sprintf("%.1f s", f/1000)
	}
	return ms(f) + " ms"
}

// num formats a float with d decimals, "—" when it has no meaning (NaN/Inf).
func num(f float64, d int) string {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "—"
	}
	return fmt.Sprintf("%.*f", d, f)
}

// ms formats a duration in ms: "8.3", "83", "1.2s".
func ms(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return "—"
	case f >= 10000:
		return fmt.Sprintf("%.0fs", f/1000)
	case f >= 1000:
		return fmt.Sprintf("%.1fs", f/1000)
	case f >= 100:
		return fmt.Sprintf("%.0f", f)
	}
	return fmt.Sprintf("%.1f", f)
}

// msCell formats a duration in ms for a column whose heading already says "ms": whole ms from
// 100 ms up ("1432", never "1.4s", which would read as 1.4 ms under that heading).
func msCell(f float64) string {
	if f >= 100 && !math.IsInf(f, 0) {
		return fmt.Sprintf("%.0f", f)
	}
	return ms(f)
}

// count formats a count compactly: 999, 12.3k, 4.5M.
func count(n int64) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 100_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprintf("%d", n)
}

// clock formats a duration as m:ss or h:mm:ss.
func clock(secs int64) string {
	if secs < 0 {
		secs = 0
	}
	h, m, s := secs/3600, secs/60%60, secs%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%02d:%02d", m, s)
}

// shortClass shortens a Java class name to its simple name with enclosing classes
// ("android.app.ActivityThread$H" → "ActivityThread$H"); other text is kept.
func shortClass(s string) string {
	if strings.ContainsAny(s, " {(") {
		return s
	}
	if i := strings.LastIndexByte(s, '.'); i >= 0 && i+1 < len(s) {
		return s[i+1:]
	}
	return s
}

// wrap breaks text into lines of at most w cells at spaces (long words are cut).
func wrap(text string, w int) []string {
	if w <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			switch {
			case line == "":
				line = word
			case width(line)+1+width(word) <= w:
				line += " " + word
			default:
				out = append(out, line)
				line = word
			}
			for width(line) > w {
				out = append(out, ansi.Truncate(line, w, ""))
				line = ansi.TruncateLeft(line, w, "")
			}
		}
		out = append(out, line)
	}
	return out
}

// fpsStyle picks good/warn/bad for an fps value against target: at or above target is good,
// within 20% below it warn, further below bad.
func fpsStyle(st *themes.Styles, fps, target float64) lipgloss.Style {
	switch {
	case math.IsNaN(fps):
		return st.Idle
	case fps >= target:
		return st.Good
	case fps >= target*0.8:
		return st.Warn
	}
	return st.Bad
}
