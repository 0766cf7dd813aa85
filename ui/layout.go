package ui

import (
	"strconv"
	"strings"
)

// Layout: which panels fit the terminal, their sizes, and View joining their cached lines.
//
// The panels are numbered as the number keys toggle them (btop-style). When the terminal is
// too small for every panel, panels give way one at a time in dropOrder (the core view — FPS,
// drop levels and the frame-time graph — never does); heights shrink to each panel's minimum
// before any panel is dropped, and a line above the footer names what is hidden. Panels whose
// content is short (a few slow messages, one window) get the height of their content, so the
// room goes to the graphs rather than to empty rows.

// panelID is a dashboard panel; its number key is panelID+1.
type panelID int

const (
	panelFPS panelID = iota
	panelDrops
	panelFrameTime
	panelHistogram
	panelMessages
	panelWindows
	panelWorst
	numPanels
)

// panelNames are the panels' names in the hidden-panels line and the toggle flashes.
var panelNames = [numPanels]string{"FPS", "drop levels", "frame time", "histogram", "messages", "windows", "worst frames"}

// dropOrder is the order in which panels give way when the terminal is too small for all of
// them: the least telling first. A panel the user shows with its number key moves to the end.
var dropOrder = []panelID{panelWindows, panelHistogram, panelWorst, panelMessages}

// layoutKind is the arrangement for the terminal size.
type layoutKind int

const (
	layoutNone     layoutKind = iota // no size yet
	layoutTooSmall                   // below MinWidth×MinHeight
	layoutNarrow                     // one wide column under the FPS/drops row
	layoutWide                       // two columns: graphs left, tables right
	layoutColumns                    // three columns side by side (wide, short terminals)
)

// Minimum size; the width from which the tables share rows with the messages; the width from
// which a short terminal puts three columns side by side.
const (
	MinWidth     = 60
	MinHeight    = 16
	WideWidth    = 100
	ColumnsWidth = 160
)

// stack is panels drawn one above the other in one column of a row.
type stack []panelID

// band is one row of a template: columns of stacked panels and their shares of the width (%).
type band struct {
	cols  []stack
	share []int
}

// layoutRow is one band as drawn: its shown columns, their widths, the row height and each
// panel's height.
type layoutRow struct {
	cols   []stack
	widths []int
	h      int
	hs     [][]int
}

// template is the arrangement of every panel for the layout kind, before panels are hidden.
func template(k layoutKind) []band {
	switch k {
	case layoutWide:
		return []band{
			{[]stack{{panelFPS}, {panelDrops}}, []int{60, 40}},
			{[]stack{{panelFrameTime}, {panelHistogram}}, []int{60, 40}},
			{[]stack{{panelMessages}, {panelWindows, panelWorst}}, []int{60, 40}},
		}
	case layoutColumns:
		return []band{{[]stack{{panelFPS, panelFrameTime}, {panelDrops, panelHistogram},
			{panelMessages, panelWindows, panelWorst}}, []int{40, 25, 35}}}
	}
	return []band{
		{[]stack{{panelFPS}, {panelDrops}}, []int{60, 40}},
		{[]stack{{panelFrameTime}, {panelHistogram}}, []int{60, 40}},
		{[]stack{{panelMessages}}, []int{100}},
		{[]stack{{panelWorst}}, []int{100}},
		{[]stack{{panelWindows}}, []int{100}},
	}
}

// minHeight is the least height a panel is drawn at.
func (m Model) minHeight(id panelID) int {
	switch id {
	case panelDrops:
		return 7 // the five levels
	case panelMessages:
		return 5 // header and two rows
	case panelWindows, panelWorst:
		return 4
	}
	return 5 // graphs: a value line or legend and two rows of graph
}

// wantHeight is the height a panel's content asks for; 0 means it grows with the room (graphs).
func (m Model) wantHeight(id panelID) int {
	switch id {
	case panelDrops:
		return m.drops.Want()
	case panelMessages:
		return m.msgs.Want()
	case panelWindows:
		return m.wins.Want()
	case panelWorst:
		return m.worst.Want()
	case panelFPS:
		return 8
	}
	return 0
}

// visible filters s to the panels in shown.
func (s stack) visible(shown [numPanels]bool) stack {
	var out stack
	for _, id := range s {
		if shown[id] {
			out = append(out, id)
		}
	}
	return out
}

// sum adds f over the stack.
func (s stack) sum(f func(panelID) int) int {
	n := 0
	for _, id := range s {
		n += f(id)
	}
	return n
}

// rows is the arrangement of the shown panels for kind: empty columns fold away and the others
// share their width.
func (m Model) rows(kind layoutKind, shown [numPanels]bool) []layoutRow {
	var out []layoutRow
	for _, b := range m.balance(template(kind)) {
		var r layoutRow
		var shares []int
		total := 0
		for i, c := range b.cols {
			if v := c.visible(shown); len(v) > 0 {
				r.cols = append(r.cols, v)
				shares = append(shares, b.share[i])
				total += b.share[i]
			}
		}
		if len(r.cols) == 0 {
			continue
		}
		if kind == layoutNarrow && len(shares) == 2 {
			dw := min(max(m.w*2/5, 30), 46) // the drop levels' bars and counts need 30 cells
			shares = []int{m.w - dw, dw}
			total = m.w
		}
		left := m.w
		for i, sh := range shares {
			w := m.w * sh / total
			if i == len(shares)-1 {
				w = left
			}
			r.widths = append(r.widths, w)
			left -= w
		}
		out = append(out, r)
	}
	return out
}

// balance moves the windows table under the messages when the worst frames alone ask for
// more rows than both: the bottom band's columns end closer to the same height, with fewer
// blank rows under the messages.
func (m Model) balance(bands []band) []band {
	for i, b := range bands {
		if len(b.cols) == 2 && len(b.cols[1]) == 2 && b.cols[1][0] == panelWindows &&
			m.want(panelMessages)+m.want(panelWindows) <= m.want(panelWorst) {
			out := append([]band(nil), bands...)
			out[i] = band{[]stack{{panelMessages, panelWindows}, {panelWorst}}, b.share}
			return out
		}
	}
	return bands
}

// colMax is the largest f-sum over a row's columns.
func (r layoutRow) colMax(f func(panelID) int) int {
	n := 0
	for _, c := range r.cols {
		n = max(n, c.sum(f))
	}
	return n
}

// plan picks the shown panels for kind: every panel the user has not hidden, less those that do
// not fit at their minimum heights, in drop order (a panel whose removal saves no row stays).
func (m Model) plan(kind layoutKind, body int) [numPanels]bool {
	var shown [numPanels]bool
	for i := range shown {
		shown[i] = !m.panelOff[i]
	}
	order := m.dropOrder
	if order == nil {
		order = dropOrder
	}
	need := func(s [numPanels]bool) int {
		n := m.hiddenLines(s)
		for _, r := range m.rows(kind, s) {
			n += r.colMax(m.minHeight)
		}
		return n
	}
	for need(shown) > body {
		best, bestNeed := panelID(-1), need(shown)
		for _, id := range order {
			if !shown[id] {
				continue
			}
			try := shown
			try[id] = false
			if n := need(try); n < bestNeed {
				best, bestNeed = id, n
				break
			}
		}
		if best < 0 {
			for _, id := range order { // nothing saves a row alone: drop in order
				if shown[id] {
					best = id
					break
				}
			}
		}
		if best < 0 {
			break
		}
		shown[best] = false
	}
	return shown
}

// hiddenLines is 1 when some panel is hidden (the line naming them), else 0.
func (m Model) hiddenLines(shown [numPanels]bool) int {
	for _, s := range shown {
		if !s {
			return 1
		}
	}
	return 0
}

// count is the number of panels in shown.
func countShown(shown [numPanels]bool) int {
	n := 0
	for _, s := range shown {
		if s {
			n++
		}
	}
	return n
}

// resize picks the layout for the size and sizes every component.
func (m Model) resize() Model {
	w, h := m.w, m.h
	switch {
	case w <= 0 || h <= 0:
		m.layout = layoutNone
		return m
	case w < MinWidth || h < MinHeight:
		m.layout = layoutTooSmall
		return m
	case w >= WideWidth:
		m.layout = layoutWide
	default:
		m.layout = layoutNarrow
	}
	m.header = m.header.SetSize(w, 1)
	m.flash = m.flash.SetSize(w, 1)
	m.help = m.help.SetSize(w, h)
	m.devs = m.devs.SetSize(min(w-4, 84), min(h-2, 18))
	m.apps = m.apps.SetSize(min(w-4, 84), min(h-2, 20))
	m.layers = m.layers.SetSize(min(w-4, 96), min(h-2, 18))
	m.footer = m.footer.SetSize(w, 1)
	m.tl = m.tl.SetSize(w, h)
	m.replay = m.replay.SetSize(w, 1)
	return m.place()
}

// place lays the panels out in the body and sizes them. A terminal wide enough for three
// columns uses them when the two-column layout would have to hide a panel.
func (m Model) place() Model {
	body := m.bodyHeight()
	kind := layoutNarrow
	if m.w >= WideWidth {
		kind = layoutWide
	}
	m.shown = m.plan(kind, body)
	if m.w >= ColumnsWidth && m.hiddenLines(m.shown) > 0 {
		if s := m.plan(layoutColumns, body); countShown(s) > countShown(m.shown) {
			kind, m.shown = layoutColumns, s
		}
	}
	m.layout = kind
	m.wants = m.wantsKey()
	body -= m.hiddenLines(m.shown)
	m.grid = m.heights(m.rows(kind, m.shown), body)
	for i := range m.grid {
		r := &m.grid[i]
		r.hs = make([][]int, len(r.cols))
		for j, c := range r.cols {
			r.hs[j] = m.split(c, r.h)
			for k, id := range c {
				m = m.sizePanel(id, r.widths[j], r.hs[j][k])
			}
		}
	}
	for id := range numPanels {
		if !m.shown[id] {
			m = m.sizePanel(id, 0, 0)
		}
	}
	return m
}

// heights gives each row its minimum, then what its content asks for (the frame-time row
// first, the graph being the core of the view; graphs ask for a readable height), then the
// rest to the graphs: three parts to the frame-time row, one to the FPS row (at most 4 more
// rows there). Without a graph row the rest goes to the second row (or the only one).
func (m Model) heights(rows []layoutRow, body int) []layoutRow {
	left := body
	for i := range rows {
		rows[i].h = rows[i].colMax(m.minHeight)
		left -= rows[i].h
	}
	order := make([]int, 0, len(rows))
	ft, fps := -1, -1
	for i := range rows {
		switch rows[i].cols[0][0] {
		case panelFrameTime:
			ft = i
			order = append([]int{i}, order...)
			continue
		case panelFPS:
			fps = i
		}
		order = append(order, i)
	}
	for _, i := range order {
		if add := min(max(rows[i].colMax(m.want)-rows[i].h, 0), left); add > 0 {
			rows[i].h += add
			left -= add
		}
	}
	switch {
	case left <= 0 || len(rows) == 0:
	case ft >= 0 && fps >= 0 && ft != fps:
		top := min(left/4, 4)
		rows[fps].h += top
		rows[ft].h += left - top
	case ft >= 0:
		rows[ft].h += left
	case fps >= 0:
		rows[fps].h += left
	default:
		rows[min(1, len(rows)-1)].h += left
	}
	return rows
}

// want is a panel's wanted height; for the graphs, which take the rest later, a readable one.
func (m Model) want(id panelID) int {
	if w := m.wantHeight(id); w > 0 {
		return max(w, m.minHeight(id))
	}
	return 9
}

// split shares a column's height among its stacked panels: minimums, then wants in order, the
// rest to the one with the most to show (a graph, else the largest want).
func (m Model) split(s stack, h int) []int {
	out := make([]int, len(s))
	left := h
	for i, id := range s {
		out[i] = m.minHeight(id)
		left -= out[i]
	}
	for i, id := range s {
		add := min(max(m.want(id)-out[i], 0), left)
		out[i] += add
		left -= add
	}
	if len(out) > 0 {
		big := len(out) - 1
		for i, id := range s {
			if w := m.wantHeight(id); w == 0 || w > m.wantHeight(s[big]) && m.wantHeight(s[big]) != 0 {
				big = i
				if w == 0 {
					break
				}
			}
		}
		out[big] += max(left, 0)
	}
	return out
}

// wantsKey changes when a panel's wanted height changes (new data): the layout is redone then.
func (m Model) wantsKey() [numPanels]int {
	var k [numPanels]int
	for id := range numPanels {
		k[id] = m.wantHeight(id)
	}
	return k
}

// relayout redoes the layout when the panels' content asks for other heights.
func (m Model) relayout() Model {
	if m.layout < layoutNarrow || m.wantsKey() == m.wants {
		return m
	}
	return m.place()
}

// sizePanel sets one panel's size (0×0 for a hidden panel: it draws nothing).
func (m Model) sizePanel(id panelID, w, h int) Model {
	switch id {
	case panelFPS:
		m.fps = m.fps.SetSize(w, h)
	case panelDrops:
		m.drops = m.drops.SetSize(w, h)
	case panelFrameTime:
		m.ft = m.ft.SetSize(w, h)
	case panelHistogram:
		m.hist = m.hist.SetSize(w, h)
	case panelMessages:
		m.msgs = m.msgs.SetSize(w, h)
	case panelWindows:
		m.wins = m.wins.SetSize(w, h)
	case panelWorst:
		m.worst = m.worst.SetSize(w, h)
	}
	return m
}

// panelView is one panel's cached lines.
func (m Model) panelView(id panelID) []string {
	switch id {
	case panelFPS:
		return m.fps.View()
	case panelDrops:
		return m.drops.View()
	case panelFrameTime:
		return m.ft.View()
	case panelHistogram:
		return m.hist.View()
	case panelMessages:
		return m.msgs.View()
	case panelWindows:
		return m.wins.View()
	case panelWorst:
		return m.worst.View()
	}
	return nil
}

// panelMarks are the panels' number keys as btop shows them, in their top borders.
var panelMarks = [numPanels]string{"¹", "²", "³", "⁴", "⁵", "⁶", "⁷"}

// column is a stack's lines, each panel's top border carrying its number key ("╭³ Frame time").
func (m Model) column(s stack) []string {
	var out []string
	for _, id := range s {
		v := m.panelView(id)
		if len(v) > 0 {
			out = append(out, strings.Replace(v[0], "─", panelMarks[id], 1))
			v = v[1:]
		}
		out = append(out, v...)
	}
	return out
}

// bodyHeight is the height between the notice line and the footer (and replay bar).
func (m Model) bodyHeight() int {
	h := m.h - 3
	if m.opts.Replay != nil {
		h--
	}
	return h
}

// hiddenText names the hidden panels and the keys that show them ("" when none is hidden).
func (m Model) hiddenText() string {
	var names, nums []string
	for id := range numPanels {
		if !m.shown[id] {
			n := strconv.Itoa(int(id) + 1)
			names = append(names, n+" "+panelNames[id])
			nums = append(nums, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	head := strconv.Itoa(len(names)) + " panels hidden"
	if len(names) == 1 {
		head = "1 panel hidden"
	}
	tail := " — 1-7 toggles panels"
	if s := head + ": " + strings.Join(names, ", ") + tail; width(s) <= m.w {
		return s
	}
	return head + " (" + strings.Join(nums, " ") + ")" + tail
}

// View joins the cached panel lines for the layout; overlays are drawn on top.
func (m Model) View() string {
	switch m.layout {
	case layoutNone:
		return ""
	case layoutTooSmall:
		return m.tooSmall()
	}
	if m.overlay == overlayTimeline {
		lines := append([]string(nil), m.tl.View()...)
		if len(lines) > 2 {
			m.dimStale(lines[1 : len(lines)-1]) // as the panels: the last frames are not current
		}
		return strings.Join(lines, "\n")
	}
	lines := make([]string, 0, m.h)
	lines = append(lines, m.header.View(), m.flash.View())
	for _, r := range m.grid {
		start := len(lines)
		for _, c := range r.cols {
			lines = beside(lines, start, m.column(c))
		}
	}
	m.dimStale(lines[2:])
	if t := m.hiddenText(); t != "" {
		lines = append(lines, m.st.Muted.Render(fit(t, m.w)))
	}
	for len(lines) < m.h-1-btoi(m.opts.Replay != nil) {
		lines = append(lines, "")
	}
	if m.opts.Replay != nil {
		lines = append(lines, m.replay.View())
	}
	lines = append(lines, m.footer.View())
	if m.overlay != overlayNone {
		lines = m.drawOverlay(lines)
	}
	return m.paint(lines)
}

// paint joins the lines, with the theme's own background behind them when it has to paint one
// (a light theme on a dark terminal: Styles.Canvas).
func (m Model) paint(lines []string) string {
	return strings.Join(paintLines(m.st, lines, m.w), "\n")
}

// btoi is 1 for true.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// beside appends col's lines to lines from index start on, to the right of what is there.
func beside(lines []string, start int, col []string) []string {
	for i, l := range col {
		if start+i < len(lines) {
			lines[start+i] += l
		} else {
			lines = append(lines, l)
		}
	}
	return lines
}

// tooSmall is the centred message shown below the minimum size.
func (m Model) tooSmall() string {
	msg := []string{
		"terminal too small",
		"need " + strconv.Itoa(MinWidth) + "×" + strconv.Itoa(MinHeight) + ", have " + strconv.Itoa(m.w) + "×" + strconv.Itoa(m.h),
	}
	lines := make([]string, m.h)
	top := (m.h - len(msg)) / 2
	for i := range lines {
		s := ""
		if j := i - top; j >= 0 && j < len(msg) {
			s = msg[j]
		}
		lines[i] = center(s, m.w)
	}
	if len(lines) > 0 {
		lines[top] = m.st.Warn.Render(lines[top])
	}
	return m.paint(lines)
}
