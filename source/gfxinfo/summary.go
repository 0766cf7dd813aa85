// The summary side of a dump: the lines outside PROFILEDATA blocks (processes, view roots,
// counters, percentiles, histograms and the old profile table).

package gfxinfo

import (
	"bytes"
	"math"
	"strings"

	"github.com/fpstop/fpstop/source"
)

// summary returns the summary the current summary line belongs to: the current window's, else
// the current process's.
func (p *parser) summary() *source.AndroidSummary {
	if w := p.curWin(); w != nil && (w.Rows > 0 || w.Columns > 0 || len(w.torn) > 0) {
		// Android prints a window's summary before its rows: summary lines after them are
		// the next process's, whose "** Graphics info" line was damaged.
		p.warn("summary lines after a window's rows (damaged process line): read as the process's")
		p.win = -1
	}
	if w := p.curWin(); w != nil {
		if w.Summary == nil {
			w.Summary = &source.AndroidSummary{AtNs: p.d.UptimeNs}
		}
		return w.Summary
	}
	pr := p.curProc()
	if pr.Summary == nil {
		pr.Summary = &source.AndroidSummary{AtNs: p.d.UptimeNs}
	}
	return pr.Summary
}

// line handles a line outside PROFILEDATA blocks: the keyed lines first (recognised by their
// first byte, then their prefix), then the unkeyed ones (view roots, headerless rows).
func (p *parser) line(raw, rest []byte) {
	l := trimLeft(raw)
	if len(l) == 0 {
		return
	}
	if p.oldTable {
		if isProfileTableRow(l) {
			if w := p.curWin(); w != nil {
				w.ProfileRows++
			}
			return
		}
		p.oldTable = false
	}
	if p.structureLine(l, raw, rest) || p.counterLine(l) {
		return
	}
	p.unkeyedLine(l, raw)
}

// structureLine handles the lines that open or place things (blocks, processes, windows, the
// dump's header and failures) and reports whether l was one of them.
func (p *parser) structureLine(l, raw, rest []byte) bool {
	switch l[0] {
	case '-':
		if bytes.HasPrefix(l, profileMarker) {
			p.ps.markers = true
			p.startBlock(rest)
			return true
		}
	case '*':
		if hasPrefix(l, "** Graphics info for pid ") {
			p.process(l[len("** Graphics info for pid "):])
			return true
		}
	case 'A':
		if bytes.HasPrefix(l, dumpHeader) {
			return true // (only at the dump's start: dumpReader cuts dumps there)
		}
	case 'U':
		if hasPrefix(l, "Uptime:") {
			if up, rt, ok := uptimeLine(l[len("Uptime:"):]); ok {
				p.setUptime(up, rt)
			} else {
				p.warn("unreadable Uptime line")
			}
			return true
		}
	case 'N':
		if hasPrefix(l, "No process found for:") {
			p.d.NotRunning = true
			return true
		}
		if hasPrefix(l, "Number ") {
			p.number(l[len("Number "):])
			return true
		}
		if hasPrefix(l, "Note: Data has been filtered") {
			p.warn("Android says its data has been filtered (test-overhead filtering is on)")
			return true
		}
	case 'F':
		if hasPrefix(l, "Flags,") && (p.ps.hdrCols != nil || bytes.Contains(l, intendedVsyncCol)) {
			if p.ps.markers {
				// A PROFILEDATA header outside a block: its opening marker line was damaged.
				p.warn("PROFILEDATA block without its opening marker (damaged marker line)")
			} else {
				// A capture that never printed the markers (a tool's own dump of the rows):
				// the header opens the block, the first line that is not a row ends it.
				p.warn("PROFILEDATA header and rows without ---PROFILEDATA--- markers read as a block")
			}
			p.startBlock(rest)
			p.bare = !p.ps.markers
			// The header itself is read as the header, never as a line that ends the block (a
			// header that also holds a view root's name would end it and open it again, forever).
			p.header(trimSpace(raw))
			return true
		}
		if hasPrefix(l, "Failure while dumping the app:") {
			p.d.Failure = string(trimSpace(l[len("Failure while dumping the app:"):]))
			if p.d.Failure == "" {
				p.d.Failure = "unknown failure"
			}
			return true
		}
	case 'P':
		if hasPrefix(l, "Profile data in ms:") {
			p.curProc()
			p.win = -1
			p.inHierarchy = false
			return true
		}
	case 'V':
		if hasPrefix(l, "View hierarchy:") {
			p.win = -1
			p.inHierarchy = true
			p.curProc().hierarchy = true
			return true
		}
	case 'W':
		if hasPrefix(l, "Window:") {
			p.windowLine(string(trimSpace(l[len("Window:"):])))
			return true
		}
	}
	return false
}

// counterLine handles the summary's counters, percentiles and histograms and the old profile
// table's header, and reports whether l was one of them.
func (p *parser) counterLine(l []byte) bool {
	switch l[0] {
	case 'S':
		if hasPrefix(l, "Stats since:") {
			p.summary() // the line opens the summary; its time is not part of AndroidSummary
			if v, ok := firstInt(l[len("Stats since:"):]); ok && v > 0 && p.curWin() == nil {
				p.curProc().SinceNs = v
			}
			return true
		}
	case 'T':
		if hasPrefix(l, "Total frames rendered:") {
			if v, ok := firstInt(l[len("Total frames rendered:"):]); ok {
				p.summary().TotalFrames = ptr(v)
			} else {
				p.warn("unreadable Total frames rendered line")
			}
			return true
		}
	case 'J':
		if hasPrefix(l, "Janky frames (legacy):") {
			if v, ok := firstInt(l[len("Janky frames (legacy):"):]); ok {
				p.summary().JankyLegacy = ptr(v)
			} else {
				p.warn("unreadable Janky frames (legacy) line")
			}
			return true
		}
		if hasPrefix(l, "Janky frames:") {
			if v, ok := firstInt(l[len("Janky frames:"):]); ok {
				p.summary().JankyFrames = ptr(v)
			} else {
				p.warn("unreadable Janky frames line")
			}
			return true
		}
	case 'H':
		if hasPrefix(l, "HISTOGRAM:") {
			p.histogram(l[len("HISTOGRAM:"):])
			return true
		}
	case 'G':
		if hasPrefix(l, "GPU HISTOGRAM:") {
			return true
		}
	case 'D':
		if isProfileTableHeader(l) {
			p.oldTable = true
			if p.curWin() == nil {
				p.newWindow("", -1)
			}
			return true
		}
	case '5', '9':
		if p.percentile(l) {
			return true
		}
	}
	return false
}

// unkeyedLine handles a line no prefix names: view roots and rows printed without a header.
func (p *parser) unkeyedLine(l, raw []byte) {
	if bytes.Contains(l, viewRootMark) {
		// A view-root line without "(visibility=" is one of the hierarchy's, even when the
		// "View hierarchy:" line before it was damaged.
		// (Android 4 printed its profile-data view roots without it, tab-indented.)
		if p.inHierarchy || (!bytes.Contains(l, visibilityMark) && raw[0] != '\t') {
			p.hierarchyRoot(l)
		} else {
			p.viewRoot(l)
		}
		return
	}
	if l[0] >= '0' && l[0] <= '9' || l[0] == '-' {
		// Rows printed without a header and outside PROFILEDATA markers (Google's doc sample).
		if bytes.IndexByte(l, ',') > 0 && bytes.Count(l, []byte{','}) >= 13 {
			if p.sawBlock {
				// In a dump that has PROFILEDATA markers, a row outside them is a block whose
				// marker line was damaged: its window cannot be told.
				p.warn("PROFILEDATA row outside its block skipped (damaged marker line)")
				if w := p.curWin(); w != nil {
					p.tornAt(w, 1)
				}
				return
			}
			p.headerlessRow(l)
		}
	}
}

func (p *parser) process(b []byte) {
	// "<pid> [<name>] **" (some captures pad the pid with spaces).
	pid, n, ok := parseInt(b)
	name := ""
	// The name ends at the first ']' (a process name has none): two lines run together by a
	// lost newline must not make one name of both.
	if lb := bytes.IndexByte(b, '['); lb >= 0 {
		if rb := bytes.IndexByte(b[lb+1:], ']'); rb >= 0 {
			name = string(b[lb+1 : lb+1+rb])
		}
	}
	if !plausibleProcessName(name) {
		// A damaged byte in the name would otherwise name a process (and its windows) that
		// never ran.
		p.warn("unreadable process name in a Graphics info line")
		name = ""
	}
	// The pid is read only when " [" follows it: a line cut inside the number ("pid 2" of
	// "pid 23817") or with a garbage byte in it would name another process.
	if rest := trimLeft(b[min(n, len(b)):]); !ok || n == 0 || pid < 0 || pid > math.MaxInt32 || len(rest) == 0 || rest[0] != '[' {
		p.warn("unreadable pid in a Graphics info line")
		pid = 0
	}
	p.d.Processes = append(p.d.Processes, Process{Pid: int(pid), Name: name})
	p.proc = len(p.d.Processes) - 1
	p.win = -1
	p.inHierarchy = false
}

// plausibleProcessName reports whether name can be the name of a process that renders with
// HWUI: an app's package name, perhaps with a ":suffix" (letters, digits, '.', '_', ':', '-').
func plausibleProcessName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("._:-", c) >= 0) {
			return false
		}
	}
	return true
}

var visibilityMark = []byte("(visibility=")

// intendedVsyncCol names a column every PROFILEDATA header has: a "Flags," line holding it is one.
var intendedVsyncCol = []byte("IntendedVsync,")

// rootID returns the hex id after the view-root mark at i in l.
func rootID(l []byte, i int) string {
	s := l[i+len(viewRootMark):]
	n := 0
	for n < len(s) && n < 16 && (s[n]-'0' <= 9 || s[n]-'a' <= 5) {
		n++
	}
	return string(s[:n])
}

// hierarchyRoot records a view-root line of the "View hierarchy:" section: the same windows
// again, a second witness of each title.
func (p *parser) hierarchyRoot(l []byte) {
	i := bytes.Index(l, viewRootMark)
	id := rootID(l, i)
	if id == "" {
		return
	}
	pr := p.curProc()
	if pr.hier == nil {
		pr.hier = map[string]string{}
	}
	pr.hier[id] = string(trimSpace(l[:i]))
}

func (p *parser) viewRoot(l []byte) {
	i := bytes.Index(l, viewRootMark)
	title := string(trimSpace(l[:i]))
	id := rootID(l, i)
	vis, visEnd := -1, -1 // visEnd: the index just past "(visibility=N)"
	if j := bytes.Index(l, visibilityMark); j >= 0 {
		if v, n, ok := parseInt(l[j+len(visibilityMark):]); ok && n > 0 && v >= -1 && v < 1<<16 {
			vis = int(v)
			if k := j + len(visibilityMark) + n; k < len(l) && l[k] == ')' {
				visEnd = k + 1
			}
		}
	}
	w := p.newWindow(title, vis)
	w.Root, w.rootTitle = id, title
	// After its id a view-root line holds only " (visibility=N)" (nothing on Android 4): any
	// other text is another line run into it, and the id and title before it may be cut too
	// (one read "….MaiO/android.view.ViewRootImpl@1a2bWindow: com.exa…" for ".Main …@1a2b30";
	// another "…/KPopup/…@1a2b31 (visibility=0)Window: com.example.app/.Popup" for ".Popup",
	// its "Window:" line run in after the visibility).
	rest := trimSpace(l[i+len(viewRootMark)+len(id):])
	if id == "" || len(rest) > 0 && (!bytes.HasPrefix(rest, visibilityMark) || visEnd < 0 || len(trimSpace(l[visEnd:])) > 0) {
		w.rootDamaged = true
	}
	p.oldTable = false
}

func (p *parser) windowLine(title string) {
	// The "Window:" line names the view root printed just before it (framestats output).
	if w := p.curWin(); w != nil && !w.named && w.Rows == 0 && w.Summary == nil {
		w.Title = title
		w.named = true
		return
	}
	vis := -1
	w := p.newWindow(title, vis)
	w.named = true
}

// number reads a "Number <cause>: N" line.
func (p *parser) number(b []byte) {
	c := bytes.LastIndexByte(b, ':')
	if c < 0 {
		p.warn("unreadable Number line")
		return
	}
	name := string(trimSpace(b[:c]))
	v, ok := firstInt(b[c+1:])
	if !ok {
		p.warn("unreadable Number line")
		return
	}
	s := p.summary()
	switch name {
	case "Missed Vsync":
		s.MissedVsync = ptr(v)
	case "High input latency":
		s.HighInput = ptr(v)
	case "Slow UI thread":
		s.SlowUIThread = ptr(v)
	case "Slow bitmap uploads":
		s.SlowBitmap = ptr(v)
	case "Slow issue draw commands", "Slow draw":
		s.SlowIssue = ptr(v)
	case "Frame deadline missed":
		s.DeadlineMiss = ptr(v)
	case "Frame deadline missed (legacy)":
		// Android 12+'s legacy counter; AndroidSummary has no field for it (Android 9–11 printed
		// the same counter as "Frame deadline missed", which is kept).
	default:
		if !counterName(name) {
			p.warn("unreadable Number line") // damaged text, not a new counter
			return
		}
		p.warn("unknown counter \"Number " + name + "\"")
	}
}

// counterName reports whether s can be the name of a counter: letters, spaces, parentheses.
func counterName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c|0x20 >= 'a' && c|0x20 <= 'z') && c != ' ' && c != '(' && c != ')' && c != '-' {
			return false
		}
	}
	return s != ""
}

// percentile reads "50th percentile: 11ms" (gpu percentiles are skipped). It reports whether
// the line was a percentile line.
func (p *parser) percentile(l []byte) bool {
	which := string(l[:min(len(l), 5)])
	if which != "50th " && which != "90th " && which != "95th " && which != "99th " {
		return false
	}
	r := l[5:]
	if hasPrefix(r, "gpu percentile:") {
		return true
	}
	if !hasPrefix(r, "percentile:") {
		return false
	}
	v, ok := firstInt(r[len("percentile:"):])
	if !ok || v < 0 {
		p.warn("unreadable percentile line")
		return true
	}
	f := ptr(float64(v))
	s := p.summary()
	switch which {
	case "50th ":
		s.P50Ms = f
	case "90th ":
		s.P90Ms = f
	case "95th ":
		s.P95Ms = f
	case "99th ":
		s.P99Ms = f
	}
	return true
}

// histogram reads " 5ms=0 6ms=3 …". A histogram with an unreadable entry (a cut line) is
// dropped entirely, with a warning: a partial histogram would present wrong numbers as right.
func (p *parser) histogram(b []byte) {
	h, ok := histogramBuckets(b, make([]source.Bucket, 0, bytes.Count(b, []byte{'='})))
	if !ok {
		p.warn("unreadable HISTOGRAM line dropped")
		return
	}
	p.summary().Histogram = h
}

// histogramBuckets reads the buckets of a HISTOGRAM line whatever their labels, appending to
// hist; ok is false when the line is unreadable.
func histogramBuckets(b []byte, hist []source.Bucket) (_ []source.Bucket, ok bool) {
	i, n := 0, len(b)
	for {
		for i < n && (b[i] == ' ' || b[i] == '\t') {
			i++
		}
		if i == n {
			break
		}
		// "<ms>ms=<count>", both small non-negative integers (at most 12 digits).
		var ms, c uint64
		s := i
		for i < n && b[i]-'0' <= 9 {
			ms = ms*10 + uint64(b[i]-'0')
			i++
		}
		if i == s || i-s > 12 || i+3 > n || b[i] != 'm' || b[i+1] != 's' || b[i+2] != '=' {
			return nil, false
		}
		i += 3
		s = i
		for i < n && b[i]-'0' <= 9 {
			c = c*10 + uint64(b[i]-'0')
			i++
		}
		if i == s || i-s > 12 || (i < n && b[i] != ' ' && b[i] != '\t') {
			return nil, false
		}
		hist = append(hist, source.Bucket{Ms: int(ms), Count: int64(c)})
	}
	return hist, true
}

func isProfileTableHeader(l []byte) bool {
	s := string(trimSpace(l))
	return s == "Draw\tPrepare\tProcess\tExecute" || s == "Draw\tProcess\tExecute"
}

// isProfileTableRow reports whether l is a row of the old profile table: 3 or 4 tab-separated
// decimal numbers.
func isProfileTableRow(l []byte) bool {
	fields := 0
	for _, f := range bytes.Split(trimSpace(l), []byte{'\t'}) {
		if len(f) == 0 {
			return false
		}
		for _, c := range f {
			if (c < '0' || c > '9') && c != '.' && c != ',' {
				return false
			}
		}
		fields++
	}
	return fields == 3 || fields == 4
}

// uptimeLine reads the rest of an "Uptime: N Realtime: M" line (ms) in ns. The line must read
// whole: a garbage byte anywhere in it may have changed a digit too (one capture's line read
// "Uptime: 331235067 Realtime:\xef1406565576", 30 s ahead), and a dump without an Uptime is
// read safely, its time taken from its rows.
func uptimeLine(b []byte) (up, rt int64, ok bool) {
	const maxMs = int64Max / 1_000_000
	b = trimLeft(bytes.TrimRight(b, " \t\r"))
	v, n, ok := parseInt(b)
	if !ok || n == 0 || v <= 0 || v >= maxMs || b[0] == '-' || b[0] == '+' {
		return 0, 0, false
	}
	b = trimSpace(b[n:])
	if len(b) == 0 {
		return v * 1_000_000, 0, true
	}
	if !bytes.HasPrefix(b, []byte("Realtime:")) {
		return 0, 0, false
	}
	b = trimLeft(b[len("Realtime:"):])
	r, n, ok := parseInt(b)
	if !ok || n == 0 || n != len(b) || r <= 0 || r >= maxMs || b[0] == '-' || b[0] == '+' {
		return 0, 0, false
	}
	return v * 1_000_000, r * 1_000_000, true
}

// ptr returns a pointer to a copy of v (a summary's field: nil when not printed).
func ptr[T any](v T) *T { return &v }
