package ui

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/fpstop/fpstop/metrics"
	"github.com/fpstop/fpstop/source"
	"github.com/fpstop/fpstop/themes"
)

// LooperHintCode is the line an app adds to make its main Looper log every message.
const LooperHintCode = `Looper.getMainLooper().setMessageLogging(new LogPrinter(Log.DEBUG, "Looper"))`

// messagesKeyMap are the slow-messages table's keys.
type messagesKeyMap struct {
	Sort, Up, Down, PageUp, PageDown, Open, Close, Filter key.Binding
	// While typing a filter: Keep ends typing and keeps it, Close clears it, Erase deletes.
	Keep, Erase key.Binding
}

func defaultMessagesKeys() messagesKeyMap {
	return messagesKeyMap{
		Sort:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sort messages: max/total/count")),
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous message")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next message")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "messages: page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "messages: page down")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "message details")),
		Close:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close details, clear the filter")),
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter messages")),
		Keep:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "keep filter")),
		Erase:    key.NewBinding(key.WithKeys("backspace"), key.WithHelp("⌫", "erase")),
	}
}

// ShortHelp implements help.KeyMap (the footer's hints).
func (k messagesKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{hint(k.Sort, "s", "sort"), hint(k.Filter, "/", "filter")}
}

// TypingHelp are the footer's hints while a filter is typed.
func (k messagesKeyMap) TypingHelp() []key.Binding {
	return []key.Binding{k.Keep, hint(k.Close, "esc", "clear filter"), k.Erase}
}

// FullHelp implements help.KeyMap (Close is the global esc, listed with the global keys).
func (k messagesKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Sort, k.Filter, k.Up, k.Down, k.PageUp, k.PageDown, k.Open}}
}

// Sort orders of the messages table.
const (
	sortMax = iota
	sortTotal
	sortCount
	numSorts
)

var sortNames = [numSorts]string{"max", "total", "count"}

// msgKey identifies a message signature across snapshots.
type msgKey struct {
	handler, callback string
	what              int
}

// messagesModel is the slowest main-thread messages table (handler, callback, what, count, max,
// total, p95), sorted by max, total or count (`s`); enter opens the selected signature's worst
// occurrences. When the source reads logcat but no Looper printer lines arrived it explains how
// to turn them on.
type messagesModel struct {
	st   *themes.Styles
	keys messagesKeyMap
	w, h int
	all  []*metrics.MessageSnapshot // the snapshot's rows; the snapshot is never modified
	rows []*metrics.MessageSnapshot // all, filtered and sorted: what the table shows
	// sections: the source is a trace, and the rows include its slow atrace sections
	sections bool
	// messages: the rows include Looper messages (beside the sections under perfetto+logcat)
	messages bool
	filter   string // `/`: rows whose handler, callback or what contain it
	typing   bool   // the filter is being typed
	sortBy   int
	sel      int
	selKey   msgKey
	hint     bool
	slowMs   float64
	originNs int64
	counts   string // Looper line counts, skipped frames, slow-looper lines
	// blind: the source cannot see main-thread messages at all (gfxinfo, SurfaceFlinger alone)
	blind bool
	// source is the session's source kind, named by the blind note.
	source string
	// perfetto: `P` switches to Perfetto now (auto's offer on Android 12+ when the app logs no
	// Looper messages), which shows what this panel cannot: each janky frame's slowest work
	perfetto bool
	// slow: the Slow dispatch/delivery lines, newest last, listed when no message is paired
	slow   []metrics.SlowLooperReport
	detail bool
	lines  []string
}

func newMessages(st *themes.Styles) messagesModel {
	return messagesModel{st: st, keys: defaultMessagesKeys()}
}

// SetSize sets the panel's outer size.
func (m messagesModel) SetSize(w, h int) messagesModel { m.w, m.h = w, h; return m.render() }

// SetStyles changes the theme.
func (m messagesModel) SetStyles(st *themes.Styles) messagesModel { m.st = st; return m.render() }

// Detail reports whether the detail view of the selected message is open.
func (m messagesModel) Detail() bool { return m.detail }

// Update applies data and the table keys.
func (m messagesModel) Update(msg tea.Msg) (messagesModel, tea.Cmd) {
	switch msg := msg.(type) {
	case dataMsg:
		if s := msg.snap; s != nil {
			m.all = m.all[:0:0]
			for i := range s.Messages {
				m.all = append(m.all, &s.Messages[i])
			}
			m.sections, m.messages = s.Session.Source.Traced(), len(s.Messages) > 0
			if m.sections {
				m.all = append(m.all, sectionRows(s.Sections)...)
			}
			m.rows = m.filtered()
			m.hint, m.slowMs, m.originNs = s.LooperHint, s.SlowMs, s.OriginNs
			// A SurfaceFlinger layer's frames (a game's SurfaceView, also in the simulator or in
			// auto mode) come with no main-thread messages: say that plainly, not "none slow yet"
			quiet := s.Paired == 0 && len(s.SlowLooper) == 0
			m.blind = quiet && s.Session.Source != "" && (s.Session.Layer != "" ||
				!strings.Contains(string(s.Session.Source), "logcat") && s.Session.Source != source.KindSim)
			m.source = string(s.Session.Source)
			if s.Session.Layer != "" {
				m.source = "SurfaceFlinger"
			}
			m.slow = s.SlowLooper
			m.counts = lineCounts(s)
			m.sortRows()
		}
		return m.render(), nil
	case offerMsg:
		m.perfetto = msg.perfetto
		return m.render(), nil
	case tea.KeyMsg:
		if m.typing {
			return m.typeFilter(msg), nil
		}
		switch {
		case m.detail && key.Matches(msg, m.keys.Close):
			m.detail = false
		case key.Matches(msg, m.keys.Close) && m.filter != "":
			m.filter = ""
			m.rows = m.filtered()
			m.sortRows()
		case key.Matches(msg, m.keys.Filter):
			m.typing = true
		case key.Matches(msg, m.keys.PageUp):
			m.move(-m.page())
		case key.Matches(msg, m.keys.PageDown):
			m.move(m.page())
		case key.Matches(msg, m.keys.Sort):
			m.sortBy = (m.sortBy + 1) % numSorts
			m.sortRows()
		case key.Matches(msg, m.keys.Up):
			m.move(-1)
		case key.Matches(msg, m.keys.Down):
			m.move(1)
		case key.Matches(msg, m.keys.Open):
			m.detail = len(m.rows) > 0
		default:
			return m, nil
		}
		return m.render(), nil
	}
	return m, nil
}

// Typing reports whether a filter is being typed (every key goes to the table then).
func (m messagesModel) Typing() bool { return m.typing }

// typeFilter applies a key while the filter is typed: letters add to it, ⌫ erases, enter
// keeps it, esc clears it; the table follows at every key.
func (m messagesModel) typeFilter(msg tea.KeyMsg) messagesModel {
	switch {
	case key.Matches(msg, m.keys.Keep):
		m.typing = false
	case key.Matches(msg, m.keys.Close):
		m.typing, m.filter = false, ""
	case key.Matches(msg, m.keys.Erase):
		if r := []rune(m.filter); len(r) > 0 {
			m.filter = string(r[:len(r)-1])
		}
	case msg.Type == tea.KeyRunes || msg.Type == tea.KeySpace:
		m.filter += string(msg.Runes)
	default:
		return m
	}
	m.rows = m.filtered()
	m.sortRows()
	return m.render()
}

// filtered is the rows matching the filter (case-insensitive, in handler, callback or what).
func (m messagesModel) filtered() []*metrics.MessageSnapshot {
	if m.filter == "" {
		return append([]*metrics.MessageSnapshot(nil), m.all...)
	}
	f := strings.ToLower(m.filter)
	var out []*metrics.MessageSnapshot
	for _, r := range m.all {
		if strings.Contains(strings.ToLower(r.Handler+" "+r.Callback+" "+whatLabel(r.WhatName, r.What)), f) {
			out = append(out, r)
		}
	}
	return out
}

// page is how many rows PgUp/PgDn move: the rows the table shows.
func (m messagesModel) page() int { return max(1, m.h-5) }

func (m *messagesModel) move(d int) {
	if len(m.rows) == 0 {
		return
	}
	m.sel = max(0, min(len(m.rows)-1, m.sel+d))
	r := m.rows[m.sel]
	m.selKey = msgKey{r.Handler, r.Callback, r.What}
}

// sortRows orders rows (descending, ties by handler) and keeps the selected signature selected.
func (m *messagesModel) sortRows() {
	by := m.sortBy
	sort.SliceStable(m.rows, func(i, j int) bool {
		a, b := m.rows[i], m.rows[j]
		var x, y float64
		switch by {
		case sortTotal:
			x, y = a.TotalMs, b.TotalMs
		case sortCount:
			x, y = float64(a.Count), float64(b.Count)
		default:
			x, y = a.MaxMs, b.MaxMs
		}
		if x != y {
			return x > y
		}
		return a.Handler < b.Handler
	})
	m.sel = 0
	for i, r := range m.rows {
		if (msgKey{r.Handler, r.Callback, r.What}) == m.selKey {
			m.sel = i
			break
		}
	}
	if len(m.rows) > 0 {
		r := m.rows[m.sel]
		m.selKey = msgKey{r.Handler, r.Callback, r.What}
	}
}

// View returns the cached panel.
func (m messagesModel) View() []string { return m.lines }

// whatLabel is a message's what: its name when known, else the number.
func whatLabel(name string, what int) string {
	if name != "" {
		return name
	}
	return fmt.Sprintf("%d", what)
}

// callbackFull is a message's callback class in full, "-" for none.
func callbackFull(c string) string {
	if c == "" || c == "null" {
		return "-"
	}
	return c
}

func (m messagesModel) render() messagesModel {
	if m.w <= 0 || m.h <= 0 {
		m.lines = nil
		return m
	}
	st := m.st
	inner, ih := m.w-4, m.h-2
	title := "Slow main-thread messages"
	switch {
	case m.sections && m.messages:
		title = "Slow messages and sections (trace)"
	case m.sections:
		title = "Slow sections (trace)"
	}
	right := st.Muted.Render("sort: " + sortNames[m.sortBy] + " ▼")
	if m.filter != "" || m.typing {
		cur := ""
		if m.typing {
			cur = "▏"
		}
		right = st.Accent.Render("/"+m.filter+cur) + st.Muted.Render(fmt.Sprintf(" · %d of %d · ", len(m.rows), len(m.all))) + right
	}
	var body []string
	switch {
	case len(m.rows) == 0 && len(m.all) > 0:
		body = append(body, st.Muted.Render(fmt.Sprintf("No message matches /%s (%d hidden; esc clears the filter).", m.filter, len(m.all))))
	case len(m.rows) == 0 && m.sections:
		body = append(body, st.Muted.Render(fit("No atrace section of the app has taken "+msu(m.slowMs)+" or more (or the trace has none).", inner)))
	case len(m.rows) == 0 && m.perfetto && (m.hint || m.blind):
		// the key first; then the other way, Looper messages, as the panel says without the offer
		body = append(body, perfettoNote(st, inner))
		if m.blind {
			body = append(body, blindNote(st, m.source, inner))
		} else {
			body = append(body, looperNote(st, inner))
		}
	case len(m.rows) == 0 && m.hint:
		body = append(body, st.Warn.Render("No Looper messages: the app does not log its main-thread messages."))
		body = append(body, wrap("To see which messages cause jank, add this line to the app (e.g. in Application.onCreate) and run with --source gfxinfo+logcat:", inner)...)
		body = append(body, st.Accent.Render(fitLeft(LooperHintCode, inner)))
		body = append(body, st.Muted.Render("Skipped-frames and Slow dispatch lines are still read meanwhile."))
	case len(m.rows) == 0 && m.blind:
		body = append(body, blindNote(st, m.source, inner))
	case len(m.rows) == 0 && len(m.slow) > 0:
		body = append(body, st.Muted.Render(fit("Looper's Slow dispatch/delivery lines (no paired messages), newest first:", inner)))
		for i := len(m.slow) - 1; i >= 0 && len(body) < ih-1; i-- {
			body = append(body, fit(slowLine(&m.slow[i]), inner))
		}
	case len(m.rows) == 0:
		over := "one frame interval"
		if m.slowMs > 0 {
			over = msu(m.slowMs)
		}
		body = append(body, st.Muted.Render("No main-thread message has taken "+over+" or more yet."))
	default:
		rows := ih
		if m.counts != "" && ih >= 4 {
			rows--
		}
		body = m.table(inner, rows)
	}
	if m.counts != "" && len(body) < ih {
		for len(body) < ih-1 {
			body = append(body, "")
		}
		body = append(body, st.Muted.Render(m.counts))
	}
	m.lines = box(st, title, right, body, m.w, m.h)
	return m
}

// table renders the header row and as many rows as fit, scrolled to keep the selection
// visible. The text columns (handler, callback, what) are as wide as their content when it
// fits; otherwise they share the room in proportion to what each misses (fitColumns). The
// callback, then the total, give way on narrow panels.
func (m messagesModel) table(inner, ih int) []string {
	st := m.st
	const cw, mw, tw, pw = 5, 6, 8, 6
	type cells struct{ h, cb, what string }
	rows := make([]cells, len(m.rows))
	// nat: the widths of the short class names (shortClass); full: with their packages
	nat := []int{width("handler"), width("callback"), width("what")}
	full := append([]int(nil), nat...)
	for i, r := range m.rows {
		rows[i] = cells{r.Handler, callbackFull(r.Callback), whatLabel(r.WhatName, r.What)}
		nat[0], nat[1], nat[2] = max(nat[0], width(shortClass(rows[i].h))), max(nat[1], width(shortClass(rows[i].cb))), max(nat[2], width(rows[i].what))
		full[0], full[1], full[2] = max(full[0], width(rows[i].h)), max(full[1], width(rows[i].cb)), max(full[2], width(rows[i].what))
	}
	showCb, showTotal := true, true
	// A full row: "▶ " h ␣ cb ␣ what ␣ count ␣ max ␣ total ␣ p95 (8 cells of cursor and spaces).
	text := inner - 8 - (cw + mw + tw + pw)
	if text < 30 {
		showTotal = false
		text += tw + 1
	}
	var ws []int
	if text >= 26 {
		// what names the message and fills first; the callback, often "-" or a long
		// listener class, last.
		// Room left after the short names grows the class columns to their full names.
		ws = classWidths(nat, full, []int{8, 6, 8}, []float64{1, 0.6, 2}, text)
	} else {
		showCb = false
		ws = classWidths([]int{nat[0], nat[2]}, []int{full[0], full[2]}, []int{8, 8}, []float64{1, 2}, text+1)
		ws = []int{ws[0], 0, ws[1]}
	}
	row := func(cur, h, cb, what, c, mx, tot, p string) string {
		s := cur + fit(h, ws[0]) + " "
		if showCb {
			s += fit(cb, ws[1]) + " "
		}
		s += fit(what, ws[2]) + " " + alignRight(c, cw) + " " + alignRight(mx, mw)
		if showTotal {
			s += " " + alignRight(tot, tw)
		}
		return s + " " + alignRight(p, pw)
	}
	head := row("  ", "handler", "callback", "what", "count", "max ms", "total ms", "p95 ms")
	out := []string{st.TableHead.Render(head)}
	n := ih - 1
	if n <= 0 {
		return out
	}
	start := 0
	if m.sel >= n {
		start = m.sel - n + 1
	}
	for i := start; i < len(m.rows) && i < start+n; i++ {
		r, c := m.rows[i], rows[i]
		// ▶ marks the selected row without colour too (NO_COLOR, --color never).
		cur := "  "
		if i == m.sel {
			cur = "▶ "
		}
		line := row(cur, classFit(c.h, ws[0]), classFit(c.cb, ws[1]), c.what, count(r.Count), msCell(r.MaxMs), msCell(r.TotalMs), msCell(r.P95Ms))
		switch {
		case i == m.sel:
			line = st.Selected.Render(fit(line, inner))
		default:
			line = st.Text.Render(line)
		}
		out = append(out, line)
	}
	return out
}

// DetailView renders the selected signature and its worst occurrences as a w×h box.
func (m messagesModel) DetailView(w, h int) []string {
	st := m.st
	if len(m.rows) == 0 || m.sel >= len(m.rows) {
		return box(st, "Message", "", []string{"no message selected"}, w, h)
	}
	r := m.rows[m.sel]
	kv := func(k, v string) string { return st.Muted.Render(fit(k, 10)) + st.Text.Render(v) }
	body := []string{
		kv("handler", r.Handler),
		kv("callback", r.Callback),
		kv("what", fmt.Sprintf("%d %s", r.What, r.WhatName)),
		kv("count", count(r.Count)),
		kv("max", msu(r.MaxMs)),
		kv("p95", msu(r.P95Ms)),
		kv("total", msu(r.TotalMs)),
	}
	if r.LastNs > 0 && m.originNs > 0 && r.LastNs >= m.originNs {
		body = append(body, kv("last seen", fmt.Sprintf("+%.3f s", float64(r.LastNs-m.originNs)/1e9)))
	}
	body = append(body, "", st.TableHead.Render("worst occurrences"))
	if len(r.Worst) == 0 {
		body = append(body, st.Muted.Render("none recorded"))
	}
	for _, o := range r.Worst {
		body = append(body, st.Text.Render("  "+fit(startLabel(float64(o.StartMs), 3), 14)+alignRight(msu(float64(o.Ms)), 10)))
	}
	body = append(body, "", st.Muted.Render("esc closes"))
	return box(st, "Message details", "", body, w, h)
}

// lineCounts summarises the Looper printer lines, Choreographer's skipped frames and the Slow
// dispatch/delivery lines ("" when there are none).
func lineCounts(s *metrics.Snapshot) string {
	var parts []string
	if s.Paired > 0 || s.Unpaired > 0 {
		parts = append(parts, fmt.Sprintf("Looper %s paired/%s unpaired", count(s.Paired), count(s.Unpaired)))
	}
	if s.Skipped.Events > 0 {
		parts = append(parts, fmt.Sprintf("skipped %s frames (%s×)", count(s.Skipped.Frames), count(s.Skipped.Events)))
	}
	if n := len(s.SlowLooper); n > 0 {
		parts = append(parts, fmt.Sprintf("%d slow dispatch", n))
	}
	return strings.Join(parts, " · ")
}

// slowLine is one Slow dispatch/delivery line as a table row: kind, ms, handler, callback, what.
func slowLine(l *metrics.SlowLooperReport) string {
	what := ""
	if l.What != nil {
		what = fmt.Sprintf(" what=%d", *l.What)
	}
	cb := ""
	if l.Callback != "" && l.Callback != "null" {
		cb = " " + l.Callback
	}
	ms := fmt.Sprintf("%6d ms", l.Ms)
	if l.Truncated && l.Ms == 0 {
		ms = "     ? ms" // the line was cut off before its duration
	}
	return fmt.Sprintf("%-9s %s  %s%s%s", l.Kind, ms, l.Handler, cb, what)
}

// blindNote is the one line a source that cannot see main-thread messages (gfxinfo,
// SurfaceFlinger) shows in their place: that it cannot, and the literal way to get them — the
// --source that reads them and the Looper printer line the app adds. The longest wording that
// fits inner is used; every one keeps `--source gfxinfo+logcat` while it fits.
func blindNote(st *themes.Styles, src string, inner int) string {
	const flag = "--source gfxinfo+logcat"
	type note struct{ say, join, code string }
	for _, n := range []note{
		{src + " cannot see messages: ", ", and in the app ", LooperHintCode},
		{src + " cannot see messages: ", " + ", "Looper.getMainLooper().setMessageLogging(…)"},
		{src + " cannot see messages: ", " + ", "Looper.setMessageLogging"},
		{src + " cannot see them: ", " + ", "Looper.setMessageLogging"},
		{src + " cannot see them: ", " + ", "setMessageLogging"}, // 68: the panel at 120×40
		{"not in " + src + ": ", " + ", "setMessageLogging"},
		{"", " + ", "Looper.setMessageLogging"},
		{"", "", ""},
	} {
		if len([]rune(n.say+flag+n.join+n.code)) > inner {
			continue
		}
		line := st.Accent.Render(flag)
		if n.say != "" {
			line = st.Warn.Render(n.say) + line
		}
		if n.code != "" {
			line += st.Warn.Render(n.join) + st.Accent.Render(n.code)
		}
		return line
	}
	return st.Accent.Render(fit(flag, max(0, inner)))
}

// offerMsg tells the panel whether `P` switches to Perfetto now (the session's offer).
type offerMsg struct{ perfetto bool }

// perfettoNote is the line that points at `P` where the app logs no Looper messages but auto
// offers Perfetto: the one key that shows what the panel cannot, with no change to the app.
// The longest wording that fits inner is used; every one starts with the key.
func perfettoNote(st *themes.Styles, inner int) string {
	for _, n := range []struct{ key, say string }{
		{"press P for Perfetto", ": the slowest sections of each janky frame, no change to the app"},
		{"press P for Perfetto", ": the slowest sections of each janky frame"},
		{"press P for Perfetto", ": each janky frame's slowest sections"},
		{"P: Perfetto", " shows each janky frame's slowest sections"},
		{"P: Perfetto", ", each janky frame's sections"},
	} {
		if len([]rune(n.key+n.say)) <= inner {
			return st.Accent.Render(n.key) + st.Text.Render(n.say)
		}
	}
	return st.Accent.Render(fit("press P for Perfetto", max(0, inner)))
}

// looperNote is the other way to see the messages, beside perfettoNote, when the source reads
// logcat but the app logs no Looper messages: the line the app adds (longest wording that fits).
func looperNote(st *themes.Styles, inner int) string {
	for _, n := range []struct{ say, code string }{
		{"or, for its Looper messages, in the app: ", LooperHintCode},
		{"or, for its Looper messages, in the app: ", "Looper.getMainLooper().setMessageLogging(…)"},
		{"or, for Looper messages, in the app: ", "Looper.setMessageLogging"},
		{"or in the app: ", "Looper.setMessageLogging"},
	} {
		if len([]rune(n.say+n.code)) <= inner {
			return st.Muted.Render(n.say) + st.Accent.Render(n.code)
		}
	}
	return st.Accent.Render(fit("Looper.setMessageLogging", max(0, inner)))
}

// Want is the panel's height with its whole content: every row of the table (or the hint, or
// the Slow dispatch lines) and the line counts.
func (m messagesModel) Want() int {
	n := 1
	switch {
	case len(m.rows) == 0 && m.perfetto && (m.hint || m.blind):
		n = 2
	case len(m.rows) == 0 && m.hint:
		n = 6
	case len(m.rows) == 0 && len(m.slow) > 0:
		n = len(m.slow) + 1
	case len(m.rows) > 0:
		n = len(m.rows) + 1
	}
	if m.counts != "" {
		n++
	}
	return n + 2
}

// sectionRows shows a trace's slow sections in the messages table: the section's name where a
// message's handler goes, its thread where the callback goes, "section" as its what. A section
// group keeps no p95 (its report has none), so the p95 cell says so ("—"), not 0.0 ms.
func sectionRows(secs []metrics.SlowSectionReport) []*metrics.MessageSnapshot {
	out := make([]*metrics.MessageSnapshot, 0, len(secs))
	for _, sec := range secs {
		out = append(out, &metrics.MessageSnapshot{Handler: sec.Name, Callback: sec.Thread, What: -1,
			WhatName: "section", Count: sec.Count, MaxMs: float64(sec.MaxMs), TotalMs: float64(sec.TotalMs),
			P95Ms: math.NaN(), Worst: sec.Worst})
	}
	return out
}
