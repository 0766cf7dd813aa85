package ui

import (
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"

	"github.com/fpstop/fpstop/themes"
)

// helpSection is one titled group of keys in the help overlay.
type helpSection struct {
	title string
	keys  []key.Binding
}

// helpModel is the `?` overlay listing every key, grouped; esc (or ?) closes it.
type helpModel struct {
	st       *themes.Styles
	sections []helpSection
	w, h     int
}

func newHelp(st *themes.Styles, sections []helpSection) helpModel {
	return helpModel{st: st, sections: sections}
}

// SetStyles changes the theme.
func (m helpModel) SetStyles(st *themes.Styles) helpModel { m.st = st; return m }

// SetSize sizes the overlay for a screen of w×h: as wide as useful, as tall as its keys.
func (m helpModel) SetSize(w, h int) helpModel {
	m.w, m.h = m.size(w, h)
	return m
}

// size is the overlay's size for a screen of w×h.
func (m helpModel) size(w, h int) (int, int) {
	ow := min(w-4, 90)
	return ow, min(h-2, len(m.body(ow-4))+3)
}

// body lays the sections out in one column, or two when inner is wide enough.
func (m helpModel) body(inner int) []string {
	st := m.st
	var cols [][]string
	for _, s := range m.sections {
		c := []string{st.Title.Render(s.title)}
		for _, k := range s.keys {
			hk := k.Help()
			c = append(c, st.HelpKey.Render(fit(hk.Key, 9))+st.Text.Render(hk.Desc))
		}
		cols = append(cols, c)
	}
	if inner < 70 {
		var out []string
		for i, c := range cols {
			if i > 0 {
				out = append(out, "")
			}
			out = append(out, c...)
		}
		return out
	}
	// Two columns: sections alternate left and right, each side stacked.
	var left, right []string
	for i, c := range cols {
		side := &left
		if i%2 == 1 {
			side = &right
		}
		if len(*side) > 0 {
			*side = append(*side, "")
		}
		*side = append(*side, c...)
	}
	cw := inner / 2
	out := make([]string, 0, max(len(left), len(right)))
	for i := 0; i < max(len(left), len(right)); i++ {
		l, r := "", ""
		if i < len(left) {
			l = left[i]
		}
		if i < len(right) {
			r = right[i]
		}
		out = append(out, fit(l, cw-1)+" "+r)
	}
	return out
}

// View renders the overlay as a box of its size.
func (m helpModel) View() []string {
	w, h := m.w, m.h
	body := m.body(w - 4)
	if len(body) > h-3 {
		body = body[:max(0, h-3)]
	}
	for len(body) < h-3 {
		body = append(body, "")
	}
	body = append(body, m.st.Muted.Render("esc or ? closes"))
	return box(m.st, "Keys", "", body, w, h)
}

// footerModel is the bottom line of key hints (bubbles/help short view with themed styles).
type footerModel struct {
	st   *themes.Styles
	help help.Model
	w    int
	keys []key.Binding
	line string
}

func newFooter(st *themes.Styles) footerModel {
	m := footerModel{st: st, help: help.New()}
	return m.SetStyles(st)
}

// SetStyles changes the theme.
func (m footerModel) SetStyles(st *themes.Styles) footerModel {
	m.st = st
	m.help.Styles = help.Styles{
		Ellipsis:       st.Muted,
		ShortKey:       st.HelpKey,
		ShortDesc:      st.HelpDesc,
		ShortSeparator: st.Muted,
		FullKey:        st.HelpKey,
		FullDesc:       st.HelpDesc,
		FullSeparator:  st.Muted,
	}
	return m.render()
}

// SetSize sets the width.
func (m footerModel) SetSize(w, _ int) footerModel { m.w = w; return m.render() }

// SetKeys sets the hints shown (bindings with short help texts).
func (m footerModel) SetKeys(ks []key.Binding) footerModel { m.keys = ks; return m.render() }

// View returns the cached line.
func (m footerModel) View() string { return m.line }

func (m footerModel) render() footerModel {
	m.help.Width = m.w
	m.line = fit(m.help.ShortHelpView(m.keys), m.w)
	return m
}
